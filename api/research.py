"""The research API: start, status, clarification, cancel.

Each route is a thin HTTP shell around a use-case function (``start``,
``answer``, ``cancel``) that the MCP tools (``api/mcp_tools.py``) call too,
so both entry points share one logic. Every route is ``AuthLevel.FUNCTION``
in Azure (the DFApp default) and first asks who is calling (``api.caller``);
the use cases take that principal: a session belongs to whoever started it,
and anyone else gets 404 for it (``shared.usecases.access``). Handlers validate, touch
the session store (in a thread: store SDKs are synchronous) and talk to
Durable only through the real ``DurableOrchestrationClient``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import UTC, datetime

import azure.durable_functions as df
import azure.functions as func

from api.caller import caller, route_session
from api.errors import handled, json_response, read_json, route_session_id
from api.maintenance import create_session
from api.schemas import ClarificationReply, ResearchRequest
from api.transport import http_function
from api.views import live_progress, session_view
from shared.adapters.identity import Principal
from shared.adapters.webhooks import validate_callback_url
from shared.bootstrap import services
from shared.core import names
from shared.core.config import Settings
from shared.core.errors import ConflictError, InvalidInputError
from shared.core.payloads import NotifyIn
from shared.core.session_models import Mode, SessionRecord, SessionStatus, StartInput
from shared.tools.language import detect_language
from shared.tools.telemetry.session_spans import emit_session
from shared.usecases import quotas, sessions
from shared.usecases.access import chat_key, session_for, write_owner_file
from shared.usecases.collections import check_sources
from shared.usecases.policy_choice import choose_source_policy
from shared.usecases.research import follow_up

bp = df.Blueprint()
log = logging.getLogger(__name__)
POLL_SECONDS = 0.2


@bp.route(route="research", methods=["POST"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def start_research(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    body = ResearchRequest.model_validate(read_json(req))
    record = await start(client, principal, body)
    view = session_view(svc, record)
    if record.status.is_terminal:
        return json_response(view)
    headers = {"Location": view["links"]["status"], "Retry-After": "2"}
    return json_response(view, status=202, headers=headers)


async def start(client, principal: Principal, body: ResearchRequest) -> SessionRecord:
    """Create ``principal``'s session and start its orchestration (the HTTP route and
    the MCP tool). Waits up to ``body.wait_seconds`` for the result or the user's turn."""
    svc = services()
    owner = principal.owner
    await asyncio.to_thread(_check_configuration, svc, body.mode, bool(body.callback_url))
    caps = svc.settings.caps_for(body.options)  # before anything is stored: 422 above a ceiling
    sources = (svc, principal, body.options.collections, body.options.web)
    await asyncio.to_thread(check_sources, *sources)  # someone else's collection: 404
    policy = choose_source_policy(body.query, body.options.source_policy)
    caps = caps.model_copy(update={"source_policy": policy.policy})
    if body.callback_url:
        allowed = Settings.split_list(svc.settings.webhook_allowed_hosts)
        await asyncio.to_thread(validate_callback_url, body.callback_url, allowed)
    parent = await _parent(svc, principal, body)
    session_id = uuid.uuid4().hex
    chat_id = chat_key(owner, body.chat_id or session_id)
    if parent is not None and body.chat_id is None:
        chat_id = parent.chat_id  # the parent's chat: its one-active rule holds
    now = datetime.now(UTC)
    record = SessionRecord(
        id=session_id,
        chat_id=chat_id,
        owner=owner,
        original_query=body.query,
        mode=body.mode,
        instance_id=session_id,
        language=detect_language(body.query),
        callback_url=body.callback_url,
        options=body.options,
        source_policy=None if body.mode == Mode.chat else policy,  # chat cites nothing
        created_at=now,
        updated_at=now,
    )
    # Quotas first: a refused start supersedes nothing (shared/usecases/quotas.py).
    admission = await asyncio.to_thread(quotas.admit, svc, owner, caps, now)
    history = []
    if body.mode != Mode.deep_research:
        history = await asyncio.to_thread(
            svc.sessions.history, chat_id, svc.settings.chat_history_limit
        )
    # Counts the start against the quotas; frees a chat an orphan blocks. Only a start
    # the store took supersedes what runs in its chat, so a refused one loses nothing.
    await create_session(svc.sessions, client, record, admission.quota)
    if body.mode != Mode.deep_research:
        await _supersede(svc, client, chat_id, except_id=session_id)
    await asyncio.to_thread(write_owner_file, svc.memory, record)
    if parent is not None:
        seeded = await asyncio.to_thread(follow_up.seed, svc, parent, session_id, now)
        log.info("follow-up %s of %s starts with %s", session_id, parent.id, seeded)
    start_input = StartInput(
        session_id=session_id,
        chat_id=chat_id,
        query=body.query,
        mode=body.mode,
        language=record.language,
        caps=admission.caps,
        history=history,
        callback_url=body.callback_url,
    )
    try:
        await client.start_new(
            names.ORCHESTRATOR_BY_MODE[body.mode.value],
            record.instance_id,
            start_input.model_dump(mode="json"),
        )
    except Exception:
        await asyncio.to_thread(svc.sessions.update, session_id, _mark_failed("could not start"))
        raise
    if body.wait_seconds:
        record = await _wait(svc, session_id, body.wait_seconds)
    return record


