"""An OpenAI-protocol fake at the HTTP level, for the real ``openai`` client.

A stdlib ``ThreadingHTTPServer`` on 127.0.0.1 and a free port serves
``POST /v1/chat/completions`` and the Azure form
``POST /openai/deployments/{deployment}/chat/completions?api-version=...``.
Every request is recorded (``server.requests``). ``POST /v1/embeddings`` (and the
Azure form) answers with deterministic vectors (``fake_embeddings.py``: hashed bags
of concepts, ``server.embedding_dimensions`` and ``server.synonyms``) unless a
reply is queued (``enqueue(error(500))`` makes the next embeddings call fail).
Replies come from a queue (``server.enqueue(...)``) and, when the queue is empty,
from a responder callback; the default responder is schema-aware: for a request with
``response_format`` json_schema (or a ``<json_schema>`` block in the prompt,
as ``json_object`` / ``prompt`` modes send it) it returns a minimal valid
instance of that schema, so a whole deep research can run with no scripting.

Reply helpers: ``completion(text)``, ``json_completion(obj)``, ``malformed()``,
``error(status, retry_after=...)``; any ``Reply`` may carry a ``delay``
(waited with the reply already encoded, so it leaves right after). Each
request carries ``received_at``, the wall-clock time its request line was read.
Usage in every completion: prompt_tokens = prompt chars // 4,
completion_tokens = content chars // 4 (unless given).

A request with ``"stream": true`` gets its reply as server-sent events, the
content cut into word pieces (``chat.completion.chunk`` objects, then the usage
when ``stream_options.include_usage`` asks for it, then ``[DONE]``); a reply's
``chunk_delay`` is waited before each piece, and ``server.stream_hold(request, i)``,
when set, is called before piece ``i`` (a test blocks it to hold a reply
mid-stream).

Start with ``with FakeOpenAIServer() as server:`` or the ``fake_openai`` fixture;
stop is by the server object (no process is spawned).
"""

from __future__ import annotations

import atexit
import functools
import html
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fakes import fake_embeddings

_PATHS = re.compile(
    r"^(/v1/(?:chat/completions|embeddings)"
    r"|/openai/deployments/([^/]+)/(?:chat/completions|embeddings))$"
)


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON, str/bytes -> raw body
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    chunk_delay: float = 0.0  # streamed replies: before each piece


@dataclass
class RecordedRequest:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    json: dict[str, Any]
    deployment: str | None = None
    received_at: float = 0.0  # wall clock, when the request line was read

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.json.get("messages", [])

    @property
    def prompt_text(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.messages)


Responder = Callable[[RecordedRequest], "Reply | dict | str"]


def completion(
    content: str | None,
    *,
    model: str = "fake-model",
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    finish_reason: str = "stop",
) -> Reply:
    """A 200 chat completion; token counts default to chars // 4 (prompt counted later)."""
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": (
            completion_tokens if completion_tokens is not None else len(content or "") // 4
        ),
    }
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": content, "refusal": None},
            }
        ],
        "usage": usage,
    }
    return Reply(body=body)


def json_completion(obj: Any, **kwargs: Any) -> Reply:
    return completion(json.dumps(obj, ensure_ascii=False), **kwargs)


def malformed(**kwargs: Any) -> Reply:
    """A 200 reply whose content is not valid JSON (a truncated object in fences)."""
    return completion('```json\n{"queries": ["unterminated\n```', **kwargs)


def error(status: int, *, retry_after: float | None = None, delay: float = 0.0) -> Reply:
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    body = {"error": {"message": f"fake error {status}", "type": "fake", "code": str(status)}}
    return Reply(status=status, body=body, headers=headers, delay=delay)


