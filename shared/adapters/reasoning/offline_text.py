"""Small text rules the offline reasoner's modules share.

General text tools (tokens, sentences, BM25, key phrases) are in
``shared/tools/lexical.py``; these are the reasoner's own conventions.
"""

from __future__ import annotations

from collections.abc import Sequence


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
