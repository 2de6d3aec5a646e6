"""Markdown rendering of reports and answers: structure, localization, sources."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import urlsplit

from markdown_it import MarkdownIt

from shared.adapters.report.markdown import render_answer_markdown, render_report_markdown
from shared.core.report_models import FinalReport, ReportSection, SynthesizedAnswer
from shared.core.source_models import Source
from tests.fakes.phishing_titles import PHISHING_HOST, hostile_sources

CREATED = datetime(2025, 3, 14, 9, 26, tzinfo=UTC)


def _report(language: str = "en", **overrides) -> FinalReport:
    fields = {
        "title": "Boiling Water at Altitude",
        "executive_summary": "Water boils lower at altitude [1].",
        "sections": [
            ReportSection(
                heading="Physics", content="Vapour pressure [1].\n\n- point a\n- point b"
            ),
            ReportSection(heading="Data", content="| m | °C |\n|---|---|\n| 0 | 100 |"),
            ReportSection(heading="Cooking", content="Pasta takes longer [2]."),
        ],
        "conclusion": "Altitude matters [2].",
        "sources": [
            Source(n=1, url="https://a.example/one", title="Vapour [pressure]", tier=1),
            Source(n=2, url="https://b.example/two", title=""),
        ],
        "confidence_level": "medium",
        "follow_up_questions": ["How does a pressure cooker help?"],
        "language": language,
    }
    fields.update(overrides)
    return FinalReport(**fields)


def _headings(markdown: str, level: int) -> list[str]:
    prefix = "#" * level + " "
    return [line[len(prefix) :] for line in markdown.splitlines() if line.startswith(prefix)]


def test_report_has_the_expected_shape_in_order():
    md = render_report_markdown(
        _report(), "why does water boil lower up high?", "deep_research", CREATED
    )

    assert md.startswith("# Boiling Water at Altitude\n")
    assert _headings(md, 2) == [
        "Executive Summary",
        "Physics",
        "Data",
        "Cooking",
        "Conclusion",
        "Sources",
        "Follow-up Questions",
    ]
    assert "**Query:** why does water boil lower up high?" in md
    assert "**Date:** 2025-03-14" in md
    assert "**Mode:** deep_research" in md
    assert md.rstrip().splitlines()[-1] == "**Confidence:** medium"
    assert "| 0 | 100 |" in md
    assert "- How does a pressure cooker help?" in md


def test_sources_are_a_numbered_list_with_links_and_tiers():
    md = render_report_markdown(_report(), "q", "deep_research", CREATED)
    sources = md.split("## Sources", 1)[1].split("##", 1)[0].strip().splitlines()

    assert sources == [
        r"1. [Vapour \[pressure\]](https://a.example/one) — tier 1",
        "2. [https://b.example/two](https://b.example/two)",
    ]


def test_sources_with_gaps_keep_their_citation_numbers():
    report = _report(
        sources=[
            Source(n=2, url="https://b.example/two", title="Two"),
            Source(n=5, url="https://e.example/five", title="Five", tier=3),
        ]
    )

    md = render_report_markdown(report, "q", "deep_research", CREATED)

    numbers = re.findall(r"^(\d+)\\?\. \[", md, flags=re.MULTILINE)
    assert numbers == ["2", "5"]


def test_warnings_are_shown_as_notes_before_the_confidence_line():
    report = _report(warnings=["Clarifying questions went unanswered."])

    md = render_report_markdown(report, "q", "deep_research", CREATED)

    lines = md.rstrip().splitlines()
    assert "> **Note:** Clarifying questions went unanswered." in lines
    assert lines.index("> **Note:** Clarifying questions went unanswered.") < len(lines) - 1


def test_russian_report_has_russian_fixed_headings():
    md = render_report_markdown(
        _report("ru", confidence_level="high"), "почему?", "deep_research", CREATED
    )

    headings = _headings(md, 2)
    assert headings[0] == "Краткое содержание"
    assert "Заключение" in headings
    assert "Источники" in headings
    assert "**Запрос:** почему?" in md
    assert "— уровень 1" in md
    assert md.rstrip().endswith("**Уверенность:** высокая")


def test_chinese_report_has_chinese_fixed_headings():
    md = render_report_markdown(
        _report("zh", confidence_level="low"), "为什么?", "deep_research", CREATED
    )

    assert _headings(md, 2)[0] == "执行摘要"
    assert "## 结论" in md
    assert md.rstrip().endswith("**置信度:** 低")


def test_unknown_language_falls_back_to_english():
    md = render_report_markdown(_report("sw"), "q", "deep_research", CREATED)

    assert "## Executive Summary" in md


def test_section_content_repeating_its_heading_is_not_doubled():
    report = _report(
        sections=[
            ReportSection(heading="Physics", content="## Physics\nVapour pressure [1]."),
            ReportSection(heading="B", content="b"),
            ReportSection(heading="C", content="c"),
        ]
    )

    md = render_report_markdown(report, "q", "deep_research", CREATED)

    assert md.count("Physics") == 1


def test_answer_markdown_has_answer_key_points_and_sources():
    answer = SynthesizedAnswer(
        answer="Water boils at 100 °C at sea level [1].",
        key_points=["Pressure lowers the boiling point"],
        sources=[Source(n=1, url="https://a.example/one", title="One", tier=2)],
        language="en",
    )

    md = render_answer_markdown(answer, "when does water boil?", "search")

    assert md.startswith("# when does water boil?\n")
    assert _headings(md, 2) == ["Answer", "Key Points", "Sources"]
    assert "Water boils at 100 °C at sea level [1]." in md
    assert "- Pressure lowers the boiling point" in md
    assert "1. [One](https://a.example/one) — tier 2" in md


def test_chat_answer_without_sources_has_no_sources_heading():
    answer = SynthesizedAnswer(answer="Привет!", language="ru")

    md = render_answer_markdown(answer, "привет", "chat")

    assert _headings(md, 2) == ["Ответ"]
    assert "**Режим:** chat" in md


def test_python_dunder_names_stay_names_not_bold_text():
    section = ReportSection(
        heading="How it works", content='"__enter__()" is called, then __exit__.'
    )
    text = render_report_markdown(_report(sections=[section] * 3), "q", "deep_research")
    assert '"`__enter__()`" is called, then `__exit__`.' in text


def _links(markdown: str) -> list[tuple[str, str]]:
    """(href, shown text) of every link, as the web page's markdown-it reads the Markdown."""
    md = MarkdownIt("js-default")
    links: list[tuple[str, str]] = []
    for block in md.parse(markdown):
        href, text = None, []
        for token in block.children or []:
            if token.type == "link_open":
                href, text = token.attrGet("href"), []
            elif token.type == "link_close":
                links.append((str(href), "".join(text)))
                href = None
            elif href is not None:
                text.append(token.content)
    return links


def test_a_hostile_source_title_is_shown_as_written_and_links_only_to_its_source():
    sources = hostile_sources()
    md = render_report_markdown(_report(sources=sources), "q", "deep_research", CREATED)

    listed = md.split("## Sources", 1)[1].split("##", 1)[0]
    links = _links(listed)

    normalize = MarkdownIt("js-default").normalizeLink
    assert links == [(normalize(s.url), s.title) for s in sources]
    assert not [href for href, _ in _links(md) if urlsplit(href).hostname == PHISHING_HOST]


def test_hostile_titles_stay_inside_their_links_in_a_list_with_gaps():
    sources = hostile_sources()
    gapped = [s.model_copy(update={"n": s.n * 2}) for s in sources]

    md = render_report_markdown(_report(sources=gapped), "q", "deep_research", CREATED)

    assert [text for _, text in _links(md.split("## Sources", 1)[1])] == [s.title for s in sources]
