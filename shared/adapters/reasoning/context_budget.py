"""Fitting untrusted source text and long drafts into a prompt.

Sources go into prompts as delimited data blocks::

    <source n="3" url="https://..." title="...">
    ...page text...
    </source>

Tag look-alikes inside the text are defused, so a page cannot close its own
block and speak as the prompt. ``n`` is the one citation number of a source
for the whole session step (the caller assigns it; every agent that sees the
same list sees the same numbers).

Budgets (``MAX_CONTEXT_CHARS``, 20 000 by default):
- a list of snippets first shrinks every snippet 500 -> 300 chars, and only
  then drops sources from the end (the caller orders them best first);
- whole documents share the budget evenly;
- a draft report over 50k chars becomes its first 45k + a 15k summary of the
  rest; over 100k, its first 80k + a 20k summary. ``trim_draft`` is the one
  place a draft is cut: the report phase hands the reasoner the whole text.

The summary of the rest is *extractive* by default (headings, first sentence
of each paragraph, every sentence carrying a ``[n]`` citation): deterministic,
free, and it keeps citations intact, so the LLM call count of a report stays
fixed. A caller may pass its own ``summarize(text, max_chars)`` (e.g. an LLM
call) instead.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shared.adapters.report.citations import CITATION_RE
from shared.core.ask_models import Passage
from shared.tools.prompts.framing import TIER_TYPES, UNTRUSTED_TAGS

SNIPPET_STEPS = (500, 300)
DRAFT_LIMITS = ((100_000, 80_000, 20_000), (50_000, 45_000, 15_000))  # (over, head, summary)
TRUNCATION_MARK = " …"
# The report writer's findings block (the specification's 20,000 characters), never more
# than the evidence budget a small model's window leaves.
REPORT_FINDINGS_CHARS = 20_000

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
_TAG_LOOKALIKE = re.compile(
    r"<(/?)\s*("
    + "|".join(sorted((*UNTRUSTED_TAGS, "json_schema"), key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)

Summarizer = Callable[[str, int], str]


@dataclass(frozen=True)
class SourceText:
    """One source as a prompt sees it; tier and date travel with it when known."""

    n: int
    url: str
    text: str
    title: str = ""
    tier: int | None = None
    published: str | None = None


def defuse(text: str) -> str:
    """Untrusted text with prompt-delimiter look-alikes made inert."""
    return _TAG_LOOKALIKE.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", text)


def source_block(source: SourceText, text: str | None = None) -> str:
    body = defuse(source.text if text is None else text).strip()
    url = html.escape(source.url, quote=True)
    title = html.escape(source.title, quote=True)
    extra = ""
    if source.tier is not None:
        extra += f' tier="{source.tier}" type="{TIER_TYPES.get(source.tier, "unknown")}"'
    if source.published:
        extra += f' date="{html.escape(source.published[:10], quote=True)}"'
    return f'<source n="{source.n}" url="{url}" title="{title}"{extra}>\n{body}\n</source>'


def passages_context(passages: Sequence[Passage], max_chars: int) -> str:
    """Passages as numbered sources, best first, as many as fit ``max_chars`` (one at least):
    what the ask and the corrective judge show the model."""
    blocks: list[str] = []
    used = 0
    for passage in passages:
        block = source_block(SourceText(n=passage.n, url=passage.url, text=passage.text))
        if used + len(block) > max_chars and blocks:
            break
        blocks.append(block)
        used += len(block) + 2
    return "\n\n".join(blocks)


def truncate(text: str, limit: int) -> str:
    """At most ``limit`` chars, cut at a word boundary when one is near."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - len(TRUNCATION_MARK))]
    space = cut.rfind(" ")
    if space > len(cut) * 0.8:
        cut = cut[:space]
    return cut + TRUNCATION_MARK


def format_snippets(sources: Sequence[SourceText], max_chars: int) -> str:
    """Snippet blocks within ``max_chars``: shrink snippets first, then drop the last sources."""
    for limit in SNIPPET_STEPS:
        blocks = [source_block(s, truncate(s.text, limit)) for s in sources]
        if _joined_len(blocks) <= max_chars:
            return "\n\n".join(blocks)
    while blocks and _joined_len(blocks) > max_chars:
        blocks.pop()
    return "\n\n".join(blocks)


