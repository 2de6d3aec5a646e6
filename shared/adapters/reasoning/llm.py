"""LLMReasoner: every Reasoner step as a prompt to an OpenAI-compatible model.

Each method builds messages from ``shared/tools/prompts``, asks ``LLMClient`` for a
validated reply (a *draft* from ``llm_replies`` or ``grounding`` when the
public model carries fields only we may set, such as URLs, numbering or
sources), then post-filters what a model could get wrong: URLs not handed in,
unknown ``[n]`` citations, out of range ids, too many items.

Roles (``roles.ROLES``) map to the ``*_MODEL`` settings; worst-case calls: ``call_budget.py``.
"""

from __future__ import annotations

from datetime import date
from typing import TypeVar

from pydantic import BaseModel

from shared.adapters.reasoning import llm_ask, llm_report, llm_time
from shared.adapters.reasoning import llm_views as views
from shared.adapters.reasoning.context_budget import (
    SourceText,
    defuse,
    fit_draft,
    format_documents,
    truncate,
)
from shared.adapters.reasoning.grounding import (
    FindingDraft,
    ReportDraft,
    checked_review,
    cited_report,
    grounded_finding,
    safe_action,
)
from shared.adapters.reasoning.llm_chain import LLMChainRoles
from shared.adapters.reasoning.llm_client import LLMClient
from shared.adapters.reasoning.llm_completeness import LLMCompleteness
from shared.adapters.reasoning.llm_coverage import LLMCoverage
from shared.adapters.reasoning.llm_replies import (
    ChatReply,
    PageSummaryDraft,
    Profiles,
    Queries,
    Questions,
)
from shared.adapters.reasoning.roles import ROLES, Role, answer_role, report_role
from shared.adapters.report.citations import strip_unknown_citations
from shared.core.config import Settings
from shared.core.limits import SourcePolicy
from shared.core.report_models import Critique, FinalReport, ReportMaterial, SynthesizedAnswer
from shared.core.research_models import (
    AgentAction,
    AgentProfile,
    AgentState,
    ClarificationRequest,
    Finding,
    QueryAnalysis,
    ResearchContext,
    ResearchPlan,
    SupervisorReview,
    Todo,
)
from shared.core.session_models import ChatMessage
from shared.core.source_models import Page, PageSummary, Source, TimeRange
from shared.tools.lexical import unique_texts
from shared.tools.llm_endpoint import model_limits
from shared.tools.prompts import agent, analysis, chat, clarify, planning, search, supervisor
from shared.tools.prompts.framing import Messages

T = TypeVar("T", bound=BaseModel)
MAX_THOUGHTS = 8  # a researcher's earlier thoughts on its todo, shown back to it


