"""The search pipeline as a durable flow, shared by `search`, `deep_search`
and the first phase of `deep_research`.

plan queries ─► per iteration: one web_search activity per query (fan-out)
            ─► select sources (dedupe, filter, RRF, rerank, tiers)
            ─► scrape + summarize the top N (fan-out)
            ─► evaluate completeness (per topic: covered, score, evidence, gaps)
            ─► next queries: a gap query per uncovered topic only; follow-up
               queries when every topic is covered
 ─► content check failed (no definition / steps / code, or only navigation)?
    one more targeted round, once
 ─► synthesize the cited answer, with the last review (per-topic completeness,
    and what content is still missing, in its limitations)

A search or page that still fails after its retries degrades the answer, never
fails it: it becomes a warning in the live progress (and so in the status).
A token / cost budget sizes each iteration (pages read = LLM calls) and keeps
calls for the synthesis and its follow-up questions.

The source policy applies to every selection; inside a deep research
(``as_phase``) strict never falls back to tiers 3-5, since the report must rest
on tiers 1-2 alone (a standalone search falls back, with a warning, rather than
answer nothing, and only while no page was read yet). The answer of a mode ends
with follow-up questions; the phase's does not, since the report that follows
has its own.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import azure.durable_functions as df

from orchestrators import budget, phase_ledger
from orchestrators.common import call, outcome, publish, settle, step
from shared.core import names
from shared.core.completeness_payloads import CompletenessIn, CompletenessOut
from shared.core.payloads import (
    AnswerOut,
    FollowUpIn,
    PlanQueriesIn,
    PlanQueriesOut,
    QueriesOut,
    ScrapeIn,
    ScrapeOut,
    SelectSourcesIn,
    SelectSourcesOut,
    SynthesizeIn,
    WebSearchOut,
)
from shared.core.session_models import Progress, StartInput, Usage
from shared.core.session_search import SessionSearchIn
from shared.core.source_models import SearchResult, TimeRange

SYNTHESIS_CALLS = 1
FOLLOW_UP_CALLS = 1
FOLLOW_UP_QUESTION_CALLS = 1  # after the answer (none in a deep research's phase)
COMPLETENESS_CALLS = 1  # the check after each round that read pages


@dataclass
class _Search:
    """The flow's working state, rebuilt identically on replay."""

    inp: StartInput
    progress: Progress
    usage: Usage
    rewritten: str
    queries: list[str]
    time_range: TimeRange | None
    seen_urls: list[str] = field(default_factory=list)
    summary_refs: list[str] = field(default_factory=list)
    leftovers: list[SearchResult] = field(default_factory=list)  # ranked, unread
    review: CompletenessOut | None = None  # the last completeness check
    searched: list[str] = field(default_factory=list)  # every query sent, in order

    def fresh(self, queries: list[str]) -> list[str]:
        """``queries`` not searched yet: a gap whose search already ran would find the same."""
        done = {" ".join(q.lower().split()) for q in self.searched}
        return [q for q in queries if " ".join(q.lower().split()) not in done]

    def pages_affordable(self, wanted: int, more_iterations: bool) -> int:
        reserve = SYNTHESIS_CALLS + COMPLETENESS_CALLS + (FOLLOW_UP_CALLS if more_iterations else 0)
        reserve += 0 if self.inp.as_phase else FOLLOW_UP_QUESTION_CALLS
        left = budget.calls_left(self.inp.caps, self.usage, reserve=reserve)
        return wanted if left is None else max(0, min(wanted, left))


