"""The analyst role of the LLM reasoner: the prompt from the report material, the reply
checked (queries de-duplicated and capped, a SEARCH_REQUIRED without queries is READY)."""

from __future__ import annotations

from collections.abc import Callable

from shared.adapters.reasoning import llm_views as views
from shared.core.analysis_models import MAX_NEW_QUERIES, Analysis
from shared.core.report_models import ReportMaterial
from shared.core.research_models import ResearchTopic
from shared.tools.lexical import unique_texts
from shared.tools.prompts import analyst
from shared.tools.prompts.framing import Messages

Ask = Callable[[type[Analysis], str, Messages], Analysis]


def analyze_findings(
    ask: Ask, budget: int, today: str, material: ReportMaterial, open_topics: list[ResearchTopic]
) -> Analysis:
    numbers = {s.url: s.n for s in material.sources}
    messages = analyst.build_analyze_findings(
        brief=views.brief_of(material.context, budget),
        sources=views.evidence_context(material.sources, material.excerpts, budget),
        findings=views.findings_text(material.findings, budget // 2, numbers),
        open_topics=[t.title for t in open_topics],
        max_queries=MAX_NEW_QUERIES,
        language=material.context.language,
        today=today,
    )
    return checked_analysis(ask(Analysis, "analyst", messages))


def checked_analysis(analysis: Analysis) -> Analysis:
    """What the orchestrator may act on: a search round only with queries to run."""
    queries = unique_texts(analysis.new_queries)[:MAX_NEW_QUERIES]
    if analysis.verdict != "SEARCH_REQUIRED" or not queries:
        return analysis.model_copy(update={"verdict": "READY", "new_queries": []})
    return analysis.model_copy(update={"new_queries": queries})
