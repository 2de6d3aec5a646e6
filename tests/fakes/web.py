"""Local stand-ins for the web: a fixture site and fake search APIs on 127.0.0.1.

Both are real HTTP servers (stdlib ``ThreadingHTTPServer`` in a thread) on a
free port, stopped at teardown, so the real httpx clients, timeouts, redirects
and size caps are exercised. The search fakes answer with the JSON shapes the
public Tavily, SearXNG and Brave APIs document.

Fixtures: ``fixture_site`` (pages for the fetcher) and ``search_apis`` (the
provider fakes). Import them into a test module, or register this module with
``pytest_plugins = ["tests.fakes.web"]``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from shared.core.source_models import SearchResult, TimeRange

Route = Callable[["Request"], "Reply"]


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: bytes | Callable[[], Iterator[bytes]] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class FixtureServer:
    """An HTTP server on 127.0.0.1 serving ``routes``; records every request it gets."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Request] = []
        self.stopping = threading.Event()
        self.stream_stats: dict[str, dict[str, int | bool]] = {}
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def alias_url(self, path: str) -> str:
        """The same server under the name ``localhost`` (the one tests allow)."""
        return f"http://localhost:{self.port}{path}"

    @property
    def alias_host(self) -> str:
        return f"localhost:{self.port}"

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)

    def start(self) -> FixtureServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _handler_for(server: FixtureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # one reply, not two writes split by a delayed ACK

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("content-length") or 0)
            request = Request(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
            )
            server.requests.append(request)
            route = server.routes.get(parts.path)
            reply = route(request) if route else Reply(404, b"not found")
            if reply.delay and server.stopping.wait(reply.delay):
                return
            self._send(parts.path, reply)

        def _send(self, path: str, reply: Reply) -> None:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if isinstance(reply.body, bytes):
                if "Content-Length" not in reply.headers:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("Connection", "close")
            self.end_headers()
            stats = server.stream_stats.setdefault(path, {"sent": 0, "completed": False})
            try:
                for chunk in reply.body():
                    self.wfile.write(chunk)
                    stats["sent"] = int(stats["sent"]) + len(chunk)
                stats["completed"] = True
            except (BrokenPipeError, ConnectionResetError):
                stats["completed"] = False
            self.close_connection = True

    return Handler


# -- the fixture site ------------------------------------------------------------

