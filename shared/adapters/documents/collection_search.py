"""Collections as a source: search them like a web provider, read a hit like a page.

A hit's URL is the link that serves the document's original to its owner,
``/api/collections/{collection_id}/documents/{document_id}``, with ``#page=N`` for a
PDF page: what a citation shows is where the reader can open it. The web pipeline
groups results by URL without its fragment, so the chunks of one document come back
as one source (its best page first). Reading such a URL gives the text of that page
(PDF) or the whole document, from the index: nothing leaves the service.

The built-in collection (the Python documentation, or ``LOCAL_CORPUS_PATH``) is cited by
its documents' own stable addresses, ``corpus://python-reference/with``: a chunk whose
origin is such an address is cited by it, and reading one finds its document by the id
derived from it (:func:`corpus_document_id`). Its chunks carry their sentences, split once
when the collection was built, so a page read from it carries them too.
"""

from __future__ import annotations

import hashlib
import keyword
import re
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from itertools import islice
from urllib.parse import quote, unquote

from shared.adapters.documents.base import Index
from shared.core.collection_models import DOCUMENT_ID_CHARS, Chunk, ChunkHit
from shared.core.errors import FetchRefused, NotFoundError
from shared.core.source_models import Page, SearchResult, TimeRange
from shared.tools.lexical import content_tokens, tokenize

PROVIDER = "collection"
LINK_PREFIX = "/api/collections/"
_LINK = re.compile(r"^/api/collections/([A-Za-z0-9_\-]+)/documents/([0-9a-f]+)(?:#page=(\d+))?$")
CORPUS_SCHEME = "corpus://"  # the built-in collection's citation addresses
MAX_PAGE_CHARS = 80_000  # the longest built-in document (asyncio's docstrings) is read whole
SNIPPET_CHARS = 300
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
HITS_PER_RESULT = 4  # chunks read per wanted result: several may fall on one document
# A chunk whose title and heading path name all of the query's words has its score
# multiplied by 1 + TITLE_BOOST: "The with statement" (or the section of that name on the
# "Compound statements" page) is about "with statement" more than a page using both words
# once. Set on the offline bench's tune half (1, 2, 3, 4, 6, 10 tried; 4 kept; the heading
# share: 1 and 0.5 tried, 0.5 kept).
TITLE_BOOST = 4.0
HEADING_SHARE = 0.5  # a word only a section heading names counts half a title's
# Python keywords that English reads as stopwords but that name a construct in the
# documents this service researches ("with", "yield", "lambda", "while"): kept in a query.
# The connectives among them ("and", "in", "is" ...) stay stopwords.
_CONSTRUCTS = frozenset(keyword.kwlist) - {"and", "or", "not", "in", "is", "as"}


def document_link(collection_id: str, document_id: str, page: int | None = None) -> str:
    link = f"{LINK_PREFIX}{collection_id}/documents/{document_id}"
    return f"{link}#page={page}" if page else link


def is_document_link(url: str) -> bool:
    return url.startswith((LINK_PREFIX, CORPUS_SCHEME))


def corpus_address(url: str) -> str:
    """One spelling of a ``corpus://`` address, however its path was quoted."""
    return CORPUS_SCHEME + quote(unquote(url[len(CORPUS_SCHEME) :]), safe="/")


def corpus_document_id(url: str) -> str:
    """The id of the built-in document cited as ``url``: stable, derived from it."""
    digest = hashlib.sha256(corpus_address(url).encode()).hexdigest()
    return digest[:DOCUMENT_ID_CHARS]


def chunk_link(chunk: Chunk) -> str:
    """Where a citation of ``chunk`` points: its built-in address, or its owner's link."""
    if chunk.origin.startswith(CORPUS_SCHEME):
        return chunk.origin
    return document_link(chunk.collection_id, chunk.document_id, chunk.page)


def query_words(query: str) -> list[str]:
    """What a collection is searched for: the query's content words and constructs."""
    constructs = [w for w in tokenize(query) if w in _CONSTRUCTS]
    return list(dict.fromkeys([*content_tokens(query), *constructs]))


