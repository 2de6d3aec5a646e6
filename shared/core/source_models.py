"""What the web gave a session: search results, pages read, and the sources a text cites.

Search adapters return ``SearchResult``; the fetcher returns a ``Page`` (kept in
the memory files, never in history); summaries and excerpts are what research
keeps of a page; a ``Source`` is a page a finding or a report cites, numbered
``n`` once, when the text that cites it is written. Sources are identified by
URL everywhere. These sit below research and report models because both cite
them, and they change with search and fetching, not with either.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class SearchResult(BaseModel):
    url: str
    title: str = ""
    snippet: str = ""
    score: float = 0.0
    provider: str = ""
    published: str | None = None
    tier: int | None = None


class TimeRange(BaseModel):
    start: str | None = None  # ISO date
    end: str | None = None
    label: str = ""


class Page(BaseModel):
    """Clean main text of a fetched page (stored as an item, never in history)."""

    url: str
    final_url: str | None = None
    title: str = ""
    text: str
    content_type: str = "text/plain"
    # The prose sentences of ``text``, split once when the page is fetched and
    # cached with it: passage selection reads them on every use. None for a
    # page stored before they were kept (it is split when read).
    sentences: list[str] | None = None
    # Their content tokens, when the page comes from the built-in collection (whose file
    # stores them): passage selection builds its model without tokenizing the page. One
    # string per sentence, its tokens joined by spaces (a token holds none): reading the
    # cached page back costs a string per sentence, not a list of strings (≈ 5× less).
    # None for any other page (its sentences are tokenized when ranked).
    sentence_tokens: list[str] | None = None
    # When this copy was fetched (the page cache sets it): a follow-up research reuses
    # a page only while it is fresh. None for a page stored before it was kept.
    fetched_at: datetime | None = None


class PageSummary(BaseModel):
    url: str
    title: str = ""
    summary: str
    relevant_sentences: list[str] = Field(default_factory=list)
    tier: int | None = None


class Source(BaseModel):
    """A source actually fetched in this session; ``n`` is its citation number."""

    n: int = 0
    url: str
    title: str = ""
    tier: int | None = None
    snippet: str = ""


class SourceExcerpt(BaseModel):
    """What one page says on a task, nearly verbatim: the evidence writer and critic read.

    Sentences copied from the page in page order (`` … `` between gaps), chosen
    for the task and the key findings that cite the page; ``published`` is the
    date the search provider gave, when it gave one.
    """

    url: str
    text: str
    published: str | None = None
