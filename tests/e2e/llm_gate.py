"""Crash points chosen by what is in flight: an LLM fake that freezes a session on cue.

Killing a host after a wall-clock delay only lands mid-work by luck (an offline
run is over in a second; a busy machine shifts every phase). Here the
OpenAI-protocol fake (``tests.fakes.openai_server``, in the test process, so it
survives host kills) answers with its schema-aware responder, except that each
session has a list of crash points, one per kill, in the order its flow reaches
them. A point names the structured-output schema of an LLM call (``AgentAction``
is a researcher step, ``Critique`` the critic, ...). When a session's current
point arrives, that call is held, and so is every later call of the same
session: the session is frozen with that call in flight, however slow the
machine is. The test waits for the sessions it cares about to freeze, kills the
host, then ``advance()`` releases the held calls (their host is gone, so the
replies go nowhere) and arms each session's next point.

Which session a request belongs to is read from its prompt: every prompt of a
research run quotes its original query, so the queries must not contain one
another.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from tests.fakes.openai_server import RecordedRequest, Reply, schema_aware_responder


@dataclass(frozen=True)
class Point:
    """A crash point: the LLM call (by schema name) to hold, and the durable activity
    that must be in flight in the host's history when the call is held."""

    name: str
    schema: str
    activity: str


@dataclass
class _Session:
    query: str
    points: deque[Point]
    frozen: Point | None = None
    held: list[threading.Event] = field(default_factory=list)


class FreezingLLM:
    """A responder for ``FakeOpenAIServer`` that holds calls at each session's next point."""

    def __init__(self, plans: dict[str, list[Point]], timeout: float = 120.0) -> None:
        self._sessions = {query: _Session(query, deque(points)) for query, points in plans.items()}
        self._changed = threading.Condition()
        self._timeout = timeout
        self.unattributed: list[str] = []  # schema names of calls that matched no session

    def __call__(self, request: RecordedRequest) -> Reply:
        schema = schema_of(request)
        session = self._session_of(request)
        release = threading.Event()
        with self._changed:
            if session is None:
                self.unattributed.append(schema)
            elif session.frozen is None and session.points and session.points[0].schema == schema:
                session.frozen = session.points[0]
                self._changed.notify_all()
            if session is not None and session.frozen is not None:
                session.held.append(release)
            else:
                release.set()
        release.wait(self._timeout)
        return schema_aware_responder(request)

    def wait_frozen(self, timeout: float) -> dict[str, Point]:
        """Block until every session with points left is frozen; its frozen point by query."""
        with self._changed:
            done = self._changed.wait_for(self._all_frozen, timeout)
            waiting = {
                s.query: s.points[0].name
                for s in self._sessions.values()
                if s.points and s.frozen is None
            }
            assert done, f"never reached their crash point: {waiting}"
            return {s.query: s.frozen for s in self._sessions.values() if s.frozen}

    def advance(self) -> None:
        """After a kill: let the held calls go (to a dead host) and arm the next points."""
        with self._changed:
            for session in self._sessions.values():
                if session.frozen is not None:
                    session.points.popleft()
                    session.frozen = None
                for release in session.held:
                    release.set()
                session.held.clear()

    def points_left(self) -> int:
        with self._changed:
            return max((len(s.points) for s in self._sessions.values()), default=0)

    def release_all(self) -> None:
        """Teardown: nothing stays held, whatever happened."""
        with self._changed:
            for session in self._sessions.values():
                session.points.clear()
                session.frozen = None
                for release in session.held:
                    release.set()
                session.held.clear()

    def _all_frozen(self) -> bool:
        return all(s.frozen is not None for s in self._sessions.values() if s.points)

    def _session_of(self, request: RecordedRequest) -> _Session | None:
        text = request.prompt_text
        found = [s for s in self._sessions.values() if s.query in text]
        return found[0] if len(found) == 1 else None


def schema_of(request: RecordedRequest) -> str:
    """The structured-output schema a request asked for ("text" for plain completions)."""
    response_format = request.json.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name", "text")
