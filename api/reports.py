"""Reports (Markdown, JSON, PDF) and the live progress stream (SSE).

Reports are served only once the session is terminal: while a run is still
writing, ``report.md`` may be a version the critic is about to reject and the
PDF may be half the story, so "not ready yet" is a 404 like "unknown" (the
message names the session's status). A finished session without the file will
never get one (cancelled, superseded, failed before writing, a chat without a
PDF): that is a 409 ``conflict`` naming the status, so a client stops waiting
without reading message text.

The progress stream is Server-Sent Events in one of two shapes, chosen by
``HTTP_STREAMING`` (``api/transport.py`` says why it is an app-wide choice):

- streamed: one response stays open and carries every change as it happens,
  with a keep-alive comment every ``KEEPALIVE_SECONDS`` of quiet, and ends
  when the session does (or after ``STREAM_MAX_SECONDS``);
- long-polling (the default, and the fallback where the extension cannot
  run): a response carries one event and ends as soon as the session
  changed, or after ~25 s with a keep-alive comment.

Both send ``retry`` and event ids that encode the state the client has seen
and the last answer chunk it holds (``answer_chunk`` events, ``api/answer_events.py``),
so EventSource reconnects with ``Last-Event-ID`` and resumes without repeats;
once the client has seen a terminal state the answer is 204, which tells
EventSource to stop reconnecting. Each open response counts against its
caller's ``QUOTA_OPEN_STREAMS_PER_OWNER`` (429 over it), and polls less
often while nothing changes (``api/streams.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

import azure.durable_functions as df
import azure.functions as func

from api import answer_events
from api.caller import caller, route_session
from api.errors import HttpError, handled, route_session_id
from api.streams import OpenStreams, PollBackoff
from api.transport import STREAMING, event_stream, http_function
from api.views import current_view
from shared.adapters.identity import Principal
from shared.bootstrap import services
from shared.core.errors import ConflictError, NotFoundError
from shared.core.session_models import Mode, SessionRecord
from shared.usecases.access import session_for

bp = df.Blueprint()
FORMATS = {"md": ("text/markdown", "md"), "json": ("application/json", "json")}
LONG_POLL_SECONDS = 25.0  # far below the 230 s an Azure HTTP response may take
STREAM_MAX_SECONDS = 3600.0  # one streamed response; the client then resumes
KEEPALIVE_SECONDS = 15.0  # proxies drop idle connections; a comment keeps them open
RETRY_MS = 500
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
# A stream whose end this process never saw stops counting a little after its longest life.
OPEN_STREAMS = OpenStreams(max_age_seconds=STREAM_MAX_SECONDS + 60)


@bp.route(route="research/{session_id}/report", methods=["GET"])
@http_function
@handled
async def research_report(req: func.HttpRequest) -> func.HttpResponse:
    principal = await caller(req, services())
    fmt = req.params.get("format", "md")
    data = await read_report(principal, route_session_id(req), fmt)
    mimetype, _ = FORMATS[fmt]
    return func.HttpResponse(data, status_code=200, mimetype=mimetype, charset="utf-8")


async def read_report(principal: Principal, session_id: str, fmt: str) -> bytes:
    """The report (an answer in the other modes) of a finished session ``principal`` may
    read, as ``md`` or ``json``. The HTTP route and the MCP tool both read it here.
    """
    if fmt not in FORMATS:
        raise HttpError(
            422,
            "validation_error",
            "format must be 'md' or 'json'",
            [{"loc": ["query", "format"], "msg": "expected md or json"}],
        )
    svc = services()
    record = await asyncio.to_thread(session_for, svc, principal, session_id)
    stem = "report" if record.mode == Mode.deep_research else "answer"
    _require_terminal(record, stem)
    _, ext = FORMATS[fmt]
    return await _read(svc, record, f"{stem}.{ext}", stem)


@bp.route(route="research/{session_id}/report.pdf", methods=["GET"])
@http_function
@handled
async def research_report_pdf(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    _, record = await route_session(req, svc)
    session_id = record.id
    _require_terminal(record, "PDF report")
    data = await _read(svc, record, "report.pdf", "PDF report")
    headers = {"Content-Disposition": f'attachment; filename="research-{session_id}.pdf"'}
    return func.HttpResponse(data, status_code=200, mimetype="application/pdf", headers=headers)


@bp.route(route="research/{session_id}/events", methods=["GET"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def research_events(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal, owned = await route_session(req, svc)
    last = req.headers.get("Last-Event-ID") or req.params.get("last_event_id")
    record, view = await current_view(svc, client, owned.id)
    if record.status.is_terminal and state_id(view) == answer_events.parse_last(last)[0]:
        return func.HttpResponse(status_code=204)  # seen the end: EventSource stops here
    owner = principal.owner
    ticket = OPEN_STREAMS.open(owner, svc.settings.quota_open_streams_per_owner)
    if STREAMING:  # the stream closes its ticket when it ends
        chunks = _stream(svc, client, owned.id, last, lambda: OPEN_STREAMS.close(owner, ticket))
        return event_stream(chunks, SSE_HEADERS)
    try:
        return await _long_poll(svc, client, owned.id, last)
    finally:
        OPEN_STREAMS.close(owner, ticket)


async def _stream(
    svc, client, session_id: str, last: str | None, closed: Callable[[], None]
) -> AsyncIterator[str]:
    """Every change as it happens, a keep-alive comment when nothing happens, until the
    session is over (or ``STREAM_MAX_SECONDS``: the client resumes with Last-Event-ID)."""
    try:
        loop = asyncio.get_running_loop()
        ends = loop.time() + STREAM_MAX_SECONDS
        quiet_since = loop.time()
        backoff = PollBackoff()
        state, seq = answer_events.parse_last(last)
        yield f"retry: {RETRY_MS}\n\n"
        while loop.time() < ends:
            record, view = await current_view(svc, client, session_id)
            body, state, seq, caught_up = await _changes(
                svc, session_id, view, state, seq, _stored_hint(record)
            )
            if body:
                yield body
                quiet_since = loop.time()
            elif record.status.is_terminal:
                return
            elif loop.time() - quiet_since >= KEEPALIVE_SECONDS:
                yield ": keep-alive\n\n"
                quiet_since = loop.time()
            if caught_up:
                await asyncio.sleep(backoff.pause(bool(body)))
    finally:
        closed()


async def _long_poll(svc, client, session_id: str, last: str | None) -> func.HttpResponse:
    """The changes since ``last`` as soon as there are any (the chunks written so far
    and one state), or a keep-alive after ``LONG_POLL_SECONDS``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LONG_POLL_SECONDS
    backoff = PollBackoff()
    state, seq = answer_events.parse_last(last)
    while True:
        record, view = await current_view(svc, client, session_id)
        body, *_ = await _changes(svc, session_id, view, state, seq, _stored_hint(record))
        if body:
            body = f"retry: {RETRY_MS}\n" + body
            break
        if record.status.is_terminal:
            return func.HttpResponse(status_code=204)
        if loop.time() >= deadline:
            body = f"retry: {RETRY_MS}\n: no change\n\n"
            break
        await asyncio.sleep(min(backoff.pause(False), max(deadline - loop.time(), 0.0)))
    return func.HttpResponse(
        body, status_code=200, mimetype="text/event-stream", headers=SSE_HEADERS
    )


