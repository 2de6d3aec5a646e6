"""When to read pages: after every search round (ours) or once after all rounds (the spec).

The modes spec reads the top 4 URLs once, after the iterations; the search flow reads
the top ``DEEP_SEARCH_SCRAPE_TOP_N`` after every round, so that the completeness check
judges pages rather than snippets and the next round searches what they lack. This
runs both over the first twelve questions of the labelled tune half (default corpus,
offline reasoner, the same use-case steps the activities call) and prints, per mode
and strategy: pages read (each one summary call with a model), how many of them are
on-topic, the share of the question's topics the last check finds covered, and the
share of answers whose content check passes.

    python -m bench.reading
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.precision import Labelled, labelled
from bench.scenarios import offline_settings, temp_dir
from shared.bootstrap import AppServices
from shared.core.completeness_payloads import CompletenessIn, CompletenessOut
from shared.core.limits import SCRAPE_TOP_N
from shared.core.payloads import FollowUpIn, PlanQueriesIn, ScrapeIn, SelectSourcesIn
from shared.core.session_search import SessionSearchIn
from shared.core.source_models import PageSummary, SearchResult
from shared.usecases.research.completeness import evaluate_completeness
from shared.usecases.research.search_steps import (
    follow_up_queries,
    plan_queries,
    scrape_page,
    select_sources,
    web_search,
)

# rounds; pages read once: the spec's ranges (4-8 for search, 8-16 for deep search)
MODES = {"search": (2, (4, 8)), "deep_search": (6, (8, 16))}
PER_ROUND = SCRAPE_TOP_N.default  # pages read after each round
SID = "bench"
# the twelve questions the gate was first set on: the first of the labelled tune half
QUESTIONS = 12


@dataclass
class Tally:
    pages: int = 0
    on_topic: int = 0
    topic_share: float = 0.0
    content_ok: int = 0
    runs: int = 0
    rows: list[str] = field(default_factory=list)

    def add(self, label: Labelled, urls: list[str], review: CompletenessOut | None) -> None:
        self.runs += 1
        self.pages += len(urls)
        self.on_topic += sum(u.removeprefix("corpus://") in label.accepted for u in urls)
        if review is not None and review.topics:
            self.topic_share += review.covered / len(review.topics)
            self.content_ok += review.content_ok


class Run:
    def __init__(self, svc: AppServices, query: str, tag: str) -> None:
        self.svc, self.query, self.tag = svc, query, tag
        plan = plan_queries(svc, PlanQueriesIn(session_id=SID, query=query, language="en"))
        self.rewritten, self.queries = plan.rewritten, plan.queries
        self.searched: list[str] = []
        self.lists: list[list[SearchResult]] = []
        self.review: CompletenessOut | None = None
        self.n = 0

    def search(self) -> list[list[SearchResult]]:
        self.searched += self.queries
        found = [web_search(self.svc, SessionSearchIn(query=q)).results for q in self.queries]
        return found

    def select(self, lists: list[list[SearchResult]], seen: list[str], top_n: int):
        request = SelectSourcesIn(
            query=self.rewritten, result_lists=lists, exclude_urls=seen, top_n=top_n
        )
        return select_sources(self.svc, request)

    def read(self, results: list[SearchResult]) -> list[str]:
        refs = []
        for r in results:
            self.n += 1
            item = f"items/{self.tag}_{self.n}"
            scrape = ScrapeIn(
                session_id=SID, url=r.url, title=r.title, tier=r.tier, item=item,
                query=self.rewritten, language="en",
            )  # fmt: skip
            out = scrape_page(self.svc, scrape)
            if out.summary_ref:
                refs.append(out.summary_ref)
        return refs

    def check(self, refs: list[str]) -> CompletenessOut:
        topics = self.review.topics if self.review else []
        self.n += 1
        request = CompletenessIn(
            session_id=SID, query=self.rewritten, language="en", summary_refs=refs,
            topics=topics, name=f"{self.tag}_check_{self.n}",
        )  # fmt: skip
        self.review = evaluate_completeness(self.svc, request)
        return self.review

    def next_queries(self, refs: list[str]) -> None:
        fresh = [
            q for q in (self.review.gap_queries if self.review else []) if q not in self.searched
        ]
        if fresh:
            self.queries = fresh
        elif refs:
            follow = FollowUpIn(
                session_id=SID, query=self.rewritten, language="en", summary_refs=refs
            )
            self.queries = follow_up_queries(self.svc, follow).queries or self.queries


def per_round(svc: AppServices, query: str, rounds: int) -> tuple[list[str], CompletenessOut]:
    run, seen, refs, leftovers = Run(svc, query, "per_round"), [], [], []
    for i in range(rounds):
        selected = run.select([*run.search(), leftovers], seen, PER_ROUND)
        if not selected.selected:
            break
        refs += run.read(selected.selected)
        seen += [r.url for r in selected.selected]
        leftovers = selected.leftovers
        run.check(refs)
        if i < rounds - 1:
            run.next_queries(refs)
    return seen, run.review


def once_after(svc: AppServices, query: str, rounds: int, pages: int):
    """Rounds judged on snippets (what a round has before reading), then one read."""
    run = Run(svc, query, "once")
    for i in range(rounds):
        run.lists += run.search()
        pool = run.select(run.lists, [], 8)
        snippets = [
            svc.memory.write(
                SID, f"items/snip_{run.n}_{k}.json",
                PageSummary(url=r.url, title=r.title, summary=r.snippet).model_dump_json(),
                "application/json",
            )
            for k, r in enumerate(pool.selected)
        ]  # fmt: skip
        run.check(snippets)
        if i < rounds - 1:
            run.next_queries(snippets)
    selected = run.select(run.lists, [], pages).selected
    refs = run.read(selected)
    run.review = None  # the read pages judged afresh, as the answer would see them
    return [r.url for r in selected], run.check(refs)


def main() -> None:
    svc = AppServices(offline_settings(temp_dir()))
    print("| mode | reading | pages read | on-topic pages | topics covered | content ok |")
    print("|---|---|---|---|---|---|")
    for mode, (rounds, once_pages) in MODES.items():
        tallies = {f"after each round, {PER_ROUND}": Tally()}
        tallies |= {f"once, {pages}": Tally() for pages in once_pages}
        for label in labelled("tune")[:QUESTIONS]:
            query = label.question
            tallies[f"after each round, {PER_ROUND}"].add(label, *per_round(svc, query, rounds))
            for pages in once_pages:
                tallies[f"once, {pages}"].add(label, *once_after(svc, query, rounds, pages))
        for name, t in tallies.items():
            print(
                f"| {mode} | {name} | {t.pages / t.runs:.1f} | {t.on_topic / t.runs:.1f} | "
                f"{t.topic_share / t.runs:.0%} | {t.content_ok}/{t.runs} |"
            )


if __name__ == "__main__":
    main()
