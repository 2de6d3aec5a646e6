"""The web page (issue 18), in a real browser against devhost over real HTTP.

A person starts an offline deep research from the page, answers its
clarifying question in the form, watches progress arrive over the event
stream, reads the report, follows a citation and downloads the PDF. One
source of the corpus attacks the page through its title and text
(``tests/fakes/hostile_corpus.py``): it must be shown as text and nothing of
it may run (no flag set, no dialog, no CSP violation in the console).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from shared.core.limits import NUM_AGENTS
from tests.e2e.browser import CONTRAST_JS, RUN_S
from tests.e2e.serve_process import free_port
from tests.fakes.hostile_corpus import HOSTILE_TITLE, write_hostile_corpus

AGENTS_LABEL = f"Researcher agents ({NUM_AGENTS.range_text()})"

pytestmark = pytest.mark.e2e

# Set to a path (e.g. docs/ui.png) to keep the screenshot of the finished report there.
SCREENSHOT_ENV = "UI_SCREENSHOT"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_hostile_corpus(tmp_path / "corpus")


@pytest.fixture
def host(start_devhost, data_dir: Path, corpus: Path) -> DevHost:
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            local_corpus_path=corpus,
        )
    )


def session_id_of(page) -> str:
    match = re.search(r"[?&]session=([0-9a-f]+)", page.url)
    assert match, page.url
    return match.group(1)


def start_research(page, question: str, *, mode: str = "Deep research", agents: str = "2"):
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_label("Mode", exact=True).select_option(label=mode)
    if mode == "Deep research":
        page.get_by_label(AGENTS_LABEL, exact=True).fill(agents)
    page.get_by_role("button", name="Start").click()


# -- the whole journey ----------------------------------------------------------


def test_a_deep_research_from_the_question_to_the_pdf(host: DevHost, open_page, tmp_path):
    from playwright.sync_api import expect

    page, seen = open_page(f"{host.url}/api/ui", viewport={"width": 1280, "height": 900})
    start_research(page, "GIL")

    form = page.get_by_role("group", name="Before it starts, the research asks")
    expect(form).to_be_visible()
    questions = form.locator("label")
    assert questions.count() >= 1
    first_question = questions.first.inner_text()
    page.get_by_label(first_question, exact=True).fill("how CPython implements it")
    progress_before = int(page.locator("#sources-count").inner_text())
    form.get_by_role("button", name="Send answers").click()

    status = page.locator("#status")
    expect(status).to_have_text("completed", timeout=RUN_S)
    expect(form).to_be_hidden()
    session_id = session_id_of(page)

    # progress arrived over the stream while the run went on
    timeline = page.locator("#timeline li")
    events = [timeline.nth(i).get_attribute("data-event") for i in range(timeline.count())]
    sources = [int(timeline.nth(i).get_attribute("data-sources")) for i in range(timeline.count())]
    assert "clarification_requested" in events and events[-1] == "completed", events
    assert events.index("clarification_requested") < events.index("answered")
    assert sources[-1] > progress_before > 0, sources

    # the report, with the hostile source shown as text
    report = page.locator("#report")
    expect(report.get_by_role("heading", level=1)).to_have_text("GIL: research report")
    hostile = report.locator(".source", has_text="GIL internals")
    expect(hostile).to_have_count(1)
    assert HOSTILE_TITLE in hostile.inner_text()
    expect(report.get_by_text("<b onmouseover=", exact=False)).to_have_count(1)
    expect(report.locator("script, img, iframe, b, [onerror], [onmouseover]")).to_have_count(0)
    expect(report.locator("a[href^='javascript' i]")).to_have_count(0)
    report.get_by_text("The GIL is released", exact=False).first.hover()

    # a citation leads to its source in the list
    source_id = hostile.get_attribute("id")
    citation = report.locator(f"a.cite[href='#{source_id}']").first
    citation.click()
    assert page.url.endswith(f"#{source_id}")
    expect(hostile).to_be_in_viewport()
    expect(hostile).to_be_focused()

    # downloads, with the key-carrying fetch rather than a plain link
    with page.expect_download() as pdf:
        page.get_by_role("button", name="Download PDF").click()
    assert pdf.value.suggested_filename == f"research-{session_id}.pdf"
    assert Path(pdf.value.path()).read_bytes().startswith(b"%PDF-")
    with page.expect_download() as markdown:
        page.get_by_role("button", name="Download Markdown").click()
    assert Path(markdown.value.path()).read_text(encoding="utf-8").startswith("# GIL: research")

    # the chat's sessions list it as done
    entry = page.locator(f".session-link[data-session='{session_id}']")
    expect(entry).to_contain_text("completed")
    expect(entry).to_have_attribute("aria-current", "true")

    assert page.evaluate("window.__pwned") is None
    seen.assert_clean()
    _screenshot(page, tmp_path)


def _screenshot(page, tmp_path: Path) -> None:
    """The finished report as a person sees it; kept where UI_SCREENSHOT says (the README's)."""
    page.locator("#report").scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, 0)")
    target = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "ui.png")
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 10_000


# -- people without a mouse, on a phone -----------------------------------------


