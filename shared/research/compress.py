"""Merge every finding into one body of evidence, losing nothing that matters.

Same URL → one source; same sentence → one key finding (its source URLs
merged); metadata and empty findings dropped; ALL key findings and ALL sources
kept. Sources are numbered once here (first seen, first numbered): every later
``[n]`` in the report refers to this numbering.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from shared.bootstrap import Services
from shared.models import Finding, KeyFinding, Source
from shared.payloads import CompressIn, CompressOut
from shared.research.supervisor import load_finding
from shared.search.pipeline import normalize_url

COMPRESSED = "findings.json"


class Compressed(BaseModel):
    findings: list[Finding]
    sources: list[Source]


def _sentence_key(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def compress(findings: list[Finding]) -> Compressed:
    sources: dict[str, Source] = {}
    seen_sentences: dict[str, KeyFinding] = {}
    merged: list[Finding] = []
    for finding in findings:
        for source in finding.sources:
            key = normalize_url(source.url)
            if key not in sources:
                sources[key] = source.model_copy(update={"n": len(sources) + 1})
        kept = []
        for item in finding.key_findings:
            key = _sentence_key(item.text)
            if not key:
                continue
            if key in seen_sentences:
                known = seen_sentences[key]
                known.source_urls += [u for u in item.source_urls if u not in known.source_urls]
                continue
            copy = item.model_copy(deep=True)
            seen_sentences[key] = copy
            kept.append(copy)
        if kept or finding.summary.strip():
            merged.append(finding.model_copy(update={"key_findings": kept, "notes": []}))
    return Compressed(findings=merged, sources=list(sources.values()))


def compress_findings(svc: Services, req: CompressIn) -> CompressOut:
    result = compress([load_finding(svc, ref) for ref in req.finding_refs])
    svc.memory.write(req.session_id, COMPRESSED, result.model_dump_json(), "application/json")
    return CompressOut(findings=len(result.findings), sources=len(result.sources),
                       key_findings=sum(len(f.key_findings) for f in result.findings))  # fmt: skip
