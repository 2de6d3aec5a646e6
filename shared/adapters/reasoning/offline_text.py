"""Small text rules the offline reasoner's modules share.

General text tools (tokens, sentences, BM25, key phrases) are in
``shared/tools/lexical.py``; these are the reasoner's own conventions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

Member = Callable[[str, str], str | None]  # (URL, sentence) -> "os.getenv" or None (Corpus)


def leads(groups: Sequence[object]) -> list[tuple[int, float]]:
    """Fallback ranking when no sentence shares a word with the query (another language):
    the opening sentences of each group (source) in turn, rather than nothing."""
    firsts: dict[object, list[int]] = {}
    for i, group in enumerate(groups):
        firsts.setdefault(group, []).append(i)
    order = [idxs[rank] for rank in range(3) for idxs in firsts.values() if rank < len(idxs)]
    return [(i, 0.0) for i in order]


def script_language(text: str) -> str:
    """ "ru" for mostly Cyrillic text, else "en": the sentence splitter's rules differ."""
    sample = [c for c in text[:2000] if c.isalpha()]
    cyrillic = sum("\u0400" <= c <= "\u04ff" for c in sample)
    return "ru" if sample and cyrillic / len(sample) > 0.5 else "en"


# what ``named`` opens a quote with; what follows it is the quote, word for word
LABEL_RE = re.compile(r"^`(?P<name>[\w.]+)`: ")


def named(sentence: str, urls: Iterable[str], member: Member) -> str:
    """A quote from a library module's page opened with what it describes: "`os.getenv`:
    Get an environment variable, return None if it doesn't exist". The quote alone does not
    say which of the page's functions it is about, and the page's title names only the
    module. ``urls``: the pages it is quoted from. A quote that names the member as code
    ("… arguments to wraps()", "functools.wraps") is left as it is; the same word as prose
    is not its name ("Context manager to suppress specified exceptions")."""
    name = next((m for url in urls if (m := member(url, sentence))), None)
    last = re.escape(name.rsplit(".", 1)[-1]) if name else ""
    if not name or re.search(rf"(?<![\w.]){last}\(|\.{last}\b", sentence):
        return sentence
    return f"`{name}`: {sentence}"
