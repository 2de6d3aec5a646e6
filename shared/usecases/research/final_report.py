"""The final report: always produced, always honest about its sources.

Basis chain (first one that yields a valid report wins):
    draft_report.md (rebuilt from every finding when under 1000 chars) -> main.md
    + findings -> findings only; when the writer fails on all of them, the draft
    itself (when >= 1000 chars, with a note saying so, ``report_fallback``) ->
    a minimal report that says what failed.
The writer reads the draft beside main.md's key insights. ``report_validation``
scores the result (``quality_score``); pages read but never cited are listed
as ``also_consulted``.
A rewrite after a critique edits the reviewed report (report.json, in the
evidence's numbering) instead of the draft, with the critic's issues listed.
The writer gets every source's passages (``findings.json`` excerpts), the
analysis that sets the report's length and shape, and the plan topics that
went unresearched.
A report is valid with >= 3 sections and >= 1500 characters; each basis gets
one retry. Citation integrity: every ``[n]`` must be a source fetched in this
session and cited by the findings (``findings.json`` numbering); unknown ones
are removed and confidence lowered. The primary text reaches the reasoner
whole: fitting a long draft into a prompt is the LLM reasoner's job, done once
(``shared/adapters/reasoning/context_budget.trim_draft``); the offline writer reads all
of it.
"""

from __future__ import annotations

import logging

from shared.adapters.report.citations import (
    dedupe_sentences,
    enforce_citations,
    renumber_by_first_citation,
    renumber_to,
)
from shared.adapters.report.limits_text import gap_clause, say, sentence
from shared.adapters.report.markdown import render_report_markdown
from shared.adapters.report.pdf import render_pdf
from shared.core.errors import NotFoundError, PermanentError
from shared.core.payloads import ContextIn, CritiqueOut, Gap, PdfIn, PdfOut, ReportIn, ReportOut
from shared.core.report_models import FinalReport, ReportMaterial
from shared.core.research_models import ResearchContext
from shared.core.source_models import Source
from shared.ports import Services
from shared.tools import text_stream
from shared.usecases.research import memory_files
from shared.usecases.research.answer_stream import ChunkWriter
from shared.usecases.research.answers import MAX_FOLLOW_UP_QUESTIONS
from shared.usecases.research.chain_notes import capped, methodology_note, read_analyst
from shared.usecases.research.compress import COMPRESSED, Compressed, compressed_items
from shared.usecases.research.follow_up import parent_link
from shared.usecases.research.memory_files import PlannedResearch
from shared.usecases.research.page_cache import pages_consulted, pages_read
from shared.usecases.research.report_fallback import (
    MIN_DRAFT_CHARS,
    draft_as_report,
    minimal_report,
    rebuilt_draft,
)
from shared.usecases.research.report_validation import (
    MIN_REPORT_CHARS,
    MIN_SECTIONS,
    report_length,
    validate_report,
)
from shared.usecases.research.sources import source_limitations

log = logging.getLogger(__name__)
REPORT_JSON, REPORT_MD, REPORT_PDF = "report.json", "report.md", "report.pdf"
LOWER = {"high": "medium", "medium": "low", "low": "low"}


def generate_final_report(svc: Services, req: ReportIn) -> ReportOut:
    ctx = req.context
    evidence = _evidence(svc, ctx.session_id)
    failure = req.failure
    stream = ChunkWriter(svc.sessions, ctx.session_id, "report")
    if failure and not _writer_can_go_on(req):
        failed = [g for g in req.gaps if g.kind == "phase_failed"]
        causes = [gap_clause(g, ctx.language) for g in failed] or [failure]
        report, basis = _salvaged(svc, ctx, evidence, causes)
    else:
        with text_stream.streaming_to(stream):
            report, basis, failure = _write_with_fallback(svc, ctx, evidence, req)
    report = _finalize(svc, ctx, report, evidence, req)
    validation = validate_report(
        report,
        basis=basis,
        draft_length=len(_read(svc, ctx.session_id, memory_files.DRAFT)),
        findings_count=len(evidence.findings),
        critique=req.critique,
    )
    report.quality_score = validation.quality_score
    stream.settle(_store(svc, ctx, report, req.mode))  # the draft streamed, report.md stays
    ref = f"{ctx.session_id}/{REPORT_JSON}"
    unsourced = None if basis == "minimal" else unsourced_cause(svc, ctx, report, evidence)
    return ReportOut(
        report_ref=ref,
        title=report.title,
        sections=len(report.sections),
        source_count=len(report.sources),
        confidence=report.confidence_level,
        basis=basis,
        warnings=report.warnings[:10],
        failure=failure if basis in ("minimal", "draft_fallback") else None,
        unsourced=unsourced,
        too_short=validation.too_short() if basis != "minimal" else None,
    )