class FirstTime:
    """True the first time it is called, False after: a scripted responder answers one way
    once. Each test makes its own (the server answers requests on several threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._called = False

    def __call__(self) -> bool:
        with self._lock:
            first, self._called = not self._called, True
            return first


class FakeOpenAIServer:
    """The fake; ``base_url`` for OpenAI-style clients, ``endpoint`` for Azure ones."""

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or schema_aware_responder
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply | Responder] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self.stream_hold: Callable[[RecordedRequest, int], None] | None = None
        self.embedding_dimensions = fake_embeddings.DIMENSIONS
        self.synonyms: dict[str, str] | None = None  # None: fake_embeddings.SYNONYMS
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.endpoint}/v1"

    def enqueue(self, *replies: Reply | Responder) -> None:
        with self._lock:
            self._queue.extend(replies)

    def start(self) -> FakeOpenAIServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- called by the handler -----------------------------------------------

    def _reply_to(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            queued = self._queue.popleft() if self._queue else None
        if queued is None and request.path.endswith("/embeddings"):
            body = fake_embeddings.embeddings_body(
                request.json, self.embedding_dimensions, self.synonyms
            )
            return Reply(body=body)
        produced = queued if queued is not None else self.responder
        reply = produced(request) if callable(produced) else produced
        if isinstance(reply, str):
            reply = completion(reply)
        elif isinstance(reply, dict):
            reply = Reply(body=reply) if "choices" in reply else json_completion(reply)
        usage = reply.body.get("usage") if isinstance(reply.body, dict) else None
        if isinstance(usage, dict):
            if usage.get("prompt_tokens") is None:
                usage["prompt_tokens"] = len(request.prompt_text) // 4
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return reply

    def _wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle on, the body waits for
        # the client's delayed ACK (~40 ms per reply), which no real endpoint adds.
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def parse_request(self) -> bool:
            self.received_at = time.time()  # before the stdlib parses the headers
            return super().parse_request()

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            match = _PATHS.match(parts.path)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                raw = self.rfile.read(length) if length else b""
            except ConnectionError:
                raw = b""
            if len(raw) < length:
                # the client died mid-send (a host killed by a crash test): nothing was
                # asked, so nothing is recorded or answered
                self.close_connection = True
                return
            if not match:
                self._send(Reply(status=404, body={"error": {"message": "no such route"}}))
                return
            request = RecordedRequest(
                path=parts.path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                json=json.loads(raw or b"{}"),
                deployment=match.group(2),
                received_at=self.received_at,
            )
            reply = server._reply_to(request)
            if request.json.get("stream") and reply.status == 200:
                self._send_stream(reply, request)
            else:
                self._send(reply, wait=reply.delay)

        def _send_stream(self, reply: Reply, request: RecordedRequest) -> None:
            """The reply as ``chat.completion.chunk`` events (see the module docstring)."""
            body = reply.body
            choice = body["choices"][0]
            content = choice["message"].get("content") or ""
            base = {"id": body["id"], "object": "chat.completion.chunk", "created": 0}
            base["model"] = body["model"]
            if reply.delay:
                server._wait(reply.delay)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            pieces = re.findall(r"\S+\s*|\s+", content)
            finish = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
            events = [
                {**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
                for p in pieces
            ]
            events.append({**base, "choices": [finish]})
            if (request.json.get("stream_options") or {}).get("include_usage"):
                events.append({**base, "choices": [], "usage": body.get("usage")})
            try:
                for i, event in enumerate(events):
                    if i < len(pieces):
                        if server.stream_hold is not None:
                            server.stream_hold(request, i)
                        if reply.chunk_delay:
                            server._wait(reply.chunk_delay)
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _send(self, reply: Reply, wait: float = 0.0) -> None:
            """Encode and buffer the status line and headers first, then wait, then send."""
            data = _encode(reply.body)
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if wait:
                server._wait(wait)
            try:
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

    return Handler


def _encode(body: Any) -> bytes:
    if isinstance(body, (dict, list)):
        return json.dumps(body).encode()
    if isinstance(body, str):
        return body.encode()
    return body or b""


@functools.lru_cache(maxsize=1)
def shared_fake_openai() -> FakeOpenAIServer:
    """One schema-aware fake for the whole test process (contract suite factories).

    Factories have no teardown hook, so this server lives until the process
    exits (its threads are daemons; ``atexit`` stops it cleanly).
    """
    server = FakeOpenAIServer().start()
    atexit.register(server.stop)
    return server


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A started fake with the schema-aware responder; stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server


# -- the schema-aware default responder ----------------------------------------------

_SCHEMA_BLOCK = re.compile(r"<json_schema>\s*(.*?)\s*</json_schema>", re.DOTALL)
_SOURCE = re.compile(r'<source n="(\d+)" url="([^"]*)"')
_RESULT = re.compile(r'<result url="([^"]*)"')
_PAGE = re.compile(r'<page url="([^"]*)"')
_QUERY = re.compile(r"<query>\n(.*?)\n</query>", re.DOTALL)
_AT_LEAST = re.compile(r"At least (\d+) items")
_AT_MOST = re.compile(r"At most (\d+) items")
_MINIMUM = re.compile(r"Minimum (-?\d+)")
_ANGLES = ("overview", "details", "evidence", "history", "outlook")
_LONG_TEXT = {"content", "executive_summary", "conclusion", "answer", "draft_section", "summary"}


def schema_aware_responder(request: RecordedRequest) -> Reply:
    """A minimal valid reply for whatever the request asks (see the module docstring)."""
    schema = _requested_schema(request)
    context = _PromptContext.of(request)
    if schema is None:
        return completion(context.plain_text())
    return json_completion(_Instance(schema, context).build(schema))


def _requested_schema(request: RecordedRequest) -> dict[str, Any] | None:
    response_format = request.json.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return response_format["json_schema"]["schema"]
    found = _SCHEMA_BLOCK.search(request.prompt_text)
    return json.loads(found.group(1)) if found else None


@dataclass
class _PromptContext:
    subject: str
    sources: list[tuple[int, str]]
    results: list[str]
    pages: list[str]

    @classmethod
    def of(cls, request: RecordedRequest) -> _PromptContext:
        text = request.prompt_text
        query = _QUERY.search(text)
        last_user = next(
            (
                str(m.get("content") or "")
                for m in reversed(request.messages)
                if m["role"] == "user"
            ),
            "",
        )
        subject = (query.group(1) if query else last_user).strip().splitlines() or ["research"]
        return cls(
            subject=subject[0][:120].rstrip("?!.;:。？！ "),
            sources=[(int(n), html.unescape(u)) for n, u in _SOURCE.findall(text)],
            results=[html.unescape(u) for u in _RESULT.findall(text)],
            pages=[html.unescape(u) for u in _PAGE.findall(text)],
        )

    def cite(self, i: int) -> str:
        return f" [{self.sources[i % len(self.sources)][0]}]" if self.sources else ""

    def plain_text(self) -> str:
        if self.sources:
            return f"According to the sources, {self.subject}{self.cite(0)}."
        return self.subject


class _Instance:
    """Walks a JSON schema and builds the smallest plausible valid instance."""

    def __init__(self, root: dict[str, Any], context: _PromptContext) -> None:
        self.root = root
        self.ctx = context
        self.written = 0  # numbers long texts so no sentence repeats across fields

    def build(self, node: dict[str, Any], name: str = "", index: int = 0) -> Any:
        node = self._resolve(node)
        if "anyOf" in node:
            options = [o for o in node["anyOf"] if self._resolve(o).get("type") != "null"]
            return self.build(options[0], name, index) if options else None
        if "enum" in node:
            return node["enum"][0]
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            return self._object(node)
        if kind == "array":
            return self._array(node, name)
        if kind == "integer":
            found = _MINIMUM.search(node.get("description", ""))
            return max(int(found.group(1)), 1) if found else 1
        if kind == "number":
            return 0.5
        if kind == "boolean":
            # "needed" (clarification): only a very short query is ambiguous enough
            return name == "needed" and len(self.ctx.subject.split()) <= 3
        return self._string(name, index)

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref")
        if not ref:
            return node
        target: Any = self.root
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        return target

    def _object(self, node: dict[str, Any]) -> dict[str, Any]:
        props = node.get("properties", {})
        if {"thought", "tool", "argument"} <= set(props):
            return self._agent_action()
        return {key: self.build(sub, key) for key, sub in props.items()}

    def _array(self, node: dict[str, Any], name: str) -> list[Any]:
        description = node.get("description", "")
        least, most = _AT_LEAST.search(description), _AT_MOST.search(description)
        count = 1 if name == "new_todos" else 3
        if least:
            count = max(count, int(least.group(1)))
        if most:
            count = min(count, int(most.group(1)))
        if name == "source_urls":
            return [url for _, url in self.ctx.sources[:1]]
        item = node.get("items", {})
        return [self.build(item, name, i) for i in range(count)]

    def _string(self, name: str, index: int) -> str:
        subject = self.ctx.subject
        if "url" in name:
            return self.ctx.sources[0][1] if self.ctx.sources else ""
        if name in ("title", "heading", "name", "draft_section_title"):
            return f"{name.replace('_', ' ').capitalize()} {index + 1}: {subject[:60]}"
        if name in ("queries", "questions", "follow_up_questions"):
            return f"{subject} ({_ANGLES[index % len(_ANGLES)]})"
        if name in _LONG_TEXT:
            self.written += 1
            sentences = [
                f"Point {self.written}.{i + 1} on {subject} uses the material{self.ctx.cite(i)}."
                for i in range(6)
            ]
            return " ".join(sentences)
        return f"{name.replace('_', ' ')} about {subject[:80]}{self.ctx.cite(index)}"

    def _agent_action(self) -> dict[str, str]:
        unread = [u for u in dict.fromkeys(self.ctx.results) if u not in self.ctx.pages]
        if unread and len(self.ctx.pages) < 2:
            return {"thought": "Read the best result.", "tool": "scrape_url", "argument": unread[0]}
        if not self.ctx.results:
            return {"thought": "Start broad.", "tool": "web_search", "argument": self.ctx.subject}
        return {"thought": "Enough material.", "tool": "done", "argument": ""}
