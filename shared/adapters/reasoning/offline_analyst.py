"""The offline reasoner's analyst and critic: the chain's roles played by rules, so a run
without a model goes through the same analyst -> writer -> critic steps.

Analyst: the core findings are each finding's first key finding with its source
numbers; the reasoning type follows the evidence (a "why" question is abduction,
several independent sources induction, a single source deduction from it); a
planned topic no finding covered is missing information, and its subject with
the topic's title is the new query (``SEARCH_REQUIRED``); nothing missing is READY.

Critic: ``offline_report.critique`` (citations outside the material REJECT, thin or
uncited sections WARN) plus the fields a model fills: a section resting on one
source is an induction from a sample of one (a logical gap); under the strict
policy a cited source below tier 2 breaks the mode; each issue gets a suggestion. A
logical gap or a policy deviation makes a PASS a WARN; only citations outside the
material REJECT.
The offline critic names no missing information: what it rejects (a citation
outside the material) no new search can fix.
"""

from __future__ import annotations

from typing import Literal

from shared.adapters.reasoning import offline_report
from shared.adapters.reasoning.question_shape import subject_of
from shared.adapters.report.citations import cited_numbers
from shared.core.analysis_models import MAX_NEW_QUERIES, Analysis, ReasoningType
from shared.core.report_models import Critique, FinalReport, ReportMaterial
from shared.core.research_models import ResearchTopic

CORE_FINDINGS = 8
STRICT_TIERS = 2  # the strict policy cites tiers 1-2 only


def analyze_findings(material: ReportMaterial, open_topics: list[ResearchTopic]) -> Analysis:
    numbers = {s.url: s.n for s in material.sources}
    core: list[str] = []
    for finding in material.findings:
        if finding.error or not finding.key_findings:
            continue
        first = finding.key_findings[0]
        cites = "".join(f"[{numbers[u]}]" for u in first.source_urls if u in numbers)
        core.append(f"{first.text} {cites}".strip())
    subject = subject_of(material.context.query)
    missing = [f"Nothing was found on the planned topic {t.title!r}." for t in open_topics]
    queries = [f"{subject} {t.title}" for t in open_topics][:MAX_NEW_QUERIES]
    reasoning = _reasoning_type(material)
    inference = (
        f"{len(core)} findings rest on {len(material.sources)} sources; "
        f"{_agreeing(material)} of them cite two or more sources, the rest one each."
    )
    return Analysis(
        core_findings=core[:CORE_FINDINGS],
        logical_inference=inference,
        reasoning_type=reasoning,
        missing_information=missing[:8],
        verdict="SEARCH_REQUIRED" if queries else "READY",
        new_queries=queries,
    )


def _reasoning_type(material: ReportMaterial) -> ReasoningType:
    if material.analysis is not None and material.analysis.query_type == "why":
        return "abduction"
    return "induction" if len(material.sources) >= 2 else "deduction"


def _agreeing(material: ReportMaterial) -> int:
    return sum(
        1 for f in material.findings if len({u for k in f.key_findings for u in k.source_urls}) >= 2
    )


def critique(report: FinalReport, material: ReportMaterial) -> Critique:
    base = offline_report.critique(report, material)
    logical_gaps = [
        f"section {s.heading!r} generalises from a single source {sorted(ns)}: "
        "a sample of one is not representative"
        for s in report.sections
        if len(ns := cited_numbers(s.content)) == 1
    ]
    source_issues = [i for i in base.issues if "source" in i or "citation" in i]
    compliance = "compliant"
    if material.context.source_policy == "strict":
        tiers = {s.n: s.tier for s in material.sources}
        text = " ".join(s.content for s in report.sections)
        low = sorted(n for n in cited_numbers(text) if (tiers.get(n) or 0) > STRICT_TIERS)
        if low:
            source_issues.append(f"the strict policy allows tiers 1-2 only; cited: {low}")
            compliance = "non_compliant"
    elif any("monitor source policy" in i for i in base.issues):
        compliance = "minor_deviations"
    suggestions = [f"Fix: {i}" for i in base.issues] + [
        "Cite a second, independent source for it, or say the claim rests on one source."
        for _ in logical_gaps[:1]
    ]
    return Critique(
        issues=base.issues,
        suggestions=suggestions,
        mode_compliance=compliance,
        logical_gaps=logical_gaps,
        source_issues=source_issues,
        verdict=_verdict(base.verdict, bool(logical_gaps), compliance),
    )


def _verdict(base: str, gaps: bool, compliance: str) -> Literal["PASS", "WARN", "REJECT"]:
    """A REJECT stands; a logical gap or a policy deviation is worth noting (WARN), since
    a rewrite from the same sources cannot add the second source it lacks."""
    if base == "REJECT":
        return "REJECT"
    return "WARN" if base == "WARN" or gaps or compliance != "compliant" else "PASS"