@lru_cache(maxsize=32768)
def named_words(heading: str) -> frozenset[str]:
    """The words a title or heading path names, cached: a search weighs hundreds of chunks,
    and a document's chunks share its title and their headings."""
    return frozenset(query_words(heading))


def ranked_hits(
    index: Index, collection_ids: list[str], query: str, limit: int, every: bool = False
) -> list[ChunkHit]:
    """The best chunk of each cited page (``chunk_link``), best first (``every``: all).

    The index is asked for the query's content words only ("how", "the" and "do" match
    every chunk and rank short ones first), and a chunk whose title and heading path name
    them is raised (``TITLE_BOOST``). A query of stopwords alone is asked as written."""
    scored = boosted(
        query,
        lambda asked: (
            (hit.chunk, hit.score) for hit in index.search(collection_ids, asked, limit)
        ),
    )
    if every:
        return [ChunkHit(chunk=chunk, score=score) for chunk, score in scored]
    best: dict[str, ChunkHit] = {}
    for chunk, score in scored:
        link = chunk_link(chunk)
        if link not in best:
            best[link] = ChunkHit(chunk=chunk, score=score)
    return list(best.values())


def boosted(
    query: str, rank: Callable[[str], Iterable[tuple[Chunk, float]]]
) -> list[tuple[Chunk, float]]:
    """What ``rank`` finds for the query's words (see ``ranked_hits``), each score raised by
    ``title_boost``, best first (stable: the ranking's order within). Pairs, not hits: the
    built-in collection weighs hundreds of them per query and keeps one per document.
    A boost is worked out once per title and heading path the query's chunks have (230
    for 1,800 chunks on the default corpus's broad queries: ~0.8 -> ~0.3 ms a query)."""
    words = query_words(query)
    wanted = set(words)
    boosts: dict[tuple[str, ...], float] = {}
    scored = []
    for chunk, score in rank(" ".join(words) or query):
        named = (chunk.title, *chunk.heading_path)
        boost = boosts.get(named)
        if boost is None:
            boost = boosts[named] = title_boost(chunk, wanted)
        scored.append((chunk, score * boost))
    scored.sort(key=lambda pair: -pair[1])
    return scored


def title_boost(chunk: Chunk, wanted: set[str]) -> float:
    """What ``chunk``'s score is multiplied by for the query words (``wanted``) its title
    and heading path name (``TITLE_BOOST``, a heading's word counting ``HEADING_SHARE``)."""
    titled = wanted.intersection(named_words(chunk.title))
    headed = wanted.intersection(named_words(" ".join(chunk.heading_path))) - titled
    share = (len(titled) + HEADING_SHARE * len(headed)) / (len(wanted) or 1)
    return 1 + TITLE_BOOST * share


@lru_cache(maxsize=32768)
def _words(sentence: str) -> frozenset[str]:
    """A sentence's tokens, cached: the same chunks come back for every query on a topic."""
    return frozenset(tokenize(sentence))


def snippet(text: str, wanted: set[str]) -> str:
    """The chunk's sentence holding most of the query's words (the first on a tie), cut
    to ``SNIPPET_CHARS``: what ranks the result next to the web's and what a reader sees."""
    sentences = [s for s in _SENTENCE_END.split(" ".join(text.split())) if s] or [text]
    best = max(sentences, key=lambda s: len(wanted.intersection(_words(s))))
    return best if len(best) <= SNIPPET_CHARS else best[: SNIPPET_CHARS - 1] + "…"


def page_text(chunks: list[Chunk]) -> tuple[str, list[str] | None]:
    """The text a reader gets for ``chunks`` (whole chunks up to ``MAX_PAGE_CHARS``) and
    its sentences when every chunk kept its own."""
    kept: list[Chunk] = []
    size = 0
    for chunk in chunks:
        if kept and size + 2 + len(chunk.text) > MAX_PAGE_CHARS:
            break
        kept.append(chunk)
        size += len(chunk.text) + 2
    text = "\n\n".join(c.text for c in kept)[:MAX_PAGE_CHARS]
    if any(c.sentences is None for c in kept):
        return text, None
    return text, [s for c in kept for s in c.sentences or ()]