def unsourced_cause(
    svc: Services, ctx: ResearchContext, report: FinalReport, evidence: Compressed
) -> str | None:
    """Why ``report`` lists no source, in English for the status; None when it lists some.

    A report without sources rests on the model alone, so the run is degraded
    however well it reads. The cause tells an operator where to look: nothing
    could be read, the findings kept none of what was read (a model citing
    pages it never read loses those claims in grounding), or the writer cited
    none of the findings' sources.
    """
    if report.sources:
        return None
    if evidence.sources:
        n = len(evidence.sources)
        return f"the report has no sources: it cites none of the sources the findings rest on ({n})"
    read = pages_read(svc.memory, ctx.session_id)
    if not read:
        return "the report has no sources: no page could be read"
    return (
        f"the report has no sources: the findings cite none of the pages read ({read}; "
        "the model cited pages it never read, or none)"
    )


def _writer_can_go_on(req: ReportIn) -> bool:
    """After a failure in the report phase, the writer still writes the real report when
    only compression failed: compression merges, it adds nothing, so the findings
    (``_evidence``) are the whole evidence but the deep search answer. The Limitations
    name the failure. A failed writer or critic gets the minimal report."""
    failed = {g.phase for g in req.gaps if g.kind == "phase_failed"}
    return "compressing" in failed and "writing_report" not in failed


def critique_report(svc: Services, req: ContextIn) -> CritiqueOut:
    """The critic reads the report in the evidence's numbering, with the passages and findings."""
    sid = req.context.session_id
    evidence = _evidence(svc, sid)
    report = renumber_to(
        FinalReport.model_validate_json(svc.memory.read(sid, REPORT_JSON)), evidence.sources
    )
    material = ReportMaterial(
        context=req.context,
        findings=evidence.findings,
        sources=evidence.sources,
        excerpts=evidence.excerpts,
    )
    verdict = capped(svc.reasoner.critique(report, material))
    return CritiqueOut.model_validate(verdict.model_dump())


