"""Sections into chunks a citation can point at: paragraphs packed up to a target size.

A chunk never crosses a section (so never a heading or a PDF page boundary): its
heading path and page are exactly those of the text it holds. A paragraph longer
than the target is cut at sentence ends, then at spaces. Chunk ids are the
document id and the chunk's ordinal, so ingesting the same document twice gives
the same ids.
"""

from __future__ import annotations

import re

from shared.adapters.documents.base import ParsedDocument
from shared.core.collection_models import Chunk
from shared.core.limits import COLLECTION_CHUNK_CHARS

_PARAGRAPHS = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def chunk_document(
    parsed: ParsedDocument,
    collection_id: str,
    document_id: str,
    origin: str,
    target: int = COLLECTION_CHUNK_CHARS,
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for section in parsed.sections:
        for text in pack(section.text, target):
            chunks.append(
                Chunk(
                    id=f"{document_id}-{len(chunks)}",
                    collection_id=collection_id,
                    document_id=document_id,
                    ordinal=len(chunks),
                    title=parsed.title,
                    origin=origin,
                    heading_path=list(section.heading_path),
                    page=section.page,
                    text=text,
                )
            )
    return chunks


def pack(text: str, target: int) -> list[str]:
    """``text``'s paragraphs packed into pieces of about ``target`` characters."""
    pieces: list[str] = []
    current = ""
    for paragraph in _PARAGRAPHS.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        for part in _split_long(paragraph, target):
            if current and len(current) + 2 + len(part) > target:
                pieces.append(current)
                current = ""
            current = f"{current}\n\n{part}" if current else part
    if current:
        pieces.append(current)
    return pieces


def _split_long(paragraph: str, target: int) -> list[str]:
    if len(paragraph) <= target:
        return [paragraph]
    parts: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(paragraph):
        while len(sentence) > target:
            cut = sentence.rfind(" ", 0, target)
            cut = cut if cut > target // 2 else target
            if current:
                parts.append(current)
                current = ""
            parts.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > target:
            parts.append(current)
            current = ""
        current = f"{current} {sentence}" if current else sentence
    if current:
        parts.append(current)
    return [p for p in parts if p]
