"""``GET /api/collections/{collection_id}/events``: ingestion progress as Server-Sent Events.

A long poll, as the research events without HTTP streaming (api/reports.py): one
event (``progress``, or ``ingested`` once nothing is queued) as soon as the
collection's counts differ from the state named by ``Last-Event-ID``, a keep-alive
comment after ``LONG_POLL_SECONDS``, and 204 once the client has seen a state with
nothing queued. ``data`` is the collection view of ``GET /api/collections/{id}``.
The open responses count against the owner's ``QUOTA_OPEN_STREAMS_PER_OWNER``.
"""

from __future__ import annotations

import asyncio
import json

import azure.durable_functions as df
import azure.functions as func

from api.collections import collection_view, route_collection
from api.errors import handled
from api.reports import LONG_POLL_SECONDS, OPEN_STREAMS, RETRY_MS, SSE_HEADERS
from api.streams import PollBackoff
from api.transport import http_function
from shared.bootstrap import services
from shared.usecases import collections as uc

bp = df.Blueprint()


@bp.route(route="collections/{collection_id}/events", methods=["GET"])
@http_function
@handled
async def collection_events(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    principal, collection = await route_collection(req, "read")
    last = req.headers.get("Last-Event-ID") or req.params.get("last_event_id")
    ticket = OPEN_STREAMS.open(principal.owner, svc.settings.quota_open_streams_per_owner)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LONG_POLL_SECONDS
        backoff = PollBackoff()
        while True:
            docs = await asyncio.to_thread(uc.documents, svc, collection.id)
            view = collection_view(collection, docs)
            event_id = state_id(view)
            done = view["progress"]["queued"] == 0
            if event_id != last:
                name = "ingested" if done else "progress"
                data = json.dumps(view, default=str)
                body = f"retry: {RETRY_MS}\nid: {event_id}\nevent: {name}\ndata: {data}\n\n"
                break
            if done:
                return func.HttpResponse(status_code=204)
            if loop.time() >= deadline:
                body = f"retry: {RETRY_MS}\n: no change\n\n"
                break
            await asyncio.sleep(min(backoff.pause(False), max(deadline - loop.time(), 0.0)))
    finally:
        OPEN_STREAMS.close(principal.owner, ticket)
    return func.HttpResponse(
        body, status_code=200, mimetype="text/event-stream", headers=SSE_HEADERS
    )


def state_id(view: dict) -> str:
    p = view["progress"]
    return f"{p['queued']}.{p['ingested']}.{p['failed']}.{view['chunks']}"
