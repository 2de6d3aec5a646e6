"""The small GIL corpus plus one document that attacks whoever displays it.

Its title (the first line of a Markdown file is the local corpus's title, and
so the source title the report lists) carries a ``<script>`` and an image with
an ``onerror`` handler, each of which sets ``window.__pwned``; its text carries
a ``javascript:`` link and raw HTML. Its words are about the GIL, so a research
on the GIL reads and cites it. A page that shows it must show the markup as
text and run none of it.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes.small_corpus import write_corpus

HOSTILE_TITLE = (
    "<script>window.__pwned = 'script'</script>"
    "<img src=x onerror=\"window.__pwned = 'img'\"> GIL internals"
)
HOSTILE_DOCUMENT = (
    f"# {HOSTILE_TITLE}\n\n"
    "The GIL is a mutex in CPython that guards the interpreter state, so the GIL "
    "serializes bytecode execution across threads. "
    "<b onmouseover=\"window.__pwned = 'html'\">The GIL is released</b> around blocking I/O. "
    "Read [the GIL notes](javascript:window.__pwned='link') before removing the GIL.\n"
)


def write_hostile_corpus(folder: Path) -> Path:
    write_corpus(folder)
    (folder / "gil-internals.md").write_text(HOSTILE_DOCUMENT, encoding="utf-8")
    return folder
