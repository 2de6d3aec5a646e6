"""``GET /api/collections/{collection_id}/events``: ingestion progress as Server-Sent Events.

Two shapes, as the research events (api/reports.py), chosen by ``HTTP_STREAMING``:

- streamed: one response stays open and carries each change of the collection's
  counts as it happens (``progress``), a keep-alive comment every
  ``KEEPALIVE_SECONDS`` of quiet, and ends after the event that has nothing queued
  (``ingested``), or after ``STREAM_MAX_SECONDS`` (the client resumes with
  ``Last-Event-ID``);
- long poll (the default): one event as soon as the counts differ from the state
  named by ``Last-Event-ID``, or a keep-alive comment after ``LONG_POLL_SECONDS``.

Either way a client that has seen a state with nothing queued gets 204, which tells
EventSource to stop. ``data`` is the collection view of ``GET /api/collections/{id}``.
The open responses count against the owner's ``QUOTA_OPEN_STREAMS_PER_OWNER``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

import azure.durable_functions as df
import azure.functions as func

from api.collections import collection_view, route_collection
from api.errors import handled
from api.reports import (
    KEEPALIVE_SECONDS,
    LONG_POLL_SECONDS,
    OPEN_STREAMS,
    RETRY_MS,
    SSE_HEADERS,
    STREAM_MAX_SECONDS,
)
from api.streams import PollBackoff
from api.transport import STREAMING, event_stream, http_function
from shared.bootstrap import services
from shared.core.collection_models import Collection
from shared.usecases import collections as uc

bp = df.Blueprint()


@bp.route(route="collections/{collection_id}/events", methods=["GET"])
@http_function
@handled
async def collection_events(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    principal, collection = await route_collection(req, "read")
    last = req.headers.get("Last-Event-ID") or req.params.get("last_event_id")
    view = await _view(collection)
    if _done(view) and state_id(view) == last:
        return func.HttpResponse(status_code=204)  # seen the end: EventSource stops here
    owner = principal.owner
    ticket = OPEN_STREAMS.open(owner, svc.settings.quota_open_streams_per_owner)
    if STREAMING:  # the stream closes its ticket when it ends
        chunks = _stream(collection, last, lambda: OPEN_STREAMS.close(owner, ticket))
        return event_stream(chunks, SSE_HEADERS)
    try:
        return await _long_poll(collection, last)
    finally:
        OPEN_STREAMS.close(owner, ticket)


async def _stream(
    collection: Collection, last: str | None, closed: Callable[[], None]
) -> AsyncIterator[str]:
    """Each change as it happens, until nothing is queued (or ``STREAM_MAX_SECONDS``)."""
    try:
        loop = asyncio.get_running_loop()
        ends = loop.time() + STREAM_MAX_SECONDS
        quiet_since = loop.time()
        backoff = PollBackoff()
        yield f"retry: {RETRY_MS}\n\n"
        while loop.time() < ends:
            view = await _view(collection)
            changed = state_id(view) != last
            if changed:
                last = state_id(view)
                yield _event(view)
                quiet_since = loop.time()
                if _done(view):
                    return
            elif loop.time() - quiet_since >= KEEPALIVE_SECONDS:
                yield ": keep-alive\n\n"
                quiet_since = loop.time()
            await asyncio.sleep(backoff.pause(changed))
    finally:
        closed()


async def _long_poll(collection: Collection, last: str | None) -> func.HttpResponse:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LONG_POLL_SECONDS
    backoff = PollBackoff()
    while True:
        view = await _view(collection)
        if state_id(view) != last:
            body = f"retry: {RETRY_MS}\n{_event(view)}"
            break
        if loop.time() >= deadline:
            body = f"retry: {RETRY_MS}\n: no change\n\n"
            break
        await asyncio.sleep(min(backoff.pause(False), max(deadline - loop.time(), 0.0)))
    return func.HttpResponse(
        body, status_code=200, mimetype="text/event-stream", headers=SSE_HEADERS
    )


async def _view(collection: Collection) -> dict:
    docs = await asyncio.to_thread(uc.documents, services(), collection.id)
    return collection_view(collection, docs)


def _done(view: dict) -> bool:
    return view["progress"]["queued"] == 0


def _event(view: dict) -> str:
    name = "ingested" if _done(view) else "progress"
    data = json.dumps(view, default=str)
    return f"id: {state_id(view)}\nevent: {name}\ndata: {data}\n\n"


def state_id(view: dict) -> str:
    p = view["progress"]
    return f"{p['queued']}.{p['ingested']}.{p['failed']}.{view['chunks']}"
