"""What the offline report says when no page read is about the question: the passages of
the page that comes nearest, flagged as such, rather than nothing.

An everyday question ("How can I flatten a list of lists?") shares few words with the
reference text, so the citation gate (``relevance``) may pass no page although the pages
read hold the answer. A report that then cites nothing leaves the reader with less than
the research found; one that quotes the nearest page as if it answered would claim too
much. So the report quotes the read page that comes nearest, at most ``NEAR_ITEMS`` of
its passages, says in its summary that the sources only come
near the question, and its confidence is low. The reader can check the claim: the
passages and their page are cited.

The nearest page is the first one read (the searches rank it highest) that has a passage
carrying the share the gate asks of a quote (``relevance.QUOTE_MIN``); when none has, the
one whose passages together carry the most of the question. Several weak passages on a
page the searches found later ("write many lines" on ``sqlite3`` for a question on
``if __name__ == "__main__"``) are further from it than one strong passage on the page
ranked first ("'__main__' is the name of the scope in which top-level code executes").
"""

from __future__ import annotations

from collections.abc import Mapping

from shared.adapters.reasoning import relevance
from shared.adapters.reasoning.offline_quotes import Cited
from shared.adapters.reasoning.templates import texts_for
from shared.adapters.report.citations import CITATION_RE
from shared.core.report_models import ReportMaterial

NEAR_ITEMS = 3  # a few passages to judge the page by, not a section's worth
# A passage comes near the question when it carries the share below which the gate never
# sets its bar (``relevance.QUOTE_FLOOR``): less is a word in common ("Return a list of the
# substrings" for "flatten a list of lists"). Tune half of bench/labels.json: any share > 0
# quoted the typing page for two questions (precision 0.82); the floor: see the commit.
NEAR_SHARE = relevance.QUOTE_FLOOR


def nearest_section(
    material: ReportMaterial, idf: Mapping[str, float]
) -> tuple[str, list[Cited]] | None:
    """The heading (the page's title) and best passages of the nearest read page (see the
    module docstring), or None when no quote carries NEAR_SHARE."""
    context = material.context
    gate = relevance.question_gate(context.query, idf, context.language)
    numbers = {s.url: s.n for s in material.sources}
    shares: dict[int, list[tuple[float, str]]] = {}
    for finding in material.findings:
        for key in finding.key_findings:
            share = gate.share(key.text)
            for url in key.source_urls:
                if url in numbers and share >= NEAR_SHARE and not CITATION_RE.search(key.text):
                    shares.setdefault(numbers[url], []).append((share, key.text))
    if not shares:
        return None

    def strength(n: int) -> tuple[float, int]:
        # the best passages' weight first; then the page read first (the search's order)
        best = sorted((s for s, _ in shares[n]), reverse=True)[:NEAR_ITEMS]
        return (-sum(best), n)

    # sources are numbered in the order they were read: the searches' order
    strong = [n for n in shares if max(s for s, _ in shares[n]) >= relevance.QUOTE_MIN]
    n = min(strong) if strong else min(shares, key=strength)
    texts = list(dict.fromkeys(t for _, t in sorted(shares[n], key=lambda p: -p[0])))
    title = next(s.title for s in material.sources if s.n == n)
    return title or texts_for(context.language)["deep_search_heading"], [
        (text, [n]) for text in texts[:NEAR_ITEMS]
    ]


def near_summary(material: ReportMaterial, title: str) -> str:
    """The summary's opening for a report quoting the nearest page (``nearest_section``)."""
    t = texts_for(material.context.language)
    return t["summary_near"].format(
        query=material.context.query, read=len(material.sources), title=title
    )


def is_near(summary: str, language: str = "en") -> bool:
    """Whether a report's summary opens as one quoting the nearest page (for the bench,
    which counts such reports apart from those that cite nothing)."""
    lead = texts_for(language)["summary_near"].partition("{")[0]
    return bool(lead) and summary.startswith(lead)
