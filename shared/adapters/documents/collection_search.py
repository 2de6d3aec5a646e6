"""Collections as a source: search them like a web provider, read a hit like a page.

A hit's URL is the link that serves the document's original to its owner,
``/api/collections/{collection_id}/documents/{document_id}``, with ``#page=N`` for a
PDF page: what a citation shows is where the reader can open it. The web pipeline
groups results by URL without its fragment, so the chunks of one document come back
as one source (its best page first). Reading such a URL gives the text of that page
(PDF) or the whole document, from the index: nothing leaves the service.
"""

from __future__ import annotations

import re

from shared.adapters.documents.base import Index
from shared.core.collection_models import Chunk
from shared.core.errors import FetchRefused
from shared.core.source_models import Page, SearchResult, TimeRange

PROVIDER = "collection"
LINK_PREFIX = "/api/collections/"
_LINK = re.compile(r"^/api/collections/([A-Za-z0-9_\-]+)/documents/([0-9a-f]+)(?:#page=(\d+))?$")
MAX_PAGE_CHARS = 60_000
HITS_PER_RESULT = 4  # chunks read per wanted result: several may fall on one document


def document_link(collection_id: str, document_id: str, page: int | None = None) -> str:
    link = f"{LINK_PREFIX}{collection_id}/documents/{document_id}"
    return f"{link}#page={page}" if page else link


def is_document_link(url: str) -> bool:
    return url.startswith(LINK_PREFIX)


def source_title(chunk: Chunk) -> str:
    """The document's title with where in it: "Runbook, p. 3" or "Notes › Storage"."""
    if chunk.page:
        return f"{chunk.title}, p. {chunk.page}"
    if chunk.heading_path:
        return f"{chunk.title} › {' › '.join(chunk.heading_path)}"
    return chunk.title


class CollectionSearch:
    """``SearchProvider`` over some collections of the ``Index``, one result per document page."""

    name = PROVIDER

    def __init__(self, index: Index, collection_ids: list[str]) -> None:
        self._index = index
        self._collections = list(collection_ids)

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        hits = self._index.search(self._collections, query, max_results * HITS_PER_RESULT)
        results: dict[str, SearchResult] = {}
        for hit in hits:
            chunk = hit.chunk
            url = document_link(chunk.collection_id, chunk.document_id, chunk.page)
            if url in results:
                continue
            results[url] = SearchResult(
                url=url,
                title=source_title(chunk),
                snippet=chunk.text[:300],
                score=hit.score,
                provider=PROVIDER,
                tier=1,  # the caller's own documents
            )
        return list(results.values())[:max_results]


class CollectionReader:
    """``Fetcher`` for document links: the page's (or the document's) chunks, in order."""

    def __init__(self, index: Index, collection_ids: list[str]) -> None:
        self._index = index
        self._collections = set(collection_ids)

    def fetch(self, url: str) -> Page:
        match = _LINK.match(url)
        if match is None or match.group(1) not in self._collections:
            raise FetchRefused(f"not a document of this research's collections: {url}")
        collection_id, document_id, page = match.group(1), match.group(2), match.group(3)
        chunks = self._index.document_chunks(collection_id, document_id)
        if page is not None:
            chunks = [c for c in chunks if c.page == int(page)]
        if not chunks:
            raise FetchRefused(f"no text at {url}")
        text = "\n\n".join(c.text for c in chunks)[:MAX_PAGE_CHARS]
        return Page(url=url, title=source_title(chunks[0]), text=text)
