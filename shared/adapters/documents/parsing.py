"""Documents in, sections out: PDF (pypdf), DOCX (python-docx), HTML (the page extractor),
Markdown and plain text.

What survives is what a citation needs: the title, each section's heading path, and
for PDF the page. The format comes from the file's first bytes where it has a
signature (PDF, the ZIP of a DOCX) and from its extension otherwise; anything else,
and any file its library cannot read, is an ``UnreadableDocument`` naming why.
"""

from __future__ import annotations

import io
import re
from pathlib import PurePosixPath

from shared.adapters.documents.base import ParsedDocument, Section, UnreadableDocument
from shared.adapters.fetch.extract import extract_main_text

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
HTML = "text/html"
MARKDOWN = "text/markdown"
TEXT = "text/plain"
BY_EXTENSION = {
    ".pdf": PDF,
    ".docx": DOCX,
    ".html": HTML,
    ".htm": HTML,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".txt": TEXT,
    ".text": TEXT,
    ".rst": TEXT,
}
SUPPORTED = ", ".join(sorted(BY_EXTENSION))
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def media_type(name: str, data: bytes) -> str:
    """The document's format; ``UnreadableDocument`` if it is none we read."""
    if data.startswith(b"%PDF-"):
        return PDF
    if name.startswith(("http://", "https://")):
        return MARKDOWN  # a fetched page is stored as the fetcher's Markdown-like text
    suffix = PurePosixPath(name.split("?", 1)[0]).suffix.lower()
    found = BY_EXTENSION.get(suffix)
    if found is None and data.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")):
        found = HTML
    if found is None:
        raise UnreadableDocument(f"unsupported format {suffix or '(none)'}: supported {SUPPORTED}")
    return found


class LibraryParser:
    """``DocumentParser`` over the libraries above."""

    def parse(self, name: str, data: bytes) -> tuple[str, ParsedDocument]:
        kind = media_type(name, data)
        return kind, parse(name, data, kind)


def parse(name: str, data: bytes, kind: str) -> ParsedDocument:
    """The sections of a document of format ``kind`` (from :func:`media_type`)."""
    stem = PurePosixPath(name.split("?", 1)[0]).stem or name
    if kind == PDF:
        return _pdf(data, stem)
    if kind == DOCX:
        return _docx(data, stem)
    text = _decode(data)
    if kind == HTML:
        title, body = extract_main_text(text, name)
        return markdown_sections(body, stem, title)
    if kind == MARKDOWN:
        return markdown_sections(text, stem)
    return ParsedDocument(title=stem, sections=[Section(text=text)] if text.strip() else [])


def markdown_sections(text: str, fallback_title: str, title: str = "") -> ParsedDocument:
    """Sections split at ATX headings (not inside code fences); the first H1 is the title
    unless the document names one (``title``)."""
    path, lines, sections = [], [], []
    in_fence = False

    def flush() -> None:
        body = "\n".join(lines).strip()
        if body:
            sections.append(Section(text=body, heading_path=tuple(h for _, h in path)))
        lines.clear()

    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading is None:
            lines.append(line)
            continue
        flush()
        level, words = len(heading.group(1)), heading.group(2).strip()
        title = title or (words if level == 1 else "")
        path = [(lv, h) for lv, h in path if lv < level] + [(level, words)]
    flush()
    return ParsedDocument(title=title or fallback_title, sections=sections)


def _pdf(data: bytes, stem: str) -> ParsedDocument:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise UnreadableDocument("the PDF is encrypted")
        texts = [page.extract_text() or "" for page in reader.pages]
        title = str((reader.metadata or {}).get("/Title") or "").strip()
    except UnreadableDocument:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnreadableDocument(f"corrupt PDF: {exc}") from exc
    sections = [Section(text=t, page=n) for n, t in enumerate(texts, start=1) if t.strip()]
    if not sections:
        raise UnreadableDocument("the PDF has no text layer (scanned pages are not read)")
    return ParsedDocument(title=title or stem, sections=sections, pages=len(texts))


def _docx(data: bytes, stem: str) -> ParsedDocument:
    import zipfile

    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise UnreadableDocument(f"corrupt DOCX: {exc}") from exc
    lines: list[str] = []
    title = (document.core_properties.title or "").strip()
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        if not text:
            lines.append("")
            continue
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        level = _docx_heading_level(style)
        if style == "Title":
            title = title or text
            continue
        lines.append(f"{'#' * level} {text}" if level else text)
    return markdown_sections("\n".join(lines), stem, title)


def _docx_heading_level(style: str) -> int:
    if style.startswith("Heading "):
        digits = style.removeprefix("Heading ").strip()
        if digits.isdigit():
            return max(1, min(6, int(digits)))
    return 0


def _decode(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:1024]:
        raise UnreadableDocument("binary content, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
