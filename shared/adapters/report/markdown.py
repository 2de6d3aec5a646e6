"""Reports and answers as Markdown, in the user's language.

The Markdown is the canonical human-readable artefact: ``report.md`` is this
text, the PDF is rendered from it, and ``GET …/report?format=md`` returns it.
Fixed headings are localized (en, ru, zh, de, es, fr; anything else falls
back to English) because a Russian report with English section names reads
as half-translated. Content is taken as the writer produced it; citation
checks happen before this (``shared.adapters.report.citations``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import quote

from shared.adapters.report import words
from shared.core.report_models import FinalReport, SynthesizedAnswer
from shared.core.source_models import Source


def labels_for(language: str) -> dict[str, str]:
    """Fixed labels for ``language`` (ISO 639-1, region suffix ignored); English otherwise."""
    return words.for_language(language).LABELS


def render_report_markdown(
    report: FinalReport, query: str, mode: str, created: datetime | None = None
) -> str:
    """The final report as Markdown, ending with the localized confidence line."""
    t = labels_for(report.language)
    when = (created or datetime.now(UTC)).strftime("%Y-%m-%d")
    metadata = _metadata(t, query, mode, when)
    if report.follow_up_of is not None:  # the parent's report, by the API's route
        parent = report.follow_up_of
        target = f"/api/research/{parent.session_id}/report"
        metadata += f"  \n**{t['follows_up']}:** [{_link_text(parent.query)}]({target})"
    parts = [
        f"# {_one_line(report.title)}",
        metadata,
        f"## {t['executive_summary']}\n\n{_code_names(report.executive_summary.strip())}",
    ]
    for section in report.sections:
        heading = _one_line(section.heading)
        body = _code_names(_without_heading(section.content, heading))
        parts.append(f"## {heading}\n\n{body}")
    parts.append(f"## {t['conclusion']}\n\n{_code_names(report.conclusion.strip())}")
    if report.methodology_note:
        parts.append(f"## {t['methodology']}\n\n{_code_names(report.methodology_note.strip())}")
    if report.limitations:
        parts.append(f"## {t['limitations']}\n\n{_bullets(report.limitations)}")
    if report.sources:
        parts.append(f"## {t['sources']}\n\n{render_sources(report.sources, t)}")
    if report.also_consulted:
        consulted = "\n".join(
            f"- [{_link_text(s.title or s.url)}]({_link_target(s.url)})"
            for s in report.also_consulted
        )
        parts.append(f"### {t['also_consulted']}\n\n{consulted}")
    if report.follow_up_questions:
        parts.append(f"## {t['follow_up']}\n\n{_bullets(report.follow_up_questions)}")
    for warning in report.warnings:
        parts.append(f"> **{t['note']}:** {_one_line(warning)}")
    level = t.get(report.confidence_level, report.confidence_level)
    parts.append(f"**{t['confidence']}:** {level}")
    if report.quality_score is not None:
        parts.append(f"*{t['quality']}: {report.quality_score}/10*")
    return "\n\n".join(parts) + "\n"


def render_answer_markdown(answer: SynthesizedAnswer, query: str, mode: str) -> str:
    """A chat / search / deep_search answer: the question, the answer, key points, sources."""
    t = labels_for(answer.language)
    parts = [
        f"# {_one_line(query)}",
        f"**{t['mode']}:** {mode}",
        f"## {t['answer']}\n\n{_code_names(answer.answer.strip())}",
    ]
    if answer.key_points:
        parts.append(f"## {t['key_points']}\n\n{_bullets(answer.key_points)}")
    if answer.limitations:
        parts.append(f"## {t['limitations']}\n\n{_bullets(answer.limitations)}")
    if answer.sources:
        parts.append(f"## {t['sources']}\n\n{render_sources(answer.sources, t)}")
    if answer.follow_up_questions:
        parts.append(f"## {t['follow_up']}\n\n{_bullets(answer.follow_up_questions)}")
    return "\n\n".join(parts) + "\n"


_DUNDER = re.compile(r"(?<![`\w])(__\w+?__(?:\(\))?)(?![`\w])")


def _code_names(text: str) -> str:
    """Dunder names (``__enter__``) as inline code, or Markdown would read them as bold."""
    return _DUNDER.sub(r"`\1`", text)


def render_sources(sources: list[Source], labels: dict[str, str] | None = None) -> str:
    """``n. [title](url) — tier N`` per source, numbered by each source's own ``n``.

    Numbers are the citation numbers, which may skip (a source nobody cited
    is not listed). Markdown renumbers ordered lists 1, 2, 3…, so a list with
    gaps is written as escaped ``n\\.`` lines with hard breaks instead: it
    still reads ``3. …`` everywhere and keeps ``[3]`` pointing at source 3.
    """
    t = labels or words.en.LABELS
    ordered = sorted(sources, key=lambda s: s.n)
    numbers = [s.n or i for i, s in enumerate(ordered, start=1)]
    contiguous = numbers == list(range(1, len(numbers) + 1))
    lines = []
    for n, source in zip(numbers, ordered, strict=True):
        title = _link_text(source.title or source.url)
        line = f"[{title}]({_link_target(source.url)})"
        if source.tier is not None:
            line += f" — {t['tier']} {source.tier}"
        lines.append(f"{n}. {line}" if contiguous else f"{n}\\. {line}")
    return "\n".join(lines) if contiguous else "  \n".join(lines)


def _metadata(t: dict[str, str], query: str, mode: str, when: str) -> str:
    # Two trailing spaces are a Markdown line break: one field per line.
    return "  \n".join(
        (
            f"**{t['query']}:** {_one_line(query)}",
            f"**{t['date']}:** {when}",
            f"**{t['mode']}:** {mode}",
        )
    )


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {_one_line(item)}" for item in items if item.strip())


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ASCII punctuation that can end or reshape a link text (CommonMark): brackets close it,
# code spans and autolinks bind tighter than it, emphasis and entities change its text.
# The backslash comes first so the escapes added after it are not themselves escaped.
_LINK_TEXT_SPECIAL = "\\[]`<>*_&~!"
_LINK_TEXT_ESCAPE = re.compile("([" + re.escape(_LINK_TEXT_SPECIAL) + "])")
# Besides whitespace and controls, what could end a destination or start a title or a code
# span; browsers percent-encode them anyway (so does the web page's markdown-it), so the
# href stays the URL the page matches its sources by.
_URL_UNSAFE = frozenset('<>\\`"')


def _link_text(text: str) -> str:
    """A source title as link text that shows exactly the title and links nowhere else.

    Titles come from web pages: ``GIL notes\\](https://phish.example) x`` must not
    end the link text early. Every character that matters inside ``[…]`` is
    backslash-escaped, which CommonMark (and the PDF's Markdown) read as the literal.
    """
    return _LINK_TEXT_ESCAPE.sub(r"\\\1", _one_line(text))


def _link_target(url: str) -> str:
    """The URL as a Markdown link destination that cannot end early or carry a title.

    Whitespace and the characters browsers percent-encode anyway are encoded;
    parentheses, which they keep, are backslash-escaped (an unbalanced ``)``
    would end the destination).
    """
    encoded = "".join(
        quote(c, safe="") if c in _URL_UNSAFE or c.isspace() or not c.isprintable() else c
        for c in url
    )
    return encoded.replace("(", "\\(").replace(")", "\\)")


def _without_heading(content: str, heading: str) -> str:
    """Section text without a first line that merely repeats the heading."""
    lines = content.strip().splitlines()
    if lines and lines[0].lstrip("#").strip() == heading:
        lines = lines[1:]
    return "\n".join(lines).strip()
