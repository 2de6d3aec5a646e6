"""Merge every finding into one body of evidence, losing nothing that matters.

Same URL → one source; same sentence → one key finding (its source URLs
merged); metadata and empty findings dropped; ALL key findings and ALL sources
kept, and each source's passages (the excerpts researchers kept, nearly
verbatim) merged into one excerpt per source, bounded per source here and in
total by the writer's context budget later. Sources are numbered once here
(first seen, first numbered): every later ``[n]`` in the report refers to
this numbering.

Two rules keep the report honest and reproducible:
- The deep search answer (``deep_search.json``) is evidence too: it was
  synthesised from pages fetched in this session. It enters as the finding of
  agent 0 on topic "Deep search" (topic 0), one key finding per cited sentence
  carrying the URLs its ``[n]`` markers named, so the writer may cite those
  sources legitimately and nothing uncited slips in.
- Findings are merged in a fixed order (by topic and todo number, the deep
  search last), not in the order agents happened to finish, so the numbering
  (and with it the report) is the same for the same question and corpus.
"""

from __future__ import annotations

import logging
import re

from pydantic import BaseModel, Field, ValidationError

from shared.adapters.report.citations import CITATION_RE, cited_numbers, sentence_key
from shared.adapters.search.pipeline import normalize_url
from shared.core import names
from shared.core.errors import NotFoundError
from shared.core.payloads import CompressIn, CompressOut
from shared.core.report_models import SynthesizedAnswer
from shared.core.research_models import Finding, KeyFinding
from shared.core.source_models import Source, SourceExcerpt
from shared.ports import Services
from shared.tools import sentence_split
from shared.usecases.research.evidence import finding_excerpts, merge_excerpts
from shared.usecases.research.page_cache import cached_page
from shared.usecases.research.supervisor import load_finding

COMPRESSED = "findings.json"
# a follow-up research's copy of its parent's findings.json (research/follow_up.py)
PARENT_FINDINGS = "parent_findings.json"
PARENT_TOPIC = "Earlier research"
DEEP_SEARCH_TOPIC = "Deep search"
DEEP_SEARCH_AGENT = 0

log = logging.getLogger(__name__)


class Compressed(BaseModel):
    findings: list[Finding]
    sources: list[Source]
    # each source's passages, merged over the findings that read it (the writer's evidence)
    excerpts: list[SourceExcerpt] = Field(default_factory=list)


def deep_search_finding(answer: SynthesizedAnswer) -> Finding:
    """The deep search answer as a finding: each cited sentence with its sources' URLs."""
    urls = {s.n: s.url for s in answer.sources}
    key_findings = []
    for paragraph in answer.answer.split("\n\n"):
        segments = sentence_split.segment(paragraph, answer.language)
        for sentence in (claim for s in segments for claim in _claims(s)):
            cited = sorted(n for n in cited_numbers(sentence) if n in urls)
            text = re.sub(r"\s+([.!?…])", r"\1", CITATION_RE.sub("", sentence)).strip()
            text = " ".join(text.split())
            if cited and text:
                key_findings.append(KeyFinding(text=text, source_urls=[urls[n] for n in cited]))
    return Finding(
        agent_id=DEEP_SEARCH_AGENT,
        topic=DEEP_SEARCH_TOPIC,
        topic_id=0,
        todo_id="deep-search",
        summary=" ".join(k.text for k in key_findings[:2]),
        key_findings=key_findings,
        sources=[s.model_copy(update={"n": 0}) for s in answer.sources],
        confidence="medium",
    )


def _claims(sentence: str) -> list[str]:
    """A sentence's claims, each ending at its citation markers where more words follow:
    an extractive answer quotes sentences with no final stop ("… (defaults to
    functools.WRAPPER_UPDATES) [1] bind_partial(…) … [2]"), which no sentence split parts,
    and each quote is its own source's."""
    claims, start = [], 0
    for marker in CITATION_RE.finditer(sentence):
        if re.match(r"\s+\w", sentence[marker.end() :]):
            claims.append(sentence[start : marker.end()])
            start = marker.end()
    return [*claims, sentence[start:]]


