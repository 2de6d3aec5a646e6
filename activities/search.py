"""Activities of the chat and search modes (thin: decode, call shared/, dump)."""

from __future__ import annotations

import azure.durable_functions as df

from activities.common import run_step
from shared.payloads import (
    AnswerOut,
    ChatIn,
    FollowUpIn,
    PlanQueriesIn,
    ScrapeIn,
    SelectSourcesIn,
    SynthesizeIn,
    WebSearchIn,
)
from shared.research import search_steps
from shared.research.answers import chat_answer as answer_chat

bp = df.Blueprint()


def _chat(svc, req: ChatIn) -> AnswerOut:
    ref, answer = answer_chat(svc, req.session_id, req.query, req.language, req.history)
    return AnswerOut(answer_ref=ref, sources=len(answer.sources), summary=answer.answer[:1500])


@bp.activity_trigger(input_name="payload")
def chat_answer(payload: dict) -> dict:
    return run_step(payload, ChatIn, _chat)


@bp.activity_trigger(input_name="payload")
def plan_queries(payload: dict) -> dict:
    return run_step(payload, PlanQueriesIn, search_steps.plan_queries)


@bp.activity_trigger(input_name="payload")
def web_search(payload: dict) -> dict:
    return run_step(payload, WebSearchIn, search_steps.web_search)


@bp.activity_trigger(input_name="payload")
def select_sources(payload: dict) -> dict:
    return run_step(payload, SelectSourcesIn, search_steps.select_sources)


@bp.activity_trigger(input_name="payload")
def scrape_page(payload: dict) -> dict:
    return run_step(payload, ScrapeIn, search_steps.scrape_page)


@bp.activity_trigger(input_name="payload")
def follow_up_queries(payload: dict) -> dict:
    return run_step(payload, FollowUpIn, search_steps.follow_up_queries)


@bp.activity_trigger(input_name="payload")
def synthesize(payload: dict) -> dict:
    return run_step(payload, SynthesizeIn, search_steps.synthesize)
