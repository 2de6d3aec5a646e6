"""The web page's parts on their own: what it serves, and its two parsers on hostile input.

The Markdown renderer and the event-stream reader are the page's own ES modules,
imported in a real browser (Chromium through Playwright) from the page devhost
serves; no API call is involved.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from markdown_it import MarkdownIt

from devhost.host import DevHost
from shared.adapters.report.markdown import render_sources
from tests.fakes.phishing_titles import PHISHING_HOST, hostile_sources

pytestmark = pytest.mark.e2e


def test_the_page_is_static_anonymous_and_locked_down(api):
    page = api.get("/api/ui")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"

    script = api.get("/api/ui/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    again = api.get("/api/ui/app.js", headers={"If-None-Match": script.headers["etag"]})
    assert again.status_code == 304 and again.content == b""

    for name in ("README.md", "markdown-it.LICENSE.txt", "..%2Fpage.py", "nothing.js"):
        missing = api.get(f"/api/ui/{name}")
        assert missing.status_code == 404, name
        assert missing.json()["error"]["code"] == "not_found"

    slash = api.get("/api/ui/?session=abc", follow_redirects=False)
    assert slash.status_code == 308 and slash.headers["location"] == "/api/ui?session=abc"


HOSTILE_MARKDOWN = """# Report <script>window.__pwned = 'h1'</script>

