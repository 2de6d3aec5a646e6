"""The web page's documents view in a real browser (Chromium through Playwright): create a
collection, pick files into it, see their status, research it with documents only."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from devhost.host import DevHost
from shared.core.config import Settings
from tests.fakes.documents import pdf_with_pages
from tests.fakes.openai_server import FakeOpenAIServer, error

pytestmark = pytest.mark.e2e


def test_files_picked_into_a_new_collection_are_ingested_and_researched(
    devhost: DevHost,
    open_page,
    tmp_path: Path,
) -> None:
    runbook = tmp_path / "pump.pdf"
    runbook.write_bytes(pdf_with_pages(["Overview.", "The pump seal was replaced in 2021."]))
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 not a pdf")
    page, seen = open_page(f"{devhost.url}/api/ui")

    page.fill("#collection-name", "runbooks")
    page.click("#create-collection")
    expect(page.locator("#upload-collection")).not_to_have_value("")
    page.set_input_files("#files", [str(runbook), str(broken)])
    page.click("#upload")
    expect(page.locator("#upload-status")).to_contain_text("0 queued")
    items = page.locator("#documents li").all_text_contents()
    assert any(t.startswith("pump.pdf: ingested") for t in items), items
    assert any(t.startswith("broken.pdf: failed: corrupt PDF") for t in items), items
    uploads = [h for u, h in seen.requests if u.endswith("/documents")]
    assert uploads and uploads[0].get("x-requested-with") == "web-page"

    page.select_option("#research-collection", label="runbooks")
    page.check("#documents-only")
    page.select_option("#mode", "search")
    page.fill("#query", "When was the pump seal replaced?")
    with page.expect_request(lambda r: r.url.endswith("/api/research")) as started:
        page.click("#start")
    body = started.value.post_data_json
    assert body["options"]["web"] is False
    assert len(body["options"]["collections"]) == 1
    seen.assert_clean()


def test_a_document_ingested_without_its_vectors_says_so(
    start_devhost, data_dir: Path, fake_openai: FakeOpenAIServer, open_page, tmp_path: Path
) -> None:
    """EMBEDDING_MODEL set, the embeddings endpoint failing: ingested by words, and named."""
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        openai_base_url=fake_openai.base_url,
        embedding_model="text-embedding-3-small",
    )
    devhost = start_devhost(settings)
    fake_openai.enqueue(error(400))  # not retried: the document's one embeddings call fails
    notes = tmp_path / "notes.md"
    notes.write_text("# Pumps\n\nThe pump seal was replaced in May.\n")
    page, seen = open_page(f"{devhost.url}/api/ui")

    page.fill("#collection-name", "notes")
    page.click("#create-collection")
    expect(page.locator("#upload-collection")).not_to_have_value("")
    page.set_input_files("#files", [str(notes)])
    page.click("#upload")
    expect(page.locator("#upload-status")).to_contain_text("0 queued")
    [item] = page.locator("#documents li").all_text_contents()
    assert item.startswith("notes.md: ingested (1 chunks; vectors missing, searched by words")
    assert "embeddings call failed" in item
    seen.assert_clean()