@bp.route(route="research/{session_id}", methods=["GET"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def research_status(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    _, record = await route_session(req, svc)
    progress, failure = await live_progress(client, record)
    return json_response(session_view(svc, record, progress, failure))


@bp.route(route="research/{session_id}/clarification", methods=["POST"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def answer_clarification(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    reply = ClarificationReply.model_validate(read_json(req))
    record = await answer(client, principal, route_session_id(req), reply)
    return json_response(session_view(svc, record), status=202)


async def answer(
    client, principal: Principal, session_id: str, reply: ClarificationReply
) -> SessionRecord:
    """Hand the answers to the waiting run, once (ConflictError when nothing waits)."""
    svc = services()
    session_id = (await asyncio.to_thread(session_for, svc, principal, session_id, "act")).id
    answers = reply.as_answers()

    def claim(r: SessionRecord) -> None:
        if r.status != SessionStatus.waiting_clarification:
            raise ConflictError(
                f"session {session_id} is {r.status.value}, not waiting for clarification"
            )
        r.status, r.clarification_answers = SessionStatus.researching, answers

    record = await asyncio.to_thread(svc.sessions.update, session_id, claim)
    try:
        await client.raise_event(
            record.instance_id, names.CLARIFICATION_EVENT, {"answers": answers}
        )
    except Exception:

        def release(r: SessionRecord) -> None:
            r.status = SessionStatus.waiting_clarification

        await asyncio.to_thread(svc.sessions.update, session_id, release)
        raise
    return record


@bp.route(route="research/{session_id}/cancel", methods=["POST"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def cancel_research(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    record = await cancel(client, principal, route_session_id(req))
    return json_response(session_view(svc, record), status=202)


async def cancel(client, principal: Principal, session_id: str) -> SessionRecord:
    """Stop a live run and tell its webhook (ConflictError once it has finished)."""
    svc = services()
    session_id = (await asyncio.to_thread(session_for, svc, principal, session_id, "act")).id
    # The status change records the ``cancelled`` webhook event in the same update,
    # after any event the run recorded before; the notify below sends them in order.
    record = await asyncio.to_thread(sessions.cancel_session, svc, session_id)
    await _terminate(client, record.instance_id, "cancelled by the user")
    _trace_ended(record)
    if record.callback_url:
        note = NotifyIn(session_id=session_id, event="cancelled")
        await client.start_new(
            names.NOTIFY_ORCHESTRATOR,
            names.session_instance_id(session_id, names.NOTIFY_CANCELLED_ROLE),
            note.model_dump(mode="json"),
        )
    return record


async def _supersede(svc, client, chat_id: str, except_id: str) -> None:
    """A new question in a chat supersedes whatever else is still running there."""
    for old in await asyncio.to_thread(svc.sessions.supersede_active, chat_id, except_id):
        await _terminate(client, old.instance_id, "superseded by a newer request in the chat")
        _trace_ended(old)


def _trace_ended(record: SessionRecord) -> None:
    """A run stopped from outside never completes: its trace gets its session span here."""
    status, now = record.status.value, datetime.now(UTC)
    emit_session(record.id, record.mode.value, status, record.created_at, now, [], record.usage)


async def _terminate(client, instance_id: str, reason: str) -> None:
    for target in (instance_id, names.session_instance_id(instance_id, names.DEEP_SEARCH_ROLE)):
        try:
            await client.terminate(target, reason)
        except Exception as exc:  # not found / already finished: nothing left to stop
            log.info("terminate %s: %s", target, exc)


async def _wait(svc, session_id: str, seconds: float) -> SessionRecord:
    """Poll until the session ends, needs the user (clarification, plan) or time is up."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        record = await asyncio.to_thread(svc.sessions.get, session_id)
        needs_user = record.status in (
            SessionStatus.waiting_clarification,
            SessionStatus.waiting_plan_approval,
        )
        if record.status.is_terminal or needs_user or loop.time() >= deadline:
            return record
        await asyncio.sleep(POLL_SECONDS)


async def _parent(svc, principal: Principal, body: ResearchRequest) -> SessionRecord | None:
    """The finished research ``options.follow_up_of`` names, if any (404 for another's)."""
    parent_id = body.options.follow_up_of
    if parent_id is None:
        return None
    if body.mode != Mode.deep_research:
        raise InvalidInputError(
            "options.follow_up_of starts a deep research; mode must be deep_research",
            [{"loc": ["options", "follow_up_of"], "msg": "only with mode deep_research"}],
        )
    return await asyncio.to_thread(follow_up.parent_of, svc, principal, parent_id)


def _check_configuration(svc, mode: Mode, webhook: bool) -> None:
    """Build what the run will need now: a missing setting is a 400 naming it, not a
    run that fails (or quietly finds nothing) minutes later. Built once per worker."""
    svc.reasoner  # noqa: B018 - building it is the check
    if mode != Mode.chat:
        svc.search  # noqa: B018
    if webhook:
        svc.webhooks  # noqa: B018 - a malformed WEBHOOK_SECRET


def _mark_failed(reason: str):
    def mutate(r: SessionRecord) -> None:
        r.status, r.error = SessionStatus.failed, reason

    return mutate
