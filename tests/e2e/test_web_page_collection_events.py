"""The web page follows a collection's ingestion through its events (Chromium, Playwright).

With ``HTTP_STREAMING=true`` (``python -m devhost serve`` in a subprocess: the setting
picks the functions' signatures at import) one open response carries the whole
ingestion; with the default long poll the page reconnects per event. Either way the page
no longer polls ``GET /api/collections/{id}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from devhost.host import DevHost
from tests.e2e.serve_process import serving

pytestmark = pytest.mark.e2e

ONE_COLLECTION = re.compile(r"/api/collections/[0-9a-f]{24}-[0-9a-f]{32}$")  # owner tag, uuid


@pytest.fixture
def streaming_url(tmp_path: Path) -> Iterator[str]:
    with serving(
        tmp_path,
        http_streaming="true",
    ) as url:
        yield url


def upload_and_watch(url: str, open_page, tmp_path: Path) -> list[str]:
    notes = [tmp_path / f"note{i}.md" for i in range(3)]
    for i, path in enumerate(notes):
        path.write_text(f"# Note {i}\n\nThe pump in bay {i} was checked.\n")
    page, seen = open_page(f"{url}/api/ui")
    page.fill("#collection-name", "notes")
    page.click("#create-collection")
    expect(page.locator("#upload-collection")).not_to_have_value("")
    page.set_input_files("#files", [str(p) for p in notes])
    page.click("#upload")
    expect(page.locator("#upload-status")).to_contain_text("3 ingested, 0 queued")
    assert len(page.locator("#documents li").all_text_contents()) == 3
    seen.assert_clean()
    return [u for u, _ in seen.requests]


def test_with_streaming_one_open_response_carries_the_ingestion(
    streaming_url: str, open_page, tmp_path: Path
) -> None:
    urls = upload_and_watch(streaming_url, open_page, tmp_path)
    assert len([u for u in urls if u.endswith("/events")]) == 1
    assert not [u for u in urls if ONE_COLLECTION.search(u)]  # no polling GET


def test_with_long_polling_the_page_follows_the_events_too(
    devhost: DevHost, open_page, tmp_path: Path
) -> None:
    urls = upload_and_watch(devhost.url, open_page, tmp_path)
    assert [u for u in urls if u.endswith("/events")]
    assert not [u for u in urls if ONE_COLLECTION.search(u)]
