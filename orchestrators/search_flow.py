"""The search pipeline as a durable flow, shared by `search`, `deep_search`
and the first phase of `deep_research`.

plan queries ─► per iteration: one web_search activity per query (fan-out)
            ─► select sources (dedupe, filter, RRF, rerank, tiers)
            ─► scrape + summarize the top N (fan-out) ─► follow-up queries
            ─► synthesize the cited answer
Searches and scrapes return envelopes (``error`` instead of raising), so one
dead provider or page degrades the answer instead of failing it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import azure.durable_functions as df

from orchestrators.common import call, gather, publish
from shared import names
from shared.models import Progress, SearchResult, StartInput, Usage
from shared.payloads import (
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
    WebSearchIn,
    WebSearchOut,
)


def search_flow(
    context: df.DurableOrchestrationContext,
    inp: StartInput,
    iterations: int,
    words: tuple[int, int],
    progress: Progress,
) -> Generator[Any, Any, tuple[AnswerOut, Usage]]:
    caps = inp.caps
    plan_in = PlanQueriesIn(
        session_id=inp.session_id,
        query=inp.query,
        language=inp.language,
        history=inp.history,
        n=caps.search_queries,
    )
    planned = PlanQueriesOut.model_validate((yield call(context, names.PLAN_QUERIES, plan_in)))
    usage, queries = planned.usage, planned.queries
    seen_urls: list[str] = []
    summary_refs: list[str] = []
    leftovers: list[SearchResult] = []  # good results not read yet stay candidates
    for iteration in range(1, iterations + 1):
        progress.phase, progress.iteration = "searching", iteration
        publish(context, progress)
        searches = [
            call(
                context,
                names.WEB_SEARCH,
                WebSearchIn(
                    query=q, max_results=caps.search_max_results, time_range=planned.time_range
                ),
            )
            for q in queries
        ]
        found = [WebSearchOut.model_validate(o) for o in (yield from gather(context, searches))]
        select_in = SelectSourcesIn(
            query=planned.rewritten,
            result_lists=[f.results for f in found] + [leftovers],
            exclude_urls=seen_urls,
            top_n=caps.scrape_top_n,
            rerank_top_k=caps.rerank_top_k,
            policy=caps.source_policy,
        )
        selected = SelectSourcesOut.model_validate(
            (yield call(context, names.SELECT_SOURCES, select_in))
        )
        leftovers = selected.leftovers
        if not selected.selected:
            break
        progress.phase = "reading"
        publish(context, progress)
        scrapes = [
            call(
                context,
                names.SCRAPE_PAGE,
                ScrapeIn(
                    session_id=inp.session_id,
                    url=r.url,
                    title=r.title,
                    tier=r.tier,
                    item=f"items/search_{iteration}_{k}",
                    query=planned.rewritten,
                    language=inp.language,
                ),
            )
            for k, r in enumerate(selected.selected, start=1)
        ]
        pages = [ScrapeOut.model_validate(o) for o in (yield from gather(context, scrapes))]
        seen_urls += [r.url for r in selected.selected]
        summary_refs += [p.summary_ref for p in pages if p.ok and p.summary_ref]
        for page in pages:
            usage += page.usage
        progress.sources = len(summary_refs)
        if iteration < iterations and summary_refs:
            follow_in = FollowUpIn(
                session_id=inp.session_id,
                query=planned.rewritten,
                language=inp.language,
                summary_refs=summary_refs,
                n=caps.search_queries,
            )
            more = QueriesOut.model_validate(
                (yield call(context, names.FOLLOW_UP_QUERIES, follow_in))
            )
            usage += more.usage
            queries = more.queries or queries
    progress.phase = "synthesizing"
    publish(context, progress)
    synth_in = SynthesizeIn(
        session_id=inp.session_id,
        query=inp.query,
        language=inp.language,
        summary_refs=summary_refs,
        min_words=words[0],
        max_words=words[1],
        name="deep_search" if inp.as_phase else "answer",
    )
    answer = AnswerOut.model_validate((yield call(context, names.SYNTHESIZE, synth_in)))
    return answer, usage + answer.usage
