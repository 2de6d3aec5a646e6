"""Watches: ``/api/watches`` creates, lists, pauses, resumes and deletes watched questions.

Thin HTTP shells around ``shared.usecases.watches``. A watch's schedule runs in one
eternal orchestration (``orchestrators/watch.py``) whose instance id is the watch id;
creating a watch starts it, deleting one terminates it. Pause and resume only change
``watch.json``: the orchestration reads it when a run is due, so a paused watch skips
its runs and a resumed one runs at its next scheduled time. Owner rules as for
sessions: someone else's watch is the 404 of an unknown id.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

import azure.durable_functions as df
import azure.functions as func

from api.caller import caller
from api.errors import handled, json_response, read_json
from api.schemas import WatchRequest
from api.transport import http_function
from shared.adapters.webhooks import validate_callback_url
from shared.bootstrap import services
from shared.core import names
from shared.core.config import Settings
from shared.core.errors import ConflictError
from shared.core.session_models import Mode
from shared.core.watch_models import WatchRecord, WatchTick
from shared.ports import Services
from shared.usecases import watches

bp = df.Blueprint()
log = logging.getLogger(__name__)


def watch_view(svc: Services, record: WatchRecord) -> dict:
    """What the routes answer: the watch, its next run and its last run."""
    runs = watches.runs(svc, record.id)
    return {
        "watch_id": record.id,
        "question": record.question,
        "mode": record.mode.value,
        "every": record.every,
        "status": record.status,
        "callback_url": record.callback_url,
        "created_at": record.created_at.isoformat(),
        "next_run_at": _iso(watches.next_run_at(svc, record.id)),
        "runs": len(runs),
        "last_run": runs[-1].model_dump(mode="json") if runs else None,
        "links": {"self": f"/api/watches/{record.id}", "runs": f"/api/watches/{record.id}/runs"},
    }


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when else None


@bp.route(route="watches", methods=["POST"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def create_watch(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    body = WatchRequest.model_validate(read_json(req))
    if body.callback_url:
        allowed = Settings.split_list(svc.settings.webhook_allowed_hosts)
        await asyncio.to_thread(validate_callback_url, body.callback_url, allowed)
        svc.webhooks  # noqa: B018 - a malformed WEBHOOK_SECRET is a 400 now, not at the run
    record = await asyncio.to_thread(
        watches.create,
        svc,
        principal,
        body.question,
        Mode(body.mode),
        body.every,
        body.callback_url,
    )
    due = watches.next_run_at(svc, record.id)
    tick = WatchTick(watch_id=record.id, run=1, due=due)
    await client.start_new(names.WATCH_ORCHESTRATOR, record.id, tick.model_dump(mode="json"))
    view = await asyncio.to_thread(watch_view, svc, record)
    return json_response(view, status=201, headers={"Location": view["links"]["self"]})


@bp.route(route="watches", methods=["GET"])
@http_function
@handled
async def list_watches(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    found = await asyncio.to_thread(watches.list_for, svc, principal)
    views = [await asyncio.to_thread(watch_view, svc, w) for w in found]
    return json_response({"watches": views})


async def _owned(req: func.HttpRequest) -> tuple[Services, WatchRecord]:
    """The services and the ``{watch_id}`` watch, if it is the caller's (404 otherwise)."""
    svc = services()
    principal = await caller(req, svc)
    watch_id = req.route_params.get("watch_id", "")
    return svc, await asyncio.to_thread(watches.watch_for, svc, principal, watch_id)


@bp.route(route="watches/{watch_id}", methods=["GET"])
@http_function
@handled
async def get_watch(req: func.HttpRequest) -> func.HttpResponse:
    svc, record = await _owned(req)
    return json_response(await asyncio.to_thread(watch_view, svc, record))


@bp.route(route="watches/{watch_id}/runs", methods=["GET"])
@http_function
@handled
async def list_watch_runs(req: func.HttpRequest) -> func.HttpResponse:
    svc, record = await _owned(req)
    found = await asyncio.to_thread(watches.runs, svc, record.id)
    return json_response({"runs": [r.model_dump(mode="json") for r in found]})


@bp.route(route="watches/{watch_id}/pause", methods=["POST"])
@http_function
@handled
async def pause_watch(req: func.HttpRequest) -> func.HttpResponse:
    return await _set_status(req, "paused", "active")


@bp.route(route="watches/{watch_id}/resume", methods=["POST"])
@http_function
@handled
async def resume_watch(req: func.HttpRequest) -> func.HttpResponse:
    return await _set_status(req, "active", "paused")


async def _set_status(req: func.HttpRequest, status: str, required: str) -> func.HttpResponse:
    svc, record = await _owned(req)
    if record.status != required:
        raise ConflictError(f"watch {record.id} is {record.status}, not {required}")
    changed = await asyncio.to_thread(watches.set_status, svc, record, status)
    return json_response(await asyncio.to_thread(watch_view, svc, changed))


@bp.route(route="watches/{watch_id}", methods=["DELETE"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def delete_watch(req: func.HttpRequest, client) -> func.HttpResponse:
    svc, record = await _owned(req)
    await asyncio.to_thread(watches.delete, svc, record)
    try:
        await client.terminate(record.id, "watch deleted")
    except Exception as exc:  # already stopped: nothing left to end
        log.info("terminate watch %s: %s", record.id, exc)
    return func.HttpResponse(status_code=204)
