"""What the built-in collection holds: the corpus's documents as titled, sectioned text.

The default corpus is CPython's language reference (``pydoc_data.topics``: one document
per topic, ``corpus://python-reference/<topic>``) and its standard library's docstrings
(``stdlib_docs``, ``corpus://python-stdlib/<module>``); ``LOCAL_CORPUS_PATH`` is a folder
of .md/.txt/.html files instead (``corpus://<folder>/<relative path>``). Each document is
read into ``Section``s by its own structure: the reference's reStructuredText headings
(a line underlined with ``*``, ``=``, ``-`` ...) and Markdown's ``#`` headings become
heading paths, so a chunk of a long hub page says which section it comes from.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from shared.adapters.documents.base import Section
from shared.adapters.search import stdlib_docs
from shared.core.config import Settings
from shared.core.errors import ConfigurationError

DEFAULT_CORPUS = "python-reference"  # the language reference's documents (their URLs)
DEFAULT_NAME = "python-docs"  # the default corpus: the reference and the standard library
SCHEME = "corpus://"
_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")
_UNDERLINE_RE = re.compile(r"^\s*([*=\-~^#])\1{2,}\s*$")
# reStructuredText's emphasis, *text* or **text**, perhaps wrapped over two lines: its stars
# open on a word, close on anything but a space, and touch no word outside, so "x**2",
# "f(*args, **kwargs)", "except*" and the bullet of "* *__slots__* are …" stay as written
# (taken for emphasis, "2**-1" became "2-1" and "__slots__*" kept a stray star)
_EMPHASIS_RE = re.compile(
    r"(?<![\w*])\*{1,2}(?=\w)((?:[^*\n]|\n(?!\s*\n)){0,200}?[^\s*])\*{1,2}(?![\w*])"
)
_MD_HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SLUG_RE = re.compile(r"[^A-Za-z0-9_\-]+")


@dataclass(frozen=True)
class SourceDocument:
    url: str  # its citation address, corpus://...
    title: str
    sections: list[Section]


def collection_id_for(settings: Settings) -> str:
    """The built-in collection's id: ``python-docs``, or the corpus folder's name."""
    root = settings.local_corpus_path
    if root is None:
        return DEFAULT_NAME
    return _SLUG_RE.sub("-", Path(root).name).strip("-") or "corpus"


def corpus_name(settings: Settings) -> str:
    root = settings.local_corpus_path
    return DEFAULT_NAME if root is None else Path(root).name


def fingerprint(settings: Settings) -> str:
    """What the documents depend on, without rendering them: the key of the cached index."""
    digest = hashlib.sha256()
    root = settings.local_corpus_path
    if root is None:
        from pydoc_data.topics import topics

        for key, raw in sorted(topics.items()):
            digest.update(b"\x00" + key.encode() + b"\x00" + raw.encode())
        digest.update(stdlib_docs.fingerprint().encode())
        return digest.hexdigest()
    for key, raw in _folder_files(Path(root)):
        digest.update(b"\x00" + key.encode() + b"\x00" + raw.encode())
    return digest.hexdigest()


def documents(settings: Settings) -> list[SourceDocument]:
    """Every document of the corpus, in a stable order."""
    root = settings.local_corpus_path
    if root is None:
        from pydoc_data.topics import topics

        out = [_pydoc_document(key, raw) for key, raw in sorted(topics.items())]
        prefix = f"{SCHEME}{stdlib_docs.STDLIB_CORPUS}/"
        out += [
            SourceDocument(prefix + name, title, _plain_sections(text))
            for name, title, text in stdlib_docs.documents()
        ]
        return out
    folder = Path(root)
    return [_file_document(folder.name, key, raw) for key, raw in _folder_files(folder)]


def document_url(corpus: str, key: str) -> str:
    return f"{SCHEME}{corpus}/{quote(key, safe='/')}"


# -- the reference: pydoc topics ------------------------------------------------------


def _pydoc_document(key: str, raw: str) -> SourceDocument:
    """A topic's title (its first line) and its sections under their underlined headings;
    emphasis markup removed. Heading levels follow the order underline characters first
    appear in, as reStructuredText reads them."""
    lines = raw.splitlines()
    title = lines[0].strip().replace('"', "") if lines else ""
    levels: list[str] = []
    path: list[str] = []
    sections: list[Section] = []
    body: list[str] = []
    i = 1
    while i < len(lines):
        line = lines[i]
        underline = _UNDERLINE_RE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if i == 1 and _UNDERLINE_RE.match(line):  # the title's own underline
            i += 1
            continue
        if underline and line.strip():
            _flush(sections, path, body)
            char = underline.group(1)
            if char not in levels:
                levels.append(char)
            depth = levels.index(char)
            heading = _EMPHASIS_RE.sub(r"\1", line.strip()).replace('"', "")
            path = [*path[:depth], heading]
            body = [heading]  # the heading stays in the text, as the reader sees it
            i += 2
            continue
        body.append(line)
        i += 1
    _flush(sections, path, body)
    return SourceDocument(document_url(DEFAULT_CORPUS, key), title or _readable(key), sections)


def _flush(sections: list[Section], path: list[str], body: list[str]) -> None:
    text = _EMPHASIS_RE.sub(r"\1", "\n".join(body)).strip()
    if text:
        sections.append(Section(text=text, heading_path=tuple(path)))
    body.clear()


def _plain_sections(text: str) -> list[Section]:
    return [Section(text=text)] if text.strip() else []


# -- a folder of files ----------------------------------------------------------------


def _folder_files(root: Path) -> list[tuple[str, str]]:
    if not root.is_dir():
        raise ConfigurationError(f"LOCAL_CORPUS_PATH is not a folder: {root}")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES)
    return [
        (p.relative_to(root).as_posix(), p.read_text(encoding="utf-8", errors="replace"))
        for p in files
    ]


def _file_document(corpus: str, key: str, raw: str) -> SourceDocument:
    suffix = Path(key).suffix.lower()
    if suffix in (".html", ".htm"):
        title, sections = _parse_html(raw)
    elif suffix == ".txt":
        title, sections = _first_line(raw), _plain_sections(_EMPHASIS_RE.sub(r"\1", raw))
    else:
        title, sections = _parse_markdown(raw)
    return SourceDocument(document_url(corpus, key), title or _readable(Path(key).stem), sections)


def _readable(key: str) -> str:
    return key.replace("-", " ").replace("_", " ").strip().capitalize()


def _first_line(raw: str) -> str:
    return next((line.strip() for line in raw.splitlines() if line.strip()), "")


def _parse_markdown(raw: str) -> tuple[str, list[Section]]:
    """Title (the first line, ``#`` dropped) and sections under the ``#`` headings."""
    title = _first_line(raw).lstrip("#").strip()
    sections: list[Section] = []
    path: list[str] = []
    body: list[str] = []
    for line in _EMPHASIS_RE.sub(r"\1", raw).splitlines():
        heading = _MD_HEADING_RE.match(line)
        if heading:
            _flush(sections, path, body)
            depth = len(heading.group(1)) - 1
            path = [*path[:depth], heading.group(2)]
            body.append(heading.group(2))
        else:
            body.append(line)
    _flush(sections, path, body)
    return title, sections


def _parse_html(raw: str) -> tuple[str, list[Section]]:
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
    return title, _plain_sections("\n\n".join(b for b in blocks if b))
