"""The citation gate's everyday words for a question's language: frame words and
qualifiers (they weigh nothing), idioms (removed before weighing) and how a how-to
question begins.

The words live in ``texts/<lang>.py`` beside the rest of the offline wording, since each
language says them its own way. The gate weighs a question's words by the corpus's idf,
so the corpus's own language's words always apply (a question in German may still carry
English terms the corpus knows) and the question's language adds its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

from shared.adapters.reasoning.templates import texts_module
from shared.tools import lexical


@dataclass(frozen=True)
class GateWords:
    nothing: frozenset[str]  # frame words and qualifiers, normalized as the gate's tokens
    idioms: re.Pattern[str] | None
    how_to: re.Pattern[str] | None


@lru_cache(maxsize=16)
def gate_words(language: str, corpus_language: str) -> GateWords:
    """The words that weigh nothing and the idioms of both languages; the how-to pattern
    of the question's language (it is matched against the question as written)."""
    modules = list(dict.fromkeys([texts_module(corpus_language), texts_module(language)]))
    nothing = frozenset(
        lexical.normalize_token(w)
        for m in modules
        for w in f"{m.GATE_FRAME} {m.GATE_QUALIFIERS}".split()
    )
    idioms = [p for m in modules for p in m.GATE_IDIOMS]
    return GateWords(
        nothing=nothing,
        idioms=re.compile(rf"\b(?:{'|'.join(idioms)})\b", re.I) if idioms else None,
        how_to=_how_to(texts_module(language)),
    )


def _how_to(module: ModuleType) -> re.Pattern[str] | None:
    return re.compile(module.GATE_HOW_TO, re.I) if module.GATE_HOW_TO else None
