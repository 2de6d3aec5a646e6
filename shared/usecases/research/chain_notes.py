"""What the analyst-critic-writer chain leaves for the writer: ``analyst.json`` (the latest
analysis and its iteration), the methodology note built from it when the writer wrote
none (the offline writer, the draft fallback), and the critique kept to its size."""

from __future__ import annotations

from pydantic import BaseModel

from shared.adapters.report.limits_text import say
from shared.adapters.stores.base import MemoryStore
from shared.core.analysis_models import Analysis
from shared.core.errors import NotFoundError
from shared.core.report_models import Critique

ANALYST_JSON, ANALYST_MD = "analyst.json", "analyst.md"
CRITIQUE_ITEMS = 10  # per list of the critique the orchestrator carries


class AnalystRecord(BaseModel):
    analysis: Analysis
    iteration: int = 1  # 2: the analysis after the extra round of searches


def read_analyst(memory: MemoryStore, session_id: str) -> AnalystRecord | None:
    try:
        return AnalystRecord.model_validate_json(memory.read(session_id, ANALYST_JSON))
    except NotFoundError:
        return None


def methodology_note(
    record: AnalystRecord | None, findings: int, sources: int, language: str
) -> str:
    """The chain's facts in the report's language: findings, sources, reasoning, searches."""
    reasoning = record.analysis.reasoning_type if record else "mixed"
    searched = record is not None and record.iteration > 1
    return say(
        language,
        "methodology",
        findings=findings,
        sources=sources,
        reasoning=say(language, f"reasoning_{reasoning}"),
        searches=say(language, "methodology_searched") if searched else "",
    ).replace("  ", " ")


def capped(critique: Critique) -> Critique:
    """Each list of the critique at most ``CRITIQUE_ITEMS`` long (orchestration payloads
    stay small; the most serious come first)."""
    lists = ("issues", "suggestions", "logical_gaps", "source_issues", "missing_information")
    return critique.model_copy(update={k: getattr(critique, k)[:CRITIQUE_ITEMS] for k in lists})
