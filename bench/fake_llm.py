"""A latency fake LLM: the tests' OpenAI-protocol fake plus a fixed delay per reply.

Every reply is sent ``latency`` seconds after its request arrived, and the
arrival time of each request is recorded (wall clock, to line up with
devhost's history timestamps). The critical-path analysis counts how many of
these calls fit one after another inside an activity. ``topics`` widens
research plans to a fixed number of topics so runs with 1 and 4 agents do
the same work.

The fake runs in its own process (``python -m bench.fake_llm``), like a real
endpoint: in the bench process its request parsing and reply building would
compete with devhost for the GIL and show up as orchestration overhead.
Arrivals go to a file, one wall-clock time per line, and every request's
schema, prompt size and output cap to another (with the prompt itself for the
report writer: the evidence row); the process is stopped by PID.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from shared.core.limits import NUM_AGENTS
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class LatencyLLM:
    """Client side: starts the fake process, reads what it recorded, stops it."""

    latency: float
    topics: int | None = None
    arrivals_file: Path = field(
        default_factory=lambda: Path(tempfile.mkstemp(prefix="fake-llm-", suffix=".log")[1])
    )
    writer_file: Path = field(
        default_factory=lambda: Path(tempfile.mkstemp(prefix="fake-llm-", suffix=".writer")[1])
    )
    proc: subprocess.Popen | None = None
    port: int = 0

    def start(self) -> LatencyLLM:
        command = [sys.executable, "-m", "bench.fake_llm", "--latency", str(self.latency)]
        command += ["--arrivals", str(self.arrivals_file), "--writer", str(self.writer_file)]
        if self.topics:
            command += ["--topics", str(self.topics)]
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline().strip())  # the child prints its port first
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.arrivals_file.unlink(missing_ok=True)
        self.writer_file.unlink(missing_ok=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self) -> None:
        self.arrivals_file.write_text("", encoding="utf-8")
        self.writer_file.write_text("", encoding="utf-8")

    def logged(self) -> list[dict]:
        """Every request since the last reset: schema, prompt_chars, max_tokens, and the
        prompt itself for the report writer's requests."""
        text = self.writer_file.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line]

    def median_prompt_chars(self) -> int:
        """The median prompt size of the requests since the last reset (0 for none)."""
        sizes = sorted(r["prompt_chars"] for r in self.logged())
        return sizes[len(sizes) // 2] if sizes else 0

    def writer_prompts(self) -> list[str]:
        """The report writer's prompts since the last reset, in arrival order."""
        return [r["prompt"] for r in self.logged() if r["schema"] == "ReportDraft"]

    def intervals(self) -> list[tuple[float, float]]:
        """(arrival, reply) wall-clock times of every call, in arrival order."""
        lines = self.arrivals_file.read_text(encoding="utf-8").split()
        return sorted((t, t + self.latency) for t in map(float, lines))


@dataclass
class _Responder:
    """Server side: schema-aware replies, sent ``latency`` after arrival."""

    latency: float
    topics: int | None
    arrivals: Path
    writer: Path
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> Reply:
        arrived = request.received_at  # request line read: the fake's own parsing falls inside L
        with self._lock, self.arrivals.open("a", encoding="utf-8") as out:
            out.write(f"{arrived:.6f}\n")
        schema = _schema_name(request)
        entry = {
            "schema": schema,
            "prompt_chars": len(request.prompt_text),
            "max_tokens": request.json.get("max_tokens") or 0,
            "prompt": request.prompt_text if schema == "ReportDraft" else "",
        }
        with self._lock, self.writer.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")
        reply = schema_aware_responder(request)
        if self.topics and isinstance(reply.body, dict):
            reply = self._widen(reply)
        # the fake's own work to build the reply is part of the latency it models
        reply.delay = max(0.0, self.latency - (time.time() - arrived))
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
            data["recommended_agents"] = min(NUM_AGENTS.le, self.topics or 1)
            data["complexity"] = "complex"
        return json_completion(data)


def _schema_name(request: RecordedRequest) -> str:
    response_format = request.json.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, required=True)
    parser.add_argument("--arrivals", type=Path, required=True)
    parser.add_argument("--writer", type=Path, required=True)
    parser.add_argument("--topics", type=int)
    args = parser.parse_args()
    responder = _Responder(args.latency, args.topics, args.arrivals, args.writer)
    server = FakeOpenAIServer(responder=responder)
    server.start()
    print(server.port, flush=True)
    threading.Event().wait()  # until killed


if __name__ == "__main__":
    main()
