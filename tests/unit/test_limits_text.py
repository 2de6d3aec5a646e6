"""The report's own words: every language says every line, with the same blanks."""

from __future__ import annotations

from string import Formatter

import pytest

from shared.adapters.reasoning.grounding import ReportDraft, cited_report
from shared.adapters.report.citations import enforce_citations
from shared.adapters.report.limits_text import PHASES, TEXT, gap_clause, say, sentence
from shared.adapters.report.words import LANGUAGES
from shared.core.payloads import Gap
from shared.core.report_models import FinalReport, ReportMaterial, ReportSection
from shared.core.research_models import ResearchContext
from shared.core.source_models import Source


def _blanks(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_report_language_has_every_line_with_the_same_blanks(language):
    assert set(TEXT[language]) == set(TEXT["en"])
    for key, english in TEXT["en"].items():
        assert _blanks(TEXT[language][key]) == _blanks(english), (language, key)
    assert set(PHASES[language]) == set(PHASES["en"])
    assert set(LANGUAGES[language].LABELS) == set(LANGUAGES["en"].LABELS)


def test_other_languages_read_english_and_unknown_phases_keep_their_name():
    gap = Gap(kind="phase_failed", phase="some_new_phase", error="Boom")
    assert gap_clause(gap, "pt-BR") == "the some_new_phase phase failed (Boom)"


def test_a_sentence_ends_once_in_the_language_punctuation():
    assert sentence("the deep search failed: TimeoutError: slow.", "en") == (
        "The deep search failed: TimeoutError: slow."
    )
    assert sentence("深度搜索失败：TimeoutError", "zh-CN") == "深度搜索失败：TimeoutError。"


CITATION_CHECK = {  # how each language opens the citation check's warning
    "en": "Citation check:",
    "ru": "Проверка ссылок:",
    "zh": "引用检查：",
    "de": "Quellenprüfung:",
    "es": "Comprobación de citas:",
    "fr": "Vérification des citations :",
}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_citation_check_warns_in_the_report_language(language):
    report = FinalReport(
        title="T",
        executive_summary="Claim [1]. Invented [7].",
        sections=[ReportSection(heading=f"S{i}", content="More [1].") for i in range(3)],
        conclusion="End.",
        sources=[Source(n=9, url="https://made-up.example/")],
        confidence_level="high",
        language=language,
    )

    fixed, _ = enforce_citations(report, [Source(n=1, url="https://a.example/")])

    (warning,) = fixed.warnings
    assert warning.startswith(CITATION_CHECK[language]), warning
    assert "[7]" in warning and "1" in warning  # what was removed, how many were dropped
    assert warning == say(
        language,
        "citations_checked",
        parts="; ".join(
            [
                say(language, "citations_removed", numbers="[7]"),
                say(language, "citations_dropped", count=1),
            ]
        ),
    )


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_report_no_source_backs_says_so_in_the_report_language(language):
    draft = ReportDraft(
        title="T",
        executive_summary="Said without sources.",
        sections=[ReportSection(heading=f"S{i}", content="Text.") for i in range(3)],
        conclusion="End.",
        confidence_level="high",
        follow_up_questions=[],
    )
    context = ResearchContext(session_id="s", query="q", language=language)

    report = cited_report(draft, ReportMaterial(context=context))

    assert report.warnings == [TEXT[language]["unsourced"]]
    assert report.confidence_level == "low"
    if language != "en":
        assert report.warnings != [TEXT["en"]["unsourced"]]
