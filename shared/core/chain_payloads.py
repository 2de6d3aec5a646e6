"""Payloads of the analyst step (``analyze_findings``) of the analyst-critic-writer chain.

Kept apart from ``payloads.py`` so each module holds one concept; like every
payload they carry names of memory files, never their text. Every field of the
reply has a default: the orchestrator reads only what it acts on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from shared.core.analysis_models import ReasoningType
from shared.core.payloads import ContextIn, Metered

PREVIEW_CHARS = 150  # of an analysis or a critique, in the status and on the web page


def preview(text: str) -> str:
    """The first ``PREVIEW_CHARS`` characters, with "..." when cut."""
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "..."


class AnalyzeIn(ContextIn):
    iteration: int = 1  # 2: after the one extra round of searches


class AnalystOut(Metered):
    verdict: Literal["READY", "SEARCH_REQUIRED"] = "READY"
    new_queries: list[str] = Field(default_factory=list)
    # per new query, the planned topic it searches for (0: none), so its finding covers it
    topic_ids: list[int] = Field(default_factory=list)
    missing_information: list[str] = Field(default_factory=list)
    reasoning_type: ReasoningType = "induction"
    core_findings: int = 0
    citations: int = 0  # distinct sources the core findings cite
    preview: str = ""
