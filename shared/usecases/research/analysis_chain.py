"""The analyst step of the analyst-critic-writer chain: every finding read once more,
after compression and before the writer (``analyze_findings`` activity).

The analyst gets the compressed evidence (findings, numbered sources, passages)
and the planned topics no finding covered; it says what the findings establish,
how (``reasoning_type``), what is missing, and whether one more round of
searches is needed (``SEARCH_REQUIRED`` with ``new_queries``). The analysis is
``analyst.json`` (the latest, which the writer reads) and a section of
``analyst.md`` per iteration (the record a reader of the memory files follows).
Idempotent: a retried activity rewrites the same files under the same keys.
"""

from __future__ import annotations

from shared.adapters.report.citations import cited_numbers
from shared.core.chain_payloads import AnalystOut, AnalyzeIn, preview
from shared.core.errors import NotFoundError
from shared.core.report_models import ReportMaterial
from shared.core.research_models import ResearchTopic
from shared.ports import Services
from shared.usecases.research import memory_files
from shared.usecases.research.chain_notes import ANALYST_JSON, ANALYST_MD, AnalystRecord
from shared.usecases.research.compress import COMPRESSED, Compressed, compressed_items
from shared.usecases.research.final_report import unresearched_topics


def analyze_findings(svc: Services, req: AnalyzeIn) -> AnalystOut:
    sid = req.context.session_id
    try:
        evidence = Compressed.model_validate_json(svc.memory.read(sid, COMPRESSED))
    except NotFoundError:
        evidence = compressed_items(svc, sid)
    planned = memory_files.read_analysis(svc.memory, sid)
    open_ids = {g.topic_id for g in unresearched_topics(planned, evidence)}
    open_topics = [t for t in planned.plan.topics if t.id in open_ids] if planned else []
    material = ReportMaterial(
        context=req.context,
        findings=evidence.findings,
        sources=evidence.sources,
        excerpts=evidence.excerpts,
        analysis=planned.analysis if planned else None,
    )
    analysis = svc.reasoner.analyze_findings(material, open_topics)
    record = AnalystRecord(analysis=analysis, iteration=req.iteration)
    svc.memory.write(sid, ANALYST_JSON, record.model_dump_json(), "application/json")
    svc.memory.append(sid, ANALYST_MD, f"analysis-{req.iteration}", _markdown(record))
    lead = analysis.core_findings[0] if analysis.core_findings else analysis.logical_inference
    cited = {n for c in analysis.core_findings for n in cited_numbers(c)}
    return AnalystOut(
        verdict=analysis.verdict,
        new_queries=analysis.new_queries,
        topic_ids=[_topic_of(q, open_topics) for q in analysis.new_queries],
        missing_information=analysis.missing_information,
        reasoning_type=analysis.reasoning_type,
        core_findings=len(analysis.core_findings),
        citations=len(cited),
        preview=preview(lead),
    )


def _topic_of(query: str, open_topics: list[ResearchTopic]) -> int:
    """The open topic a new query names (its title inside the query), else 0."""
    words = query.casefold()
    return next((t.id for t in open_topics if t.title.casefold() in words), 0)


def _markdown(record: AnalystRecord) -> str:
    a = record.analysis
    parts = [f"## Analysis {record.iteration}\n", "**Core findings:**\n"]
    parts += [f"- {c}" for c in a.core_findings] or ["- (none)"]
    parts += [f"\n**Logical inference** ({a.reasoning_type}): {a.logical_inference}\n"]
    parts += [
        "**Missing information:**\n",
        *([f"- {m}" for m in a.missing_information] or ["- (none)"]),
    ]
    parts += [f"\n**Verdict:** {a.verdict}"]
    if a.new_queries:
        parts += ["\n**New queries:**\n", *[f"- {q}" for q in a.new_queries]]
    return "\n".join(parts) + "\n\n"
