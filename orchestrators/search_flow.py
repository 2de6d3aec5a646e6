"""The search pipeline as a durable flow, shared by `search`, `deep_search`
and the first phase of `deep_research`.

plan queries ─► per iteration: one web_search activity per query (fan-out)
            ─► select sources (dedupe, filter, RRF, rerank, tiers)
            ─► scrape + summarize the top N (fan-out) ─► follow-up queries
            ─► synthesize the cited answer

A search or page that still fails after its retries degrades the answer, never
fails it: it becomes a warning in the live progress (and so in the status).
A token / cost budget sizes each iteration (pages read = LLM calls) and keeps
calls for the synthesis and its follow-up questions.

The source policy applies to every selection; inside a deep research
(``as_phase``) strict never falls back to tiers 3-5, since the report must rest
on tiers 1-2 alone (a standalone search falls back, with a warning, rather than
answer nothing). The answer of a mode ends with follow-up questions; the phase's
does not, since the report that follows has its own.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import azure.durable_functions as df

from orchestrators import budget
from orchestrators.common import call, outcome, publish, settle, step
from shared.core import names
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

    def pages_affordable(self, wanted: int, more_iterations: bool) -> int:
        reserve = SYNTHESIS_CALLS + (FOLLOW_UP_CALLS if more_iterations else 0)
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
            if more and run.summary_refs:
                yield from _follow_up(context, run)
        answer = yield from _synthesize(context, run, words, answer_name)
    except Exception as exc:  # the session is billed what the flow spent before the failure
        exc.usage = run.usage + (getattr(exc, "usage", None) or Usage())
        raise
    return answer, run.usage + answer.usage


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
    run.progress.phase, run.progress.iteration = "searching", iteration
    publish(context, run.progress)
    found = yield from _search_all(context, run)
    caps = run.inp.caps
    select_in = SelectSourcesIn(
        query=run.rewritten,
        result_lists=[f.results for f in found] + [run.leftovers],
        exclude_urls=run.seen_urls,
        top_n=caps.scrape_top_n,
        rerank_top_k=caps.rerank_top_k,
        policy=caps.source_policy,
        fallback=not run.inp.as_phase,
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
        out = outcome(names.WEB_SEARCH, result, WebSearchOut, lambda e, _: WebSearchOut(error=e))
        if out.error:
            run.progress.warn("searching", f"search for {query!r} failed: {out.error}")
        found.append(out)
    return found


def _read_all(
    context: df.DurableOrchestrationContext,
    run: _Search,
    iteration: int,
    selected: list[SearchResult],
):
    run.progress.phase = "reading"
    publish(context, run.progress)
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


def _synthesize(
    context: df.DurableOrchestrationContext, run: _Search, words: tuple[int, int], name: str
):
    run.progress.phase = "synthesizing"
    publish(context, run.progress)
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
    )
    return AnswerOut.model_validate((yield from step(context, names.SYNTHESIZE, request)))
