"""A page is split into sentences once, when it is fetched, and its passages read the cache.

Splitting is counted through the public splitter's own cache statistics
(``sentence_split.split_sentences.cache_info``): every call, hit or miss, counts.
"""

from __future__ import annotations

from pathlib import Path

from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.core.source_models import Page
from shared.tools import sentence_split
from shared.usecases.research.evidence import observation_passages, relevant_passages
from shared.usecases.research.page_cache import cached_page, fetch_cached, page_name

URL = "https://docs.example/generators"
TEXT = " ".join(
    [
        "The weather in the valley was mild that spring and nobody complained about it.",
        "A generator function returns an iterator that produces values lazily on demand.",
        "Each yield statement suspends the generator and hands one value to the caller.",
    ]
)


class OnePageFetcher:
    """A fetcher that serves one page and counts its fetches."""

    def __init__(self) -> None:
        self.fetches = 0

    def fetch(self, url: str) -> Page:
        self.fetches += 1
        return Page(url=url, title="Generators", text=TEXT)


def splits() -> int:
    info = sentence_split.split_sentences.cache_info()
    return info.hits + info.misses


def test_a_fetched_page_is_stored_with_its_sentences(tmp_path: Path):
    memory, fetcher = FilesystemMemoryStore(tmp_path), OnePageFetcher()

    page = fetch_cached(memory, fetcher, "s1", URL)

    assert page.sentences == list(sentence_split.split_sentences(TEXT))
    stored = Page.model_validate_json(memory.read("s1", page_name(URL)))
    assert stored.sentences == page.sentences


def test_a_page_read_from_the_cache_is_not_split_again(tmp_path: Path):
    memory, fetcher = FilesystemMemoryStore(tmp_path), OnePageFetcher()
    fetch_cached(memory, fetcher, "s1", URL)
    before = splits()

    again = fetch_cached(memory, fetcher, "s1", URL)
    passages = observation_passages(again, "generator yield")
    cached = cached_page(memory, "s1", URL)

    assert splits() == before, "the cached page's sentences were split again"
    assert fetcher.fetches == 1
    assert cached is not None and cached.sentences == again.sentences
    assert "Each yield statement suspends the generator" in passages
    assert passages == relevant_passages(TEXT, "generator yield", 700)


def test_a_page_stored_before_sentences_were_kept_still_reads(tmp_path: Path):
    memory = FilesystemMemoryStore(tmp_path)
    old = Page(url=URL, text=TEXT).model_dump_json(exclude={"sentences"})
    memory.write("s1", page_name(URL), old, "application/json")

    page = cached_page(memory, "s1", URL)

    assert page is not None and page.sentences == list(sentence_split.split_sentences(TEXT))