def _stored_hint(record: SessionRecord) -> int | None:
    """The record's newest stored chunk, trusted only while the session runs: its update
    may have failed (it only logs), and a finished session's stream ends on the next empty
    read, so a stale hint there would lose the answer's tail and its last chunk."""
    return None if record.status.is_terminal else record.last_chunk_seq


async def _changes(
    svc, session_id: str, view: dict, state: str | None, seq: int, stored: int | None
) -> tuple[str, str | None, int, bool]:
    """The events after (``state``, ``seq``): new answer chunks, then the view when it
    changed and every chunk is sent (the chunks were read after the view, so a client
    never sees the end before the text); the positions after them; whether caught up.
    ``stored``: the newest chunk the session record says is stored (read with the view):
    when the client has it, no chunk store read."""
    nothing_new = stored is not None and stored <= seq
    chunks = [] if nothing_new else await answer_events.chunks_after(svc, session_id, seq)
    body = "".join(answer_events.chunk_event(c, state) for c in chunks)
    seq = chunks[-1].seq if chunks else seq
    caught_up = len(chunks) < answer_events.CHUNKS_PER_POLL
    new_state = state_id(view)
    if caught_up and new_state != state:
        body += _event(view, answer_events.event_id(new_state, seq), state)
        state = new_state
    return body, state, seq, caught_up


def _event(view: dict, event_id: str, last: str | None) -> str:
    name = event_name(view, last)  # ``last``: the state the client saw before
    return f"id: {event_id}\nevent: {name}\ndata: {json.dumps(view, default=str)}\n\n"


def state_id(view: dict) -> str:
    p = view["progress"]
    todos = sum(a.get("done", 0) for a in p["agents"])
    return ".".join(
        str(x)
        for x in (
            view["status"],
            view["phase"],
            p["findings"],
            p["source_count"],
            p["supervisor_calls"],
            todos,
            len(p["agents"]),
            len(p.get("chain", ())),
        )
    )


def event_name(view: dict, last: str | None) -> str:
    status = view["status"]
    if status in ("completed", "failed", "cancelled", "superseded"):
        return status
    if status == "waiting_clarification":
        return "clarification_requested"
    if status == "waiting_plan_approval":
        return "plan_ready"
    previous = (last or "").split(".")
    chain = str(len(view["progress"].get("chain", ())))
    if len(previous) >= 8 and previous[7] != chain:  # an analyst, critic or writer stage
        return "intermediate_result"
    if len(previous) < 4 or previous[1] != view["phase"]:
        return "phase"
    if previous[2] != str(view["progress"]["findings"]):
        return "finding"
    return "progress"


def _require_terminal(record: SessionRecord, what: str) -> None:
    if not record.status.is_terminal:
        raise NotFoundError(
            f"the {what} of session {record.id} is not ready yet: the session is "
            f"{record.status.value}"
        )


async def _read(svc, record: SessionRecord, name: str, what: str) -> bytes:
    """The file of a finished session; its absence is final, so 409 with the status."""
    try:
        return await asyncio.to_thread(svc.memory.read, record.id, name)
    except NotFoundError as exc:
        raise ConflictError(
            f"session {record.id} was {record.status.value} ({record.mode.value}); it has no {what}"
        ) from exc