def format_documents(sources: Sequence[SourceText], max_chars: int) -> str:
    """Whole documents sharing ``max_chars`` evenly (each cut to its share)."""
    if not sources:
        return ""
    share = max_chars // len(sources)
    blocks = []
    for source in sources:
        overhead = len(source_block(source, "")) + 2
        blocks.append(source_block(source, truncate(source.text, max(0, share - overhead))))
    return "\n\n".join(blocks)


def trim_draft(text: str, summarize: Summarizer | None = None, *, limit: int | None = None) -> str:
    """The draft as the report writer gets it (unchanged up to 50k chars).

    ``limit``: a model whose window holds less gets the draft's extractive
    summary (every heading and cited sentence) within that many characters.
    """
    if limit is not None and limit < DRAFT_LIMITS[-1][0] and len(text) > limit:
        return fit_draft(text, limit)
    for over, head_chars, summary_chars in DRAFT_LIMITS:
        if len(text) > over:
            head = _cut_at_paragraph(text, head_chars)
            rest = text[len(head) :]
            summary = (summarize or extractive_summary)(rest, summary_chars)[:summary_chars]
            return (
                f"{head.rstrip()}\n\n[Summary of the remaining {len(rest)} characters]\n\n{summary}"
            )
    return text


def fit_draft(text: str, max_chars: int) -> str:
    """A growing draft within ``max_chars``: whole when it fits, else every heading with
    its opening sentences (``extractive_summary``), so whoever extends it sees all it covers."""
    if len(text) <= max_chars:
        return text
    return extractive_summary(text, max_chars)


def extractive_summary(text: str, max_chars: int) -> str:
    """Headings, each paragraph's first sentence and every cited sentence, within ``max_chars``."""
    kept: list[str] = []
    size = 0
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if paragraph.startswith("#"):
            picked = [paragraph.splitlines()[0]]
        else:
            sentences = _SENTENCE_END.split(" ".join(paragraph.split()))
            picked = [s for i, s in enumerate(sentences) if i == 0 or CITATION_RE.search(s)]
        piece = " ".join(picked)
        if size + len(piece) + 2 > max_chars:
            break
        kept.append(piece)
        size += len(piece) + 2
    return "\n\n".join(kept)


def _cut_at_paragraph(text: str, limit: int) -> str:
    head = text[:limit]
    boundary = head.rfind("\n\n")
    return head[:boundary] if boundary > limit * 0.9 else head


def format_evidence(sources: Sequence[SourceText], max_chars: int, per_source: int) -> str:
    """Evidence blocks sharing ``max_chars`` evenly, none over ``per_source`` chars of text.

    Unlike snippets, evidence is never dropped for the budget: every cited source
    keeps its share (a source with no share left would be cited blind).
    """
    if not sources:
        return ""
    share = min(per_source, max_chars // len(sources))
    blocks = []
    for source in sources:
        overhead = len(source_block(source, "")) + 2
        blocks.append(source_block(source, truncate(source.text, max(80, share - overhead))))
    return "\n\n".join(blocks)


def _joined_len(blocks: list[str]) -> int:
    return sum(len(b) for b in blocks) + 2 * max(0, len(blocks) - 1)


def result_block(url: str, title: str, snippet: str, limit: int = 300) -> str:
    """One search result as agents see it (untrusted, like a source)."""
    attrs = f'url="{html.escape(url, quote=True)}" title="{html.escape(title, quote=True)}"'
    return f"<result {attrs}>{defuse(truncate(snippet, limit))}</result>"


def keep_last_within(blocks: Sequence[str], max_chars: int) -> str:
    """The newest blocks that fit in ``max_chars`` (oldest dropped first), in order."""
    kept: list[str] = []
    size = 0
    for block in reversed(blocks):
        if size + len(block) + 2 > max_chars:
            break
        kept.append(block)
        size += len(block) + 2
    return "\n\n".join(reversed(kept))
