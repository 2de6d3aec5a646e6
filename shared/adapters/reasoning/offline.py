"""OfflineReasoner: the embedded, LLM-free mind (deterministic, extractive, no network).

Every answer is built from sentences the sources wrote, chosen by BM25 relevance and
Maximal Marginal Relevance (``shared.tools.lexical``); the only prose of its own is the fixed
wording in ``templates``. Decisions (clarify, plan, agent steps, supervision) follow simple,
documented rules (``offline_research``), chat and search answers are written in
``offline_answers`` and the report is assembled in ``offline_report``, so
the same query over the same corpus always yields the same report. It is the default when
no LLM endpoint is configured and what end-to-end tests run.
"""

from __future__ import annotations

from datetime import date

from shared.adapters.reasoning import (
    offline_ask,
    offline_meaning,
    offline_plan,
    offline_report,
    offline_research,
    offline_supervisor,
    report_stream,
)
from shared.adapters.reasoning.offline_answers import OfflineAnswers
from shared.adapters.reasoning.offline_chain import OfflineChainRoles
from shared.adapters.reasoning.offline_completeness import OfflineCompleteness
from shared.adapters.reasoning.offline_coverage import OfflineCoverage
from shared.adapters.reasoning.question_shape import subject_of
from shared.adapters.reasoning.question_terms import searched_for
from shared.adapters.reasoning.templates import texts_for
from shared.adapters.search.base import Corpus
from shared.adapters.search.temporal import parse_time_range
from shared.core.report_models import FinalReport, ReportMaterial
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
from shared.core.source_models import Page, PageSummary, TimeRange
from shared.tools import lexical


class OfflineReasoner(
    OfflineAnswers,
    OfflineChainRoles,
    OfflineCompleteness,
    OfflineCoverage,
    offline_ask.OfflineAsking,
):
    """Reasoner over the local corpus and the pages handed in; see module docstring."""

    name = "offline"

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def time_range(self, query: str, today: date) -> TimeRange | None:
        """No model to ask: the rules' answer (the extractor asks only when they had none)."""
        return parse_time_range(query, today)

    def search_queries(self, query: str, n: int, language: str) -> list[str]:
        t = texts_for(language)
        subject = subject_of(query)
        concepts = lexical.candidate_phrases(query) or [subject]
        phrases = self.corpus.key_phrases(query, 4)
        carried = searched_for(query, self.corpus.idf, language)  # the corpus is English
        candidates = [
            " ".join(query.split()),
            *([carried] if carried and carried != query else []),
            f"{subject} {t['q_explained']}",
            f"{concepts[0]} {t['q_overview']}",
            *(f"{subject} {p}" for p in phrases),
            *(f"{subject} {t[k]}" for k in ("q_examples", "q_pitfalls", "q_when_to_use")),
        ]
        return lexical.unique_texts(candidates)[: max(n, 0)]

    def follow_up_queries(
        self, query: str, summaries: list[PageSummary], n: int, language: str
    ) -> list[str]:
        t = texts_for(language)
        subject = subject_of(query)
        texts = [s.summary for s in summaries] + [
            x for s in summaries for x in s.relevant_sentences
        ]
        phrases = lexical.key_phrases(texts, max(n, 0) * 2, idf=self.corpus.idf, exclude=[query])
        fallback = (f"{subject} {t[k]}" for k in ("q_examples", "q_pitfalls", "q_how_it_works"))
        queries = lexical.unique_texts(
            [*(f"{subject} {p}" for p in phrases), *fallback], skip=[query]
        )
        return queries[: max(n, 0)]

    # -- deep research: rules in offline_research, the report in offline_report ---

    def clarify(self, context: ResearchContext) -> ClarificationRequest:
        return offline_research.clarify(context)

    def analyze(self, context: ResearchContext) -> QueryAnalysis:
        return offline_research.analyze(context)

    def plan(
        self, context: ResearchContext, analysis: QueryAnalysis, max_topics: int
    ) -> ResearchPlan:
        return offline_plan.plan(self.corpus, context, analysis, max_topics)

    def agent_profiles(
        self, context: ResearchContext, plan: ResearchPlan, n: int
    ) -> list[AgentProfile]:
        return offline_research.agent_profiles(context, n)

    def agent_step(self, state: AgentState) -> AgentAction:
        return offline_research.agent_step(state)

    def write_finding(self, state: AgentState, pages: list[Page]) -> Finding:
        return offline_research.write_finding(state, pages, self._sentences, self.corpus.idf)

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
        # A section comes from its own finding's sentences: the draft cannot change it.
        return offline_supervisor.supervise(context, plan, finding, findings, todos, calls_left)

    def write_report(self, material: ReportMaterial) -> FinalReport:
        name, documents = self.corpus.describe()
        query, language = material.context.query, material.context.language
        note = texts_for(language)["engine_note"].format(corpus=name, documents=documents)
        sentences, meant = offline_meaning.report_inputs(self.corpus, query, language)
        report = offline_report.write_report(
            material,
            note,
            self.follow_up_questions,
            self.corpus.idf,
            sentences,
            meant,
            self.corpus.member_of,
        )
        report_stream.offer_report(report)
        return report