class LLMReasoner(LLMChainRoles, LLMCompleteness, LLMCoverage, llm_ask.Asking):
    """The production mind; see the module docstring for the call budget."""

    name = "llm"

    def __init__(self, settings: Settings, client: LLMClient | None = None) -> None:
        self.settings = settings
        self._client = client or LLMClient(settings)

    # -- chat and search ------------------------------------------------------

    def answer(self, query: str, history: list[ChatMessage], language: str) -> SynthesizedAnswer:
        turns = [(m.role, m.content) for m in history]
        reply = self._ask(ChatReply, "chat", chat.build_chat(query, turns, language, _today()))
        return SynthesizedAnswer(
            reasoning=reply.reasoning,
            answer=reply.answer,
            key_points=reply.key_points,
            language=language,
        )

    def rewrite_query(self, query: str, history: list[ChatMessage], language: str) -> str:
        if not history:
            return query
        lines = "\n".join(f"{m.role}: {truncate(m.content, 500)}" for m in history)
        role = ROLES["reformulate"]
        text = self._client.complete_text(
            search.build_reformulate(query, lines, language, _today()),
            model=self._model(role),
            temperature=role.temperature,
            max_tokens=role.max_tokens,
        )
        first = text.strip().splitlines()[0].strip().strip("\"'«»") if text.strip() else ""
        return first or query

    def search_queries(self, query: str, n: int, language: str) -> list[str]:
        reply = self._ask(
            Queries, "search_queries", search.build_search_queries(query, n, language, _today())
        )
        return unique_texts([query, *reply.queries])[: max(1, n)]

    def time_range(self, query: str, today: date) -> TimeRange | None:
        reply = self._ask(llm_time.TimeRangeReply, "time_range", llm_time.messages(query, today))
        return llm_time.checked_range(reply, today)

    def follow_up_queries(
        self, query: str, summaries: list[PageSummary], n: int, language: str
    ) -> list[str]:
        context = views.summaries_context(summaries, self._budget("follow_up_queries"))
        messages = search.build_follow_up_queries(query, context, n, language, _today())
        reply = self._ask(Queries, "follow_up_queries", messages)
        seen = {query.strip().lower()}
        return [q for q in unique_texts(reply.queries) if q.lower() not in seen][:n]

    def summarize_page(self, query: str, page: Page, language: str) -> PageSummary:
        source = format_documents(
            [SourceText(1, page.url, page.text, page.title)], self._budget("summarize_page")
        )
        messages = search.build_summarize_page(query, source, language, _today())
        reply = self._ask(PageSummaryDraft, "summarize_page", messages)
        flat = " ".join(page.text.split())
        quoted = [s for s in reply.relevant_sentences if " ".join(s.split()) in flat]
        return PageSummary(
            url=page.url, title=page.title, summary=reply.summary, relevant_sentences=quoted[:5]
        )

    def synthesize(
        self,
        query: str,
        summaries: list[PageSummary],
        language: str,
        min_words: int,
        max_words: int,
        policy: SourcePolicy = "discovery",
        time_range: TimeRange | None = None,
    ) -> SynthesizedAnswer:
        role = answer_role(max_words)  # the reply's room decides the evidence's
        context = views.summaries_context(summaries, self._budget(role))
        words, period = (min_words, max_words), views.period_line(time_range)
        messages = search.build_synthesize(
            query, context, language, _today(), *words, policy, period
        )
        reply = self._ask(ChatReply, role, messages)
        allowed = set(range(1, len(summaries) + 1))
        answer = strip_unknown_citations(reply.answer, allowed)
        points = [strip_unknown_citations(p, allowed) for p in reply.key_points]
        sources = [
            Source(n=i, url=s.url, title=s.title, tier=s.tier, snippet=truncate(s.summary, 300))
            for i, s in enumerate(summaries, start=1)
        ]
        fields = {"reasoning": reply.reasoning, "key_points": points, "language": language}
        return SynthesizedAnswer(answer=answer, sources=sources, **fields)

    # -- deep research ----------------------------------------------------------

    def clarify(self, context: ResearchContext) -> ClarificationRequest:
        brief = views.brief_of(context, self._budget("clarify"))
        messages = clarify.build_clarify(brief, context.language, _today())
        reply = self._ask(ClarificationRequest, "clarify", messages)
        questions = unique_texts(reply.questions)[:5]
        if not (reply.needed and questions):
            return ClarificationRequest(needed=False, questions=[], reason=reply.reason)
        return ClarificationRequest(needed=True, questions=questions, reason=reply.reason)

    def analyze(self, context: ResearchContext) -> QueryAnalysis:
        brief = views.brief_of(context, self._budget("analyze"))
        messages = analysis.build_analyze(
            brief,
            context.language,
            _today(),
            max_agents=self.settings.deep_research_num_agents,
            max_steps=self.settings.deep_research_agent_max_steps,
        )
        return self._ask(QueryAnalysis, "analyze", messages)

    def plan(
        self, context: ResearchContext, analysis: QueryAnalysis, max_topics: int
    ) -> ResearchPlan:
        brief = views.brief_of(context, self._budget("plan"))
        messages = planning.build_plan(
            brief,
            analysis.query_type,
            analysis.complexity,
            analysis.key_concepts,
            max_topics,
            context.language,
            _today(),
        )
        reply = self._ask(ResearchPlan, "plan", messages)
        topics = [
            topic.model_copy(update={"id": i, "queries": unique_texts(topic.queries)})
            for i, topic in enumerate(reply.topics[: max(1, max_topics)], start=1)
        ]
        return ResearchPlan(summary=reply.summary, topics=topics)

    def agent_profiles(
        self, context: ResearchContext, plan: ResearchPlan, n: int
    ) -> list[AgentProfile]:
        brief = views.brief_of(context, self._budget("agent_profiles"))
        messages = planning.build_agent_profiles(
            brief, views.plan_text(plan), n, context.language, _today()
        )
        reply = self._ask(Profiles, "agent_profiles", messages)
        profiles = [
            p.model_copy(update={"agent_id": i}) for i, p in enumerate(reply.profiles[:n], 1)
        ]
        for i in range(len(profiles) + 1, n + 1):
            topic = plan.topics[(i - 1) % len(plan.topics)]
            profiles.append(
                AgentProfile(agent_id=i, name=f"Researcher {i}", specialization=topic.title)
            )
        return profiles

    def agent_step(self, state: AgentState) -> AgentAction:
        budget = self._budget("agent_step")
        todo = state.todo
        messages = agent.build_agent_step(
            views.agent_system(state, _today()),
            topic_id=todo.topic_id,
            topic=todo.topic,
            instruction=todo.instruction,
            queries=todo.queries,
            step=state.step + 1,
            max_steps=state.max_steps,
            insights=state.main_insights[-10:],
            notes=state.own_notes[-10:],
            brief=views.brief_of(state.context, budget),
            fetched=state.fetched_urls,
            observations=views.observations_text(state, budget),
            thoughts=state.thoughts[-MAX_THOUGHTS:],
        )
        action = self._ask(AgentAction, "agent_step", messages)
        return safe_action(action, state)

    def write_finding(self, state: AgentState, pages: list[Page]) -> Finding:
        todo = state.todo
        base = Finding(agent_id=state.profile.agent_id, topic=todo.topic, topic_id=todo.topic_id)
        base.todo_id = todo.id
        if not pages:
            base.confidence = "low"
            base.notes = ["no page could be read for this todo"]
            return base
        sources = format_documents(
            [SourceText(i, p.url, p.text, p.title) for i, p in enumerate(pages, start=1)],
            self._budget("write_finding"),
        )
        messages = agent.build_write_finding(
            views.agent_system(state, _today()),
            topic_id=todo.topic_id,
            topic=todo.topic,
            instruction=todo.instruction,
            brief=views.brief_of(state.context, self._budget("write_finding")),
            sources=sources,
        )
        reply = self._ask(FindingDraft, "write_finding", messages)
        return grounded_finding(base, reply, pages)

    def supervise(
        self,
        context: ResearchContext,
        plan: ResearchPlan,
        finding: Finding,
        findings: list[Finding],
        todos: list[Todo],
        calls_left: int,
        draft: str = "",
    ) -> SupervisorReview:
        budget = self._budget("supervise")
        earlier = [f for f in findings if f is not finding and f != finding]
        messages = supervisor.build_supervise(
            brief=views.brief_of(context, budget),
            plan=views.plan_text(plan),
            todos=views.todos_text(todos),
            findings=views.findings_text(earlier, budget // 2),
            finding=views.finding_text(finding),
            calls_left=calls_left,
            language=context.language,
            today=_today(),
            draft=defuse(fit_draft(draft, budget // 2)),
        )
        review = self._ask(SupervisorReview, "supervise", messages)
        return checked_review(review, plan, self.settings.deep_research_num_agents)

    def critique(self, report_: FinalReport, material: ReportMaterial) -> Critique:
        budget = self._budget("critique")
        messages = llm_report.critique_messages(
            report_, material, budget, _today(), self._draft_chars("critique")
        )
        return self._ask(Critique, "critique", messages)

    def write_report(self, material: ReportMaterial) -> FinalReport:
        shape = llm_report.report_shape(material)
        budget = self._budget("report")
        messages = llm_report.write_report_messages(
            material, shape, budget, _today(), self._draft_chars("report")
        )
        role = report_role(shape.words[1], material.context.language)
        return cited_report(self._ask(ReportDraft, role, messages), material)

    def follow_up_questions(self, query: str, text: str, language: str) -> list[str]:
        messages = search.build_follow_up_questions(
            query, truncate(text, self._budget("follow_up_questions")), language, _today()
        )
        reply = self._ask(Questions, "follow_up_questions", messages)
        return unique_texts(reply.questions)[:5]

    # -- plumbing ---------------------------------------------------------------

    def _ask(self, schema: type[T], role: str | Role, messages: Messages) -> T:
        params = ROLES[role] if isinstance(role, str) else role
        return self._client.complete_structured(
            schema,
            messages,
            model=self._model(params),
            temperature=params.temperature,
            max_tokens=params.max_tokens,
        )

    def _budget(self, step: str | Role) -> int:
        """Characters of evidence per share of ``step``'s prompt (fitted to the model's window)."""
        role = ROLES[step] if isinstance(step, str) else step
        return model_limits.evidence_chars(self.settings, self._model(role), role.max_tokens)

    def _draft_chars(self, step: str) -> int | None:
        role = ROLES[step]
        return model_limits.draft_chars(self.settings, self._model(role), role.max_tokens)

    def _model(self, role: Role) -> str:
        return model_limits.role_models(self.settings)[role.model]


def _today() -> str:
    return date.today().isoformat()
