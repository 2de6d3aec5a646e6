"""The ``ingest`` command's wait: a collection's ingestion followed through its events.

``GET /api/collections/{id}/events`` is one open response with ``HTTP_STREAMING=true``
and a long poll otherwise; this reads both as EventSource would (``Last-Event-ID`` on
reconnect, 204 for "seen the end") and returns the collection view of the ``ingested``
event. A host that refuses the events (an error status, or a quota's 429) is polled
with ``GET /api/collections/{id}`` instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx

from devhost.cli_research import Api, CommandError

POLL_S = 0.5
READ_TIMEOUT_SECONDS = 60.0  # a long poll holds ~25 s; a streamed response sends keep-alives


def wait_ingested(api: Api, collection_id: str, timeout: float) -> dict:
    """The collection's view once nothing is queued; CommandError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    path = f"/api/collections/{collection_id}/events"
    last: str | None = None
    read = httpx.Timeout(10.0, read=READ_TIMEOUT_SECONDS)
    while time.monotonic() < deadline:
        headers = {"Accept": "text/event-stream", **({"Last-Event-ID": last} if last else {})}
        try:
            with api.http.stream("GET", path, headers=headers, timeout=read) as response:
                if response.status_code == 204:
                    break  # seen the end already: the GET below has it
                if response.status_code != 200:
                    break
                for event_id, name, data in _events(response.iter_lines(), deadline):
                    last = event_id
                    if name == "ingested":
                        return data
        except httpx.HTTPError:  # a dropped stream: the GET says where things stand
            break
    return _poll(api, collection_id, deadline, timeout)


def _events(lines: Iterator[str], deadline: float) -> Iterator[tuple[str, str, dict]]:
    """(id, event, data) of each complete event; stops at the deadline (keep-alives come
    every 15 s on an open stream, so a quiet one is still checked)."""
    fields: dict[str, str] = {}
    for line in lines:
        if time.monotonic() > deadline:
            return
        if line:
            name, _, value = line.partition(":")
            if name:  # not a comment
                fields[name] = value.removeprefix(" ")
            continue
        if "data" in fields:
            yield fields.get("id", ""), fields.get("event", "message"), json.loads(fields["data"])
        fields = {}


def _poll(api: Api, collection_id: str, deadline: float, timeout: float) -> dict:
    while True:
        view = api.json("GET", f"/collections/{collection_id}")
        if view["progress"]["queued"] == 0:
            return view
        if time.monotonic() > deadline:
            raise CommandError(f"still ingesting after {timeout:.0f} s: {view['progress']}")
        time.sleep(POLL_S)