def search_flow(
    context: df.DurableOrchestrationContext,
    inp: StartInput,
    iterations: int,
    words: tuple[int, int],
    progress: Progress,
    answer_name: str,
) -> Generator[Any, Any, tuple[AnswerOut, Usage]]:
    """The answer (stored as ``answer_name`` in the session folder) and what it cost."""
    run = yield from _plan(context, inp, progress)
    try:
        for iteration in range(1, iterations + 1):
            more = iteration < iterations
            read = yield from _iteration(context, run, iteration, more)
            if not read:
                break
            yield from _evaluate(context, run, iteration)
            gaps = run.fresh(run.review.gap_queries) if run.review else []
            if more and gaps:
                run.queries = gaps  # only the topics still uncovered
            elif more and run.summary_refs:  # all covered, or their searches already ran
                yield from _follow_up(context, run)
        yield from _content_round(context, run, iterations + 1)
        answer = yield from _synthesize(context, run, words, answer_name)
    except Exception as exc:  # the session is billed what the flow spent before the failure
        exc.usage = run.usage + (getattr(exc, "usage", None) or Usage())
        raise
    return answer, run.usage + answer.usage


def _enter(context: df.DurableOrchestrationContext, run: _Search, phase: str) -> None:
    """The live phase, and the ledger's (a deep research's deep search is one phase of its own)."""
    run.progress.phase = phase
    if not run.inp.as_phase:
        phase_ledger.enter(context, run.inp.session_id, phase, run.usage)
    publish(context, run.progress)


def _plan(context: df.DurableOrchestrationContext, inp: StartInput, progress: Progress):
    request = PlanQueriesIn(
        session_id=inp.session_id,
        query=inp.query,
        language=inp.language,
        history=inp.history,
        n=inp.caps.search_queries,
    )
    planned = PlanQueriesOut.model_validate((yield from step(context, names.PLAN_QUERIES, request)))
    return _Search(
        inp, progress, planned.usage, planned.rewritten, planned.queries, planned.time_range
    )


def _iteration(context: df.DurableOrchestrationContext, run: _Search, iteration: int, more: bool):
    """Search, select, read; returns how many pages were read (0 ends the loop)."""
    run.progress.iteration = iteration
    _enter(context, run, "searching")
    found = yield from _search_all(context, run)
    caps = run.inp.caps
    select_in = SelectSourcesIn(
        query=run.rewritten,
        result_lists=[f.results for f in found] + [run.leftovers],
        exclude_urls=run.seen_urls,
        top_n=caps.scrape_top_n,
        rerank_top_k=caps.rerank_top_k,
        policy=caps.source_policy,
        # strict falls back to tiers 3-5 only while nothing was read: a later round (a gap,
        # missing content) that finds no official page adds nothing rather than a forum
        fallback=not run.inp.as_phase and not run.summary_refs,
    )
    selected = SelectSourcesOut.model_validate(
        (yield from step(context, names.SELECT_SOURCES, select_in))
    )
    for warning in selected.warnings:
        run.progress.warn("selecting sources", warning)
    affordable = run.pages_affordable(len(selected.selected), more)
    if affordable < len(selected.selected):
        run.progress.warn(
            "reading",
            f"{budget.BUDGET_NOTE} allowed {affordable} of {len(selected.selected)} "
            f"pages in search round {iteration}",
        )
    to_read = selected.selected[:affordable]
    run.leftovers = selected.leftovers + selected.selected[affordable:]
    if not to_read:
        return 0
    yield from _read_all(context, run, iteration, to_read)
    return len(to_read)


def _search_all(context: df.DurableOrchestrationContext, run: _Search):
    caps = run.inp.caps
    run.searched += run.queries
    tasks = [
        call(
            context,
            names.WEB_SEARCH,
            SessionSearchIn(
                query=q,
                max_results=caps.search_max_results,
                time_range=run.time_range,
                session_id=run.inp.session_id,
            ),
        )
        for q in run.queries
    ]
    found: list[WebSearchOut] = []
    for query, result in zip(run.queries, (yield from settle(context, tasks)), strict=True):
        out = outcome(names.WEB_SEARCH, result, WebSearchOut, _search_failed)
        run.usage += out.usage
        if out.error:
            run.progress.warn("searching", f"search for {query!r} failed: {out.error}")
        found.append(out)
    return found