def render_report_pdf(svc: Services, req: PdfIn) -> PdfOut:
    try:
        markdown_text = svc.memory.read_text(req.session_id, REPORT_MD)
        data = render_pdf(markdown_text, req.title, req.language, svc.settings.pdf_font_path)
    except PermanentError as exc:
        return PdfOut(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
    ref = svc.memory.write(req.session_id, REPORT_PDF, data, "application/pdf")
    return PdfOut(ok=True, pdf_ref=ref, bytes=len(data))


def _evidence(svc: Services, session_id: str) -> Compressed:
    """The compressed evidence, or the findings merged here when compression never wrote it."""
    try:
        return Compressed.model_validate_json(svc.memory.read(session_id, COMPRESSED))
    except NotFoundError:
        return compressed_items(svc, session_id)


def _read(svc: Services, session_id: str, name: str) -> str:
    try:
        return svc.memory.read_text(session_id, name)
    except NotFoundError:
        return ""


def _salvaged(
    svc: Services, ctx: ResearchContext, evidence: Compressed, causes: list[str]
) -> tuple[FinalReport, str]:
    """No written report: the draft itself when it is long enough, else the minimal report."""
    draft = memory_files.read_draft(svc.memory, ctx.session_id)
    log.info("Read draft report: %d chars", len(draft))
    if len(draft) >= MIN_DRAFT_CHARS:
        return draft_as_report(ctx, draft, evidence.sources), "draft_fallback"
    return minimal_report(ctx, evidence, causes), "minimal"


def _bases(svc: Services, ctx: ResearchContext, evidence: Compressed, req: ReportIn):
    reviewed = _reviewed(svc, ctx.session_id, evidence) if req.critique else ""
    draft = _read(svc, ctx.session_id, memory_files.DRAFT)
    log.info("Read draft report: %d chars", len(draft))
    if len(draft) < MIN_DRAFT_CHARS:
        log.info("Draft report is too short (%d chars): rebuilt from all findings", len(draft))
        draft = rebuilt_draft(ctx.query, evidence.findings)
    if reviewed:
        yield "reviewed", reviewed
    elif draft:
        yield "draft", draft
    main = _read(svc, ctx.session_id, memory_files.MAIN)
    if main:
        yield "main", main
    yield "findings", ""


def _reviewed(svc: Services, session_id: str, evidence: Compressed) -> str:
    """The report the critic just reviewed, as Markdown in the evidence's numbering."""
    try:
        report = FinalReport.model_validate_json(svc.memory.read(session_id, REPORT_JSON))
    except NotFoundError:
        return ""
    report = renumber_to(report, evidence.sources)
    parts = [f"# {report.title}", "## Executive summary", report.executive_summary]
    for section in report.sections:
        parts += [f"## {section.heading}", section.content]
    parts += ["## Conclusion", report.conclusion]
    return "\n\n".join(parts)


def unresearched_topics(planned: PlannedResearch | None, evidence: Compressed) -> list[Gap]:
    """Plan topics no researcher read anything for, named for the writer and the reader (a
    topic whose pages only repeated another topic's sentences was researched)."""
    if planned is None:
        return []
    found = {f.topic_id for f in evidence.findings if f.key_findings or f.sources}
    return [
        Gap(kind="topic_not_researched", topic_id=t.id, topic=t.title)
        for t in planned.plan.topics
        if t.id not in found
    ]


def _write_with_fallback(
    svc: Services, ctx: ResearchContext, evidence: Compressed, req: ReportIn
) -> tuple[FinalReport, str, str | None]:
    """The report, its basis, and (for the minimal report) why, in English for the status."""
    problems: list[str] = []
    error = ""
    thin: FinalReport | None = None
    planned = memory_files.read_analysis(svc.memory, ctx.session_id)
    gaps = [*req.gaps, *unresearched_topics(planned, evidence)]
    analyst = read_analyst(svc.memory, ctx.session_id)
    insights = memory_files.key_insights(svc.memory, ctx.session_id)
    for basis, primary in _bases(svc, ctx, evidence, req):
        material = ReportMaterial(
            context=ctx,
            primary=primary,
            primary_kind=basis,
            insights=insights,
            findings=evidence.findings,
            sources=evidence.sources,
            excerpts=evidence.excerpts,
            critique=req.critique,
            gaps=[gap_clause(g, ctx.language) for g in gaps],
            analysis=planned.analysis if planned else None,
            analyst=analyst.analysis if analyst else None,
        )
        for _attempt in range(2):
            try:
                report = svc.reasoner.write_report(material)
            except PermanentError as exc:
                error = f"{type(exc).__name__}: {exc}"
                problems.append(f"{basis}: {error}")
                break
            if is_valid(report):
                return report, basis, None
            thin = thin or report
            problems.append(f"{basis}: report too short or with fewer than {MIN_SECTIONS} sections")
    if thin is not None:
        # Thin evidence still deserves the real, cited report, marked as such.
        thin.warnings.append(say(ctx.language, "thin", chars=MIN_REPORT_CHARS))
        thin.confidence_level = "low"
        return thin, "findings", None
    # No report came back at all: every attempt raised a permanent error.
    log.warning("every report basis failed: %s", problems)
    cause = gap_clause(Gap(kind="phase_failed", phase="writing_report", error=error), ctx.language)
    failure = "; ".join(problems)[:500]
    report, basis = _salvaged(svc, ctx, evidence, [cause])
    return report, basis, failure


def is_valid(report: FinalReport) -> bool:
    return len(report.sections) >= MIN_SECTIONS and report_length(report) >= MIN_REPORT_CHARS


def _finalize(
    svc: Services, ctx: ResearchContext, report: FinalReport, evidence: Compressed, req: ReportIn
) -> FinalReport:
    report, problems = enforce_citations(report, evidence.sources)
    report = renumber_by_first_citation(dedupe_sentences(report))
    report.language = ctx.language
    unresearched = unresearched_topics(
        memory_files.read_analysis(svc.memory, ctx.session_id), evidence
    )
    gaps = [*req.gaps, *unresearched]
    report.limitations = [*report.limitations, *_limitations(gaps, req, ctx.language)]
    report.limitations += source_limitations(svc, ctx.session_id, ctx.language)  # per topic
    if ctx.plan_review:  # how the plan was reviewed is part of how the report was made
        report.limitations.append(ctx.plan_review)
    if ctx.clarification_timed_out:
        report.warnings.append(say(ctx.language, "clarification_unanswered"))
    critique = req.critique
    if critique and critique.verdict == "REJECT" and req.round >= 3:
        report.warnings += [say(ctx.language, "critic", issue=i) for i in critique.issues[:5]]
        report.confidence_level = LOWER[report.confidence_level]
    if not report.follow_up_questions and req.failure is None:
        text = " ".join(s.content for s in report.sections)[:4000]
        report.follow_up_questions = svc.reasoner.follow_up_questions(ctx.query, text, ctx.language)
    report.follow_up_questions = report.follow_up_questions[:MAX_FOLLOW_UP_QUESTIONS]
    report.methodology_note = report.methodology_note.strip() or methodology_note(
        read_analyst(svc.memory, ctx.session_id),
        len(evidence.findings),
        len(evidence.sources),
        ctx.language,
    )
    cited = {s.url for s in report.sources}
    report.also_consulted = [
        Source(url=p.url, title=p.title)
        for p in pages_consulted(svc.memory, ctx.session_id)
        if p.url not in cited
    ]
    log.info("report %s: %d citation problems", ctx.session_id, len(problems))
    return report


def _limitations(gaps: list[Gap], req: ReportIn, language: str) -> list[str]:
    """What the run could not do, so the reader knows what the report rests on."""
    lines = [sentence(gap_clause(gap, language), language) for gap in gaps]
    if lines and not req.failure:
        lines.append(say(language, "based_only"))
    return lines


def _store(svc: Services, ctx: ResearchContext, report: FinalReport, mode: str) -> str:
    sid = ctx.session_id
    report = report.model_copy(update={"follow_up_of": parent_link(svc, sid)})
    svc.memory.write(sid, REPORT_JSON, report.model_dump_json(), "application/json")
    markdown_text = render_report_markdown(report, ctx.query, mode)
    svc.memory.write(sid, REPORT_MD, markdown_text, "text/markdown")
    return markdown_text
