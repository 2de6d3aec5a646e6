"""LocalCorpusSearch: BM25 search and ``corpus://`` fetching over a local corpus.

It is a ``Corpus`` (a ``SearchProvider`` whose documents can be read closely)
and a ``Fetcher``, so a run with no network
and no search key still searches, reads and cites real documents. The
default corpus is the Python language reference that ships with CPython
(``pydoc_data.topics``: one document per topic, ``corpus://python-reference/<topic>``);
``LOCAL_CORPUS_PATH`` points at a folder of .md/.txt/.html files instead
(``corpus://<folder>/<relative path>``).

The index (cleaned documents, their pysbd sentences and BM25 statistics;
``shared.adapters.search.corpus_index``) is loaded once per process, lazily and under a
lock, from a pickle under ``DATA_DIR/corpus-cache`` keyed by a hash of the raw
corpus: splitting the default corpus into sentences takes seconds, loading the
pickle a few ms.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from urllib.parse import quote, unquote, urlsplit

from shared.adapters.search.base import FocusDocument
from shared.adapters.search.corpus_index import CorpusDocument, CorpusIndex, load_index
from shared.core.config import Settings
from shared.core.errors import FetchRefused, NotFoundError
from shared.core.source_models import Page, SearchResult, TimeRange
from shared.tools import lexical

TITLE_WEIGHT = 2.0
SNIPPET_CHARS = 300


# -- the adapter -------------------------------------------------------------------


class LocalCorpusSearch:
    """Corpus + Fetcher over the local corpus; safe to share between threads."""

    name = "local"

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._index: CorpusIndex | None = None
        self._lock = threading.Lock()
        self._scorers: dict[int, lexical.Bm25Scorer] = {}  # per document, over its sentences

    # -- index lifecycle --

    @property
    def index(self) -> CorpusIndex:
        """The loaded index (built or read from the disk cache on first use)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = load_index(self._settings)
        return self._index

    # -- SearchProvider --

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        """BM25 over body and title; the corpus has no dates, so ``time_range`` is ignored."""
        ranked = self._rank(query)[: max(max_results, 0)]
        return [
            SearchResult(
                url=self.index.documents[i].url,
                title=self.index.documents[i].title,
                snippet=self._snippet(i, query),
                score=round(score, 4),
                provider=self.name,
            )
            for i, score in ranked
        ]

    def _rank(self, query: str) -> list[tuple[int, float]]:
        """BM25 ranking; a query that matches nothing (e.g. Russian or Spanish over the
        English default corpus) is retried with the words of it the corpus knows: keywords
        and identifiers such as "with", "Python" or "__enter__" read the same in any
        language."""
        ranked = self._rank_tokens(query)
        idf = self.index.idf
        known = [w for w in lexical.latin_words(query) if lexical.normalize_token(w) in idf]
        carried = " ".join(known)
        if not ranked and carried and carried != " ".join(query.split()):
            ranked = self._rank_tokens(carried)
        return ranked

    def _rank_tokens(self, query: str) -> list[tuple[int, float]]:
        tokens = lexical.tokenize(query)
        if not tokens:
            return []
        index = self.index
        body = index.body.get_scores(tokens)
        titles = index.titles.get_scores(tokens)
        content = set(lexical.content_tokens(query))
        scored = []
        for i in range(len(index.documents)):
            shares = content.intersection(index.body.doc_freqs[i]) if content else True
            score = float(body[i]) + TITLE_WEIGHT * float(titles[i])
            if shares and score > 0:
                scored.append((i, score))
        return sorted(scored, key=lambda pair: (-pair[1], pair[0]))

    def _snippet(self, i: int, query: str) -> str:
        doc = self.index.documents[i]
        best = self._sentence_scores(i, lexical.content_tokens(query))
        if doc.sentences and max(best) > 0:
            text = doc.sentences[max(range(len(best)), key=lambda j: (best[j], -j))]
        else:
            text = " ".join(doc.text.split())
        return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"

    def _sentence_scores(self, i: int, query_tokens: Sequence[str]) -> list[float]:
        """BM25 of document ``i``'s sentences for the query (model built once per document)."""
        scorer = self._scorers.get(i)
        if scorer is None:  # a race only builds the same scorer twice
            scorer = self._scorers[i] = lexical.Bm25Scorer(self.index.documents[i].sentence_tokens)
        return scorer.scores(query_tokens)

    # -- Fetcher --

    def fetch(self, url: str) -> Page:
        parts = urlsplit(url)
        if parts.scheme.lower() != "corpus":
            raise FetchRefused(f"not a corpus URL: {url}")
        doc = self._find(url)
        # the index split it already (the same split as at fetch): a session need not again
        return Page(
            url=url,
            final_url=doc.url,
            title=doc.title,
            text=doc.text,
            sentences=list(doc.sentences),
        )

    def _find(self, url: str) -> CorpusDocument:
        index = self.index
        for candidate in (url, f"corpus://{quote(unquote(url[len('corpus://') :]), safe='/')}"):
            if candidate in index.by_url:
                return index.documents[index.by_url[candidate]]
        raise NotFoundError(f"no such document in corpus {index.name!r}: {url}")

    # -- Corpus: reading documents closely (the offline reasoner) --

    def documents(self) -> list[Page]:
        return [Page(url=d.url, title=d.title, text=d.text) for d in self.index.documents]

    def best_documents(self, query: str, k: int) -> list[Page]:
        docs = self.index.documents
        return [
            Page(url=docs[i].url, title=docs[i].title, text=docs[i].text)
            for i, _ in self._rank(query)[:k]
        ]

    def sentences_of(self, page: Page) -> tuple[tuple[str, ...], list[list[str]]] | None:
        """Cached sentences and their content tokens when ``page`` is an unchanged corpus
        document (the reasoner then skips splitting and tokenizing), else None."""
        index = self.index
        i = index.by_url.get(page.final_url or page.url, index.by_url.get(page.url))
        if i is None or index.documents[i].text != page.text:
            return None
        return index.documents[i].sentences, index.documents[i].sentence_tokens

    def key_phrases(self, query: str, k: int, docs: int = 2) -> list[str]:
        """Characteristic phrases of the best documents for ``query``, minus the query's words."""
        index = self.index
        query_tokens = lexical.content_tokens(query)
        texts: list[str] = []
        for i, _ in self._rank(query)[:docs]:
            doc = index.documents[i]
            scores = self._sentence_scores(i, query_tokens)
            order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))[:15]
            texts.extend(doc.sentences[j] for j in sorted(order) if scores[j] > 0)
        return lexical.key_phrases(texts, k, idf=index.idf, exclude=[query])

    def focus_documents(
        self, query: str, k: int, concepts: Sequence[str] = ()
    ) -> list[FocusDocument]:
        """The ``k`` documents most about ``query``'s concepts, each with a phrase of its own.

        ``concepts`` are the question's noun phrases ("context managers", "with
        statement"; by default its multi-word candidate phrases). Documents that
        mention more of them come first, then BM25 order; the rest of the BM25
        ranking follows. Planning anchors each topic in a different one of these,
        so agents reach different documents instead of all reading the top two.
        """
        index = self.index
        wanted = [p for p in concepts if p.strip()] or [
            p for p in lexical.candidate_phrases(query) if len(p.split()) >= 2
        ]
        patterns = [f" {' '.join(lexical.tokenize(p))} " for p in wanted]
        patterns = [p for p in patterns if p.strip()]
        query_tokens = lexical.content_tokens(query)
        ranked = [i for i, _ in self._rank(query)[: max(k, 0) * 4 + 10]]
        mentions = {i: _mentions(index.documents[i], patterns) for i in ranked}
        order = sorted(ranked, key=lambda i: -mentions[i])  # stable: BM25 order within
        out: list[FocusDocument] = []
        taken: list[str] = [query]
        for i in order[: max(k, 0)]:
            doc = index.documents[i]
            scores = self._sentence_scores(i, query_tokens)
            best = sorted(range(len(scores)), key=lambda j: (-scores[j], j))[:12]
            texts = [doc.sentences[j] for j in sorted(best) if scores[j] > 0] or [doc.title]
            phrases = lexical.key_phrases(texts, 1, idf=index.idf, exclude=taken)
            phrase = phrases[0] if phrases else doc.title.lower()
            taken.append(phrase)
            out.append(FocusDocument(doc.url, doc.title, phrase, about=mentions[i] > 0))
        return out

    def describe(self) -> tuple[str, int]:
        return self.index.name, len(self.index.documents)

    @property
    def idf(self) -> dict[str, float]:
        return self.index.idf


def _mentions(doc: CorpusDocument, patterns: list[str]) -> int:
    """How many of the space-padded token ``patterns`` occur in ``doc``'s text."""
    text = f" {' '.join(lexical.tokenize(doc.text))} "
    return sum(1 for p in patterns if p in text)
