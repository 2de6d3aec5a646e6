"""The report's own words, one module per language: its fixed labels (``LABELS``, the
Markdown's headings) and its own lines (``TEXT``, ``shared/adapters/report/limits_text.py``).

A report in a language not listed here reads English.
"""

from __future__ import annotations

from types import ModuleType
from typing import Final

from shared.adapters.report.words import de, en, es, fr, ru, zh

LANGUAGES: Final[dict[str, ModuleType]] = {
    "en": en,
    "ru": ru,
    "zh": zh,
    "de": de,
    "es": es,
    "fr": fr,
}


def for_language(language: str) -> ModuleType:
    """The words of ``language`` (ISO 639-1, region suffix ignored); English otherwise."""
    return LANGUAGES.get(language.split("-")[0].lower(), en)
