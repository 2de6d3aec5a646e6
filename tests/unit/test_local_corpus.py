"""BuiltinCorpus: ranking on the default corpus, folder corpora, fetching, disk cache."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from shared.adapters.fetch.base import Fetcher
from shared.adapters.search.base import SearchProvider
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.core.config import Settings
from shared.core.errors import FetchRefused, NotFoundError
from tests.contract.conftest import DEFAULT_QUESTION, shared_corpus


def test_default_question_ranks_the_with_context_manager_and_contextlib_pages_first():
    results = shared_corpus().search(DEFAULT_QUESTION, 5)
    assert {
        "corpus://python-reference/with",
        "corpus://python-reference/context-managers",
        "corpus://python-stdlib/contextlib",
    } <= {r.url for r in results}
    hub = next(r for r in results if r.url == "corpus://python-reference/specialnames")
    assert hub.title == "Special method names › With Statement Context Managers"
    assert all(r.provider == "collection" and r.snippet for r in results)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_default_corpus_serves_clean_readable_pages():
    corpus = shared_corpus()
    assert isinstance(corpus, SearchProvider) and isinstance(corpus, Fetcher)
    page = corpus.fetch("corpus://python-reference/with")
    assert page.title == "The with statement"
    assert "*****" not in page.text and "execution of a block" in page.text
    with pytest.raises(NotFoundError):
        corpus.fetch("corpus://python-reference/no-such-topic")
    with pytest.raises(FetchRefused):
        corpus.fetch("https://example.org/with")


def test_snippets_follow_each_query_on_the_same_document():
    corpus = shared_corpus()
    url = "corpus://python-reference/with"
    first = next(r for r in corpus.search("with statement context manager", 10) if r.url == url)
    second = next(r for r in corpus.search("with statement exit exception", 10) if r.url == url)
    assert first.snippet != second.snippet  # the per-document model is reused, not the answer
    assert "exit" in second.snippet.lower() or "exception" in second.snippet.lower()


def test_unrelated_query_finds_nothing():
    assert shared_corpus().search("zyzzyva quux", 5) == []


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "handbook"
    (root / "guides").mkdir(parents=True)
    (root / "intro.md").write_text(
        "# Brewing coffee\n\nA pour-over brew needs water at about ninety degrees. "
        "Grind size controls the extraction time of the coffee.\n",
        encoding="utf-8",
    )
    (root / "guides" / "tea.html").write_text(
        "<html><head><title>Green tea guide</title></head><body><nav>Menu</nav>"
        "<h1>Tea</h1><p>Green tea should steep for two minutes in water below boiling.</p>"
        "<script>var x = 1;</script></body></html>",
        encoding="utf-8",
    )
    (root / "notes.txt").write_text(
        "Kettle care\n\nDescale the kettle every month to keep the water tasting clean.\n",
        encoding="utf-8",
    )
    return root


def test_folder_corpus_reads_markdown_html_and_text(tmp_path):
    root = _folder(tmp_path)
    corpus = BuiltinCorpus(Settings(data_dir=tmp_path / "data", local_corpus_path=root))
    results = corpus.search("how long should green tea steep", 3)
    assert results[0].url == "corpus://handbook/guides/tea.html"
    assert results[0].title == "Green tea guide"
    page = corpus.fetch(results[0].url)
    assert "two minutes" in page.text and "Menu" not in page.text and "var x" not in page.text
    titles = {p.url: p.title for p in corpus.documents()}
    assert titles["corpus://handbook/intro.md"] == "Brewing coffee"
    assert titles["corpus://handbook/notes.txt"] == "Kettle care"


def test_index_is_cached_on_disk_and_follows_content_changes(tmp_path):
    root = _folder(tmp_path)
    settings = Settings(data_dir=tmp_path / "data", local_corpus_path=root)
    BuiltinCorpus(settings).search("coffee", 1)
    cache_files = list((tmp_path / "data" / "corpus-cache").glob("*.sqlite3"))
    assert len(cache_files) == 1
    reloaded = BuiltinCorpus(settings)
    assert reloaded.search("coffee", 1)[0].url == "corpus://handbook/intro.md"
    assert len(list((tmp_path / "data" / "corpus-cache").glob("*.sqlite3"))) == 1
    (root / "notes.txt").write_text("Espresso\n\nEspresso is brewed under pressure.\n")
    changed = BuiltinCorpus(settings)
    assert changed.search("espresso pressure", 1)[0].url == "corpus://handbook/notes.txt"
    assert len(list((tmp_path / "data" / "corpus-cache").glob("*.sqlite3"))) == 2


def test_a_torn_cache_file_is_rebuilt(tmp_path):
    root = _folder(tmp_path)
    settings = Settings(data_dir=tmp_path / "data", local_corpus_path=root)
    BuiltinCorpus(settings).search("coffee", 1)
    cache = next((tmp_path / "data" / "corpus-cache").glob("*.sqlite3"))
    cache.write_bytes(b"not a database")
    assert BuiltinCorpus(settings).search("kettle", 1)[0].url == "corpus://handbook/notes.txt"


def test_concurrent_first_use_builds_one_index(tmp_path):
    corpus = BuiltinCorpus(
        Settings(data_dir=tmp_path / "data", local_corpus_path=_folder(tmp_path))
    )
    results: list[list[str]] = []

    def search() -> None:
        results.append([r.url for r in corpus.search("water", 3)])

    threads = [threading.Thread(target=search) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 6 and all(r == results[0] for r in results)
    assert len(list((tmp_path / "data" / "corpus-cache").glob("*.sqlite3"))) == 1


def test_a_question_in_a_latin_script_language_is_searched_by_the_words_the_corpus_knows():
    """Spanish words share no word with the English corpus, so the search falls back to
    "with" (whole words: not the "mo" of "Cómo"; "Python" names too many pages to help)."""
    results = shared_corpus().search("¿Cómo funciona el bloque with en Python?", 3)
    assert "corpus://python-reference/with" in {r.url for r in results}
