"""The cited statements of a report: each sentence that cites, with the sources it cites.

Read through the report's own citation syntax (``shared/adapters/report/citations.py``),
so what counts as a citation here is what the app wrote as one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.adapters.reasoning.offline_text import LABEL_RE
from shared.adapters.report.citations import CITATION_RE, cited_numbers
from shared.core.report_models import FinalReport
from shared.tools.sentence_split import segment

_MARKUP = re.compile(r"[*_`>#]+")
_SPACE = re.compile(r"\s+")
_AROUND_PUNCTUATION = re.compile(r"\s*([^\w\s])\s*")


@dataclass(frozen=True)
class Statement:
    text: str  # without its citation marks, nor the name of what it describes
    urls: tuple[str, ...]
    member: str | None = None  # "os.getenv" of "`os.getenv`: Get an environment …"


def cited_statements(report: FinalReport) -> list[Statement]:
    urls = {s.n: s.url for s in report.sources}
    texts = [report.executive_summary, *(s.content for s in report.sections), report.conclusion]
    found: list[Statement] = []
    for text in texts:
        for sentence in segment(text, report.language):
            cited = sorted(n for n in cited_numbers(sentence) if n in urls)
            if cited:
                bare = CITATION_RE.sub("", sentence).strip()
                label = LABEL_RE.match(bare)
                bare = bare[label.end() :] if label else bare
                member = label["name"] if label else None
                found.append(Statement(bare, tuple(urls[n] for n in cited), member))
    return found


def normalized(text: str) -> str:
    """How quotes are compared: lower case, no markup, one space between words and none
    around punctuation (a writer may re-space ``"try" … "except"``), no closing punctuation."""
    text = _SPACE.sub(" ", _MARKUP.sub("", text)).strip()
    return _AROUND_PUNCTUATION.sub(r"\1", text).rstrip(".;:!?").lower()


def quoted_in(statement: str, page_text: str) -> bool:
    """Whether the statement's sentence is in the page, word for word (after ``normalized``)."""
    quote = normalized(statement)
    return bool(quote) and quote in normalized(page_text)
