"""Where one session searches and reads: the web as configured, its collections, or both.

A session's ``options.collections`` adds the caller's collections as a source (their
ownership was checked when the session started), each ranked as its own search ranks it
(``collection_ranking``); ``options.web: false`` leaves the
web out entirely: no search provider is asked and no page outside the collections is
read, so a documents-only research sends nothing to the internet. Both options are
fixed for a session's life, so they are read once per session and worker.

With collections, each search is corrective per topic (``coverage``): the topic it
serves (a researcher's planned topic; in the search modes the question's sub-question(s)
the query is about) is judged once; covered, the search rests on the collections
alone; not covered and the web allowed, the web is searched too and the results fused
by reciprocal rank. Each search is also appended to the session's ``sources.md`` with
what it rested on (:func:`searches_by_source`, shown in the status), and the answer's
or report's Limitations say per topic which rested on which (:func:`source_limitations`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from shared.adapters.documents.collection_search import CollectionReader, is_document_link
from shared.adapters.fetch.base import Fetcher
from shared.adapters.search.base import SearchProvider
from shared.adapters.search.pipeline import rrf_fuse
from shared.core.errors import FetchRefused, NotFoundError
from shared.core.source_models import Page, SearchResult, TimeRange
from shared.ports import Services
from shared.tools.lexical import content_tokens
from shared.tools.sub_questions import sub_questions
from shared.usecases.research.collection_ranking import collections_search
from shared.usecases.research.coverage import (
    ON_COLLECTION,
    ON_WEB,
    coverage_limitations,
    judged,
)

OPTIONS_CACHED = 512
SOURCES_FILE = "sources.md"


@dataclass(frozen=True)
class Sources:
    search: SearchProvider
    fetcher: Fetcher
    web: bool
    collections: tuple[str, ...] = ()


def sources_for(svc: Services, session_id: str | None, topic: str | None = None) -> Sources:
    """The session's sources; ``topic`` is the planned topic a researcher's searches serve
    (None in the search modes: each query is then judged by the sub-questions it is about)."""
    if not session_id:
        return Sources(svc.search, svc.fetcher, web=True)
    options = _options(svc, session_id)
    if not options.collections:
        if options.web:
            return Sources(svc.search, svc.fetcher, web=True)
        return Sources(_NoSearch(), _DocumentsOnly(None), web=False)
    collections = options.collections
    search = collections_search(svc, collections)
    reader = CollectionReader(svc.index, list(collections))

    def judge(t: str) -> str:
        return judged(svc, session_id, t, collections, options.web, options.language).source

    topics = [topic] if topic else sub_questions(options.question) or [options.question]
    journal = _Journal(svc, session_id)
    web = svc.search if options.web else None
    corrective = _Corrective(search, web, journal, judge, topics)
    if not options.web:
        return Sources(corrective, _DocumentsOnly(reader), web=False, collections=collections)
    return Sources(corrective, _Routed(reader, svc.fetcher), web=True, collections=collections)


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


def source_limitations(svc: Services, session_id: str | None, language: str) -> list[str]:
    """What each topic rested on, for the Limitations: the collections or the web."""
    if not session_id or not _options(svc, session_id).collections:
        return []
    return coverage_limitations(svc, session_id, language)


class _Journal:
    """Appends what each search rested on to the session's ``sources.md`` (once per query)."""

    def __init__(self, svc: Services, session_id: str) -> None:
        self._svc, self._session_id = svc, session_id

    def record(self, kind: str, query: str) -> None:
        entry = hashlib.sha256(f"{kind}\n{query}".encode()).hexdigest()[:16]
        line = f"- {kind}: {' '.join(query.split())}"
        self._svc.memory.append(self._session_id, SOURCES_FILE, entry, line)


@dataclass(frozen=True)
class _Options:
    collections: tuple[str, ...] = ()
    web: bool = True
    question: str = ""
    language: str = "en"


@lru_cache(maxsize=OPTIONS_CACHED)
def _options(svc: Services, session_id: str) -> _Options:
    try:
        record = svc.sessions.get(session_id)
    except NotFoundError:  # not a session's run (a tool, a test): the configured web
        return _Options()
    options = record.options
    return _Options(
        tuple(options.collections or ()),
        options.web is not False,
        record.original_query,
        record.language,
    )


class _Corrective:
    """The collections, and the web too, fused by reciprocal rank, when a topic the query
    serves is one the collections do not cover (``judge`` says where each topic rests)."""

    name = "collection+web"

    def __init__(
        self,
        documents: SearchProvider,
        web: SearchProvider | None,
        journal: _Journal,
        judge: Callable[[str], str],
        topics: list[str],
    ) -> None:
        self._documents, self._web, self._journal = documents, web, journal
        self._judge, self._topics = judge, topics

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        on = {self._judge(t) for t in topics_of(query, self._topics)}
        found = self._documents.search(query, max_results, time_range)
        if self._web is None or on == {ON_COLLECTION}:
            self._journal.record(ON_COLLECTION, query)
            return found
        self._journal.record(ON_WEB, query)
        return rrf_fuse([found, self._web.search(query, max_results, time_range)])[:max_results]


def topics_of(query: str, topics: list[str]) -> list[str]:
    """The topics a query is about: those sharing a content word with it, all of them when
    none does (a query reworded past recognition serves the whole question)."""
    if len(topics) < 2:
        return topics
    words = set(content_tokens(query))
    about = [t for t in topics if words & set(content_tokens(t))]
    return about or topics


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