def _search_failed(error: str, used: Usage) -> WebSearchOut:
    """A failed search is data, with what it spent before failing (the judge's calls)."""
    return WebSearchOut(error=error, usage=used)


def _read_all(
    context: df.DurableOrchestrationContext,
    run: _Search,
    iteration: int,
    selected: list[SearchResult],
):
    _enter(context, run, "reading")
    tasks = [
        call(
            context,
            names.SCRAPE_PAGE,
            ScrapeIn(
                session_id=run.inp.session_id,
                url=r.url,
                title=r.title,
                tier=r.tier,
                item=f"items/search_{iteration}_{k}",
                query=run.rewritten,
                language=run.inp.language,
            ),
        )
        for k, r in enumerate(selected, start=1)
    ]
    for source, result in zip(selected, (yield from settle(context, tasks)), strict=True):
        page = outcome(
            names.SCRAPE_PAGE,
            result,
            ScrapeOut,
            lambda e, used, url=source.url: ScrapeOut(url=url, ok=False, error=e, usage=used),
        )
        run.usage += page.usage
        if page.ok and page.summary_ref:
            run.summary_refs.append(page.summary_ref)
        else:
            run.progress.warn("reading", f"could not read {source.url}: {page.error}")
    run.seen_urls += [r.url for r in selected]
    run.progress.source_count = len(run.summary_refs)


def _follow_up(context: df.DurableOrchestrationContext, run: _Search):
    request = FollowUpIn(
        session_id=run.inp.session_id,
        query=run.rewritten,
        language=run.inp.language,
        summary_refs=run.summary_refs,
        n=run.inp.caps.search_queries,
    )
    more = QueriesOut.model_validate((yield from step(context, names.FOLLOW_UP_QUERIES, request)))
    run.usage += more.usage
    run.queries = more.queries or run.queries


def _evaluate(context: df.DurableOrchestrationContext, run: _Search, iteration: int):
    """The completeness check of everything read so far; a failure only loses the check."""
    request = CompletenessIn(
        session_id=run.inp.session_id,
        query=run.rewritten,
        language=run.inp.language,
        summary_refs=run.summary_refs,
        topics=run.review.topics if run.review else [],
        name=f"completeness_{iteration}",
        n=run.inp.caps.search_queries,
    )
    (result,) = yield from settle(context, [call(context, names.EVALUATE_COMPLETENESS, request)])
    errors: list[str] = []

    def failed(error: str, used: Usage) -> CompletenessOut:
        errors.append(error)
        return CompletenessOut(usage=used)

    review = outcome(names.EVALUATE_COMPLETENESS, result, CompletenessOut, failed)
    run.usage += review.usage
    if errors:
        run.progress.warn("checking completeness", f"the completeness check failed: {errors[0]}")
        return
    run.review = review


def _content_round(context: df.DurableOrchestrationContext, run: _Search, iteration: int):
    """One more round, targeted at the content the question needs and nothing read gave
    (a definition, steps, code), or when the pages were only navigation. Once."""
    review = run.review
    queries = run.fresh(review.content_queries) if review else []
    if review is None or review.content_ok or not queries:
        return
    run.queries = queries
    if (yield from _iteration(context, run, iteration, False)):
        yield from _evaluate(context, run, iteration)


def _synthesize(
    context: df.DurableOrchestrationContext, run: _Search, words: tuple[int, int], name: str
):
    _enter(context, run, "synthesizing")
    request = SynthesizeIn(
        session_id=run.inp.session_id,
        query=run.inp.query,
        language=run.inp.language,
        summary_refs=run.summary_refs,
        min_words=words[0],
        max_words=words[1],
        name=name,
        warnings=[w.message for w in run.progress.warnings],
        policy=run.inp.caps.source_policy,
        follow_up_questions=not run.inp.as_phase,
        time_range=run.time_range,
        completeness_ref=run.review.review_ref if run.review else None,
    )
    return AnswerOut.model_validate((yield from step(context, names.SYNTHESIZE, request)))
