"""What a report looks like while it is written: its draft, section by section.

Both reasoners stream a report as Markdown parts (the title with the executive
summary, each section, the conclusion) through ``shared.tools.text_stream``: the
offline engine when its report is assembled, the LLM reasoner as each part of
the model's JSON reply is complete (``llm_stream``). It is the draft: the stored
``report.md`` (citations checked and renumbered, sources, limitations) replaces
it when the report is stored.
"""

from __future__ import annotations

from typing import Any

from shared.core.report_models import FinalReport
from shared.tools import text_stream


def draft_parts(draft: dict[str, Any], complete: bool) -> list[str]:
    """The Markdown parts of a (partial) report reply; a part whose text may still grow
    (the last one, unless ``complete``) is left out, so a client sees whole sections."""
    parts: list[tuple[str, bool]] = []
    title, summary = draft.get("title"), draft.get("executive_summary")
    if isinstance(title, str):
        head = f"# {title}\n\n" + (f"{summary}\n\n" if isinstance(summary, str) else "")
        parts.append((head, "sections" in draft or complete))
    sections = draft.get("sections")
    for i, section in enumerate(sections if isinstance(sections, list) else []):
        if not isinstance(section, dict) or not isinstance(section.get("content"), str):
            continue
        last = i == len(sections) - 1 and "conclusion" not in draft
        parts.append((f"## {section.get('heading', '')}\n\n{section['content']}\n\n", not last))
    conclusion = draft.get("conclusion")
    if isinstance(conclusion, str):
        parts.append((f"{conclusion}\n", "confidence_level" in draft))
    return [text for text, _ in parts] if complete else _prefix_of_done(parts)


def _prefix_of_done(parts: list[tuple[str, bool]]) -> list[str]:
    done: list[str] = []
    for text, finished in parts:
        if not finished:
            break
        done.append(text)
    return done


def offer_report(report: FinalReport) -> None:
    """A report written in one go, offered section by section."""
    draft = report.model_dump(include={"title", "executive_summary", "sections", "conclusion"})
    text_stream.offer_in_parts(draft_parts(draft, complete=True))
