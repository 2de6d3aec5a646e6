"""LocalCorpusSearch: BM25 search and ``corpus://`` fetching over a local corpus.

It is a ``Corpus`` (a ``SearchProvider`` whose documents can be read closely)
and a ``Fetcher``, so a run with no network
and no search key still searches, reads and cites real documents. The
default corpus is the Python language reference that ships with CPython
(``pydoc_data.topics``: one document per topic, ``corpus://python-reference/<topic>``);
``LOCAL_CORPUS_PATH`` points at a folder of .md/.txt/.html files instead
(``corpus://<folder>/<relative path>``).

The index (cleaned documents, their pysbd sentences and BM25 statistics) is
built once per process, lazily and under a lock, and pickled under
``DATA_DIR/corpus-cache`` keyed by a hash of the raw corpus: splitting the
default corpus into sentences takes seconds, loading the pickle a few ms.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from rank_bm25 import BM25Okapi

from shared import lexical
from shared.config import Settings
from shared.errors import FetchRefused, NotFoundError
from shared.models import Page, SearchResult, TimeRange
from shared.search.base import FocusDocument

DEFAULT_CORPUS = "python-reference"
CACHE_VERSION = "local-corpus-v2"  # bump when cleaning or splitting changes
TITLE_WEIGHT = 2.0
SNIPPET_CHARS = 300
_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")
_UNDERLINE_RE = re.compile(r"^\s*([*=\-~^#])\1{2,}\s*$")
_EMPHASIS_RE = re.compile(r"\*{1,2}([^*\n]+?)\*{1,2}")


@dataclass
class CorpusDocument:
    url: str
    title: str
    text: str
    sentences: tuple[str, ...]
    sentence_tokens: list[list[str]]


@dataclass
class CorpusIndex:
    """Everything derived from the corpus; pickled as one object."""

    name: str
    documents: list[CorpusDocument]
    body: BM25Okapi
    titles: BM25Okapi
    idf: dict[str, float]
    by_url: dict[str, int] = field(default_factory=dict)


# -- reading the corpus ------------------------------------------------------------


def _clean_pydoc(raw: str) -> tuple[str, str]:
    """Title and text of one pydoc topic: title underlines and emphasis markup removed."""
    lines = raw.splitlines()
    title = lines[0].strip().replace('"', "") if lines else ""
    body = [line for line in lines[1:] if not _UNDERLINE_RE.match(line)]
    text = _EMPHASIS_RE.sub(r"\1", "\n".join(body)).strip()
    return title, text


def _readable(key: str) -> str:
    return key.replace("-", " ").replace("_", " ").strip().capitalize()


def _parse_html(raw: str) -> tuple[str, str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(raw, "html.parser")
    for tag in soup(["script", "style", "nav", "footer", "header", "aside", "noscript"]):
        tag.decompose()
    heading = soup.find(["h1", "h2", "h3"])
    title = ""
    if soup.title and soup.title.get_text(strip=True):
        title = soup.title.get_text(strip=True)
    elif heading is not None:
        title = heading.get_text(" ", strip=True)
    root = soup.body or soup
    blocks = [
        " ".join(el.get_text(" ", strip=True).split())
        for el in root.find_all(["h1", "h2", "h3", "h4", "p", "li", "pre", "td", "blockquote"])
        if not el.find(["p", "li"])
    ]
    return title, "\n\n".join(b for b in blocks if b)


def _parse_text(raw: str, suffix: str) -> tuple[str, str]:
    title = ""
    for line in raw.splitlines():
        stripped = line.strip()
        if stripped:
            title = stripped.lstrip("#").strip() if suffix != ".txt" or title == "" else title
            break
    text = _EMPHASIS_RE.sub(r"\1", raw)
    text = "\n".join(
        line.lstrip("#").strip() if line.startswith("#") else line for line in text.splitlines()
    )
    return title, text


def _raw_sources(settings: Settings) -> tuple[str, list[tuple[str, str]]]:
    """Corpus name and ``(relative key, raw text)`` pairs, in a stable order."""
    root = settings.local_corpus_path
    if root is None:
        from pydoc_data.topics import topics

        return DEFAULT_CORPUS, sorted(topics.items())
    root = Path(root)
    if not root.is_dir():
        from shared.errors import ConfigurationError

        raise ConfigurationError(f"LOCAL_CORPUS_PATH is not a folder: {root}")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES)
    pairs = [
        (p.relative_to(root).as_posix(), p.read_text(encoding="utf-8", errors="replace"))
        for p in files
    ]
    return root.name, pairs


def _document(corpus: str, key: str, raw: str, is_default: bool) -> CorpusDocument:
    suffix = Path(key).suffix.lower()
    if is_default:
        title, text = _clean_pydoc(raw)
    elif suffix in (".html", ".htm"):
        title, text = _parse_html(raw)
    else:
        title, text = _parse_text(raw, suffix)
    sentences = lexical.split_sentences(text, "en")
    return CorpusDocument(
        url=f"corpus://{corpus}/{quote(key, safe='/')}",
        title=title or _readable(Path(key).stem),
        text=text,
        sentences=sentences,
        sentence_tokens=[lexical.content_tokens(s) for s in sentences],
    )


def _build(corpus: str, pairs: list[tuple[str, str]], is_default: bool) -> CorpusIndex:
    docs = [_document(corpus, key, raw, is_default) for key, raw in pairs]
    body_tokens = [lexical.tokenize(d.title + "\n" + d.text) or ["\x00"] for d in docs]
    title_tokens = [lexical.tokenize(d.title) or ["\x00"] for d in docs]
    n = len(docs)
    df: dict[str, int] = {}
    for tokens in body_tokens:
        for token in set(tokens):
            df[token] = df.get(token, 0) + 1
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    return CorpusIndex(
        name=corpus,
        documents=docs,
        body=BM25Okapi(body_tokens),
        titles=BM25Okapi(title_tokens),
        idf=idf,
        by_url={d.url: i for i, d in enumerate(docs)},
    )


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
                    self._index = self._load()
        return self._index

    def _load(self) -> CorpusIndex:
        corpus, pairs = _raw_sources(self._settings)
        digest = hashlib.sha256(CACHE_VERSION.encode())
        digest.update(corpus.encode())
        for key, raw in pairs:
            digest.update(b"\x00" + key.encode() + b"\x00" + raw.encode())
        cache = Path(self._settings.data_dir) / "corpus-cache" / f"{digest.hexdigest()[:32]}.pickle"
        if cache.is_file():
            try:
                with cache.open("rb") as fh:
                    loaded = pickle.load(fh)
                if isinstance(loaded, CorpusIndex):
                    return loaded
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
                pass  # a torn or stale cache (one a moved module wrote) is rebuilt below
        index = _build(corpus, pairs, is_default=self._settings.local_corpus_path is None)
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump(index, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
        return index

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
        return Page(url=url, final_url=doc.url, title=doc.title, text=doc.text)

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
