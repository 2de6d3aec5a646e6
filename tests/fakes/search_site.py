"""A small website about Python asyncio with its own SearXNG-compatible search endpoint.

Why a site of its own: the search modes are only worth testing end to end if
the results they fetch are real pages on a real server, wrapped in the
chrome real pages have (header, nav, cookie banner, sidebar, footer) that the
extractor must throw away. Every search result points back at this site on
127.0.0.1, so nothing a test starts ever leaves the loopback interface.

``GET /search?q=...&format=json`` answers in SearXNG's JSON shape (see
``tests.fakes.web.searxng_body``), ranking pages by a trivial keyword count.
The tasks page is listed twice in every answer, the second time right below
the first with ``utm_*`` tracking parameters, so a test can check that the
pipeline counts it once and fetches it once.

``JUNK`` lists the boilerplate phrases: none of them may reach an answer.

``community``: article paths the search links under the name ``localhost``
instead of ``127.0.0.1`` (the same server), so a ``SOURCE_TIERS_FILE`` can put
them in another tier than the rest (``TIERS``: 127.0.0.1 official, localhost
forum) and a test can tell which tier every page read and cited came from.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tests.fakes.web import FixtureServer, Reply, Request

SITE_NAME = "AsyncWeekly"
TRACKED_PATH = "/guide/tasks"
TRACKING_QUERY = "utm_source=searxng&utm_medium=search&utm_campaign=asyncio"

JUNK = (
    "Accept all cookies to keep reading AsyncWeekly",
    "Manage cookie preferences",
    "Home | Tutorials | Forum | Newsletter | About us",
    "Sign in to AsyncWeekly",
    "Most popular this week",
    "Copyright 2024 AsyncWeekly Media GmbH. All rights reserved.",
    "Subscribe to the AsyncWeekly newsletter",
)

_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "does", "do", "for", "from", "how"}
    | {"in", "is", "it", "of", "on", "or", "the", "to", "what", "when", "which", "why"}
    | {"with", "you", "your"}
)
_WORDS = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class Article:
    path: str
    title: str
    paragraphs: tuple[str, ...]
    published: str | None = None

    @property
    def text(self) -> str:
        return " ".join((self.title, *self.paragraphs))


ARTICLES: tuple[Article, ...] = (
    Article(
        "/guide/event-loop",
        "The asyncio event loop explained",
        (
            "The event loop is the core of every asyncio application in Python. "
            "It runs asynchronous tasks and callbacks, performs network I/O operations "
            "and runs subprocesses.",
            "asyncio.run creates a new event loop, runs the given coroutine until it "
            "completes and then closes the loop. Application code should rarely need "
            "to reference the loop object directly.",
            "The loop multiplexes sockets with the selectors module, so a single thread "
            "can wait on thousands of connections. A blocking call inside a coroutine "
            "stalls the whole event loop, which is why CPU-heavy work belongs in "
            "run_in_executor or a process pool.",
        ),
        "2024-03-02T00:00:00",
    ),
    Article(
        "/guide/tasks",
        "Creating and awaiting asyncio tasks",
        (
            "A task wraps a coroutine and schedules it on the event loop so that it "
            "runs concurrently with other tasks. asyncio.create_task returns the Task "
            "object immediately.",
            "Keep a reference to every task you create: the event loop holds only weak "
            "references, and a task without a strong reference may be garbage collected "
            "before it finishes.",
            "asyncio.TaskGroup, added in Python 3.11, waits for all of its tasks and "
            "cancels the remaining ones when one of them raises an exception. It is the "
            "structured concurrency primitive most new asyncio code should use.",
        ),
        "2024-04-18T00:00:00",
    ),
    Article(
        "/guide/coroutines",
        "Coroutines, async def and await",
        (
            "A coroutine function is defined with async def. Calling it does not run the "
            "body; it returns a coroutine object that the event loop drives.",
            "The await expression suspends the coroutine until the awaited object is "
            "done, which lets the event loop run other coroutines in the meantime.",
            "Coroutines can await other coroutines, tasks and futures. Forgetting to "
            "await a coroutine produces a RuntimeWarning that the coroutine was never "
            "awaited.",
        ),
    ),
    Article(
        "/guide/cancellation",
        "Cancellation and timeouts in asyncio",
        (
            "Calling Task.cancel requests cancellation: the task receives a "
            "CancelledError at its next await point.",
            "A coroutine may catch CancelledError to clean up resources, but it should "
            "re-raise the exception so that the cancellation completes.",
            "asyncio.timeout, new in Python 3.11, cancels the enclosed block when the "
            "deadline passes and converts the cancellation into a TimeoutError. "
            "asyncio.wait_for offers the same for a single awaitable.",
        ),
        "2023-11-20T00:00:00",
    ),
    Article(
        "/guide/queues",
        "Producer and consumer pipelines with asyncio queues",
        (
            "asyncio.Queue lets producer coroutines hand work items to consumer "
            "coroutines without locks, because all of them run on the same event loop.",
            "A bounded queue created with maxsize applies back pressure: put waits "
            "while the queue is full, so fast producers cannot exhaust memory.",
            "Consumers call task_done after each item and the producer awaits "
            "queue.join to learn when every item has been processed.",
        ),
    ),
    Article(
        "/guide/synchronization",
        "Locks, events and semaphores for asyncio tasks",
        (
            "asyncio.Lock guarantees exclusive access to a shared resource between "
            "tasks; it is not thread-safe and must be used from the event loop thread.",
            "asyncio.Semaphore limits how many tasks enter a section at once, which is "
            "the usual way to cap concurrent HTTP requests.",
            "asyncio.Event lets one task signal many waiting tasks that something has happened.",
        ),
    ),
    Article(
        "/guide/gather",
        "Running coroutines concurrently with gather",
        (
            "asyncio.gather runs awaitables concurrently and returns their results in "
            "the order the awaitables were passed.",
            "With return_exceptions set to True, exceptions are returned as results "
            "instead of propagating to the caller, so one failure does not hide the "
            "other results.",
            "If gather itself is cancelled, all submitted awaitables that have not "
            "completed yet are cancelled as well.",
        ),
    ),
    Article(
        "/forum/gather-vs-taskgroup",
        "Forum: gather or TaskGroup for concurrent tasks?",
        (
            "Question from maria_k: my coroutines fetch twenty URLs concurrently with "
            "asyncio.gather. Should I switch to TaskGroup?",
            "Answer from lukasz: TaskGroup cancels the sibling tasks as soon as one task "
            "fails and raises an ExceptionGroup, while gather keeps the others running "
            "unless you cancel them yourself.",
            "Answer from priya: use a Semaphore around each fetch in both cases, "
            "otherwise twenty concurrent connections hit the server at once.",
        ),
        "2024-06-07T00:00:00",
    ),
)


def page_html(article: Article) -> str:
    """The article inside the chrome every real page carries (all of it in ``JUNK``)."""
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in article.paragraphs)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{html.escape(article.title)} | {SITE_NAME}</title>
<script>window.dataLayer = []; /* {JUNK[3]} */</script></head>
<body>
<div id="cookie-banner" class="cookie-consent">{JUNK[0]}.
<button>Accept</button> <a href="/privacy">{JUNK[1]}</a></div>
<header><a href="/">{SITE_NAME}</a> <a href="/login">{JUNK[3]}</a></header>
<nav class="menu">{JUNK[2]}</nav>
<aside class="sidebar"><h3>{JUNK[4]}</h3><ul><li>Ten asyncio tips</li></ul></aside>
<main><article><h1>{html.escape(article.title)}</h1>
{body}
</article></main>
<section class="newsletter"><form action="/subscribe">{JUNK[6]}
<input name="email"></form></section>
<footer>{JUNK[5]}</footer>
</body></html>"""


