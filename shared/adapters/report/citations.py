"""Citation integrity: every ``[n]`` in a report points at a source fetched in this session.

Pure functions, run on the writer's ``FinalReport`` before it is rendered.
The one numbering everybody shares is assigned when findings are compressed
(``shared/usecases/research/compress.py``: first seen, first numbered, one number per URL).

- :func:`enforce_citations` removes citations to numbers that are not in
  that numbering, keeps only the sources actually cited, and, when it had to
  remove anything, says so in the report and lowers its confidence;
- :func:`dedupe_sentences` drops sentences the writer repeated;
- :func:`renumber_by_first_citation` gives the reader sources 1..N in the order
  the text first cites them, with no gaps (the shared numbering has gaps once
  uncited sources are dropped).

Citation syntax understood by :data:`CITATION_RE`: ``[3]``, ``[1, 2]``,
``[1,2]``, ``[1; 2]``, adjacent groups ``[1][2]`` (two matches), and ranges
``[1-3]`` / ``[1–3]`` which mean 1, 2 and 3. A range wider than
:data:`MAX_RANGE` is read as its two end points only, so ``[1-100000]`` cannot
blow up. Markdown links ``[3](http://…)`` are not citations.

This module is the one home of that syntax: the reasoners, compression and the
memory files read and write ``[n]`` through it (:data:`CITATION_RE`,
:func:`cited_numbers`, :func:`strip_unknown_citations`), and sentences are
compared by one key (:func:`sentence_key`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container

from shared.adapters.report.limits_text import say
from shared.core.report_models import FinalReport, ReportSection, SynthesizedAnswer
from shared.core.research_models import Confidence
from shared.core.source_models import Source

MAX_RANGE = 50

_ITEM = r"\d+(?:\s*[-–]\s*\d+)?"
CITATION_RE = re.compile(rf"\[\s*({_ITEM}(?:\s*[,;]\s*{_ITEM})*)\s*\](?!\()")

_LOWER: dict[Confidence, Confidence] = {"high": "medium", "medium": "low", "low": "low"}


def _numbers_in(group: str) -> list[int]:
    numbers: list[int] = []
    for item in re.split(r"[,;]", group):
        bounds = [int(part) for part in re.split(r"[-–]", item.strip()) if part.strip()]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= MAX_RANGE:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return numbers


def cited_numbers(text: str) -> set[int]:
    """Every source number cited in ``text``."""
    found: set[int] = set()
    for match in CITATION_RE.finditer(text):
        found.update(_numbers_in(match.group(1)))
    return found


def _url_key(url: str) -> str:
    return url.strip().split("#", 1)[0].rstrip("/")


def enforce_citations(report: FinalReport, allowed: list[Source]) -> tuple[FinalReport, list[str]]:
    """The report with only citations to ``allowed`` sources (matched by ``n``).

    Unknown citations are removed from the executive summary, the sections and
    the conclusion; sources the report lists whose URL is not in ``allowed``
    are dropped. ``report.sources`` becomes the allowed sources that the text
    still cites, with their own ``n``. When anything was removed, a warning is
    added and the confidence drops one level. Returns ``(report, problems)``;
    the input is not modified.
    """
    by_n = {s.n: s for s in allowed}
    unknown: list[tuple[int, str]] = []

    def clean(text: str, where: str) -> str:
        return _strip_unknown(text, by_n, where, unknown)

    summary = clean(report.executive_summary, "executive summary")
    sections = [
        ReportSection(heading=s.heading, content=clean(s.content, f"section {s.heading!r}"))
        for s in report.sections
    ]
    conclusion = clean(report.conclusion, "conclusion")

    allowed_urls = {_url_key(s.url) for s in allowed}
    unlisted = [s.url for s in report.sources if _url_key(s.url) not in allowed_urls]

    problems = [f"unknown citation [{n}] in {where}" for n, where in unknown]
    problems += [f"listed source {url} was not fetched in this session" for url in unlisted]
    cited = cited_numbers("\n".join([summary, conclusion, *(s.content for s in sections)]))
    update: dict = {
        "executive_summary": summary,
        "sections": sections,
        "conclusion": conclusion,
        "sources": [by_n[n] for n in sorted(cited) if n in by_n],
    }
    if problems:
        update["warnings"] = [
            *report.warnings,
            _warning({n for n, _ in unknown}, len(unlisted), report.language),
        ]
        update["confidence_level"] = _LOWER[report.confidence_level]
    return report.model_copy(update=update, deep=True), problems


def renumber_by_first_citation(report: FinalReport) -> FinalReport:
    """Sources numbered 1..N by first citation (summary, sections, conclusion); uncited dropped.

    Every ``[n]`` is rewritten to the new numbers (a range becomes a list), so
    Markdown, JSON and PDF, all rendered from this report, agree.
    """
    texts = [report.executive_summary, *(s.content for s in report.sections), report.conclusion]
    rewrite, sources = _first_citation_order(texts, report.sources)
    return _rewritten(report, rewrite, sources)


def renumber_answer(answer: SynthesizedAnswer) -> SynthesizedAnswer:
    """A search answer numbered like a report: 1..N by first citation, uncited dropped."""
    rewrite, sources = _first_citation_order([answer.answer, *answer.key_points], answer.sources)
    return answer.model_copy(
        update={
            "answer": rewrite(answer.answer),
            "key_points": [rewrite(k) for k in answer.key_points],
            "sources": sources,
        },
        deep=True,
    )


def _first_citation_order(
    texts: list[str], listed: list[Source]
) -> tuple[Callable[[str], str], list[Source]]:
    """The rewrite of ``[n]`` to the order of first citation in ``texts``, and the sources
    renumbered so (those never cited left out)."""
    by_n = {s.n: s for s in listed}
    order: dict[int, int] = {}
    for text in texts:
        for match in CITATION_RE.finditer(text):
            for n in _numbers_in(match.group(1)):
                if n in by_n and n not in order:
                    order[n] = len(order) + 1

    def rewrite(text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            new = sorted({order[n] for n in _numbers_in(match.group(1)) if n in order})
            return f"[{', '.join(map(str, new))}]" if new else match.group(0)

        return CITATION_RE.sub(replace, text)

    sources = sorted(
        (by_n[old].model_copy(update={"n": new}) for old, new in order.items()),
        key=lambda s: s.n,
    )
    return rewrite, sources


def renumber_to(report: FinalReport, numbering: list[Source]) -> FinalReport:
    """The report with its ``[n]`` rewritten to ``numbering``'s numbers, matched by URL.

    A delivered report is numbered by first citation; the evidence the critic and a
    rewrite see is numbered by ``findings.json``. Both must speak of the same ``[n]``.
    Citations of a URL ``numbering`` lacks are left out.
    """
    target = {_url_key(s.url): s.n for s in numbering}
    mapping = {s.n: target[_url_key(s.url)] for s in report.sources if _url_key(s.url) in target}

    def rewrite(text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            new = sorted({mapping[n] for n in _numbers_in(match.group(1)) if n in mapping})
            return "".join(f"[{n}]" for n in new)

        return CITATION_RE.sub(replace, text)

    return _rewritten(report, rewrite, [s for s in numbering if s.n in set(mapping.values())])


def _rewritten(
    report: FinalReport, rewrite: Callable[[str], str], sources: list[Source]
) -> FinalReport:
    """``report`` with ``rewrite`` applied to every cited text and ``sources`` as its list."""
    return report.model_copy(
        update={
            "executive_summary": rewrite(report.executive_summary),
            "sections": [
                ReportSection(heading=s.heading, content=rewrite(s.content))
                for s in report.sections
            ],
            "conclusion": rewrite(report.conclusion),
            "sources": sources,
        },
        deep=True,
    )


def strip_unknown_citations(text: str, allowed: Container[int]) -> str:
    """``text`` with every cited number outside ``allowed`` removed (a group keeps the rest)."""
    return _strip_unknown(text, allowed, "", [])


def _strip_unknown(
    text: str, allowed: Container[int], where: str, unknown: list[tuple[int, str]]
) -> str:
    def replace(match: re.Match[str]) -> str:
        numbers = _numbers_in(match.group(1))
        missing = [n for n in numbers if n not in allowed]
        if not missing:
            return match.group(0)
        unknown.extend((n, where) for n in missing)
        kept = list(dict.fromkeys(n for n in numbers if n in allowed))
        return f"[{', '.join(map(str, kept))}]" if kept else "\x00"

    rewritten = CITATION_RE.sub(replace, text)
    # A removed citation takes the space before it along ("claim [7]." -> "claim.").
    return re.sub(r"[ \t]*\x00", "", rewritten)


def _warning(unknown: set[int], unlisted: int, language: str) -> str:
    """One line for the reader, in the report's language (the problems list is for logs)."""
    parts = []
    if unknown:
        numbers = ", ".join(f"[{n}]" for n in sorted(unknown))
        parts.append(say(language, "citations_removed", numbers=numbers))
    if unlisted:
        parts.append(say(language, "citations_dropped", count=unlisted))
    return say(language, "citations_checked", parts="; ".join(parts))


