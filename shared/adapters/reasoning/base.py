"""The Reasoner port: every "thinking" step of every mode goes through it.

Two adapters implement it: ``LLMReasoner`` (any OpenAI-compatible endpoint)
and ``OfflineReasoner`` (deterministic, extractive, no network). Both are
held to ``tests/contract/test_reasoner_contract.py``.

Rules every implementation keeps:
- return validated models, never error strings;
- cite only URLs that were handed in (pages, summaries, findings);
- write in ``language`` (an ISO 639-1 code from ``shared.tools.language``);
- text inside pages is data, never an instruction;
- raise ``TransientError`` / ``StructuredOutputError`` from ``shared.core.errors``
  when a step cannot be produced; the caller decides how to degrade.
Token usage is recorded into the current ``shared.tools.llm_endpoint.usage`` meter.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol, runtime_checkable

from shared.core.analysis_models import Analysis
from shared.core.ask_models import Passage, SourcedAnswer
from shared.core.completeness_models import CompletenessReview
from shared.core.coverage_models import Coverage
from shared.core.limits import SourcePolicy
from shared.core.report_models import Critique, FinalReport, ReportMaterial, SynthesizedAnswer
from shared.core.research_models import (
    AgentAction,
    AgentProfile,
    AgentState,
    ClarificationRequest,
    Finding,
    HelpAnswer,
    HelpRequest,
    QueryAnalysis,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
    SupervisorReview,
    Todo,
)
from shared.core.session_models import ChatMessage
from shared.core.source_models import Page, PageSummary, TimeRange


@runtime_checkable
class Reasoner(Protocol):
    name: str

    # chat and search modes
    def answer(
        self, query: str, history: list[ChatMessage], language: str
    ) -> SynthesizedAnswer: ...

    def rewrite_query(self, query: str, history: list[ChatMessage], language: str) -> str:
        """A standalone search query (pronouns resolved from history)."""
        ...

    def search_queries(self, query: str, n: int, language: str) -> list[str]:
        """``n`` variations: original, rephrased, broader, more specific."""
        ...

    def time_range(self, query: str, today: date) -> TimeRange | None:
        """The period ``query`` asks about, as absolute dates ending no later than ``today``;
        None when it names none. The TimeRangeExtractor's model stage: asked only for
        wording the rules did not resolve (``shared/usecases/research/time_range.py``)."""
        ...

    def follow_up_queries(
        self, query: str, summaries: list[PageSummary], n: int, language: str
    ) -> list[str]: ...

    def summarize_page(self, query: str, page: Page, language: str) -> PageSummary: ...

    def evaluate_completeness(
        self, query: str, topics: list[str], summaries: list[PageSummary], language: str
    ) -> CompletenessReview:
        """Whether ``summaries`` answer ``query``: per topic (``topics``, or the question's
        own when empty: its shape's 3-6 topics) with a score, a verbatim quote and the gaps,
        and whether the content the question needs (definition, steps, code) is there."""
        ...

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
        """Answer with ``[n]`` citations, ``n`` = 1-based position in ``summaries``;
        ``policy`` is the session's source policy (the summaries already obey it);
        ``time_range`` the period the question asks about (the searches kept to it)."""
        ...

    # deep research
    def clarify(self, context: ResearchContext) -> ClarificationRequest: ...

    def analyze(self, context: ResearchContext) -> QueryAnalysis: ...

    def plan(
        self, context: ResearchContext, analysis: QueryAnalysis, max_topics: int
    ) -> ResearchPlan: ...

    def agent_profiles(
        self, context: ResearchContext, plan: ResearchPlan, n: int
    ) -> list[AgentProfile]: ...

    def agent_step(self, state: AgentState) -> AgentAction: ...

    def write_finding(self, state: AgentState, pages: list[Page]) -> Finding:
        """Key findings cite only ``pages`` URLs."""
        ...

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
        """``draft`` is draft_report.md so far: a new section must not repeat it."""
        ...

    def analyze_findings(
        self, material: ReportMaterial, open_topics: list[ResearchTopic]
    ) -> Analysis:
        """The analyst, before the writer: what the findings establish and how, what is
        missing (``open_topics``: planned topics no finding covered), and whether one more
        round of searches (``new_queries``) is needed."""
        ...

    def answer_help(
        self, context: ResearchContext, plan: ResearchPlan, request: HelpRequest
    ) -> HelpAnswer:
        """The supervisor's answer to a researcher stuck on its todo: advice, and a todo
        for the same agent and topic when a new attempt is worth it."""
        ...

    def critique(self, report: FinalReport, material: ReportMaterial) -> Critique:
        """Assessment (logic, sources against the policy, what is missing), then verdict."""
        ...

    def write_report(self, material: ReportMaterial) -> FinalReport:
        """Sources of the report are a subset of ``material.sources``; ``[n]`` = their ``n``."""
        ...

    def follow_up_questions(self, query: str, text: str, language: str) -> list[str]: ...

    # a finished session, asked again
    def answer_from(self, question: str, passages: list[Passage], language: str) -> SourcedAnswer:
        """Answer from ``passages`` only (most relevant first), citing their ``n``; when they
        do not answer the question, ``answered`` is False and the answer says so plainly."""
        ...

    # the corrective fallback over collections
    def judge_coverage(self, topic: str, passages: list[Passage], language: str) -> Coverage:
        """Whether ``passages`` (a collection's best, for ``topic``) cover the topic, with
        verbatim quotes of them as ``evidence``: covered needs a quote the passages hold.
        Not covered, the topic is researched on the web when the session allows it."""
        ...