def test_on_a_phone_by_keyboard_alone_with_labels_and_contrast(host: DevHost, open_page):
    from playwright.sync_api import expect

    page, seen = open_page(
        f"{host.url}/api/ui",
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    unlabelled = page.evaluate(
        """[...document.querySelectorAll('input, select, textarea, button')]
             .filter((el) => !el.closest('[hidden]'))
             .filter((el) => !(el.labels?.length || el.getAttribute('aria-label')
                               || (el.tagName === 'BUTTON' && el.textContent.trim())))
             .map((el) => el.outerHTML)"""
    )
    assert unlabelled == []
    ratios = page.evaluate(
        CONTRAST_JS,
        ["body", "label[for=query]", ".hint", "#start", "#refresh-history", "summary"],
    )
    assert all(ratio >= 4.5 for _, ratio in ratios), ratios

    # keyboard only: the skip link first, then the question; Tab reaches Start
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Question", exact=True)).to_be_focused()
    page.keyboard.type("How does the GIL affect threads that wait for I/O?")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Mode", exact=True)).to_be_focused()
    for _ in range(3):  # Deep research -> Deep search -> Search -> Chat... stop at Search
        if page.get_by_label("Mode", exact=True).input_value() == "search":
            break
        page.keyboard.press("ArrowDown")
    assert page.get_by_label("Mode", exact=True).input_value() == "search"
    for _ in range(6):
        if page.evaluate("document.activeElement.id") == "start":
            break
        page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Start")).to_be_focused()
    page.keyboard.press("Enter")

    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    report = page.locator("#report")
    expect(report.locator("a.cite").first).to_be_visible()
    expect(page.get_by_role("button", name="Download PDF")).to_be_hidden()  # a search has none
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, "the page scrolls sideways on a phone"
    box = page.get_by_role("button", name="Download Markdown").bounding_box()
    assert box and box["height"] >= 44 and box["x"] >= 0  # a touch target, on screen
    seen.assert_clean()


# -- auth ----------------------------------------------------------------------


def test_with_function_keys_the_page_asks_for_one_and_sends_it_in_a_header_only(
    start_devhost, data_dir: Path, corpus: Path, open_page
):
    from playwright.sync_api import expect

    host = start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            local_corpus_path=corpus,
            devhost_require_keys=True,
        )
    )
    assert host.keys is not None
    key = host.keys.function
    page, seen = open_page(f"{host.url}/api/ui")  # the page itself needs no key

    expect(page.locator("#notice")).to_contain_text("needs a valid function key")
    expect(page.get_by_label("Function key", exact=True)).to_be_focused()
    page.get_by_label("Function key", exact=True).fill(key)
    page.get_by_role("button", name="Use this key").click()
    expect(page.locator("#notice")).to_be_hidden()
    start_research(page, "What does the GIL protect?", mode="Chat (no web)")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    expect(page.locator("#report")).to_be_visible()

    api_calls = [(url, headers) for url, headers in seen.requests if "/api/ui" not in url]
    assert api_calls and all(key not in url for url, _ in seen.requests)
    keyed = [url for url, headers in api_calls if headers.get("x-functions-key") == key]
    assert len(keyed) >= 3  # the start, the status or events, the report
    assert page.evaluate("sessionStorage.length") == 1
    assert key not in page.evaluate("JSON.stringify(localStorage)")
    seen.assert_clean(expected_http=(401,))  # the calls before the key was given


# -- cancelling, and a chat that already runs a research ---------------------------


def test_a_second_research_in_the_chat_offers_the_running_one_which_can_be_cancelled(
    host: DevHost, open_page
):
    from playwright.sync_api import expect

    page, seen = open_page(f"{host.url}/api/ui")
    start_research(page, "GIL")
    expect(page.get_by_role("group", name="Before it starts, the research asks")).to_be_visible()
    first = session_id_of(page)

    start_research(page, "threads")  # same chat: the service refuses a second deep research
    notice = page.locator("#notice")
    expect(notice).to_contain_text("active")
    page.get_by_role("button", name="Open the running research").click()
    expect(page).to_have_url(re.compile(f"session={first}"))

    page.get_by_role("button", name="Cancel research").click()
    expect(page.locator("#status")).to_have_text("cancelled")
    expect(page.get_by_role("button", name="Cancel research")).to_be_hidden()
    expect(page.get_by_role("group", name="Before it starts, the research asks")).to_be_hidden()
    expect(page.locator("#report-note")).to_contain_text("cancelled")
    expect(page.locator(f".session-link[data-session='{first}']")).to_contain_text("cancelled")
    seen.assert_clean(expected_http=(409,))  # the refused start, the report that never came


def test_the_runs_warnings_are_listed(start_devhost, data_dir: Path, open_page):
    """A search back end that is down: the page lists the failed searches (from the
    session view, which every progress event carries, so they show as they arrive)."""
    from playwright.sync_api import expect

    host = start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="searxng",
            searxng_url=f"http://127.0.0.1:{free_port()}",  # nothing listens there
            activity_retry_max_attempts=1,
        )
    )
    page, seen = open_page(f"{host.url}/api/ui")
    start_research(page, "How does the GIL affect threads?", mode="Search")

    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    warnings = page.get_by_role("region", name="Warnings").get_by_role("listitem")
    expect(warnings.first).to_contain_text("searching: search for")
    expect(warnings.first).to_contain_text("searxng unreachable")
    seen.assert_clean()


