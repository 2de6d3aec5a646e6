"""The user's language, detected once from the query.

langdetect is probabilistic; seeding its factory makes it deterministic, which
the offline mode and the end-to-end tests rely on (same query, same report).
"""

from __future__ import annotations

import re

from langdetect import DetectorFactory, LangDetectException, detect_langs

DetectorFactory.seed = 0

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


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
    try:
        candidates = detect_langs(sample)
    except LangDetectException:
        return default
    best = candidates[0]
    # A word or two ("python", "asyncio") carries no language signal: keep the default.
    if len(sample.split()) < 3 or (len(sample) < 40 and best.prob < 0.9):
        return default
    return best.lang.split("-")[0]
