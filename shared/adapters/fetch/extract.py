"""Main-content extraction: HTML in, a title and Markdown-like text out.

Readers (the Reasoner, BM25) see only what a person reading the article would
read: scripts, navigation, headers, footers, sidebars, forms and cookie banners
are removed; ``<main>`` / ``<article>`` / ``[role=main]`` is preferred over the
whole body. Structure that carries meaning survives as plain text: headings as
``#`` lines, list items as ``- `` lines, tables as ``| a | b |`` rows and code
blocks fenced with backticks. The text is capped so one huge page cannot crowd
out the others in a prompt.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import CData, Declaration, Doctype, ProcessingInstruction

MAX_PAGE_CHARS = 60_000

_DROP_TAGS = (
    "script",
    "style",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "noscript",
    "svg",
    "iframe",
    "template",
    "button",
    "dialog",
    "canvas",
    "object",
    "embed",
)
_DROP_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "dialog"}
)
_NOISE_ATTR = re.compile(r"cookie|consent|banner|gdpr", re.IGNORECASE)
_KEEP_ALWAYS = frozenset({"html", "body", "main", "article"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "blockquote",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "hr",
        "br",
        "li",
        "body",
        "html",
    }
)
_SKIPPED_STRINGS = (Comment, CData, Declaration, Doctype, ProcessingInstruction)
_SPACES = re.compile(r"\s+")


def extract_main_text(html: str, url: str) -> tuple[str, str]:
    """``(title, text)`` of the page's main content; ``url`` is for diagnostics only."""
    del url  # kept in the signature so callers can log per-URL extraction later
    soup = BeautifulSoup(html, _parser())
    title = _title(soup)
    _drop_noise(soup)
    root = _main_root(soup)
    blocks: list[str] = []
    _Walker(blocks).walk(root)
    text = "\n\n".join(b for b in blocks if b.strip())
    if not title:
        first_heading = next((b for b in blocks if b.startswith("# ")), "")
        title = first_heading[2:].strip()
    return title, cap_text(text)


def links_of(html: str, base: str) -> list[str]:
    """The page's http(s) links, absolute, without fragments, in order, each once."""
    from urllib.parse import urldefrag, urljoin

    found: list[str] = []
    for anchor in BeautifulSoup(html, _parser()).find_all("a", href=True):
        url = urldefrag(urljoin(base, str(anchor["href"]).strip()))[0]
        if url.startswith(("http://", "https://")) and url not in found:
            found.append(url)
    return found


def cap_text(text: str, limit: int = MAX_PAGE_CHARS) -> str:
    """Cut ``text`` at a paragraph boundary under ``limit`` characters when possible."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n\n", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip()


def collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _parser() -> str:
    try:
        import lxml  # noqa: F401
    except ImportError:
        return "html.parser"
    return "lxml"


def _title(soup: BeautifulSoup) -> str:
    if soup.title and soup.title.string:
        return collapse(soup.title.string)
    meta = soup.find("meta", attrs={"property": "og:title"})
    if isinstance(meta, Tag) and meta.get("content"):
        return collapse(str(meta["content"]))
    return ""


def _drop_noise(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for tag in soup.find_all(True):
        if tag.decomposed or tag.name in _KEEP_ALWAYS:
            continue
        if _is_noise(tag):
            tag.decompose()


def _is_noise(tag: Tag) -> bool:
    if tag.attrs is None:
        return False
    role = str(tag.get("role") or "").lower()
    if role in _DROP_ROLES or tag.has_attr("hidden"):
        return True
    if str(tag.get("aria-hidden") or "").lower() == "true":
        return True
    classes = tag.get("class") or []
    marker = " ".join([str(tag.get("id") or ""), *map(str, classes)])
    return bool(_NOISE_ATTR.search(marker))


def _main_root(soup: BeautifulSoup) -> Tag:
    """The element holding the article, falling back to the body when it is too thin."""
    body = soup.body or soup
    body_len = len(collapse(body.get_text(" ")))
    candidates = [soup.find("main"), soup.find(attrs={"role": "main"})]
    articles = soup.find_all("article")
    if articles:
        candidates.append(max(articles, key=lambda a: len(a.get_text(" "))))
    for candidate in candidates:
        if not isinstance(candidate, Tag):
            continue
        size = len(collapse(candidate.get_text(" ")))
        if size >= 200 or size >= body_len / 2:
            return candidate
    return body


class _Walker:
    """Turns an element tree into text blocks, keeping headings, lists, tables, code."""

    def __init__(self, blocks: list[str]) -> None:
        self.blocks = blocks
        self.buffer: list[str] = []

    def walk(self, node: Tag) -> None:
        self._children(node)
        self._flush()

    def _children(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, _SKIPPED_STRINGS):
                continue
            if isinstance(child, NavigableString):
                self.buffer.append(str(child))
            elif isinstance(child, Tag):
                self._element(child)

    def _element(self, tag: Tag) -> None:
        name = tag.name
        if name in _HEADINGS:
            self._emit("#" * _HEADINGS[name] + " " + collapse(tag.get_text(" ")))
        elif name == "pre":
            code = tag.get_text().strip("\n")
            self._emit(f"```\n{code}\n```" if code.strip() else "")
        elif name in ("ul", "ol"):
            self._emit("\n".join(_list_lines(tag, 0)))
        elif name == "table":
            self._emit("\n".join(_table_rows(tag)))
        elif name == "img":
            return
        elif name in _BLOCKS:
            self._flush()
            self._children(tag)
            self._flush()
        else:
            self._children(tag)

    def _emit(self, block: str) -> None:
        self._flush()
        if block.strip():
            self.blocks.append(block)

    def _flush(self) -> None:
        text = collapse("".join(self.buffer))
        self.buffer.clear()
        if text:
            self.blocks.append(text)


def _list_lines(tag: Tag, depth: int) -> list[str]:
    lines: list[str] = []
    for item in tag.find_all("li", recursive=False):
        nested = [n for n in item.find_all(("ul", "ol")) if n.find_parent("li") is item]
        inside_nested = {id(s) for n in nested for s in n.find_all(string=True)}
        own = "".join(
            str(s)
            for s in item.find_all(string=True)
            if id(s) not in inside_nested and not isinstance(s, _SKIPPED_STRINGS)
        )
        if collapse(own):
            lines.append("  " * depth + "- " + collapse(own))
        for sub in nested:
            lines.extend(_list_lines(sub, depth + 1))
    return lines


def _table_rows(table: Tag) -> list[str]:
    rows = []
    for row in table.find_all("tr"):
        cells = [collapse(c.get_text(" ")) for c in row.find_all(("th", "td"))]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    return rows