def page_tokens(chunks: list[Chunk], sentences: list[str] | None) -> list[list[str]] | None:
    """The stored tokens of ``sentences`` (``page_text``'s, the first chunks' sentences in
    order), when every chunk kept its own (the built-in collection's); else None."""
    if sentences is None or any(c.sentence_tokens is None for c in chunks):
        return None
    stored = (group for c in chunks for group in c.sentence_tokens or ())
    return list(islice(stored, len(sentences)))


def joined(tokens: list[list[str]] | None) -> list[str] | None:
    """``Page.sentence_tokens``: each sentence's tokens as one string."""
    return None if tokens is None else [" ".join(group) for group in tokens]


def _page(url: str, chunks: list[Chunk], title: str, final_url: str | None = None) -> Page:
    """What a reader gets of ``chunks``: their text, its sentences and their tokens."""
    text, sentences = page_text(chunks)
    tokens = joined(page_tokens(chunks, sentences))
    return Page(
        url=url,
        final_url=final_url,
        title=title,
        text=text,
        sentences=sentences,
        sentence_tokens=tokens,
    )


def source_title(chunk: Chunk) -> str:
    """The document's title with where in it: "Runbook, p. 3" or "Notes › Storage"."""
    if chunk.page:
        return f"{chunk.title}, p. {chunk.page}"
    if chunk.heading_path:
        return f"{chunk.title} › {' › '.join(chunk.heading_path)}"
    return chunk.title


class CollectionSearch:
    """``SearchProvider`` over some collections of the ``Index``, one result per document page."""

    name = PROVIDER

    def __init__(
        self,
        index: Index,
        collection_ids: list[str],
        ranker: Callable[[str, int], list[ChunkHit]] | None = None,
    ) -> None:
        """``ranker(query, limit)``: the best chunk of each page, best first, when the
        collection weighs its documents its own way (the built-in one); else ``ranked_hits``."""
        self._index = index
        self._collections = list(collection_ids)
        self._ranker = ranker or partial(ranked_hits, self._index, self._collections)

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        limit = max_results * HITS_PER_RESULT
        wanted = set(query_words(query))
        results: dict[str, SearchResult] = {}
        for hit in self._ranker(query, limit):
            chunk = hit.chunk
            url = chunk_link(chunk)
            if url in results:  # the page's best chunk came first
                continue
            if len(results) == max_results:  # a snippet costs a tokenized chunk: only the kept
                break
            results[url] = SearchResult(
                url=url,
                title=source_title(chunk),
                snippet=snippet(chunk.text, wanted),
                score=hit.score,
                provider=PROVIDER,
                tier=1,  # the caller's own documents
            )
        return list(results.values())


class CollectionReader:
    """``Fetcher`` for document links: the page's (or the document's) chunks, in order."""

    def __init__(self, index: Index, collection_ids: list[str]) -> None:
        self._index = index
        self._collections = set(collection_ids)

    def fetch(self, url: str) -> Page:
        if url.startswith(CORPUS_SCHEME):
            return self._read_corpus(url)
        match = _LINK.match(url)
        if match is None or match.group(1) not in self._collections:
            raise FetchRefused(f"not a document of this research's collections: {url}")
        collection_id, document_id, page = match.group(1), match.group(2), match.group(3)
        chunks = self._index.document_chunks(collection_id, document_id)
        if page is not None:
            chunks = [c for c in chunks if c.page == int(page)]
        if not chunks:
            raise FetchRefused(f"no text at {url}")
        return _page(url, chunks, source_title(chunks[0]))

    def _read_corpus(self, url: str) -> Page:
        """A built-in document, whole: its title (not a section's) and its sentences."""
        document_id = corpus_document_id(url)
        for collection_id in sorted(self._collections):
            chunks = self._index.document_chunks(collection_id, document_id)
            if chunks and chunks[0].origin.startswith(CORPUS_SCHEME):
                return _page(url, chunks, chunks[0].title, final_url=chunks[0].origin)
        raise NotFoundError(f"no such document in this research's collections: {url}")
