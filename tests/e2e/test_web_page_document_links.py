"""A report's citation of a collection document opens the original (Chromium, Playwright).

The original is served to its owner only, so the page fetches it with its own
credentials (here a function key: devhost requires keys) and opens a PDF as a blob URL
at the cited page. Nothing else but the page's own API is asked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from shared.core.config import Settings
from tests.e2e.browser import RUN_S
from tests.fakes.documents import pdf_with_pages

pytestmark = pytest.mark.e2e

PAGES = [  # as in test_collection_research.py: page 3 answers the question
    "Cooling system overview. The plant has two cooling loops.",
    "Maintenance history of the valves and the turbine bearings.",
    "Primary loop maintenance log. The coolant pump seal was replaced in March 2021 after a"
    " leak in the primary loop. The loop was flushed afterwards. Pressure tests passed in April.",
]
COLLECTION = r"[0-9a-f]{24}-[0-9a-f]{32}"  # its owner's tag, a uuid
CITED_PAGE_3 = re.compile(rf"^/api/collections/{COLLECTION}/documents/[0-9a-f]+#page=3$")
QUESTION = "When was the coolant pump seal replaced after the leak?"


def test_a_cited_pdf_page_opens_from_the_report_with_the_pages_key(
    start_devhost, data_dir: Path, open_page, tmp_path: Path
) -> None:
    host = start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            devhost_require_keys=True,
        )
    )
    assert host.keys is not None
    key = host.keys.function
    runbook = tmp_path / "runbook.pdf"
    runbook.write_bytes(pdf_with_pages(PAGES, title="Coolant pump runbook"))
    page, seen = open_page(f"{host.url}/api/ui")
    page.get_by_label("Function key", exact=True).fill(key)
    page.get_by_role("button", name="Use this key").click()

    page.fill("#collection-name", "runbooks")
    page.click("#create-collection")
    expect(page.locator("#upload-collection")).not_to_have_value("")
    page.set_input_files("#files", [str(runbook)])
    page.click("#upload")
    expect(page.locator("#upload-status")).to_contain_text("1 ingested, 0 queued")
    page.select_option("#research-collection", label="runbooks")
    page.check("#documents-only")
    page.select_option("#mode", "search")
    page.fill("#query", QUESTION)
    page.click("#start")
    expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)

    cited = page.locator("#report a.document-link").first
    expect(cited).to_have_attribute("href", CITED_PAGE_3)
    with page.context.expect_page() as opened:
        cited.click()
    tab = opened.value
    tab.wait_for_url("blob:**")
    assert tab.url.startswith(f"blob:{host.url}/") and tab.url.endswith("#page=3")
    fetched = [h for u, h in seen.requests if "/documents/" in u and u.count("/") > 6]
    assert fetched and all(h.get("x-functions-key") == key for h in fetched)
    seen.assert_clean(expected_http=(401,))  # the calls before the key was given
