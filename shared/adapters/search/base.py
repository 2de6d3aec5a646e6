"""The search ports: SearchProvider, Reranker and the readable Corpus.

Adapters (``builtin_corpus.py``, ``tavily.py``, ``searxng.py``, ``brave.py``,
``duckduckgo.py``) return ranked ``SearchResult`` lists. They raise
``TransientError`` for 429/5xx/timeouts and ``PermanentError`` otherwise;
the query pipeline decides how a dead provider degrades a run. A
``Reranker`` (``embeddings.py``) reorders a ranked list and never fails it.

A ``Corpus`` is a provider whose documents can also be read closely: the
offline reasoner plans and writes from one (``BuiltinCorpus``), handed to
it by the composition root, without knowing which adapter it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from shared.core.source_models import Page, SearchResult, TimeRange


@runtime_checkable
class SearchProvider(Protocol):
    name: str

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]: ...


class Reranker(Protocol):
    def rerank(self, query: str, results: list[SearchResult]) -> list[SearchResult]: ...


@dataclass(frozen=True)
class FocusDocument:
    """A corpus document a research topic is anchored in, with its characteristic phrase."""

    url: str
    title: str
    phrase: str
    about: bool  # mentions one of the query's multi-word concepts


class Corpus(SearchProvider, Protocol):
    """A searchable collection of documents with their lexical statistics."""

    @property
    def idf(self) -> Mapping[str, float]:
        """Inverse document frequency of each token over the whole corpus."""
        ...

    def describe(self) -> tuple[str, int]:
        """The corpus's name and document count, for reports to say what they rest on."""
        ...

    def best_documents(self, query: str, k: int) -> list[Page]:
        """The ``k`` documents that rank best for ``query``, whole."""
        ...

    def document(self, url: str) -> Page | None:
        """The document at ``url``, whole; None when it is not one of the corpus's."""
        ...

    def sentences_of(self, page: Page) -> tuple[Sequence[str], list[list[str]]] | None:
        """The corpus's own sentence split of ``page`` with content tokens, when it has one."""
        ...

    def document_sentences(self, url: str) -> tuple[Sequence[str], list[list[str]]] | None:
        """The sentences and content tokens of the corpus document at ``url``, if it has one:
        a lookup by address, not a ranking."""
        ...

    def member_of(self, url: str, sentence: str) -> str | None:
        """What ``sentence`` of the document at ``url`` describes, when the page documents
        several ("os.getenv" on the ``os`` page), else None."""
        ...

    def key_phrases(self, query: str, k: int, docs: int = 2) -> list[str]:
        """Characteristic phrases of the best documents for ``query``, minus its own words."""
        ...

    def focus_documents(
        self, query: str, k: int, concepts: Sequence[str] = ()
    ) -> list[FocusDocument]:
        """The ``k`` documents most about ``query``'s concepts, each with a phrase of its own."""
        ...

    def by_meaning(self, query: str) -> list[tuple[str, float]] | None:
        """Documents ranked by words and meaning together, each URL with its best passage's
        cosine to ``query``; None when the corpus has no vectors (no embedding model)."""
        ...
