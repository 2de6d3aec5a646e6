"""Pages fetched in a session, kept in its memory folder so no URL is fetched twice.

``pages/{sha1(url)}.json`` holds the extracted ``Page``. Writes overwrite, so a
repeated activity is harmless; a concurrent double fetch of one URL costs one
extra request and stores the same content.
"""

from __future__ import annotations

import hashlib

from shared.adapters.fetch.base import Fetcher
from shared.adapters.stores.base import MemoryStore
from shared.core.errors import NotFoundError
from shared.core.source_models import Page

PAGES = "pages/"


def page_name(url: str) -> str:
    return f"{PAGES}{hashlib.sha1(url.encode()).hexdigest()[:20]}.json"


def pages_read(memory: MemoryStore, session_id: str) -> int:
    """How many pages this session has read (what a report could have cited)."""
    return sum(1 for name in memory.list(session_id) if name.startswith(PAGES))


def cached_page(memory: MemoryStore, session_id: str, url: str) -> Page | None:
    """The page as this session read it, or None when it was never read."""
    try:
        return Page.model_validate_json(memory.read(session_id, page_name(url)))
    except NotFoundError:
        return None


def fetch_cached(memory: MemoryStore, fetcher: Fetcher, session_id: str, url: str) -> Page:
    name = page_name(url)
    try:
        return Page.model_validate_json(memory.read(session_id, name))
    except NotFoundError:
        pass
    page = fetcher.fetch(url)
    memory.write(session_id, name, page.model_dump_json(), "application/json")
    return page
