"""The draft as a report basis: rebuilt when too short, used as the report when the writer fails.

The specification's fallback chain puts ``draft_report.md`` right after the
writer: a run whose writer fails for good still has the supervisor's
synthesis, which says far more than the minimal report's list of findings.
A draft too short to stand on (under :data:`MIN_DRAFT_CHARS`) is rebuilt
from every finding in the specification's layout, nothing truncated, so the
writer always starts from a draft. When even the draft is too short, the
minimal report, written without the reasoner, says what failed.
"""

from __future__ import annotations

import re

from shared.adapters.report.citations import strip_unknown_citations
from shared.adapters.report.limits_text import say, sentence
from shared.core.report_models import FinalReport, ReportSection
from shared.core.research_models import Finding, ResearchContext
from shared.core.source_models import Source
from shared.usecases.research.compress import Compressed
from shared.usecases.research.memory_files import now_text
from shared.usecases.research.report_validation import MIN_SECTIONS

MIN_DRAFT_CHARS = 1000
DRAFT_TITLE = "# Research Report Draft"
_LINK = re.compile(r"(\s*)\(?\[([^\]]*)\]\(([^)\s]+)\)\)?")


def rebuilt_draft(query: str, findings: list[Finding]) -> str:
    """Every finding in the specification's draft layout ("Total Findings", "Detailed
    Findings (Complete, No Truncation)"): the writer's primary text when the
    supervisor's draft is too short to be one. Empty when nothing was found."""
    found = [f for f in findings if not f.error and (f.key_findings or f.summary)]
    if not found:
        return ""
    lines = [
        DRAFT_TITLE,
        "",
        f"**Query:** {query}",
        f"**Generated:** {now_text()}",
        f"**Total Findings:** {len(found)}",
        "",
        "## Executive Summary",
        "",
        *[f"- {f.topic}: {f.summary or f.key_findings[0].text}" for f in found],
        "",
        "## Detailed Findings (Complete, No Truncation)",
    ]
    for finding in found:
        lines += ["", f"### {finding.topic}", f"**Agent:** {finding.agent_id}"]
        lines += [f"**Confidence:** {finding.confidence}", "", "### Summary", finding.summary]
        lines += ["", "### Key Findings", *[f"- {k.text}" for k in finding.key_findings]]
        lines += ["", f"### Sources ({len(finding.sources)})"]
        lines += [f"- [{s.title or s.url}]({s.url})" for s in finding.sources]
    return "\n".join(lines) + "\n"


def draft_as_report(context: ResearchContext, draft: str, sources: list[Source]) -> FinalReport:
    """``draft_report.md`` rendered as the report, said so in a note: each ``## `` entry a
    section, its source links turned into ``[n]`` in the evidence's numbering
    (``sources``) so citation checks and the source list work as for a written report."""
    numbers = {s.url: s.n for s in sources}
    body = _cited(draft, numbers)
    chunks = [c.strip() for c in re.split(r"(?m)^## ", body)]
    head, entries = chunks[0], [c for c in chunks[1:] if c]
    sections = []
    for entry in entries:
        heading, _, content = entry.partition("\n")
        sections.append(ReportSection(heading=heading.strip(), content=content.strip() or "-"))
    intro = "\n".join(line for line in head.splitlines() if not line.startswith("# ")).strip()
    lang = context.language
    if len(sections) < MIN_SECTIONS:  # what was asked comes first
        asked = ReportSection(heading=say(lang, "minimal_asked"), content=context.query)
        sections.insert(0, asked)
    while len(sections) < MIN_SECTIONS:
        sections.append(ReportSection(heading=say(lang, "minimal_found"), content=intro or "-"))
    return FinalReport(
        title=context.query[:120],
        executive_summary=intro or say(lang, "draft_note"),
        sections=sections,
        conclusion=say(lang, "draft_conclusion"),
        sources=list(sources),  # the citation check keeps only those still cited
        confidence_level="low",
        language=lang,
        warnings=[say(lang, "draft_note")],
    )


def _cited(text: str, numbers: dict[str, int]) -> str:
    """Markdown links to a numbered source as ``[n]``; other links keep their text.

    The supervisor cites by link (its prompt has no numbered sources), so a bare
    ``[n]`` in the draft is in no numbering the reader's source list shares: it
    is dropped rather than left pointing at the wrong source.
    """
    text = strip_unknown_citations(text, ())

    def replace(match: re.Match[str]) -> str:
        n = numbers.get(match.group(3))
        return f" [{n}]" if n else match.group(1) + match.group(2)

    return _LINK.sub(replace, text)


def minimal_report(ctx: ResearchContext, evidence: Compressed, causes: list[str]) -> FinalReport:
    """Written without the reasoner, in the user's language: what was asked, what failed
    (``causes``: clauses from ``limits_text``, or an error text as raised), what was found."""
    lang = ctx.language
    findings = [f"- {k.text}" for f in evidence.findings for k in f.key_findings][:20]
    cause = "; ".join(causes)
    return FinalReport(
        title=say(lang, "minimal_title", query=ctx.query[:80]),
        executive_summary=say(lang, "minimal_summary", cause=sentence(cause, lang)),
        sections=[
            ReportSection(heading=say(lang, "minimal_asked"), content=ctx.query),
            ReportSection(
                heading=say(lang, "minimal_failed"),
                content="\n".join(f"- {sentence(c, lang)}" for c in causes),
            ),
            ReportSection(
                heading=say(lang, "minimal_found"),
                content="\n".join(findings) or say(lang, "minimal_nothing"),
            ),
        ],
        conclusion=say(lang, "minimal_conclusion"),
        sources=[],
        confidence_level="low",
        language=lang,
        warnings=[say(lang, "minimal_note", cause=cause)],
    )
