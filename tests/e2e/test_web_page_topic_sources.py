"""The web page says per topic whether a research of your documents rested on them or on
the web too (the status's ``topic_sources``), in a real browser (Chromium, Playwright)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from devhost.host import DevHost
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.web_host import wait_ingested
from tests.fakes.documents import pdf_with_pages

pytestmark = pytest.mark.e2e

MIXED = "When was the coolant pump seal replaced, and how do asyncio tasks handle cancellation?"


def test_the_status_panel_lists_each_topic_with_where_it_was_researched(
    devhost: DevHost, api: httpx.Client, open_page
) -> None:
    collection = api.post("/api/collections", json={"name": "plant"}).json()["collection_id"]
    pdf = pdf_with_pages(["Overview.", "The coolant pump seal was replaced in March 2021."])
    uploaded = api.post(
        f"/api/collections/{collection}/documents",
        files=[("file", ("runbook.pdf", pdf, "application/pdf"))],
        headers={"X-Requested-With": "test"},
    )
    assert uploaded.status_code == 202, uploaded.text
    wait_ingested(api, f"/api/collections/{collection}")
    body = {"query": MIXED, "mode": "search", "options": {"collections": [collection]}}
    started = api.post("/api/research", json=body)
    assert started.status_code in (200, 202), started.text
    view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=120)
    assert view["status"] == "completed", view.get("error")

    page, seen = open_page(f"{devhost.url}/api/ui?session={view['session_id']}")

    expect(page.locator("#status")).to_have_text("completed")
    topics = page.locator("#topic-sources li")
    expect(topics).to_have_text(
        [
            "When was the coolant pump seal replaced? — your documents alone (1 quoted passage)",
            "How do asyncio tasks handle cancellation? — the web too: your documents do not"
            " cover it (0 quoted passages)",
        ]
    )
    assert (
        topics.first.get_attribute("title") == "The coolant pump seal was replaced in March 2021."
    )
    seen.assert_clean()
