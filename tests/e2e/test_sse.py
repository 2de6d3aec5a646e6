"""An SSE client follows a deep research run over GET /api/research/{id}/events.

The client below does what a browser's EventSource does with our long-poll
stream: read one response, remember the last ``id``, reconnect with
``Last-Event-ID``. (It reconnects at once instead of waiting ``retry`` ms, so
it sees as many intermediate states as possible.)
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import httpx
import jsonschema
import pytest

from tests.e2e.polling import TERMINAL

pytestmark = pytest.mark.e2e

# The deep research phase order; researching and supervising alternate.
PHASE_ORDER = [
    {"starting"},
    {"deep_search"},
    {"clarifying"},
    {"waiting_clarification"},
    {"planning"},
    {"researching", "supervising"},
    {"compressing"},
    # the analyst reads the findings (and again after its one extra round of searches)
    {"analyst_analyzing", "analyst_draft_ready", "analyst_search_required", "analyst_searching"},
    # the writer and the critic take turns, up to three rounds
    {"writing_report", "critic_reviewing", "critic_review_complete"},
    {"rendering_pdf"},
    {"finishing"},
    {"completed"},
]
AMBIGUOUS_QUERY = "exceptions"  # short: the offline reasoner asks clarifying questions
ANSWER = "How Python raises and handles exceptions with try, except, finally and raise"
RUN_TIMEOUT = 180.0
KEEP_ALIVE_S = 24.0  # api/reports.py holds a quiet reconnect ~25 s (LONG_POLL_SECONDS)
DOCUMENT = json.loads(
    (Path(__file__).resolve().parents[2] / "api" / "openapi.json").read_text(encoding="utf-8")
)
SESSION_VIEW = jsonschema.Draft202012Validator(
    {"$ref": "#/components/schemas/SessionView", "components": DOCUMENT["components"]}
)


@dataclass
class SseEvent:
    id: str | None
    event: str
    data: dict


@dataclass
class SseResponse:
    status_code: int
    events: list[SseEvent]  # the session's states (answer chunks are in ``chunks``)
    comments: list[str]
    retry_ms: int | None
    chunks: list[SseEvent] = field(default_factory=list)


def parse_sse(text: str) -> tuple[list[SseEvent], list[str], int | None]:
    """Events, comment lines and the retry field of an SSE body (the WHATWG rules we need)."""
    events, comments, retry = [], [], None
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if not line:
                continue
            if line.startswith(":"):
                comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        if "retry" in fields:
            retry = int(fields["retry"][-1])
        if "data" in fields:
            event_id = fields["id"][-1] if "id" in fields else None
            name = fields.get("event", ["message"])[-1]
            events.append(SseEvent(event_id, name, json.loads("\n".join(fields["data"]))))
    return events, comments, retry


class EventSourceClient:
    """Reconnecting SSE reader: the last seen id goes back as ``Last-Event-ID``."""

    def __init__(self, client: httpx.Client, url: str, *, use_query: bool = False) -> None:
        self.client, self.url, self.use_query = client, url, use_query
        self.last_event_id: str | None = None

    def poll(self) -> SseResponse:
        headers, params = {"Accept": "text/event-stream"}, {}
        if self.last_event_id is not None:
            if self.use_query:
                params["last_event_id"] = self.last_event_id
            else:
                headers["Last-Event-ID"] = self.last_event_id
        response = self.client.get(self.url, headers=headers, params=params, timeout=60)
        if response.status_code == 204:
            return SseResponse(204, [], [], None)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/event-stream")
        events, comments, retry = parse_sse(response.text)
        for event in events:
            assert event.id != self.last_event_id, "a reconnect repeated the last event"
            self.last_event_id = event.id
        states = [e for e in events if e.event != "answer_chunk"]
        chunks = [e for e in events if e.event == "answer_chunk"]
        return SseResponse(200, states, comments, retry, chunks)


def rank(phase: str) -> int:
    for i, group in enumerate(PHASE_ORDER):
        if phase in group:
            return i
    raise AssertionError(f"unexpected phase {phase!r}")


def start(api: httpx.Client, query: str, **options) -> str:
    body = {"query": query, "mode": "deep_research", "options": options}
    response = api.post("/api/research", json=body)
    assert response.status_code == 202, response.text
    return response.json()["session_id"]


def follow(api: httpx.Client, sse: EventSourceClient, answer: str | None) -> list[SseEvent]:
    """Read events until a final one, answering the clarification when asked."""
    seen: list[SseEvent] = []
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        reply = sse.poll()
        assert reply.status_code == 200, "204 before the client saw the end"
        seen.extend(reply.events)
        if any(e.event == "clarification_requested" for e in reply.events) and answer:
            url = reply.events[-1].data["links"]["clarification"]
            assert api.post(url, json={"text": answer}).status_code == 202
        if any(e.event in {"completed", "failed", "cancelled"} for e in reply.events):
            return seen
    raise AssertionError(f"no final event within {RUN_TIMEOUT} s; saw {[e.id for e in seen]}")


def test_a_client_follows_a_deep_research_run_in_phase_order(api):
    session_id = start(api, AMBIGUOUS_QUERY)
    sse = EventSourceClient(api, f"/api/research/{session_id}/events")

    events = follow(api, sse, ANSWER)

    phases = [e.data["phase"] for e in events]
    ranks = [rank(p) for p in phases]
    assert ranks == sorted(ranks), f"phases out of order: {phases}"
    names = [e.event for e in events]
    assert names[-1] == "completed", names
    assert names.count("clarification_requested") == 1, names
    assert "waiting_clarification" in phases
    assert events[-1].data["status"] == "completed"
    assert events[-1].data["result"]["report"]["sections"] >= 3
    assert all(e.data["session_id"] == session_id for e in events)
    for event in events:  # the data is the documented SessionView
        assert [e.message for e in SESSION_VIEW.iter_errors(event.data)] == []
    assert len({e.id for e in events}) == len(events), "an event id was delivered twice"
    for previous, event in pairwise(events):  # each name says what changed
        assert event.event == expected_name(previous, event), (previous.id, event.id)

    # The stream is over for this client: EventSource is told to stop (204), nothing repeats.
    assert sse.poll().status_code == 204
    # A new client (no Last-Event-ID) still gets the final state once.
    fresh = EventSourceClient(api, f"/api/research/{session_id}/events").poll()
    assert [e.event for e in fresh.events] == ["completed"]
    assert fresh.retry_ms is not None


def test_a_quiet_stream_sends_keep_alives_then_the_next_state_then_stops(api):
    """What a client sees while a run waits for its answer, and after.

    Nothing changes while the run waits for the user, so a reconnect with the
    last id is held for the whole long-poll window and answered with a
    keep-alive comment only, no event. The answer (posted while the next
    reconnect is open) ends that one with exactly one new state; the client
    then follows the run to ``completed`` and is told to stop (204).
    """
    session_id = start(api, AMBIGUOUS_QUERY, run_deep_search_first=False)
    sse = EventSourceClient(api, f"/api/research/{session_id}/events", use_query=True)
    before = follow_until(sse, "clarification_requested")
    waiting = before[-1]
    for artefact in ("report", "report.pdf"):  # nothing half-written is served mid-run
        early = api.get(f"/api/research/{session_id}/{artefact}")
        assert early.status_code == 404
        assert early.json()["error"]["code"] == "not_found"

    began = time.monotonic()
    quiet = sse.poll()
    held = time.monotonic() - began
    assert (quiet.status_code, quiet.events, quiet.comments) == (200, [], ["no change"])
    assert quiet.retry_ms == 500
    assert held >= KEEP_ALIVE_S, f"a keep-alive after {held:.1f} s: the reconnect was not held"

    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(sse.poll)  # a reconnect, open while the answer arrives
        answered = api.post(f"/api/research/{session_id}/clarification", json={"text": ANSWER})
        reply = pending.result(timeout=RUN_TIMEOUT)
    assert answered.status_code == 202, answered.text
    assert len(reply.events) == 1, reply
    [resumed] = reply.events
    # The state when the reconnect was answered: researching, or already completed when
    # the offline run finished before the reconnect reached the server (a busy machine).
    assert resumed.data["status"] in ("researching", "completed"), resumed.data
    assert resumed.data["clarification"]["answers"], resumed.data
    assert resumed.event == expected_name(waiting, resumed), resumed

    after = [] if resumed.event == "completed" else follow_until(sse, "completed")
    events = [*before, resumed, *after]
    assert [e.event for e in events].count("clarification_requested") == 1
    for previous, event in pairwise(events):
        assert event.event == expected_name(previous, event), (previous.id, event.id)
    assert events[-1].data["status"] == "completed"
    assert sse.poll().status_code == 204
    # Without Last-Event-ID a client starts from the current state: the end, once.
    current = EventSourceClient(api, f"/api/research/{session_id}/events").poll()
    assert [e.event for e in current.events] == ["completed"]


def follow_until(sse: EventSourceClient, name: str) -> list[SseEvent]:
    """Reconnect until an event called ``name`` arrives; every event seen, in order."""
    seen: list[SseEvent] = []
    deadline = time.monotonic() + RUN_TIMEOUT
    while not seen or seen[-1].event != name:
        assert time.monotonic() < deadline, f"no {name} event; saw {[e.event for e in seen]}"
        reply = sse.poll()
        assert reply.status_code == 200, f"204 before {name}; saw {[e.event for e in seen]}"
        seen.extend(reply.events)
    return seen


def expected_name(previous: SseEvent, event: SseEvent) -> str:
    """The documented event names: what changed since the state the client saw last."""
    view = event.data
    if view["status"] in TERMINAL:
        return view["status"]
    if view["status"] == "waiting_clarification":
        return "clarification_requested"
    if len(previous.data["progress"]["chain"]) != len(view["progress"]["chain"]):
        return "intermediate_result"
    if previous.data["phase"] != view["phase"]:
        return "phase"
    if previous.data["progress"]["findings"] != view["progress"]["findings"]:
        return "finding"
    return "progress"


def test_the_stream_of_an_unknown_session_is_a_404_json_error(api):
    response = api.get("/api/research/no-such-session/events")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
