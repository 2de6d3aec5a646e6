"""Where one session searches and reads: the web as configured, its collections, or both.

A session's ``options.collections`` adds the caller's collections as a source (their
ownership was checked when the session started); ``options.web: false`` leaves the
web out entirely: no search provider is asked and no page outside the collections is
read, so a documents-only research sends nothing to the internet. Both options are
fixed for a session's life, so they are read once per session and worker.

With both, each search is corrective: the collections are searched first and judged
(do their best passages hold the query's content words? ``COLLECTION_COVERAGE``);
covered, the search rests on them alone; not covered, the web is searched too and the
results fused. Each judgement is appended to the session's ``sources.md``, and the
answer's or report's Limitations say which searches rested on which
(:func:`source_limitations`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from shared.adapters.documents.collection_search import (
    CollectionReader,
    CollectionSearch,
    is_document_link,
)
from shared.adapters.fetch.base import Fetcher
from shared.adapters.search.base import SearchProvider
from shared.adapters.search.pipeline import rrf_fuse
from shared.core.errors import FetchRefused, NotFoundError
from shared.core.limits import COLLECTION_COVERAGE
from shared.core.source_models import Page, SearchResult, TimeRange
from shared.ports import Services
from shared.tools.lexical import content_tokens

OPTIONS_CACHED = 512
SOURCES_FILE = "sources.md"
JUDGED_HITS = 3  # the passages a coverage judgement reads
PREFIX_CHARS = 5  # "replaced" meets "replacement": a crude stem, language-blind
ON_COLLECTION, ON_WEB = "collection", "web"


@dataclass(frozen=True)
class Sources:
    search: SearchProvider
    fetcher: Fetcher
    web: bool
    collections: tuple[str, ...] = ()


def sources_for(svc: Services, session_id: str | None) -> Sources:
    if not session_id:
        return Sources(svc.search, svc.fetcher, web=True)
    collections, web = _options(svc, session_id)
    if not collections:
        if web:
            return Sources(svc.search, svc.fetcher, web=True)
        return Sources(_NoSearch(), _DocumentsOnly(None), web=False)
    search = CollectionSearch(svc.index, list(collections))
    reader = CollectionReader(svc.index, list(collections))
    journal = _Journal(svc, session_id)
    if not web:
        only = _Corrective(search, None, journal)
        return Sources(only, _DocumentsOnly(reader), web=False, collections=collections)
    corrective = _Corrective(search, svc.search, journal)
    return Sources(corrective, _Routed(reader, svc.fetcher), web=True, collections=collections)


def covers(query: str, results: list[SearchResult]) -> bool:
    """Whether the best passages hold enough of the query's content words."""
    wanted = {t[:PREFIX_CHARS] for t in content_tokens(query)}
    if not wanted or not results:
        return False
    text = " ".join(f"{r.title} {r.snippet}" for r in results[:JUDGED_HITS])
    found = {t[:PREFIX_CHARS] for t in content_tokens(text)}
    return len(wanted & found) / len(wanted) >= COLLECTION_COVERAGE


def searches_by_source(svc: Services, session_id: str) -> dict[str, list[str]]:
    """The session's searches so far, by what they rested on: ``collection`` or ``web``
    (the web too, because the collections fell short). Shown in the session's status."""
    on: dict[str, list[str]] = {ON_COLLECTION: [], ON_WEB: []}
    try:
        lines = svc.memory.read_text(session_id, SOURCES_FILE).splitlines()
    except NotFoundError:
        return on
    for line in lines:
        kind, _, query = line.removeprefix("- ").partition(": ")
        if kind in on and query and query not in on[kind]:
            on[kind].append(query)
    return on


def source_limitations(svc: Services, session_id: str) -> list[str]:
    """What the searches rested on, for the Limitations: the collections or the web."""
    on = searches_by_source(svc, session_id)
    said = []
    if on[ON_COLLECTION]:
        quoted = "; ".join(f"“{q}”" for q in on[ON_COLLECTION])
        said.append(f"Rests on your collections alone: {quoted}.")
    if on[ON_WEB]:
        quoted = "; ".join(f"“{q}”" for q in on[ON_WEB])
        said.append(f"Your collections did not cover these, so the web was searched too: {quoted}.")
    return said


class _Journal:
    """Appends each judgement to the session's ``sources.md`` (once per query)."""

    def __init__(self, svc: Services, session_id: str) -> None:
        self._svc, self._session_id = svc, session_id

    def record(self, kind: str, query: str) -> None:
        entry = hashlib.sha256(f"{kind}\n{query}".encode()).hexdigest()[:16]
        line = f"- {kind}: {' '.join(query.split())}"
        self._svc.memory.append(self._session_id, SOURCES_FILE, entry, line)


@lru_cache(maxsize=OPTIONS_CACHED)
def _options(svc: Services, session_id: str) -> tuple[tuple[str, ...], bool]:
    try:
        options = svc.sessions.get(session_id).options
    except NotFoundError:  # not a session's run (a tool, a test): the configured web
        return (), True
    return tuple(options.collections or ()), options.web is not False


class _Corrective:
    """The collections first; the web too, fused by reciprocal rank, when they fall short."""

    name = "collection+web"

    def __init__(
        self, documents: SearchProvider, web: SearchProvider | None, journal: _Journal
    ) -> None:
        self._documents, self._web, self._journal = documents, web, journal

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        found = self._documents.search(query, max_results, time_range)
        if self._web is None or covers(query, found):  # documents only: they are all there is
            self._journal.record(ON_COLLECTION, query)
            return found
        self._journal.record(ON_WEB, query)
        return rrf_fuse([found, self._web.search(query, max_results, time_range)])[:max_results]


class _Routed:
    def __init__(self, reader: Fetcher, web: Fetcher) -> None:
        self._reader, self._web = reader, web

    def fetch(self, url: str) -> Page:
        return (self._reader if is_document_link(url) else self._web).fetch(url)


class _DocumentsOnly:
    """``options.web: false``: the collections' documents and nothing else."""

    def __init__(self, reader: Fetcher | None) -> None:
        self._reader = reader

    def fetch(self, url: str) -> Page:
        if self._reader is None or not is_document_link(url):
            raise FetchRefused(f"documents only (options.web is false): {url} is not read")
        return self._reader.fetch(url)


class _NoSearch:
    name = "none"

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        return []