def test_the_report_keeps_the_language_of_the_question(host: DevHost, open_page):
    from playwright.sync_api import expect

    page, seen = open_page(f"{host.url}/api/ui")
    start_research(
        page,
        "Wie wirkt sich das GIL auf Threads aus, die auf Ein- und Ausgabe warten?",
        mode="Search",
    )

    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    report = page.locator("#report")
    expect(report).to_have_attribute("lang", "de")
    expect(report.get_by_role("heading", name="Antwort", exact=True)).to_be_visible()
    expect(report.get_by_role("heading", name="Quellen", exact=True)).to_be_visible()
    expect(report.locator(".source").first).to_be_visible()
    seen.assert_clean()


# -- plan approval ---------------------------------------------------------------


def start_with_plan_review(page, question: str):
    """A deep research that stops at its plan (no clarifying questions first)."""
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_label(AGENTS_LABEL, exact=True).fill("2")
    page.get_by_label("Ask me clarifying questions first", exact=True).uncheck()
    page.get_by_label("Review the plan before research", exact=True).check()
    page.get_by_role("button", name="Start").click()
    return page.get_by_role("group", name="Review the research plan")


def test_the_plan_is_shown_edited_and_approved_before_the_research(host: DevHost, open_page):
    from playwright.sync_api import expect

    page, seen = open_page(f"{host.url}/api/ui")
    form = start_with_plan_review(page, "How does the GIL affect threads?")

    expect(form).to_be_visible()
    expect(page.locator("#status")).to_have_text("waiting for your approval of the plan")
    expect(page.get_by_role("button", name="Cancel research")).to_have_count(1)  # the form's
    sid = session_id_of(page)
    with httpx.Client(base_url=host.url, timeout=30) as api:
        plan = api.get(f"/api/research/{sid}").json()["plan"]
    titles = form.get_by_role("textbox")
    assert [titles.nth(i).input_value() for i in range(titles.count())] == [
        t["title"] for t in plan["topics"]
    ]
    for topic in plan["topics"]:  # its searches, as text
        for query in topic["queries"]:
            expect(form.get_by_text(query, exact=True).first).to_be_attached()
    agents = form.get_by_label("Agents to research the plan", exact=True)
    expect(agents).to_have_value(str(plan["num_agents"]))
    most = min(plan["max_agents"], len(plan["topics"]))
    expect(agents).to_have_attribute("max", str(most))

    first = form.get_by_label("Topic 1 title", exact=True)
    expect(first).to_be_focused()
    first.fill("How CPython releases the GIL around blocking I/O")
    form.get_by_role("button", name="Approve as shown").click()

    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    expect(form).to_be_hidden()
    expect(page.locator("#report")).to_contain_text("edited by the user")
    with httpx.Client(base_url=host.url, timeout=30) as api:
        done = api.get(f"/api/research/{sid}").json()["plan"]
    assert done["status"] == "edited"
    assert done["topics"][0]["title"] == "How CPython releases the GIL around blocking I/O"
    assert done["changes"] == [
        f"reworded topic: {plan['topics'][0]['title']}"
        " -> How CPython releases the GIL around blocking I/O"
    ]
    events = page.locator("#timeline li")
    kinds = [events.nth(i).get_attribute("data-event") for i in range(events.count())]
    assert "plan_ready" in kinds and "plan edited" in kinds, kinds
    assert page.evaluate("window.__pwned") is None
    seen.assert_clean()


def test_a_plan_can_be_cut_down_by_keyboard_or_cancelled(host: DevHost, open_page):
    from playwright.sync_api import expect

    page, seen = open_page(f"{host.url}/api/ui")
    form = start_with_plan_review(page, "How does the GIL affect threads?")
    expect(form).to_be_visible()
    topics = form.get_by_role("textbox")
    count = topics.count()
    assert count >= 2, "the offline plan has several topics"

    # removing topics by keyboard lowers the agent bound; the last one cannot go
    for n in range(1, count):
        form.get_by_role("button", name=f"Remove topic {n}", exact=True).focus()
        page.keyboard.press("Enter")
    expect(topics).to_have_count(1)
    expect(form.get_by_role("button", name=f"Remove topic {count}", exact=True)).to_be_disabled()
    agents = form.get_by_label("Agents to research the plan", exact=True)
    expect(agents).to_have_attribute("max", "1")
    expect(agents).to_have_value("1")

    form.get_by_role("button", name="Cancel research").click()
    expect(page.locator("#status")).to_have_text("cancelled")
    expect(form).to_be_hidden()
    expect(page.get_by_role("button", name="Cancel research")).to_be_hidden()
    sid = session_id_of(page)
    with httpx.Client(base_url=host.url, timeout=30) as api:
        assert api.get(f"/api/research/{sid}").json()["status"] == "cancelled"
    seen.assert_clean(expected_http=(409,))  # the report that never came
