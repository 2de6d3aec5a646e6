"""A team's folder and a page of its intranet, researched with no web (issue 33's first check).

``python -m devhost ingest`` sends a folder (a PDF made here with a known fact on
page 3, a DOCX, a Markdown file) and an HTML page served by a local website into one
collection; a deep research over that collection alone must cite the PDF's page 3 and
the DOCX, and the website (which is also the web search the host is configured with)
must see no request while the research runs.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.test_cli_errors import run_cli
from tests.e2e.test_collection_research import PAGES, QUESTION, RUN_S
from tests.fakes.documents import docx_with_sections, pdf_with_pages
from tests.fakes.search_site import SearchSite

pytestmark = pytest.mark.e2e

SEALS = {
    "Coolant pump": "Seal inspections happen every quarter. The coolant pump seal leak was"
    " found by the night shift. The shift lead filed a work order."
}


@pytest.fixture
def host(start_devhost, data_dir, site: SearchSite) -> DevHost:
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="searxng",
            searxng_url=site.origin,
            fetch_allowed_hosts=site.host,  # the intranet page may be fetched, nothing else
        )
    )


def test_a_folder_and_an_intranet_page_are_researched_without_the_web(
    host: DevHost, site: SearchSite, tmp_path: Path
) -> None:
    folder = tmp_path / "plant"
    (folder / "manuals").mkdir(parents=True)
    pdf = pdf_with_pages(PAGES, title="Coolant pump runbook")
    (folder / "manuals" / "runbook.pdf").write_bytes(pdf)
    (folder / "seals.docx").write_bytes(docx_with_sections("Seal replacement notes", SEALS))
    (folder / "guide.md").write_text("# Guide\n\n## Turbines\n\nTurbine bearings are greased.")
    page = f"{site.origin}/guide/tasks"

    ingested = run_cli(
        "ingest", str(folder), page, "--collection", "plant", "--url", host.api_url, cwd=tmp_path
    )
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    with httpx.Client(base_url=host.url, timeout=60) as api:
        (plant,) = [
            c for c in api.get("/api/collections").json()["collections"] if c["name"] == "plant"
        ]
        view = api.get(f"/api/collections/{plant['collection_id']}").json()
        documents = {d["name"]: d for d in view["documents"]}
        assert {d["status"] for d in documents.values()} == {"ingested"}, documents
        assert {"runbook.pdf", "seals.docx", "guide.md"} <= set(documents)
        assert len(documents) == 4  # and the intranet page
        link = f"/api/collections/{plant['collection_id']}/documents/"

        before = len(site.server.requests)
        options = {
            "collections": [plant["collection_id"]],
            "web": False,
            "enable_clarifying_questions": False,
            "num_agents": 1,
        }
        started = api.post(
            "/api/research",
            json={"query": QUESTION, "mode": "deep_research", "options": options},
        )
        assert started.status_code == 202, started.text
        done = wait_for(api, started.json()["session_id"], TERMINAL, timeout=RUN_S)
        assert done["status"] == "completed", done.get("error")
        report = api.get(f"/api/research/{done['session_id']}/report", params={"format": "json"})

    assert len(site.server.requests) == before, "documents only, yet the website was asked"
    urls = [s["url"] for s in report.json()["sources"]]
    assert f"{link}{documents['runbook.pdf']['document_id']}#page=3" in urls, urls
    assert f"{link}{documents['seals.docx']['document_id']}" in urls, urls
