"""ReportValidation: how good a finished report is, as a score the reader sees.

The specification asks for a ``quality_score`` from 1 to 10 but leaves its
fields open. Ours are the things a reader can check: the report is long
enough (:data:`MIN_REPORT_CHARS`), has its sections, cites its sources, was
written rather than salvaged, and the critic's last verdict. Each shortfall
costs a fixed number of points from 10 (:data:`PENALTIES`), so the score
explains itself. A too-short report is logged as critical, not failed: some
report is always better than none.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel

from shared.adapters.report.citations import cited_numbers
from shared.core.report_models import Critique, FinalReport

log = logging.getLogger(__name__)
MIN_REPORT_CHARS = 1500
MIN_SECTIONS = 3
PENALTIES = {
    "too_short": 3,
    "few_sections": 2,
    "no_citations": 3,
    "few_cited_sections": 1,
    "critic_warn": 1,
    "critic_reject": 3,
    "draft_as_report": 3,
    "minimal": 9,
}


class ReportValidation(BaseModel):
    """The metrics the specification names and the score drawn from them."""

    draft_length: int
    findings_count: int
    total_length: int
    sections: int
    cited_sections: int
    sources: int
    critic_verdict: str | None
    basis: str
    shortfalls: list[str]
    quality_score: int

    def too_short(self) -> str | None:
        """The status warning for a report under the minimum length (None when it is not)."""
        if self.total_length >= MIN_REPORT_CHARS:
            return None
        return (
            f"the report is too short: {self.total_length} characters, "
            f"under the {MIN_REPORT_CHARS} a report should have"
        )


def validate_report(
    report: FinalReport,
    *,
    basis: str,
    draft_length: int,
    findings_count: int,
    critique: Critique | None,
) -> ReportValidation:
    """Score ``report`` and log the metrics (a too-short report as CRITICAL)."""
    total = report_length(report)
    cited = sum(1 for s in report.sections if cited_numbers(s.content))
    shortfalls = _shortfalls(report, basis, total, cited, critique)
    score = max(1, min(10, 10 - sum(PENALTIES[s] for s in shortfalls)))
    validation = ReportValidation(
        draft_length=draft_length,
        findings_count=findings_count,
        total_length=total,
        sections=len(report.sections),
        cited_sections=cited,
        sources=len(report.sources),
        critic_verdict=critique.verdict if critique else None,
        basis=basis,
        shortfalls=shortfalls,
        quality_score=score,
    )
    if total < MIN_REPORT_CHARS:
        log.critical("CRITICAL: final report is too short! %d < %d chars", total, MIN_REPORT_CHARS)
    log.info(
        "Report generated and validated: draft_length=%d findings_count=%d total_length=%d "
        "sections=%d quality_score=%d shortfalls=%s",
        draft_length,
        findings_count,
        total,
        len(report.sections),
        score,
        ",".join(shortfalls) or "none",
    )
    return validation


def report_length(report: FinalReport) -> int:
    return (
        len(report.executive_summary)
        + len(report.conclusion)
        + sum(len(s.content) for s in report.sections)
    )


def _shortfalls(
    report: FinalReport, basis: str, total: int, cited: int, critique: Critique | None
) -> list[str]:
    found = []
    if total < MIN_REPORT_CHARS:
        found.append("too_short")
    if len(report.sections) < MIN_SECTIONS:
        found.append("few_sections")
    if not report.sources or not cited:
        found.append("no_citations")
    elif cited * 2 < len(report.sections):
        found.append("few_cited_sections")
    if critique and critique.verdict == "WARN":
        found.append("critic_warn")
    if critique and critique.verdict == "REJECT":
        found.append("critic_reject")
    if basis in ("draft_fallback", "minimal"):
        found.append("draft_as_report" if basis == "draft_fallback" else "minimal")
    return found
