"""The local corpus's index: its documents, their parsers, the BM25 build and its disk cache.

Split from ``shared.adapters.search.local`` (the adapter: search, fetch and focus over
the index) because reading and indexing a corpus is its own concern. The
default corpus is CPython's language reference (``pydoc_data.topics``) and its
standard library's docstrings (``stdlib_docs``); ``LOCAL_CORPUS_PATH`` is a
folder of .md/.txt/.html files. Building the index (cleaning, pysbd sentences,
BM25 statistics) takes seconds, so ``load_index`` pickles it under
``DATA_DIR/corpus-cache`` keyed by a hash of the raw corpus (for the standard
library: the interpreter's version and the module list) and ``CACHE_VERSION``;
a cache it cannot read (torn, or written when these classes lived in another
module) is rebuilt.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from rank_bm25 import BM25Okapi

from shared.adapters.search import stdlib_docs
from shared.core.config import Settings
from shared.tools import lexical

DEFAULT_CORPUS = "python-reference"  # the language reference's documents (their URLs)
DEFAULT_NAME = "python-docs"  # the default corpus: the reference and the standard library
CACHE_VERSION = "local-corpus-v4"  # bump when cleaning or splitting changes (v4: stdlib)
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
        from shared.core.errors import ConfigurationError

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
    return _split(
        f"corpus://{corpus}/{quote(key, safe='/')}", title or _readable(Path(key).stem), text
    )


def _split(url: str, title: str, text: str) -> CorpusDocument:
    sentences = lexical.split_sentences(text, "en")
    return CorpusDocument(
        url=url,
        title=title,
        text=text,
        sentences=sentences,
        sentence_tokens=[lexical.content_tokens(s) for s in sentences],
    )


def _build(corpus: str, pairs: list[tuple[str, str]], is_default: bool) -> CorpusIndex:
    docs = [_document(corpus, key, raw, is_default) for key, raw in pairs]
    if is_default:
        prefix = f"corpus://{stdlib_docs.STDLIB_CORPUS}/"
        docs += [
            _split(prefix + name, title, text) for name, title, text in stdlib_docs.documents()
        ]
        corpus = DEFAULT_NAME
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


# -- the disk cache ----------------------------------------------------------------


def load_index(settings: Settings) -> CorpusIndex:
    """The index from the pickle cache when its key matches, else built and cached."""
    corpus, pairs = _raw_sources(settings)
    digest = hashlib.sha256(CACHE_VERSION.encode())
    digest.update(corpus.encode())
    for key, raw in pairs:
        digest.update(b"\x00" + key.encode() + b"\x00" + raw.encode())
    if settings.local_corpus_path is None:
        digest.update(stdlib_docs.fingerprint().encode())
    cache = Path(settings.data_dir) / "corpus-cache" / f"{digest.hexdigest()[:32]}.pickle"
    if cache.is_file():
        try:
            with cache.open("rb") as fh:
                loaded = pickle.load(fh)
            if isinstance(loaded, CorpusIndex):
                return loaded
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            pass  # a torn or stale cache (one a moved module wrote) is rebuilt below
    index = _build(corpus, pairs, is_default=settings.local_corpus_path is None)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    with tmp.open("wb") as fh:
        pickle.dump(index, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, cache)
    return index
