"""Sentence tokens known before they are asked for: the built-in collection's.

The built-in collection's file stores every sentence with its content tokens (splitting
and tokenizing the corpus is what takes seconds), and a worker holds them once loaded. A
page read from it reaches passage selection as JSON, its sentences new strings, and
tokenizing a long page's sentences again was 5-20 ms at its first use in each worker
(bench.profile). Registering the stored tokens here lets :func:`lexical.sentence_tokens`
look them up instead: the same tokens (the file holds ``content_tokens`` of each
sentence), so the same picks. Keyed by the sentence itself, as a page read from the
collection may stop short of a long document's end. Bounded by the collection's size
(the default corpus: ~6,900 sentences, a 200 KB table filled in ~1 ms), registered once per
process (again only for another corpus), references to strings the collection holds anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_KNOWN: dict[str, Sequence[str]] = {}


def remember(sentences: Iterable[str], tokens: Iterable[Sequence[str]]) -> None:
    """Keep each sentence's ``content_tokens`` (``tokens``, in the same order)."""
    _KNOWN.update(zip(sentences, tokens, strict=True))


def known(sentence: str) -> Sequence[str] | None:
    """The tokens registered for ``sentence``, or None when it was never registered."""
    return _KNOWN.get(sentence)
