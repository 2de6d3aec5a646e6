"""The report's own words: every language says every line, with the same blanks."""

from __future__ import annotations

from string import Formatter

import pytest

from shared.payloads import Gap
from shared.report.limits_text import PHASES, TEXT, gap_clause, sentence
from shared.report.markdown import LABELS


def _blanks(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name}


@pytest.mark.parametrize("language", sorted(LABELS))
def test_every_report_language_has_every_line_with_the_same_blanks(language):
    assert set(TEXT[language]) == set(TEXT["en"])
    for key, english in TEXT["en"].items():
        assert _blanks(TEXT[language][key]) == _blanks(english), (language, key)
    assert set(PHASES[language]) == set(PHASES["en"])


def test_other_languages_read_english_and_unknown_phases_keep_their_name():
    gap = Gap(kind="phase_failed", phase="some_new_phase", error="Boom")
    assert gap_clause(gap, "pt-BR") == "the some_new_phase phase failed (Boom)"


def test_a_sentence_ends_once_in_the_language_punctuation():
    assert sentence("the deep search failed: TimeoutError: slow.", "en") == (
        "The deep search failed: TimeoutError: slow."
    )
    assert sentence("深度搜索失败：TimeoutError", "zh-CN") == "深度搜索失败：TimeoutError。"
