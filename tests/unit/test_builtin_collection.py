"""The built-in collection: the corpus chunked into the FTS5 index, read back through the
collection reader with its sentences, routed beside the teams' index and never written."""

from __future__ import annotations

import pytest

from shared.adapters.documents.collection_search import (
    CollectionReader,
    CollectionSearch,
    boosted,
    corpus_document_id,
    named_words,
    query_words,
    title_boost,
)
from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.documents.routed_index import RoutedIndex
from shared.adapters.search import corpus_sources
from shared.core.collection_models import Chunk
from shared.core.config import Settings
from shared.core.errors import ConflictError, PermanentError
from shared.core.source_models import Page
from shared.tools import lexical
from shared.tools.page_scorers import page_scorer
from tests.contract.conftest import shared_corpus

WITH = "corpus://python-reference/with"


def test_the_references_headings_become_the_heading_paths_of_its_chunks():
    topics = {d.url: d for d in corpus_sources.documents(Settings(local_corpus_path=None))[:80]}
    compound = topics["corpus://python-reference/compound"]
    paths = [s.heading_path for s in compound.sections]
    assert ("The with statement",) in paths
    assert all("****" not in s.text and "====" not in s.text for s in compound.sections)
    with_section = next(s for s in compound.sections if s.heading_path == ("The with statement",))
    assert with_section.text.startswith("The with statement")  # the heading stays readable


def test_the_references_emphasis_is_removed_and_its_operators_stay_as_written():
    topics = {d.url: d for d in corpus_sources.documents(Settings(local_corpus_path=None))}

    def text(key: str) -> str:
        return " ".join(" ".join(s.text.split()) for s in topics[key].sections)

    # a star that marks emphasis goes; a bullet, a power or an unpacking star stays
    assert "__slots__ are implemented at the class level" in text(
        "corpus://python-reference/attribute-access"
    )
    assert 'An asterisk "*" denotes iterable unpacking' in text(
        "corpus://python-reference/exprlists"
    )
    assert '"2**-1" is "0.5"' in text("corpus://python-reference/operator-summary")
    assert "*rich comparison methods*" not in text("corpus://python-reference/comparisons")


def test_a_hub_page_is_found_through_the_section_whose_heading_names_the_subject():
    results = CollectionSearch(shared_corpus().index, ["python-docs"]).search("with statement", 10)
    hub = next(r for r in results if r.url == "corpus://python-reference/compound")
    assert hub.title == "Compound statements › The with statement"


def test_a_page_read_through_the_collection_reader_carries_the_indexes_sentences():
    corpus = shared_corpus()
    page = CollectionReader(corpus.index, ["python-docs"]).fetch(WITH)
    sentences, tokens = corpus.document_sentences(WITH)
    assert page.title == "The with statement" and page.final_url == WITH
    assert page.sentences == list(sentences) and len(tokens) == len(sentences) > 5
    assert corpus.sentences_of(page) == (sentences, tokens)  # the reasoner skips its split
    quoted = "corpus://python-reference/%77ith"  # however the address was quoted
    assert corpus.document_sentences(quoted) == (sentences, tokens)
    assert corpus.document_sentences("https://example.org/with") is None


def test_a_page_read_from_the_collection_carries_its_sentences_stored_tokens():
    """The page cache keeps a page as JSON: its sentences' stored tokens come back with it,
    and ranking its sentences tokenizes none of them, with the picks tokenizing gives."""
    corpus = shared_corpus()
    page = CollectionReader(corpus.index, ["python-docs"]).fetch(WITH)
    cached = Page.model_validate_json(page.model_dump_json())
    assert cached.sentences and cached.sentence_tokens
    stored = [" ".join(lexical.content_tokens(s)) for s in cached.sentences]
    assert cached.sentence_tokens == stored  # each sentence's tokens, joined by spaces
    # reversed: sentences no earlier test ranked, so no model of them is kept yet
    sentences, tokens = cached.sentences[::-1], cached.sentence_tokens[::-1]
    lexical.tokenized.cache_clear()  # a new page for this worker: nothing tokenized yet
    scorer = page_scorer(sentences, tokens)
    picks = lexical.rank_sentences("with statement context manager", sentences, 8, scorer=scorer)
    assert lexical.tokenized.cache_info().misses == 0
    assert picks == lexical.rank_sentences("with statement context manager", sentences, 8)
    assert len(picks) == 8
    assert page_scorer(sentences) is scorer  # kept for the page's later uses


