"""A finished session's evidence, as numbered passages a question can be answered from.

The numbers are the session's source list (``report.json`` of a deep research,
``answer.json`` of the search modes), so an answer's ``[n]`` reads like the
report's. Passages come from three places, nearest to the report first:

- the report's own sentences, under the first source each cites;
- the findings (``findings.json``): each key finding and each source's merged excerpt;
- the pages the session read and cached (``pages/``), a few sentences at a time.

Only sources on the list take part: a page read but never cited has no number to
cite it by. Nothing is fetched: the evidence is what the session already holds.
"""

from __future__ import annotations

from pydantic import ValidationError

from shared.adapters.report.citations import CITATION_RE, cited_numbers
from shared.adapters.search.pipeline import normalize_url
from shared.core.ask_models import Passage
from shared.core.errors import NotFoundError
from shared.core.report_models import FinalReport, SynthesizedAnswer
from shared.core.session_models import Mode, SessionRecord
from shared.core.source_models import Source
from shared.ports import Services
from shared.tools import lexical, sentence_split
from shared.usecases.research.compress import COMPRESSED, Compressed
from shared.usecases.research.evidence import GAP
from shared.usecases.research.final_report import REPORT_JSON
from shared.usecases.research.page_cache import cached_page

ANSWER_JSON = "answer.json"
PAGE_WINDOW = 3  # sentences of a page per passage: enough context, still one point


def sources_and_texts(svc: Services, record: SessionRecord) -> tuple[list[Source], list[str]]:
    """The session's numbered sources and the texts that cite them (sections, answer);
    ``NotFoundError`` when it has no report (or answer) to ask about."""
    if record.mode == Mode.deep_research:
        report = FinalReport.model_validate_json(svc.memory.read(record.id, REPORT_JSON))
        texts = [report.executive_summary, *(s.content for s in report.sections)]
        return _numbered(report.sources), [*texts, report.conclusion]
    answer = SynthesizedAnswer.model_validate_json(svc.memory.read(record.id, ANSWER_JSON))
    return _numbered(answer.sources), [answer.answer]


def passages(svc: Services, record: SessionRecord) -> tuple[list[Source], list[Passage]]:
    """The source list and every passage of evidence for it, each text once."""
    sources, texts = sources_and_texts(svc, record)
    by_url = {normalize_url(s.url): s for s in sources}
    found = [*_report_passages(texts, sources), *_finding_passages(svc, record.id, by_url)]
    for source in sources:
        found += _page_passages(svc, record.id, source)
    seen: set[str] = set()
    unique = []
    for passage in found:
        key = " ".join(passage.text.lower().split())
        if key and key not in seen:
            seen.add(key)
            unique.append(passage)
    return sources, unique


def ranked(question: str, found: list[Passage], limit: int) -> list[Passage]:
    """The ``limit`` passages that share most with the question (BM25), best first; a
    reasoner with a small context reads the best ones."""
    scores = lexical.bm25_scores(
        lexical.content_tokens(question), [lexical.content_tokens(p.text) for p in found]
    )
    order = sorted(range(len(found)), key=lambda i: (-scores[i], i))
    return [found[i] for i in order[:limit]]


def _numbered(sources: list[Source]) -> list[Source]:
    return [s for s in sources if s.n >= 1]


def _report_passages(texts: list[str], sources: list[Source]) -> list[Passage]:
    urls = {s.n: s.url for s in sources}
    out = []
    for text in texts:
        for sentence in sentence_split.segment(text):
            cited = sorted(n for n in cited_numbers(sentence) if n in urls)
            plain = " ".join(CITATION_RE.sub("", sentence).split())
            if cited and plain:
                out.append(Passage(n=cited[0], url=urls[cited[0]], text=plain))
    return out


def _finding_passages(svc: Services, session_id: str, by_url: dict[str, Source]) -> list[Passage]:
    try:
        compressed = Compressed.model_validate_json(svc.memory.read(session_id, COMPRESSED))
    except (NotFoundError, ValidationError):
        return []  # a search mode, or findings not readable: the pages still speak
    out = []
    for finding in compressed.findings:
        for key in finding.key_findings:
            urls = [normalize_url(u) for u in key.source_urls]
            source = next((by_url[u] for u in urls if u in by_url), None)
            if source is not None:
                out.append(Passage(n=source.n, url=source.url, text=key.text))
    for excerpt in compressed.excerpts:
        source = by_url.get(normalize_url(excerpt.url))
        if source is not None:
            out += [Passage(n=source.n, url=source.url, text=t) for t in excerpt.text.split(GAP)]
    return out


def _page_passages(svc: Services, session_id: str, source: Source) -> list[Passage]:
    page = cached_page(svc.memory, session_id, source.url)
    if page is None or not page.sentences:
        return []
    sentences = list(page.sentences)
    return [
        Passage(n=source.n, url=source.url, text=" ".join(sentences[i : i + PAGE_WINDOW]))
        for i in range(0, len(sentences), PAGE_WINDOW)
    ]
