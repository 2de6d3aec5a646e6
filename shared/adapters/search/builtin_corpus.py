"""BuiltinCorpus: the built-in collection as the offline default's Corpus, search and reader.

The corpus (the Python documentation, or ``LOCAL_CORPUS_PATH``) is a read-only collection
of the documents index (``builtin_store``: SQLite FTS5, built once and cached on disk).
There is one search path for documents: searching it is ``CollectionSearch`` and reading
one of its documents is ``CollectionReader``, exactly as for a team's collection, and a
research that names ``python-docs`` in ``options.collections`` reaches the same index
through the routed ``Services.index``. What this class adds is the close reading the
offline reasoner does over the same index: documents ranked whole (the best chunk of
each), their sentences as the index split them, the corpus's idf, key phrases and the
documents a plan anchors its topics in.

The built-in file is loaded once per process, lazily and under a lock.
"""

from __future__ import annotations

import keyword
import threading
from collections import Counter
from collections.abc import Sequence

from shared.adapters.documents.collection_search import (
    CollectionReader,
    CollectionSearch,
    boosted,
    corpus_address,
    joined,
)
from shared.adapters.search import builtin_store, corpus_vectors, stdlib_docs
from shared.adapters.search.base import FocusDocument
from shared.adapters.search.builtin_index import BuiltinIndex
from shared.adapters.search.builtin_store import BuiltinCollection, BuiltinDocument
from shared.adapters.search.corpus_sources import SCHEME, collection_id_for
from shared.core.collection_models import BuiltinCatalog, ChunkHit
from shared.core.config import Settings
from shared.core.source_models import Page, SearchResult, TimeRange
from shared.tools import lexical

RANK_CHUNKS = 1000  # chunks read to rank documents whole: every match in the default corpus
RANKINGS_KEPT = 256  # queries whose document ranking is kept (a few KB each)
RANKING_STRIPES = 16  # locks a query's first ranking is made under, shared by hash


