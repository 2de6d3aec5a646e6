"""Where one session searches and reads: the web as configured, its collections, or both.

A session's ``options.collections`` adds the caller's collections as a source (their
ownership was checked when the session started); ``options.web: false`` leaves the
web out entirely: no search provider is asked and no page outside the collections is
read, so a documents-only research sends nothing to the internet. Both options are
fixed for a session's life, so they are read once per session and worker.
"""

from __future__ import annotations

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
from shared.core.source_models import Page, SearchResult, TimeRange
from shared.ports import Services

OPTIONS_CACHED = 512


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
    if not web:
        return Sources(search, _DocumentsOnly(reader), web=False, collections=collections)
    return Sources(
        _Fused(search, svc.search), _Routed(reader, svc.fetcher), web=True, collections=collections
    )


@lru_cache(maxsize=OPTIONS_CACHED)
def _options(svc: Services, session_id: str) -> tuple[tuple[str, ...], bool]:
    try:
        options = svc.sessions.get(session_id).options
    except NotFoundError:  # not a session's run (a tool, a test): the configured web
        return (), True
    return tuple(options.collections or ()), options.web is not False


class _Fused:
    """The collections' results and the web's, fused by reciprocal rank."""

    name = "collection+web"

    def __init__(self, documents: SearchProvider, web: SearchProvider) -> None:
        self._documents, self._web = documents, web

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        lists = [
            self._documents.search(query, max_results, time_range),
            self._web.search(query, max_results, time_range),
        ]
        return rrf_fuse(lists)[:max_results]


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
