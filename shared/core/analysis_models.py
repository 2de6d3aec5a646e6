"""The analyst-critic-writer chain: what the analyst concludes before anyone writes, and
the stages of the chain the status shows.

The analyst reads every finding and says what they establish (``core_findings``),
how (``logical_inference``, ``reasoning_type``) and what is still missing; with
``SEARCH_REQUIRED`` it names ``new_queries`` for one bounded round of searches
(``orchestrators/analysis_chain.py``). Field order is the order a model writes
structured output in: the assessment first, the verdict drawn from it last.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ReasoningType = Literal["induction", "deduction", "abduction", "mixed"]
ChainRole = Literal["analyst", "critic", "writer"]
MAX_NEW_QUERIES = 5  # what one analyst may ask to search; the round runs fewer when caps say so


class Analysis(BaseModel):
    """Assess, then decide: the findings' core, the inference, the gaps, the verdict."""

    core_findings: list[str] = Field(default_factory=list, max_length=12)
    logical_inference: str = ""
    reasoning_type: ReasoningType = "induction"
    missing_information: list[str] = Field(default_factory=list, max_length=8)
    verdict: Literal["READY", "SEARCH_REQUIRED"] = "READY"
    new_queries: list[str] = Field(default_factory=list, max_length=MAX_NEW_QUERIES)


class ChainStage(BaseModel):
    """One step of the chain as the status, the SSE stream and the web page show it:
    e.g. ``critic_review_complete``, iteration 1 of 3, with the critique's first words."""

    role: ChainRole
    stage: str
    iteration: int = 1
    of: int = 1
    status: str = ""  # the verdict a stage ends with: PASS/WARN/REJECT, READY/SEARCH_REQUIRED
    citations: int = 0  # analyst_draft_ready: the sources its core findings cite
    preview: str = ""
