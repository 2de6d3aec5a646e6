"""The web page shows a deep research's analyst, critic and writer (issue 29 item 5),
in a real browser (Chromium through Playwright) against devhost over real HTTP.

An offline deep research runs the same chain as one with a model; the page lists
each stage as it arrives on the event stream: who acted, what it did, the round
("iteration 1/3") and a preview of what it concluded, shown as text.
"""

from __future__ import annotations

import httpx
import pytest

from devhost.host import DevHost
from orchestrators.deep_research import CRITIC_ROUNDS
from tests.e2e.browser import RUN_S
from tests.e2e.test_web_page import session_id_of, start_research

pytestmark = pytest.mark.e2e


def test_the_page_shows_the_analyst_critic_and_writer_timeline(devhost: DevHost, open_page):
    from playwright.sync_api import expect

    page, seen = open_page(f"{devhost.url}/api/ui", viewport={"width": 1280, "height": 900})
    page.locator("#clarify").uncheck()
    page.locator("#deep-search-first").uncheck()
    start_research(page, "How do Python generators work?")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)

    box = page.get_by_role("region", name="Analyst, critic and writer")
    expect(box).to_be_visible()
    stages = box.locator("li")
    roles = [stages.nth(i).get_attribute("data-role") for i in range(stages.count())]
    names = [stages.nth(i).get_attribute("data-stage") for i in range(stages.count())]
    assert roles[0] == "analyst" and {"analyst", "critic", "writer"} <= set(roles), roles
    assert names.index("analyst_draft_ready") < names.index("writer_composing")
    assert names.index("writer_composing") < names.index("critic_reviewing")
    review = box.locator("li[data-stage='critic_review_complete']").first
    expect(review).to_contain_text(f"Critic review complete · iteration 1/{CRITIC_ROUNDS}")
    verdict = review.get_attribute("data-status")
    assert verdict in ("PASS", "WARN", "REJECT")
    expect(review).to_contain_text(verdict)
    preview = review.locator("q.chain-preview")
    expect(preview).to_have_count(1)
    # the page shows what the status says, as text
    with httpx.Client(base_url=devhost.url, timeout=30) as api:
        view = api.get(f"/api/research/{session_id_of(page)}").json()
    chain = view["progress"]["chain"]
    assert [c["stage"] for c in chain] == names
    first_review = next(c for c in chain if c["stage"] == "critic_review_complete")
    assert preview.inner_text() == first_review["preview"]
    expect(box.locator("li").last).to_have_attribute("aria-current", "step")
    seen.assert_clean()