def test_a_search_works_out_each_title_boost_once_per_title_and_heading_path():
    """Hundreds of chunks share a few titles and headings: the boost is the definition's
    (``title_boost`` per chunk), worked out once for each title and heading path."""
    pairs = shared_corpus().index.ranked("statement exception", 1000)
    places = {(chunk.title, *chunk.heading_path) for chunk, _ in pairs}
    assert len(places) * 2 < len(pairs)
    wanted = set(query_words("with statement exception"))
    expected = sorted(((c, s * title_boost(c, wanted)) for c, s in pairs), key=lambda p: -p[1])
    info = named_words.cache_info()
    looked_up = info.hits + info.misses
    assert boosted("with statement exception", lambda asked: pairs) == expected
    info = named_words.cache_info()
    assert info.hits + info.misses - looked_up == 2 * len(places)  # title, heading path


def test_the_builtin_file_is_opened_read_only(tmp_path):
    index = shared_corpus().index
    chunk = index.document_chunks("python-docs", corpus_document_id(WITH))[0]
    with pytest.raises(PermanentError, match="read-only"):
        index.replace_document("python-docs", chunk.document_id, [chunk])
    assert index.count("python-docs", chunk.document_id) > 0


def _team_chunk(text: str) -> Chunk:
    return Chunk(
        id="d1-0",
        collection_id="team",
        document_id="d1",
        ordinal=0,
        title="Runbook",
        origin="runbook.md",
        text=text,
    )


def test_the_routed_index_refuses_writes_to_the_builtin_and_searches_both(tmp_path):
    teams = SqliteIndex(tmp_path / "collections.sqlite3")
    routed = RoutedIndex(teams, {"python-docs": lambda: shared_corpus().index})
    said = "built in and read-only"
    with pytest.raises(ConflictError, match=said):
        routed.replace_document("python-docs", "x", [])
    with pytest.raises(ConflictError, match=said):
        routed.delete_collection("python-docs")
    with pytest.raises(ConflictError, match=said):
        routed.delete_document("python-docs", "x")
    routed.replace_document("team", "d1", [_team_chunk("The with statement of our runbook.")])

    hits = routed.search(["team", "python-docs"], "with statement runbook", 6)
    collections = [h.chunk.collection_id for h in hits]
    assert collections[:2] in (["team", "python-docs"], ["python-docs", "team"])
    assert routed.count("team") == 1 and routed.count("python-docs") > 1000
    assert teams.count("python-docs") == 0  # nothing of the built-in is in the teams' index


class _CountingCorpus:
    """The shared corpus, counting how often a whole ranking is asked for."""

    def __init__(self) -> None:
        self.inner = shared_corpus()
        self.rankings: list[tuple[str, int]] = []

    def best_documents(self, query: str, k: int):
        self.rankings.append((query, k))
        return self.inner.best_documents(query, k)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def test_planning_and_the_reports_sentences_look_documents_up_without_ranking_the_corpus():
    from shared.adapters.reasoning import offline_meaning, offline_research
    from shared.core.research_models import QueryAnalysis, ResearchContext

    corpus = _CountingCorpus()
    question = "How do context managers and the with statement work in Python?"
    context = ResearchContext(session_id="s", query=question, language="en")
    analysis = QueryAnalysis(query_type="how_to", complexity="moderate", key_concepts=["with"])
    plan = offline_research.plan(corpus, context, analysis, 5)
    sentences = offline_meaning.corpus_sentences(corpus)(WITH)

    assert plan.topics and corpus.rankings == []
    assert sentences == tuple(shared_corpus().document_sentences(WITH)[0])
    assert offline_meaning.corpus_sentences(corpus)("https://example.org/") is None


def test_a_page_with_one_passage_on_the_subject_ranks_below_the_pages_about_it():
    """warnings.catch_warnings is a context manager: one chunk of the warnings page is about
    the question, the rest is not, so it stays out of the first results."""
    question = "How do context managers and the with statement work in Python?"
    urls = [p.url for p in shared_corpus().best_documents(question, 12)]  # the focus pool
    assert "corpus://python-stdlib/warnings" not in urls, urls
    assert WITH in urls[:5] and "corpus://python-reference/context-managers" in urls[:5], urls
    searched = [r.url for r in shared_corpus().search(question, 12)]
    assert "corpus://python-stdlib/warnings" not in searched, searched
