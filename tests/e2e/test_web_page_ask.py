"""The ask box under a finished report (issue 34), in a real browser against devhost.

A finished offline deep research is opened on the page; the person asks it about
something its sources cover (the answer's citation leads to the report's own source
entry) and about something they do not (the plain "not in the sources" answer), and
the exchanges are still there when the page is opened again.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.browser import RUN_S
from tests.e2e.polling import wait_terminal

pytestmark = pytest.mark.e2e

QUICK = {"run_deep_search_first": False, "enable_clarifying_questions": False, "num_agents": 2}


@pytest.fixture
def host(start_devhost, data_dir: Path) -> DevHost:
    return start_devhost(Settings(data_dir=data_dir, reasoner="offline", search_provider="local"))


def finished_session(host: DevHost, question: str) -> str:
    with httpx.Client(base_url=host.url, timeout=60) as api:
        body = {"query": question, "mode": "deep_research", "options": QUICK}
        session_id = api.post("/api/research", json=body).json()["session_id"]
        assert wait_terminal(api, session_id)["status"] == "completed"
    return session_id


def test_the_ask_box_answers_from_the_reports_sources(host: DevHost, open_page):
    from playwright.sync_api import expect

    session_id = finished_session(host, "How do Python context managers release resources?")
    page, seen = open_page(f"{host.url}/api/ui?session={session_id}")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    box = page.get_by_role("region", name="Ask this report")
    expect(box).to_be_visible()

    box.get_by_label("Question about the report").fill(
        "What does the __exit__ method of a context manager do?"
    )
    box.get_by_role("button", name="Ask").click()
    answer = box.locator(".exchange .asked-answer").first
    expect(answer).to_contain_text(re.compile("exit", re.IGNORECASE))  # about leaving the block
    citation = answer.locator("a.cite").first
    target = citation.get_attribute("href")
    expect(page.locator(f"#report {target}")).to_have_count(1)  # the report's source entry
    citation.click()
    assert page.url.endswith(target)

    box.get_by_label("Question about the report").fill("What is the boiling point of mercury?")
    box.get_by_role("button", name="Ask").click()
    expect(box.locator(".exchange.unanswered")).to_contain_text("Not in the sources")
    expect(box.get_by_label("Question about the report")).to_have_value("")

    again, _ = open_page(f"{host.url}/api/ui?session={session_id}")
    kept = again.get_by_role("region", name="Ask this report").locator(".asked-question")
    expect(kept).to_have_text(
        [
            "What does the __exit__ method of a context manager do?",
            "What is the boiling point of mercury?",
        ]
    )
    seen.assert_clean()


def test_a_follow_up_question_starts_a_research_that_links_its_parent(host: DevHost, open_page):
    from playwright.sync_api import expect

    question = "How do Python context managers release resources?"
    parent = finished_session(host, question)
    page, seen = open_page(f"{host.url}/api/ui?session={parent}")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    further = page.get_by_role("region", name="Research further")
    buttons = further.get_by_role("button")
    expect(buttons.first).to_be_visible()
    follow_up_question = buttons.first.inner_text()

    buttons.first.click()
    expect(page).not_to_have_url(f"{host.url}/api/ui?session={parent}")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    child = page.url.rsplit("session=", 1)[1]
    assert child != parent
    expect(page.locator("#report")).to_contain_text(follow_up_question.rstrip("?"))
    parent_link = further.get_by_role("link", name=question)
    expect(parent_link).to_have_attribute("href", f"?session={parent}")
    expect(page.locator("#report")).to_contain_text("Follows up")

    parent_link.click()
    expect(page).to_have_url(f"{host.url}/api/ui?session={parent}")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
    seen.assert_clean()