def merge_order(finding: Finding) -> tuple[bool, int, int, int, str]:
    """Topic by topic, each topic's todos in creation order, the deep search last (so a
    sentence an agent also found stays with the agent's topic)."""
    number = re.search(r"\d+", finding.todo_id)
    deep = finding.agent_id == DEEP_SEARCH_AGENT and finding.topic_id == 0
    return (
        deep,
        finding.topic_id,
        int(number.group()) if number else 0,
        finding.agent_id,
        finding.todo_id,
    )


def compress(findings: list[Finding]) -> Compressed:
    sources: dict[str, Source] = {}
    seen_sentences: dict[str, KeyFinding] = {}
    merged: list[Finding] = []
    for finding in sorted(findings, key=merge_order):
        for source in finding.sources:
            key = normalize_url(source.url)
            if key not in sources:
                sources[key] = source.model_copy(update={"n": len(sources) + 1})
        kept = []
        for item in finding.key_findings:
            key = sentence_key(item.text)
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
            update = {"key_findings": kept, "notes": [], "excerpts": []}
            merged.append(finding.model_copy(update=update))
    excerpts = merge_excerpts(e for f in sorted(findings, key=merge_order) for e in f.excerpts)
    return Compressed(findings=merged, sources=list(sources.values()), excerpts=excerpts)


def _with_passages(svc: Services, session_id: str, finding: Finding) -> Finding:
    """The deep search finding with its pages' passages on the sentences that cite them
    (the pages it read are in the session's page cache)."""
    pages = [
        page
        for page in (cached_page(svc.memory, session_id, s.url) for s in finding.sources)
        if page is not None
    ]
    return finding.model_copy(update={"excerpts": finding_excerpts(finding, pages, "", {})})


def compressed_items(svc: Services, session_id: str) -> Compressed:
    """The researchers' findings merged straight from ``items/`` (no deep search answer),
    for a writer whose compression step failed: what the researchers found is not lost
    with it. An item that cannot be read is left out (it may be what broke compression)."""
    findings = []
    for name in svc.memory.list(session_id):
        if not (name.startswith(names.FINDING_ITEM) and name.endswith(".json")):
            continue
        try:
            findings.append(load_finding(svc, f"{session_id}/{name}"))
        except (NotFoundError, ValidationError) as exc:
            log.warning("finding %s/%s left out: %s", session_id, name, type(exc).__name__)
    return compress(findings)


def compress_findings(svc: Services, req: CompressIn) -> CompressOut:
    findings = [load_finding(svc, ref) for ref in req.finding_refs]
    if req.deep_search_ref:
        session_id, _, name = req.deep_search_ref.partition("/")
        try:
            answer = SynthesizedAnswer.model_validate_json(svc.memory.read(session_id, name))
            findings.append(_with_passages(svc, req.session_id, deep_search_finding(answer)))
        except NotFoundError:
            pass  # the deep search only adds evidence; research findings stand alone
    result = compress(findings + parent_findings(svc, req.session_id))
    result.sources = [
        s if s.tier is not None else s.model_copy(update={"tier": svc.tiers.tier_of(s.url)})
        for s in result.sources
    ]
    svc.memory.write(req.session_id, COMPRESSED, result.model_dump_json(), "application/json")
    return CompressOut(
        findings=len(result.findings),
        source_count=len(result.sources),
        key_findings=sum(len(f.key_findings) for f in result.findings),
    )


def parent_findings(svc: Services, session_id: str) -> list[Finding]:
    """A follow-up's inherited findings, merged after its own (they take the deep search's
    place in the merge order, so its own sources are numbered first), with the parent's
    passages on the first of them."""
    try:
        parent = Compressed.model_validate_json(svc.memory.read(session_id, PARENT_FINDINGS))
    except NotFoundError:
        return []
    return [
        finding.model_copy(
            update={
                "agent_id": DEEP_SEARCH_AGENT,
                "topic_id": 0,
                "topic": f"{PARENT_TOPIC}: {finding.topic}",
                "todo_id": f"parent-{i + 1}",
                "excerpts": parent.excerpts if i == 0 else [],
            }
        )
        for i, finding in enumerate(parent.findings)
    ]