class BuiltinCorpus:
    """Corpus + Fetcher over the built-in collection; safe to share between threads."""

    name = "local"

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.collection_id = collection_id_for(settings)
        self._data: BuiltinCollection | None = None
        self._lock = threading.Lock()
        self._scorers: dict[int, lexical.Bm25Scorer] = {}  # per document, over its sentences
        self._catalog: BuiltinCatalog | None = None
        self._ranked: dict[str, list[ChunkHit]] = {}  # by query
        self._cosines: dict[str, dict[str, float]] = {}  # by query
        self._entries: dict[str, stdlib_docs.Entries] = {}  # by URL: its members' entries
        self._ranking = tuple(threading.Lock() for _ in range(RANKING_STRIPES))

    @property
    def data(self) -> BuiltinCollection:
        """The loaded collection (built, or read from its file, on first use)."""
        if self._data is None:
            with self._lock:
                if self._data is None:
                    self._data = builtin_store.load(self._settings)
        return self._data

    @property
    def index(self) -> BuiltinIndex:
        return self.data.index

    # -- SearchProvider and Fetcher: the collection's own search and reader --

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        """The corpus has no dates, so ``time_range`` is ignored."""
        search = CollectionSearch(self.index, [self.collection_id], self._ranker)
        return search.search(self._carried(query), max_results)

    def _ranker(self, query: str, limit: int) -> list[ChunkHit]:
        """Every document that matches, weighed (``limit`` is a chunk budget the weighing
        cannot use: it counts all of a document's matching chunks)."""
        return self._document_hits(query)

    def fetch(self, url: str) -> Page:
        return CollectionReader(self.index, [self.collection_id]).fetch(url)

    # -- Corpus: reading documents closely (the offline reasoner) --

    def documents(self) -> list[Page]:
        return [_page(d) for d in self.data.documents]

    def best_documents(self, query: str, k: int) -> list[Page]:
        docs = self.data.documents
        return [_page(docs[i]) for i, _ in self._rank(query)[: max(k, 0)]]

    def document(self, url: str) -> Page | None:
        doc = self._stored(url)
        return None if doc is None else _page(doc)

    def document_sentences(self, url: str) -> tuple[tuple[str, ...], list[list[str]]] | None:
        """A document's sentences and their content tokens, looked up by its address."""
        doc = self._stored(url)
        return None if doc is None else (doc.sentences, doc.sentence_tokens)

    def sentences_of(self, page: Page) -> tuple[tuple[str, ...], list[list[str]]] | None:
        """The index's sentences when ``page`` is an unchanged built-in document (the
        reasoner then skips splitting and tokenizing), else None."""
        for url in (page.final_url, page.url):
            if url and (doc := self._stored(url)) is not None:
                return (doc.sentences, doc.sentence_tokens) if doc.text == page.text else None
        return None

    def member_of(self, url: str, sentence: str) -> str | None:
        """The library member ("os.getenv") whose entry on the standard-library page at
        ``url`` holds ``sentence`` (``stdlib_docs.Entries``); None for any other page."""
        doc = self._stored(url)
        if doc is None or not doc.url.startswith(f"{SCHEME}{stdlib_docs.STDLIB_CORPUS}/"):
            return None
        entries = self._entries.get(doc.url)
        if entries is None:  # a race only works the same entries out twice
            module = doc.url.rsplit("/", 1)[-1]
            entries = self._entries[doc.url] = stdlib_docs.Entries(doc.text, module)
        return entries.of(sentence)

    def _stored(self, url: str) -> BuiltinDocument | None:
        """The indexed document at ``url``, or None (not one of this corpus's addresses)."""
        i = self.data.by_url.get(corpus_address(url)) if url.startswith(SCHEME) else None
        return None if i is None else self.data.documents[i]

    def key_phrases(self, query: str, k: int, docs: int = 2) -> list[str]:
        """Characteristic phrases of the best documents for ``query``, minus the query's words."""
        data = self.data
        query_tokens = lexical.content_tokens(query)
        texts: list[str] = []
        for i, _ in self._rank(query)[:docs]:
            doc = data.documents[i]
            scores = self._sentence_scores(i, query_tokens)
            order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))[:15]
            texts.extend(doc.sentences[j] for j in sorted(order) if scores[j] > 0)
        return lexical.key_phrases(texts, k, idf=data.idf, exclude=[query])

    def focus_documents(
        self, query: str, k: int, concepts: Sequence[str] = ()
    ) -> list[FocusDocument]:
        """The ``k`` documents most about ``query``'s concepts, each with a phrase of its own.

        ``concepts`` are the question's noun phrases ("context managers", "with
        statement"; by default its multi-word candidate phrases). Documents that
        mention more of them come first, then in ranking order; the rest of the ranking
        follows. With vectors the order is the fused ranking of words and meaning
        (``by_meaning``), which reaches pages that answer in other words. Planning
        anchors each topic in a different one of these, so agents
        reach different documents instead of all reading the top two.
        """
        data = self.data
        wanted = [p for p in concepts if p.strip()] or [
            p for p in lexical.candidate_phrases(query) if len(p.split()) >= 2
        ]
        patterns = [f" {' '.join(lexical.tokenize(p))} " for p in wanted]
        patterns = [p for p in patterns if p.strip()]
        query_tokens = lexical.content_tokens(query)
        ranked = [i for i, _ in self._rank(query)[: max(k, 0) * 4 + 10]]
        meant = self.by_meaning(query)
        if meant is not None:  # by meaning and words together (``corpus_vectors.fused``)
            ranked = [data.by_url[u] for u, _ in meant]
        mentions = {i: _mentions(data.documents[i], patterns) for i in ranked}
        order = ranked if meant is not None else sorted(ranked, key=lambda i: -mentions[i])
        out: list[FocusDocument] = []
        taken: list[str] = [query]
        for i in order[: max(k, 0)]:
            doc = data.documents[i]
            scores = self._sentence_scores(i, query_tokens)
            best = sorted(range(len(scores)), key=lambda j: (-scores[j], j))[:12]
            texts = [doc.sentences[j] for j in sorted(best) if scores[j] > 0] or [doc.title]
            phrases = lexical.key_phrases(texts, 1, idf=data.idf, exclude=taken)
            phrase = phrases[0] if phrases else doc.title.lower()
            taken.append(phrase)
            out.append(FocusDocument(doc.url, doc.title, phrase, about=mentions[i] > 0))
        return out

    def catalog(self) -> BuiltinCatalog:
        """The collection and its documents as the collection routes show them."""
        if self._catalog is None:
            self._catalog = builtin_store.catalog(self._settings, self.data)
        return self._catalog

    def describe(self) -> tuple[str, int]:
        return self.data.name, len(self.data.documents)

    @property
    def idf(self) -> dict[str, float]:
        return self.data.idf

    def by_meaning(self, query: str) -> list[tuple[str, float]] | None:
        """The documents of both rankings, words and meaning, fused (``corpus_vectors``),
        each with its best chunk's cosine to ``query``; None without vectors."""
        cosines = self.document_cosines(query)
        if cosines is None:
            return None
        docs = self.data.documents
        lexical = [docs[i].url for i, _ in self._rank(query)[: corpus_vectors.TOP]]
        return [(url, cosines[url]) for url in corpus_vectors.fused(lexical, cosines)]

    def document_cosines(self, query: str) -> dict[str, float] | None:
        """Per document URL, its best chunk's cosine to ``query`` (``corpus_vectors``);
        None when the collection has no vectors (the model is not installed)."""
        data = self.data
        if data.vectors is None or data.vector_owner is None:
            return None
        cosines = self._cosines.get(query)
        if cosines is None:
            from shared.tools import local_embeddings

            asked = local_embeddings.encode([query])[0]
            best = corpus_vectors.document_cosines(
                data.vectors, data.vector_owner, len(data.documents), asked
            )
            if len(self._cosines) >= RANKINGS_KEPT:
                self._cosines.clear()
            cosines = self._cosines[query] = {
                d.url: float(c) for d, c in zip(data.documents, best, strict=True)
            }
        return cosines

    # -- ranking documents whole, through the index --

    def _rank(self, query: str) -> list[tuple[int, float]]:
        return self._rank_chunks(self._carried(query))

    def _carried(self, query: str) -> str:
        """The query, or the words of it the corpus knows when no well-ranked document
        shares half of its words (e.g. Russian or Spanish over the English default
        corpus): keywords and identifiers such as "with", "Python" or "__enter__" read
        the same in any language."""
        idf = self.data.idf
        known = [  # keywords, and words of 3+ letters ("el", "en" are function words in many
            w  # languages); not "Python": it names most documents of the standard library
            for w in lexical.latin_words(query)
            if keyword.iskeyword(w.lower())
            or (lexical.normalize_token(w) in idf and len(w) > 2 and lexical.content_tokens(w))
        ]
        carried = " ".join(known)
        if not carried or carried == " ".join(query.split()):
            return query
        if self._shared(query, self._rank_chunks(query)) or not self._rank_chunks(carried):
            return query
        return carried

    def _shared(self, query: str, ranked: list[tuple[int, float]]) -> bool:
        """Whether some well-ranked document shares half the query's words: otherwise what
        matched is a foreign word the corpus happens to hold ("en" in a docstring)."""
        content = set(lexical.content_tokens(query))
        docs = self.data.documents
        best = max((len(content & docs[i].tokens) for i, _ in ranked[:10]), default=0)
        return best * 2 >= len(content)

    def _rank_chunks(self, query: str) -> list[tuple[int, float]]:
        by_id = self.data.by_id
        return [(by_id[h.chunk.document_id], h.score) for h in self._document_hits(query)]

    def _document_hits(self, query: str) -> list[ChunkHit]:
        """Each document's best chunk (``boosted``), weighed by the share of its chunks
        that match: a long page one passage of which uses the question's words
        (``warnings``, whose ``catch_warnings`` is a context manager) is less about it than
        the pages that do throughout. Documents sharing none of the query's content words
        are left out. Kept per query: planning asks for the same ranking several times, and
        researchers working at once often search the same words (their todo's query, the
        question): the first ranks it while the others wait for its ranking (1-9 ms of CPU
        each, which four threads would otherwise spend one after another under the GIL)."""
        ranked = self._ranked.get(query)
        if ranked is None:
            with self._ranking[hash(query) % RANKING_STRIPES]:
                ranked = self._ranked.get(query)
                if ranked is None:
                    if len(self._ranked) >= RANKINGS_KEPT:
                        self._ranked.clear()
                    ranked = self._ranked[query] = self._weighed(query)
        return ranked

    def _weighed(self, query: str) -> list[ChunkHit]:
        data = self.data
        content = set(lexical.content_tokens(query))
        scored = boosted(query, lambda asked: data.index.ranked(asked, RANK_CHUNKS))
        matched = Counter(chunk.document_id for chunk, _ in scored)
        best: dict[str, ChunkHit] = {}
        for chunk, score in scored:
            i = data.by_id.get(chunk.document_id)
            if i is None or chunk.document_id in best:
                continue
            doc = data.documents[i]
            if content and content.isdisjoint(doc.tokens):
                continue
            share = matched[doc.document_id] / max(doc.chunks, 1)
            best[doc.document_id] = ChunkHit(chunk=chunk, score=score * (1 + share))
        return sorted(best.values(), key=lambda hit: -hit.score)

    def _sentence_scores(self, i: int, query_tokens: Sequence[str]) -> list[float]:
        """BM25 of document ``i``'s sentences for the query (model built once per document)."""
        scorer = self._scorers.get(i)
        if scorer is None:  # a race only builds the same scorer twice
            tokens = self.data.documents[i].sentence_tokens
            scorer = self._scorers[i] = lexical.Bm25Scorer(tokens)
        return scorer.scores(query_tokens)


def _page(doc: BuiltinDocument) -> Page:
    return Page(
        url=doc.url,
        title=doc.title,
        text=doc.text,
        sentences=list(doc.sentences),
        sentence_tokens=joined(doc.sentence_tokens),
    )


def _mentions(doc: BuiltinDocument, patterns: list[str]) -> int:
    """How many of the space-padded token ``patterns`` occur in ``doc``'s text."""
    text = f" {' '.join(lexical.tokenize(doc.text))} "
    return sum(1 for p in patterns if p in text)
