"""Pages fetched in a session, kept in its memory folder so no URL is fetched twice.

``pages/{sha1(url)}.json`` holds the extracted ``Page`` with its sentences:
the page is split into sentences once, when it is fetched, because passage
selection reads them on every step that shows or cites the page (splitting
is the costly part of it). Writes overwrite, so a repeated activity is
harmless; a concurrent double fetch of one URL costs one extra request and
stores the same content.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from pydantic import ValidationError

from shared.adapters.fetch.base import Fetcher
from shared.adapters.stores.base import MemoryStore
from shared.core.errors import NotFoundError
from shared.core.source_models import Page
from shared.tools import sentence_split

PAGES = "pages/"


def page_name(url: str) -> str:
    return f"{PAGES}{hashlib.sha1(url.encode()).hexdigest()[:20]}.json"


def pages_read(memory: MemoryStore, session_id: str) -> int:
    """How many pages this session has read (what a report could have cited)."""
    return sum(1 for name in memory.list(session_id) if name.startswith(PAGES))


def with_sentences(page: Page) -> Page:
    """``page`` with its sentences, split now only if nobody split it before."""
    if page.sentences is not None:
        return page
    return page.model_copy(update={"sentences": list(sentence_split.split_sentences(page.text))})


def cached_page(memory: MemoryStore, session_id: str, url: str) -> Page | None:
    """The page as this session read it, or None when it was never read."""
    try:
        page = Page.model_validate_json(memory.read(session_id, page_name(url)))
    except NotFoundError:
        return None
    return with_sentences(page)  # a page stored before sentences were kept


def fetch_cached(memory: MemoryStore, fetcher: Fetcher, session_id: str, url: str) -> Page:
    """The page from this session's cache, else fetched, split and cached."""
    cached = cached_page(memory, session_id, url)
    if cached is not None:
        return cached
    page = with_sentences(fetcher.fetch(url)).model_copy(update={"fetched_at": datetime.now(UTC)})
    memory.write(session_id, page_name(url), page.model_dump_json(), "application/json")
    return page


def pages_consulted(memory: MemoryStore, session_id: str) -> list[Page]:
    """Every page this session read, in name order (the report's "Also consulted" list).

    A page that no longer reads back (gone, or torn by a crash) is left out: the
    list names what was read, it is no reason to lose the report."""
    names = sorted(n for n in memory.list(session_id) if n.startswith(PAGES))
    pages = []
    for name in names:
        try:
            pages.append(Page.model_validate_json(memory.read(session_id, name)))
        except (NotFoundError, ValidationError):
            continue
    return pages