Raw HTML stays text: <img src=x onerror="window.__pwned = 'img'"> and <iframe src="/"></iframe>.
Links: [run](javascript:window.__pwned='js') [data](data:text/html,<script>x</script>)
[web](https://example.org/a) [corpus](corpus://python-reference/yield)
![tracker](https://example.org/pixel.png)
Cited [1], grouped [1, 2], unknown [9], as code `[1]`, a link [1](https://example.org/one).

1. [First](https://example.org/a) — tier 1
2. [<b>Second</b>](corpus://python-reference/yield) — tier 2
"""
RENDER_JS = """
async ([markdown, sources]) => {
  const { renderReport } = await import('./ui/report.js');
  const target = document.getElementById('report');
  target.hidden = false;
  renderReport(target, markdown, sources);
  const links = [...target.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href'),
                                                              a.target, a.rel]);
  return {
    text: target.textContent,
    elements: target.querySelectorAll('script, img, iframe, b, [onerror]').length,
    links,
    sources: [...target.querySelectorAll('.source')].map((el) => [el.id, el.textContent]),
    plain: [...target.querySelectorAll('.plain-link')].map((el) => el.title),
  };
}
"""


def test_report_markdown_is_text_and_links_only_to_the_web_and_its_sources(
    devhost: DevHost, open_page
):
    page, seen = open_page(f"{devhost.url}/api/ui")
    sources = [
        {"n": 1, "url": "https://example.org/a", "title": "First"},
        {"n": 2, "url": "corpus://python-reference/yield", "title": "<b>Second</b>"},
    ]

    out = page.evaluate(RENDER_JS, [HOSTILE_MARKDOWN, sources])

    assert out["elements"] == 0
    assert "<script>window.__pwned = 'h1'</script>" in out["text"]
    assert "<img src=x onerror=" in out["text"]
    hrefs = [href for _, href, _, _ in out["links"]]
    assert not any(h.lower().startswith(("javascript", "data", "corpus")) for h in hrefs), hrefs
    web = [link for link in out["links"] if link[1].startswith("https://")]
    assert web and all(t == "_blank" and "noopener" in r for _, _, t, r in web)
    citations = [(text, href) for text, href, _, _ in out["links"] if href.startswith("#")]
    # [1] and [1, 2] are linked; [9] (no such source) and `[1]` in code are not
    assert citations == [("1", "#source-1"), ("1", "#source-1"), ("2", "#source-2")]
    assert "[9]" in out["text"]
    # the last link to each source's URL is its entry in the list; corpus links are text
    assert [sid for sid, _ in out["sources"]] == ["source-1", "source-2"]
    assert out["sources"][1][1].startswith("<b>Second</b>")
    assert "corpus://python-reference/yield" in out["plain"]
    assert page.evaluate("window.__pwned") is None
    seen.assert_clean()


def test_a_hostile_source_title_on_the_page_links_only_to_its_source(devhost: DevHost, open_page):
    """The sources list as the server writes it, rendered by the page's own module."""
    page, seen = open_page(f"{devhost.url}/api/ui")
    sources = hostile_sources()
    markdown = f"Cited [1] and [7].\n\n## Sources\n\n{render_sources(sources)}\n"
    listed = [{"n": s.n, "url": s.url, "title": s.title} for s in sources]

    out = page.evaluate(RENDER_JS, [markdown, listed])

    hrefs = [href for _, href, _, _ in out["links"]]
    assert not [h for h in hrefs if urlsplit(h).hostname == PHISHING_HOST], hrefs
    normalize = MarkdownIt("js-default").normalizeLink
    web = [(text, href) for text, href, _, _ in out["links"] if not href.startswith("#")]
    assert web == [(s.title, normalize(s.url)) for s in sources]
    # every entry is found by its URL, so citations still lead to it
    assert [sid for sid, _ in out["sources"]] == [f"source-{s.n}" for s in sources]
    assert [href for href in hrefs if href.startswith("#")] == ["#source-1", "#source-7"]
    seen.assert_clean()


VIEW_JS = """
async (view) => {
  const { renderView, addTimeline } = await import('./ui/progress.js');
  renderView(view);
  addTimeline('progress', view);
  const last = document.getElementById('timeline').lastElementChild;
  return [document.getElementById('sources-count').textContent, last.dataset.sources];
}
"""


def test_the_status_panel_counts_sources_from_source_count(devhost: DevHost, open_page):
    """The page reads the current name; the deprecated ``progress.sources`` will go."""
    page, seen = open_page(f"{devhost.url}/api/ui")
    view = {"query": "q", "status": "researching", "phase": "researching"}
    view["progress"] = {"findings": 2, "source_count": 5, "agents": []}

    assert page.evaluate(VIEW_JS, view) == ["5", "5"]
    seen.assert_clean()


PARSER_JS = """
async (chunks) => {
  const { EventStreamParser } = await import('./ui/events.js');
  const events = [];
  const retries = [];
  const parser = new EventStreamParser((e) => events.push(e), (ms) => retries.push(ms));
  for (const chunk of chunks) parser.push(chunk);
  const lastId = parser.lastId;
  parser.reset();
  return { events, retries, lastId, afterReset: parser.lastId };
}
"""


def test_the_event_stream_reader_handles_long_polls_and_continuous_streams(
    devhost: DevHost, open_page
):
    """The format as the API sends it, one event per response or many in one stream."""
    page, _ = open_page(f"{devhost.url}/api/ui")
    stream = [
        ": keep-alive\n\nretry: 500\nid: a.1\nevent: phase\nda",  # a line split across chunks
        'ta: {"status": "active"}\n\n',
        "id: a.2\r\nevent: progress\r\ndata: line one\r\ndata: line two\r\n\r\n",
        "data: no id or type\n\n",
        "id: a.3\nevent: completed\ndata: unfinished",  # the connection ends mid-event
    ]

    out = page.evaluate(PARSER_JS, stream)

    assert out["retries"] == [500]
    assert [(e["type"], e["id"], e["data"]) for e in out["events"]] == [
        ("phase", "a.1", '{"status": "active"}'),
        ("progress", "a.2", "line one\nline two"),
        ("message", "a.2", "no id or type"),
    ]
    # an event that never finished is not acknowledged: Last-Event-ID stays a.2
    assert out["lastId"] == "a.2" and out["afterReset"] == "a.2"


CITED_JS = """
async (view) => {
  const { renderView } = await import('./ui/progress.js');
  renderView(view);
  return ['sources-count', 'cited-count'].map((id) => document.getElementById(id).textContent);
}
"""


def test_the_status_panel_tells_sources_read_from_sources_cited(devhost: DevHost, open_page):
    """Eleven sources read and none cited is what a report without citations says too."""
    page, seen = open_page(f"{devhost.url}/api/ui")
    view = {"query": "q", "status": "completed", "phase": "completed"}
    view["progress"] = {"findings": 4, "source_count": 11, "agents": []}
    running = {**view, "status": "researching", "phase": "researching"}

    assert page.evaluate(CITED_JS, running) == ["11", "—"]  # no report yet
    view["result"] = {"report": {"title": "t", "sections": 3, "source_count": 0}}
    assert page.evaluate(CITED_JS, view) == ["11", "0"]
    seen.assert_clean()
