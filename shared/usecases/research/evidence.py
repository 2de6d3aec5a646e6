"""Evidence that survives: a page's passages on a task, nearly verbatim.

A finding's summary and key facts are what a researcher *concluded*; the
writer and the critic also need what the pages *say*, or a 5,000-word report
is padded from one-liners and the critic cannot check a claim. So each cited
page keeps its sentences most relevant to the task and to the key findings
that cite it (BM25 + MMR over the page's sentences, as the offline reasoner
ranks them), put back in page order, within a per-source budget. The same
selection shows a researcher what a page it just read says.

The text is copied, never paraphrased: it is evidence, in the page's own
language, whichever language the report is written in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shared.adapters.reasoning.context_budget import truncate
from shared.adapters.search.pipeline import normalize_url
from shared.core.research_models import Finding, Observation
from shared.core.source_models import Page, SourceExcerpt
from shared.tools import lexical, sentence_split
from shared.tools.page_scorers import page_scorer

EXCERPT_CHARS = 1500  # per source of a finding; the writer's prompt shares its budget later
OBSERVATION_CHARS = 700  # what a researcher sees of a page it just read
MERGED_EXCERPT_CHARS = 2400  # per source after merging the findings that cite it
GAP = " … "
_CANDIDATES = 60


def relevant_passages(
    text: str,
    query: str,
    max_chars: int,
    sentences: Sequence[str] | None = None,
    tokens: Sequence[str] | None = None,
) -> str:
    """The sentences of ``text`` most relevant to ``query``, in page order, within ``max_chars``.

    Non-adjacent sentences are joined by `` … ``. A page with no prose sentences
    (a table, a script the splitter does not know) gives its opening instead.
    ``sentences`` are ``text``'s own, when the caller has them (a cached page
    keeps them): splitting is the costly part, done once per page. ``tokens`` are
    theirs when the page has them (the built-in collection's): nothing is tokenized.
    """
    if sentences is None:
        sentences, tokens = sentence_split.split_sentences(text), None
    scorer = page_scorer(sentences, tokens)
    ranked = [i for i, _ in lexical.rank_sentences(query, sentences, _CANDIDATES, scorer=scorer)]
    chosen: list[int] = []
    size = 0
    for i in ranked:
        cost = len(sentences[i]) + len(GAP)
        if size + cost > max_chars:
            continue
        chosen.append(i)
        size += cost
    if not chosen:
        return truncate(text, max_chars)
    pieces: list[str] = []
    previous = None
    for i in sorted(chosen):
        if previous is not None:
            pieces.append(" " if i == previous + 1 else GAP)
        pieces.append(sentences[i])
        previous = i
    return "".join(pieces).strip()


def finding_excerpts(
    finding: Finding, pages: Iterable[Page], task: str, dates: dict[str, str]
) -> list[SourceExcerpt]:
    """One excerpt per source of ``finding``: its passages on ``task`` and the facts it backs."""
    by_url = {p.url: p for p in pages}
    excerpts = []
    for source in finding.sources:
        page = by_url.get(source.url)
        if page is None:
            continue
        facts = [k.text for k in finding.key_findings if source.url in k.source_urls]
        query = " ".join([task, *facts])
        text = relevant_passages(
            page.text, query, EXCERPT_CHARS, page.sentences, page.sentence_tokens
        )
        if text:
            excerpts.append(
                SourceExcerpt(url=source.url, text=text, published=dates.get(source.url))
            )
    return excerpts


def observation_passages(page: Page, task: str) -> str:
    return relevant_passages(
        page.text, task, OBSERVATION_CHARS, page.sentences, page.sentence_tokens
    )


def search_dates(observations: Iterable[Observation]) -> dict[str, str]:
    """Publication dates the search results gave, by URL (the first one seen wins)."""
    dates: dict[str, str] = {}
    for obs in observations:
        for result in obs.results:
            if result.published:
                dates.setdefault(result.url, result.published)
    return dates


def merge_excerpts(excerpts: Iterable[SourceExcerpt]) -> list[SourceExcerpt]:
    """One excerpt per source URL: distinct passages of every finding that read it, bounded."""
    merged: dict[str, SourceExcerpt] = {}
    for excerpt in excerpts:
        key = normalize_url(excerpt.url)
        known = merged.get(key)
        if known is None:
            merged[key] = excerpt.model_copy(update={"text": excerpt.text[:MERGED_EXCERPT_CHARS]})
            continue
        if excerpt.text in known.text:
            continue
        text = truncate(f"{known.text}{GAP}{excerpt.text}", MERGED_EXCERPT_CHARS)
        merged[key] = known.model_copy(
            update={"text": text, "published": known.published or excerpt.published}
        )
    return list(merged.values())