def _words(text: str) -> set[str]:
    return {w for w in _WORDS.findall(text.lower()) if w not in _STOPWORDS}


TIERS = {"tiers": {"1": ["127.0.0.1"], "5": ["localhost"]}}  # a SOURCE_TIERS_FILE's JSON


@dataclass
class SearchSite:
    """The running site: its server (requests recorded) and what it answered."""

    server: FixtureServer
    searches: list[tuple[str, list[str]]]  # (query, result URLs) per search request
    community: frozenset[str] = frozenset()  # article paths linked under ``localhost``
    params: list[dict[str, list[str]]] = field(default_factory=list)  # each search's query

    @property
    def hosts(self) -> str:
        """Both names of the site, as FETCH_ALLOWED_HOSTS lists them."""
        return f"{self.host},{self.server.alias_host}"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def page_hits(self, since: int = 0) -> dict[str, int]:
        """Article path -> GET count among requests numbered ``since`` and later."""
        paths = {a.path for a in ARTICLES}
        hits: dict[str, int] = {}
        for request in self.server.requests[since:]:
            if request.path in paths:
                hits[request.path] = hits.get(request.path, 0) + 1
        return hits

    def search_body(self, query: str) -> dict:
        """SearXNG's JSON answer: pages sharing words with ``query``, most shared first."""
        wanted = _words(query)
        scored = sorted(
            ((len(wanted & _words(a.text)), i, a) for i, a in enumerate(ARTICLES)),
            key=lambda t: (-t[0], t[1]),
        )
        results = []
        for score, _, article in scored:
            if score <= 0:
                continue
            results.append(self._result(article, article.path, score, len(results) + 1))
            if article.path == TRACKED_PATH:  # right below: the same page as an ad links it
                tracked = f"{TRACKED_PATH}?{TRACKING_QUERY}"
                results.append(self._result(article, tracked, score, len(results) + 1))
        self.searches.append((query, [r["url"] for r in results]))
        return {
            "query": query,
            "number_of_results": len(results),
            "results": results,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }

    def _result(self, article: Article, path: str, score: float, position: int) -> dict:
        linked = self.server.alias_url if article.path in self.community else self.url
        return {
            "url": linked(path),
            "title": f"{article.title} | {SITE_NAME}",
            "content": article.paragraphs[0][:160],
            "publishedDate": article.published,
            "thumbnail": "",
            "engine": "duckduckgo",
            "template": "default.html",
            "parsed_url": ["http", self.host, path, "", "", ""],
            "img_src": "",
            "priority": "",
            "engines": ["duckduckgo"],
            "positions": [position],
            "score": float(score),
            "category": "general",
        }


def build_search_site(community: frozenset[str] = frozenset()) -> SearchSite:
    site = SearchSite(server=FixtureServer(), searches=[], community=community)

    def search(request: Request) -> Reply:
        if request.query.get("format") != ["json"]:
            return Reply(403, b"Forbidden", {"Content-Type": "text/html"})
        site.params.append(dict(request.query))
        body = json.dumps(site.search_body(request.query.get("q", [""])[0])).encode()
        return Reply(200, body, {"Content-Type": "application/json"})

    site.server.routes["/search"] = search
    for article in ARTICLES:
        page = page_html(article).encode()
        site.server.routes[article.path] = lambda r, page=page: Reply(
            200, page, {"Content-Type": "text/html; charset=utf-8"}
        )
    return site


def running_search_site(community: frozenset[str] = frozenset()) -> Iterator[SearchSite]:
    """Generator for a fixture: the site started on a free loopback port, then stopped."""
    site = build_search_site(community)
    site.server.start()
    try:
        yield site
    finally:
        site.server.stop()
