"""What a reader gets: the search modes' answer and the deep research report, and their review.

``ReportMaterial`` is what the writer reads (research context, findings,
sources and excerpts already trimmed to the context budget); ``FinalReport``
and ``SynthesizedAnswer`` are what it writes, with their sources numbered;
``Critique`` is the critic's verdict on a report.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.core.analysis_models import Analysis
from shared.core.completeness_models import ContentCheck, TopicCompleteness
from shared.core.research_models import Confidence, Finding, QueryAnalysis, ResearchContext
from shared.core.source_models import Source, SourceExcerpt


class SynthesizedAnswer(BaseModel):
    reasoning: str = ""
    answer: str
    key_points: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    follow_up_questions: list[str] = Field(default_factory=list)
    language: str = "en"
    # what the answer had to do without (a failed search, an unreadable page, a fallback)
    limitations: list[str] = Field(default_factory=list)
    # per topic of the question: covered, score, evidence, gaps (the search modes' check)
    completeness: list[TopicCompleteness] = Field(default_factory=list)
    content: ContentCheck | None = None  # definition / steps / code the question needed


ModeCompliance = Literal["compliant", "minor_deviations", "non_compliant"]


class Critique(BaseModel):
    """The assessment first, the verdict last (it is drawn from it): a model writes
    structured fields in schema order. ``logical_gaps`` are failures of deduction,
    induction (sample size, representativeness), abduction (alternative explanations)
    or correlation taken for causation; ``mode_compliance`` and ``source_issues``
    judge the sources against the session's source policy; ``missing_information``
    is what only a new search could supply (a REJECT naming it may start one)."""

    issues: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    mode_compliance: ModeCompliance = "compliant"
    logical_gaps: list[str] = Field(default_factory=list)
    source_issues: list[str] = Field(default_factory=list)
    missing_information: list[str] = Field(default_factory=list)
    verdict: Literal["PASS", "WARN", "REJECT"]


class ReportSection(BaseModel):
    heading: str
    content: str


class FollowUpOf(BaseModel):
    """The finished research a follow-up builds on (``options.follow_up_of``)."""

    session_id: str
    query: str


class FinalReport(BaseModel):
    title: str
    executive_summary: str
    sections: list[ReportSection] = Field(min_length=3)
    conclusion: str
    sources: list[Source] = Field(default_factory=list)
    confidence_level: Confidence = "medium"
    follow_up_questions: list[str] = Field(default_factory=list)
    language: str = "en"
    warnings: list[str] = Field(default_factory=list)
    # How the run fell short (a phase that failed, an agent, the budget): a section of its own.
    limitations: list[str] = Field(default_factory=list)
    # 1-10 from the report validation (length, sections, citations, the critic's verdict)
    quality_score: int | None = Field(default=None, ge=1, le=10)
    # pages the research read that the report never cites inline (it cites ``sources``)
    also_consulted: list[Source] = Field(default_factory=list)
    # how the report was reached: the analyst's reasoning, the searches, the critic's rounds
    methodology_note: str = ""
    # the research this one follows up; the Markdown names and links it
    follow_up_of: FollowUpOf | None = None


class ReportMaterial(BaseModel):
    """What the writer gets, already trimmed to the context budget."""

    context: ResearchContext
    primary: str = ""  # the reviewed report, the draft report or main.md text
    insights: list[str] = Field(default_factory=list)  # main.md's key insights, beside the draft
    primary_kind: Literal["reviewed", "draft", "main", "findings"] = "findings"
    findings: list[Finding] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    excerpts: list[SourceExcerpt] = Field(default_factory=list)  # evidence, by source URL
    critique: Critique | None = None
    gaps: list[str] = Field(default_factory=list)  # what was not researched, and why
    analysis: QueryAnalysis | None = None  # decides the report's length and shape
    analyst: Analysis | None = None  # what the analyst concluded from the findings
