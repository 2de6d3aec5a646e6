"""Activities of the chat and search modes (thin: decode, call shared/, dump)."""

from __future__ import annotations

import azure.durable_functions as df

from activities.common import run_step
from shared.core.completeness_payloads import CompletenessIn
from shared.core.payloads import (
    ChatIn,
    FollowUpIn,
    PlanQueriesIn,
    ScrapeIn,
    SelectSourcesIn,
    SynthesizeIn,
)
from shared.core.session_search import SessionSearchIn
from shared.usecases.research import answers, completeness, search_steps

bp = df.Blueprint()


@bp.activity_trigger(input_name="payload")
def chat_answer(payload: dict) -> dict:
    return run_step(payload, ChatIn, answers.chat_answer)


@bp.activity_trigger(input_name="payload")
def plan_queries(payload: dict) -> dict:
    return run_step(payload, PlanQueriesIn, search_steps.plan_queries)


@bp.activity_trigger(input_name="payload")
def web_search(payload: dict) -> dict:
    return run_step(payload, SessionSearchIn, search_steps.web_search)


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
def evaluate_completeness(payload: dict) -> dict:
    return run_step(payload, CompletenessIn, completeness.evaluate_completeness)


@bp.activity_trigger(input_name="payload")
def synthesize(payload: dict) -> dict:
    return run_step(payload, SynthesizeIn, search_steps.synthesize)
