"""A latency fake LLM: the tests' OpenAI-protocol fake plus a fixed delay per reply.

Every reply waits ``latency`` seconds before it is sent, and the arrival time
of each request is recorded (wall clock, to line up with devhost's history
timestamps). The critical-path analysis counts how many of these calls fit
one after another inside an activity. ``topics`` widens research plans to a
fixed number of topics so runs with 1 and 4 agents do the same work.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)


@dataclass
class LatencyLLM:
    latency: float
    topics: int | None = None
    arrivals: list[float] = field(default_factory=list)
    server: FakeOpenAIServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> LatencyLLM:
        self.server = FakeOpenAIServer(responder=self._respond).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.stop()

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    def reset(self) -> None:
        with self._lock:
            self.arrivals.clear()
        assert self.server is not None
        self.server.requests.clear()

    def intervals(self) -> list[tuple[float, float]]:
        """(arrival, reply) wall-clock times of every call, in arrival order."""
        with self._lock:
            return sorted((t, t + self.latency) for t in self.arrivals)

    def _respond(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.arrivals.append(time.time())
        reply = schema_aware_responder(request)
        if self.topics and isinstance(reply.body, dict):
            reply = self._widen(reply)
        reply.delay = self.latency
        return reply

    def _widen(self, reply: Reply) -> Reply:
        content = reply.body["choices"][0]["message"]["content"]
        try:
            data = json.loads(content)
        except (TypeError, ValueError):
            return reply
        if not isinstance(data, dict):
            return reply
        if isinstance(data.get("topics"), list) and data["topics"]:
            first = data["topics"][0]
            data["topics"] = [
                {**first, "id": i + 1, "title": f"Topic {i + 1}: {first.get('title', '')}"[:120]}
                for i in range(self.topics or 1)
            ]
        if "recommended_agents" in data:
            data["recommended_agents"] = min(5, self.topics or 1)
            data["complexity"] = "complex"
        return json_completion(data)