# -- repeated sentences ---------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_LINE_PREFIX = re.compile(r"^(\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)?)")
MIN_DEDUPE_CHARS = 20


def dedupe_sentences(report: FinalReport) -> FinalReport:
    """The report with every sentence kept only where it first appears.

    Order: executive summary, sections, conclusion. Sentences are compared
    without citations, case, spacing and final punctuation; short ones (under
    :data:`MIN_DEDUPE_CHARS`) are left alone, as are headings, table rows and
    code blocks, so structure is never broken. A list item whose only sentence
    was a repeat disappears.
    """
    seen: set[str] = set()
    summary = _dedupe_text(report.executive_summary, seen)
    sections = [
        ReportSection(heading=s.heading, content=_dedupe_text(s.content, seen))
        for s in report.sections
    ]
    conclusion = _dedupe_text(report.conclusion, seen)
    return report.model_copy(
        update={"executive_summary": summary, "sections": sections, "conclusion": conclusion},
        deep=True,
    )


def _dedupe_text(text: str, seen: set[str]) -> str:
    out: list[str] = []
    in_code = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
        if in_code or stripped.startswith(("```", "~~~", "#", "|")) or not stripped:
            out.append(line)
            continue
        prefix = _LINE_PREFIX.match(line).group(1)
        kept = _dedupe_line(line[len(prefix) :], seen)
        if kept.strip():
            out.append(prefix + kept)
    return "\n".join(out).strip("\n")


def _dedupe_line(line: str, seen: set[str]) -> str:
    kept: list[str] = []
    start = 0
    for boundary in [*_SENTENCE_END.finditer(line), None]:
        end = boundary.end() if boundary else len(line)
        if end == start:
            continue
        chunk = line[start:end]
        start = end
        key = sentence_key(chunk)
        if len(key) >= MIN_DEDUPE_CHARS:
            if key in seen:
                continue
            seen.add(key)
        kept.append(chunk)
    return "".join(kept).rstrip()


def sentence_key(sentence: str) -> str:
    """What makes two sentences the same: their words, without citations, case, spacing
    and punctuation (repeats in a report, merged key findings, endorsed draft sentences)."""
    without_citations = CITATION_RE.sub("", sentence)
    words = re.sub(r"[^\w]+", " ", without_citations.casefold())
    return " ".join(words.split())
