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

# The scripts of their own (the PDF's CJK fonts are chosen by them too: ``report.fonts``)
CYRILLIC = re.compile(r"[\u0400-\u04FF]")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
KANA = re.compile(r"[\u3040-\u30ff]")  # Japanese alone; its kanji are Han characters
HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
# A script's share of the letters from which it decides among its own languages, whatever
# the word count: Chinese and Japanese are written without spaces, so "functools.wrapsの使い方"
# is one "word"; a Cyrillic question is Russian or Ukrainian (py3langid picks between them,
# as it took the short "Что такое декоратор?" for Macedonian).
_SCRIPT_SHARE = 0.15
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


def _script_languages(text: str) -> tuple[str, ...]:
    """The languages ``text``'s script leaves (the likeliest first), or () for Latin."""
    letters = [c for c in text if c.isalpha()]
    share = {
        script: sum(bool(script.match(c)) for c in letters) / max(len(letters), 1)
        for script in (HAN, KANA, HANGUL, CYRILLIC)
    }
    if share[HANGUL] > _SCRIPT_SHARE:
        return ("ko",)
    if share[KANA] and share[KANA] + share[HAN] > _SCRIPT_SHARE:
        return ("ja",)
    if share[HAN] > _SCRIPT_SHARE:
        return ("zh",)
    if share[CYRILLIC] > _SCRIPT_SHARE:
        return ("ru", "uk")
    return ()


def detect_language(text: str, default: str = "en") -> str:
    """ISO 639-1 code of ``text``; a script of its own decides among its languages."""
    sample = text.strip()
    if not sample:
        return default
    if scripted := _script_languages(sample):
        ranked = (code for code, _ in _identifier().rank(sample) if code in scripted)
        return next(ranked, scripted[0]) if len(scripted) > 1 else scripted[0]
    # A word or two ("python", "asyncio") carries no language signal: keep the default.
    if len(sample.split()) < 3:
        return default
    language, probability = _identifier().classify(sample)
    return language if probability >= MIN_PROBABILITY else default
