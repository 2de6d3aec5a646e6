"""Reports (Markdown, JSON, PDF) and the live progress stream (SSE).

Reports are served only once the session is terminal: while a run is still
writing, ``report.md`` may be a version the critic is about to reject and the
PDF may be half the story, so "not ready yet" is a 404 like "unknown" (the
message names the session's status). A finished session without the file will
never get one (cancelled, superseded, failed before writing, a chat without a
PDF): that is a 409 ``conflict`` naming the status, so a client stops waiting
without reading message text.

The stream is Server-Sent Events served as long-polling responses: a response
carries one event and ends as soon as the session changed (or after ~25 s
with a keep-alive comment), and EventSource reconnects with ``Last-Event-ID``
after ``retry`` ms. Event ids encode the state the client has seen, so a
reconnect resumes without repeats; once the client has seen a terminal state
the answer is 204, which tells EventSource to stop reconnecting.

Why not one long streamed response: the Python worker streams HTTP only
through the FastAPI extension (``azurefunctions-extensions-http-fastapi``)
with its own request and response types, while every route here (and
devhost) speaks ``func.HttpRequest`` / ``func.HttpResponse``. Long-polling
works unchanged in devhost and on Flex Consumption, each response stays far
below the 230 s HTTP limit, and plain pollers can use ``GET research/{id}``.
"""

from __future__ import annotations

import asyncio
import json

import azure.durable_functions as df
import azure.functions as func

from api.errors import HttpError, handled, route_session_id
from api.views import current_view
from shared.bootstrap import services
from shared.errors import ConflictError, NotFoundError
from shared.models import Mode, SessionRecord

bp = df.Blueprint()
FORMATS = {"md": ("text/markdown", "md"), "json": ("application/json", "json")}
STREAM_SECONDS = 25.0
POLL_SECONDS = 0.5


@bp.route(route="research/{session_id}/report", methods=["GET"])
@handled
async def research_report(req: func.HttpRequest) -> func.HttpResponse:
    fmt = req.params.get("format", "md")
    data = await read_report(route_session_id(req), fmt)
    mimetype, _ = FORMATS[fmt]
    return func.HttpResponse(data, status_code=200, mimetype=mimetype, charset="utf-8")


async def read_report(session_id: str, fmt: str) -> bytes:
    """The report (an answer in the other modes) of a finished session, as ``md`` or ``json``.

    The HTTP route and the MCP tool both read it here.
    """
    if fmt not in FORMATS:
        raise HttpError(
            422,
            "validation_error",
            "format must be 'md' or 'json'",
            [{"loc": ["query", "format"], "msg": "expected md or json"}],
        )
    svc = services()
    record = await asyncio.to_thread(svc.sessions.get, session_id)
    stem = "report" if record.mode == Mode.deep_research else "answer"
    _require_terminal(record, stem)
    _, ext = FORMATS[fmt]
    return await _read(svc, record, f"{stem}.{ext}", stem)


@bp.route(route="research/{session_id}/report.pdf", methods=["GET"])
@handled
async def research_report_pdf(req: func.HttpRequest) -> func.HttpResponse:
    session_id = route_session_id(req)
    svc = services()
    record = await asyncio.to_thread(svc.sessions.get, session_id)
    _require_terminal(record, "PDF report")
    data = await _read(svc, record, "report.pdf", "PDF report")
    headers = {"Content-Disposition": f'attachment; filename="research-{session_id}.pdf"'}
    return func.HttpResponse(data, status_code=200, mimetype="application/pdf", headers=headers)


@bp.route(route="research/{session_id}/events", methods=["GET"])
@bp.durable_client_input(client_name="client")
@handled
async def research_events(req: func.HttpRequest, client) -> func.HttpResponse:
    session_id = route_session_id(req)
    svc = services()
    last = req.headers.get("Last-Event-ID") or req.params.get("last_event_id")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STREAM_SECONDS
    while True:
        record, view = await current_view(svc, client, session_id)
        event_id = state_id(view)
        if event_id != last:
            body = (
                f"retry: 500\nid: {event_id}\nevent: {event_name(view, last)}\n"
                f"data: {json.dumps(view, default=str)}\n\n"
            )
            break
        if record.status.is_terminal:
            return func.HttpResponse(status_code=204)  # seen the end: EventSource stops here
        if loop.time() >= deadline:
            body = "retry: 500\n: no change\n\n"
            break
        await asyncio.sleep(POLL_SECONDS)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return func.HttpResponse(body, status_code=200, mimetype="text/event-stream", headers=headers)


def state_id(view: dict) -> str:
    p = view["progress"]
    todos = sum(a.get("done", 0) for a in p["agents"])
    return ".".join(
        str(x)
        for x in (
            view["status"],
            view["phase"],
            p["findings"],
            p["sources"],
            p["supervisor_calls"],
            todos,
            len(p["agents"]),
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
