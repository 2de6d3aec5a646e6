"""The steps of the search flow, one function per durable activity.

Each step is plain Python over the composition root's services, so it can be
called from a test or a notebook; ``activities/search.py`` only decodes and
encodes. Searches and scrapes report failures in their envelope (typed
errors from the adapters, after their own retries) instead of raising, so a
fan-out is never killed by one provider or page.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from shared.adapters.report.citations import renumber_answer
from shared.adapters.search import pipeline
from shared.core.errors import PermanentError
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
from shared.core.session_search import SessionSearchIn
from shared.core.source_models import PageSummary, TimeRange
from shared.ports import Services
from shared.usecases.research.answer_stream import streamed
from shared.usecases.research.answers import (
    SUMMARY_CHARS,
    add_follow_up_questions,
    load_summaries,
    save_answer,
)
from shared.usecases.research.completeness import load_review, shortfalls
from shared.usecases.research.page_cache import fetch_cached
from shared.usecases.research.sources import source_limitations, sources_for
from shared.usecases.research.time_range import extract_time_range

log = logging.getLogger(__name__)
SNIPPET_CHARS = 300


def plan_queries(svc: Services, req: PlanQueriesIn) -> PlanQueriesOut:
    reasoner = svc.reasoner
    rewritten = reasoner.rewrite_query(req.query, req.history, req.language) or req.query
    queries = reasoner.search_queries(rewritten, req.n, req.language) or [rewritten]
    today = datetime.now(UTC).date()
    time_range: TimeRange | None = extract_time_range(reasoner, req.query, today)
    return PlanQueriesOut(rewritten=rewritten, queries=queries[: req.n], time_range=time_range)


def web_search(svc: Services, req: SessionSearchIn) -> WebSearchOut:
    try:
        search = sources_for(svc, req.session_id).search
        results = search.search(req.query, req.max_results, req.time_range)
    except PermanentError as exc:  # transient ones raise: Durable retries the activity
        log.warning("a search failed (%s)", type(exc).__name__)  # no query: see log_privacy
        return WebSearchOut(error=f"{type(exc).__name__}: {exc}"[:300])
    trimmed = [r.model_copy(update={"snippet": r.snippet[:SNIPPET_CHARS]}) for r in results]
    return WebSearchOut(results=trimmed[: req.max_results])


def select_sources(svc: Services, req: SelectSourcesIn) -> SelectSourcesOut:
    settings = svc.settings
    seen = {pipeline.normalize_url(u) for u in req.exclude_urls}
    unread = [
        [r for r in results if pipeline.normalize_url(r.url) not in seen]
        for results in req.result_lists
    ]
    ranked = pipeline.process(
        req.query,
        unread,
        blocked_domains=settings.split_list(settings.search_blocked_domains),
        blocked_keywords=settings.split_list(settings.search_blocked_keywords),
        top_k=req.rerank_top_k,
    )
    if svc.reranker is not None and pipeline.needs_semantic_rerank(ranked):
        ranked = svc.reranker.rerank(req.query, ranked)
    kept, warnings = svc.tiers.apply_policy(ranked, req.policy, fallback=req.fallback)
    return SelectSourcesOut(
        selected=kept[: req.top_n], leftovers=kept[req.top_n :], warnings=warnings
    )


def scrape_page(svc: Services, req: ScrapeIn) -> ScrapeOut:
    try:
        fetcher = sources_for(svc, req.session_id).fetcher
        page = fetch_cached(svc.memory, fetcher, req.session_id, req.url)
    except PermanentError as exc:  # transient ones raise: Durable retries the activity
        return ScrapeOut(
            url=req.url, title=req.title, ok=False, error=f"{type(exc).__name__}: {exc}"[:300]
        )
    summary = svc.reasoner.summarize_page(req.query, page, req.language)
    summary = summary.model_copy(
        update={"url": req.url, "tier": req.tier, "title": summary.title or page.title or req.title}
    )
    ref = svc.memory.write(
        req.session_id, f"{req.item}.json", summary.model_dump_json(), "application/json"
    )
    svc.memory.write(req.session_id, f"{req.item}.md", _item_markdown(summary), "text/markdown")
    return ScrapeOut(url=req.url, title=summary.title, ok=True, summary_ref=ref)


def follow_up_queries(svc: Services, req: FollowUpIn) -> QueriesOut:
    summaries = load_summaries(svc, req.summary_refs)
    queries = svc.reasoner.follow_up_queries(req.query, summaries, req.n, req.language)
    return QueriesOut(queries=queries[: req.n])


def synthesize(svc: Services, req: SynthesizeIn) -> AnswerOut:
    summaries = load_summaries(svc, req.summary_refs)
    words = (req.min_words, req.max_words)
    part = "deep_search" if req.name == "deep_search" else "answer"
    with streamed(svc.sessions, req.session_id, part) as stream:
        answer = svc.reasoner.synthesize(
            req.query, summaries, req.language, *words, policy=req.policy, time_range=req.time_range
        )
    answer = renumber_answer(answer)  # sources 1..N by first citation, as in a report
    answer.language = req.language
    answer.limitations = [*req.warnings, *source_limitations(svc, req.session_id, req.language)]
    if req.completeness_ref:  # the last round's check: per topic, and what content is missing
        review = load_review(svc, req.completeness_ref)
        answer.completeness, answer.content = review.topics, review.content
        answer.limitations += shortfalls(review, req.language)
    if req.follow_up_questions:
        add_follow_up_questions(svc, req.query, answer)
    mode = "deep_search" if req.name == "deep_search" else "search"
    ref = save_answer(svc, req.session_id, req.name, answer, req.query, mode)
    stream.settle(answer.answer)  # renumbered: may differ from what was streamed
    return AnswerOut(
        answer_ref=ref, source_count=len(answer.sources), summary=answer.answer[:SUMMARY_CHARS]
    )


def _item_markdown(summary: PageSummary) -> str:
    lines = [
        f"# {summary.title or summary.url}",
        "",
        f"Source: {summary.url}",
        "",
        summary.summary,
        "",
    ]
    lines += [f"- {s}" for s in summary.relevant_sentences]
    return "\n".join(lines) + "\n"
