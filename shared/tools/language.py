"""The user's language, detected once from the query.

py3langid (langid.py's naive Bayes over byte n-grams) rather than langdetect: on a
question, langdetect's letter statistics are easily swayed by identifiers. It read "How
do I use contextvars to keep per-request values in asyncio code?" as Spanish (p 0.99999)
and "How do I implement a priority queue in Python?" as French, so those users got
their report in another language; and it took "Comment fonctionne le bloc with en
Python ?" for English. py3langid reads the labelled questions of ``bench/labels.json``
(128, English) and short questions in six other languages correctly
(``tests/unit/test_language.py``), and it is deterministic.
"""

from __future__ import annotations

import re
from functools import cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Below this probability no language stands out ("list vs tuple": Slovenian 0.08, then
# Estonian): the default is kept. The short questions in other languages the tests ask
# score 0.44 and above.
MIN_PROBABILITY = 0.25


@cache
def _identifier() -> LanguageIdentifier:
    """The model, loaded once per process (≈ 0.7 s: the bootstrap's warm-up pays it).
    Only languages with a two-letter ISO 639-1 code: the model's three-letter ones
    (Nigerian Pidgin, Guarani) took "Explain Python decorators" and "Is Python pass by
    reference?" for theirs, and an answer in them is nothing any deployment offers. Built
    anew from those columns, not with ``set_languages``, which keeps the whole model
    beside them (+25 MB a process)."""
    full = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    kept = [i for i, code in enumerate(full.nb_classes) if len(code) == 2]
    return LanguageIdentifier(
        full.nb_ptc[:, kept],
        full.nb_pc[kept],
        [full.nb_classes[i] for i in kept],
        full.tk_nextmove,
        full.tk_output,
        norm_probs=True,
        tk_row=full.tk_row,
    )


def detect_language(text: str, default: str = "en") -> str:
    """ISO 639-1 code of ``text``; script-based shortcut for short Cyrillic/CJK queries."""
    sample = text.strip()
    if not sample:
        return default
    letters = [c for c in sample if c.isalpha()]
    if letters:
        if sum(bool(_CYRILLIC.match(c)) for c in letters) / len(letters) > 0.5:
            return "ru"
        if sum(bool(_CJK.match(c)) for c in letters) / len(letters) > 0.3:
            return "zh"
    # A word or two ("python", "asyncio") carries no language signal: keep the default.
    if len(sample.split()) < 3:
        return default
    language, probability = _identifier().classify(sample)
    return language if probability >= MIN_PROBABILITY else default