ARTICLE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Understanding the GIL | PyBlog</title>
<style>body { font-family: sans-serif }</style>
<script>window.analytics = "TRACKING-SCRIPT-TEXT";</script></head>
<body class="consent-pending">
<header><a href="/">PyBlog home</a> <span>HEADER-TAGLINE-TEXT</span></header>
<nav><ul><li><a href="/a">NAV-LINK-ABOUT</a></li>
<li><a href="/b">NAV-LINK-ARCHIVE</a></li></ul></nav>
<div id="cookie-consent" class="banner">COOKIE-BANNER-TEXT We use cookies.
<button>Accept</button></div>
<aside class="sidebar">SIDEBAR-POPULAR-POSTS</aside>
<main>
<article>
<h1>Understanding the GIL</h1>
<p>The global interpreter lock serialises the execution of Python bytecode in CPython.
It protects reference counts from races between threads.</p>
<h2>What it means for threads</h2>
<ul><li>CPU-bound threads do not run in parallel</li><li>I/O-bound threads still overlap</li></ul>
<table><tr><th>Workload</th><th>Use</th></tr><tr><td>CPU</td><td>processes</td></tr>
<tr><td>I/O</td><td>threads or asyncio</td></tr></table>
<pre><code>import threading
t = threading.Thread(target=work)</code></pre>
<p>PEP 703 makes the lock optional in free-threaded builds of Python 3.13.</p>
</article>
</main>
<form action="/subscribe">NEWSLETTER-FORM-TEXT <input name="email"></form>
<footer>FOOTER-COPYRIGHT-TEXT 2024 PyBlog</footer>
</body></html>"""

CP1251_TEXT = "Глобальная блокировка интерпретатора защищает счётчики ссылок."
CP1251_HTML = (
    "<html><head><title>Блокировка</title></head><body><main><h1>GIL по-русски</h1>"
    f"<p>{CP1251_TEXT}</p></main></body></html>"
)
CP1251_META_HTML = (
    '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
    f"<title>Мета</title></head><body><p>{CP1251_TEXT}</p></body></html>"
)
BIG_SIZE = 20 * 1024 * 1024
METADATA_URL = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"


def _html(text: str, charset: str = "utf-8") -> Reply:
    return Reply(200, text.encode(charset), {"Content-Type": f"text/html; charset={charset}"})


def _big_stream() -> Iterator[bytes]:
    chunk = b"<p>" + b"x" * (64 * 1024 - 7) + b"</p>\n"
    for _ in range(BIG_SIZE // len(chunk) + 1):
        yield chunk


def build_fixture_site() -> FixtureServer:
    site = FixtureServer()
    port = site.port
    site.routes.update(
        {
            "/article": lambda r: _html(ARTICLE_HTML),
            "/plain": lambda r: Reply(200, b"plain  text\nbody", {"Content-Type": "text/plain"}),
            "/big": lambda r: Reply(200, _big_stream, {"Content-Type": "text/html"}),
            "/big-declared": lambda r: Reply(
                200,
                _big_stream,
                {"Content-Type": "text/html", "Content-Length": str(BIG_SIZE)},
            ),
            "/r1": lambda r: Reply(302, b"", {"Location": "/r2"}),
            "/r2": lambda r: Reply(301, b"", {"Location": f"http://localhost:{port}/article"}),
            "/to-loopback": lambda r: Reply(
                302, b"", {"Location": f"http://127.0.0.1:{port}/article"}
            ),
            "/to-metadata": lambda r: Reply(302, b"", {"Location": METADATA_URL}),
            "/loop": lambda r: Reply(302, b"", {"Location": "/loop"}),
            "/binary": lambda r: Reply(
                200, b"\x00\x01binary", {"Content-Type": "application/octet-stream"}
            ),
            "/cp1251": lambda r: _html(CP1251_HTML, "windows-1251"),
            "/cp1251-meta": lambda r: Reply(
                200, CP1251_META_HTML.encode("windows-1251"), {"Content-Type": "text/html"}
            ),
            "/slow": lambda r: Reply(200, b"<p>late</p>", {"Content-Type": "text/html"}, 5.0),
            "/ratelimited": lambda r: Reply(429, b"slow down", {"Retry-After": "7"}),
            "/unavailable": lambda r: Reply(503, b"maintenance"),
            "/gone": lambda r: Reply(404, b"no such page"),
        }
    )
    return site


@pytest.fixture
def fixture_site() -> Iterator[FixtureServer]:
    site = build_fixture_site().start()
    yield site
    site.stop()


# -- search API fakes ------------------------------------------------------------

TAVILY_KEY = "tvly-test-key"
BRAVE_KEY = "brave-test-key"


def tavily_body(query: str) -> dict:
    """A Tavily /search answer as documented (topic=general)."""
    return {
        "query": query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [
            {
                "url": "https://docs.python.org/3/library/asyncio.html",
                "title": "asyncio — Asynchronous I/O — Python 3 documentation",
                "content": "asyncio is a library to write concurrent code using async/await.",
                "score": 0.91,
                "raw_content": None,
                "favicon": "https://docs.python.org/favicon.ico",
            },
            {
                "url": "https://realpython.com/async-io-python/?utm_source=tavily",
                "title": "Async IO in Python: A Complete Walkthrough",
                "content": "A walkthrough of async IO in Python with asyncio examples.",
                "score": 0.74,
                "raw_content": None,
                "favicon": "https://realpython.com/favicon.ico",
            },
        ],
        "response_time": 1.21,
        "request_id": "0b9f0c6c-3f7e-4a3a-9d5e-5b1b1c2f8a11",
    }


def searxng_body(query: str) -> dict:
    """A SearXNG /search?format=json answer."""
    return {
        "query": query,
        "number_of_results": 0,
        "results": [
            {
                "url": "https://realpython.com/async-io-python/",
                "title": "Async IO in Python: A Complete Walkthrough – Real Python",
                "content": "This tutorial will give you a firm grasp of Python's approach to "
                "async IO.",
                "publishedDate": "2024-02-11T00:00:00",
                "thumbnail": "",
                "engine": "duckduckgo",
                "template": "default.html",
                "parsed_url": ["https", "realpython.com", "/async-io-python/", "", "", ""],
                "img_src": "",
                "priority": "",
                "engines": ["duckduckgo", "brave"],
                "positions": [1, 2],
                "score": 3.0,
                "category": "general",
            },
            {
                "url": "https://stackoverflow.com/questions/49005651/how-does-asyncio-actually-work",
                "title": "How does asyncio actually work? - Stack Overflow",
                "content": "This question is motivated by my another question.",
                "publishedDate": None,
                "thumbnail": "",
                "engine": "brave",
                "template": "default.html",
                "parsed_url": ["https", "stackoverflow.com", "/questions/49005651", "", "", ""],
                "img_src": "",
                "priority": "",
                "engines": ["brave"],
                "positions": [3],
                "score": 0.33,
                "category": "general",
            },
        ],
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": ["python asyncio tutorial"],
        "unresponsive_engines": [["google", "timeout"]],
    }


def brave_body(query: str) -> dict:
    """A Brave /res/v1/web/search answer (web results only, as for result_filter=web)."""
    return {
        "query": {
            "original": query,
            "show_strict_warning": False,
            "is_navigational": False,
            "is_news_breaking": False,
            "spellcheck_off": True,
            "country": "us",
            "bad_results": False,
            "should_fallback": False,
            "postal_code": "",
            "city": "",
            "header_country": "",
            "more_results_available": True,
            "state": "",
        },
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
        "type": "search",
        "web": {
            "type": "search",
            "results": [
                {
                    "title": "Coroutines and Tasks — Python 3 documentation",
                    "url": "https://docs.python.org/3/library/asyncio-task.html",
                    "is_source_local": False,
                    "is_source_both": False,
                    "description": "This section outlines high-level <strong>asyncio</strong> "
                    "APIs to work with coroutines and Tasks.",
                    "page_age": "2024-05-02T10:12:00",
                    "profile": {
                        "name": "Python documentation",
                        "url": "https://docs.python.org/3/library/asyncio-task.html",
                        "long_name": "docs.python.org",
                        "img": "https://imgs.search.brave.com/icon.png",
                    },
                    "language": "en",
                    "family_friendly": True,
                    "type": "search_result",
                    "subtype": "generic",
                    "is_live": False,
                    "meta_url": {
                        "scheme": "https",
                        "netloc": "docs.python.org",
                        "hostname": "docs.python.org",
                        "favicon": "https://imgs.search.brave.com/favicon.png",
                        "path": "› 3 › library › asyncio-task.html",
                    },
                    "age": "May 2, 2024",
                }
            ],
            "family_friendly": True,
        },
    }


def _json(status: int, payload: object, headers: dict[str, str] | None = None) -> Reply:
    body = json.dumps(payload).encode()
    return Reply(status, body, {"Content-Type": "application/json", **(headers or {})})


def _tavily(request: Request) -> Reply:
    if request.headers.get("authorization") != f"Bearer {TAVILY_KEY}":
        return _json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
    return _json(200, tavily_body(json.loads(request.body)["query"]))


def _searxng(request: Request) -> Reply:
    if request.query.get("format") != ["json"]:
        return Reply(403, b"Forbidden", {"Content-Type": "text/html"})
    return _json(200, searxng_body(request.query["q"][0]))


def _brave(request: Request) -> Reply:
    if request.headers.get("x-subscription-token") != BRAVE_KEY:
        return _json(
            422, {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}}
        )
    return _json(200, brave_body(request.query["q"][0]))


def build_search_apis() -> FixtureServer:
    apis = FixtureServer()
    apis.routes.update(
        {
            "/tavily/search": _tavily,
            "/searxng/search": _searxng,
            "/brave/res/v1/web/search": _brave,
            "/down/search": lambda r: _json(500, {"error": "internal"}),
            "/limited/search": lambda r: _json(
                429, {"error": "rate limited"}, {"Retry-After": "0"}
            ),
            "/slow/search": lambda r: Reply(200, b"{}", {"Content-Type": "application/json"}, 5.0),
        }
    )
    return apis


@pytest.fixture
def search_apis() -> Iterator[FixtureServer]:
    apis = build_search_apis().start()
    yield apis
    apis.stop()


class StaticSearch:
    """A ``SearchProvider`` returning fixed results; stands in for the local corpus."""

    def __init__(self, name: str, results: list[SearchResult]) -> None:
        self.name = name
        self.results = results
        self.calls: list[tuple[str, int, TimeRange | None]] = []

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        self.calls.append((query, max_results, time_range))
        return self.results[:max_results]


def wait_until(predicate: Callable[[], bool], timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
