"""Researching a collection (issue 33): documents only touches no web, and cites pages.

devhost runs the real orchestrations with the offline reasoner; the web is
``tests.fakes.search_site`` behind the real SearXNG adapter and fetcher, and it
records every request, so "documents only" is checked by what the web saw.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.web_host import site_settings, wait_ingested
from tests.fakes.documents import docx_with_sections, pdf_with_pages
from tests.fakes.search_site import SearchSite

pytestmark = pytest.mark.e2e

UPLOAD = {"X-Requested-With": "test"}
RUN_S = 180.0
PAGES = [
    "Cooling system overview. The plant has two cooling loops.",
    "Maintenance history of the valves and the turbine bearings.",
    "Primary loop maintenance log. The coolant pump seal was replaced in March 2021 after a"
    " leak in the primary loop. The loop was flushed afterwards. Pressure tests passed in April.",
]
QUESTION = "When was the coolant pump seal replaced after the leak?"
CITATION = re.compile(r"\[(\d+)\]")


@pytest.fixture
def host(start_devhost, data_dir, site: SearchSite):
    return start_devhost(site_settings(data_dir, site))


def collection_with_documents(client: httpx.Client) -> tuple[str, dict[str, str]]:
    collection_id = client.post("/api/collections", json={"name": "plant"}).json()["collection_id"]
    files = [
        ("file", ("runbook.pdf", pdf_with_pages(PAGES, title="Coolant pump runbook"), "x")),
        (
            "file",
            (
                "seals.docx",
                docx_with_sections(
                    "Seal replacement notes",
                    {
                        "Coolant pump": "Seal inspections happen every quarter. The coolant"
                        " pump seal leak was found by the night shift. The shift lead filed a"
                        " work order."
                    },
                ),
                "x",
            ),
        ),
        ("file", ("guide.md", b"# Guide\n\n## Turbines\n\nTurbine bearings are greased.", "x")),
    ]
    url = f"/api/collections/{collection_id}"
    response = client.post(f"{url}/documents", files=files, headers=UPLOAD)
    assert response.status_code == 202, response.text
    view = wait_ingested(client, url)
    assert view["progress"]["ingested"] == 3, view
    return collection_id, {d["name"]: d["document_id"] for d in view["documents"]}


def research(client: httpx.Client, mode: str, options: dict) -> tuple[dict, dict]:
    response = client.post(
        "/api/research", json={"query": QUESTION, "mode": mode, "options": options}
    )
    assert response.status_code in (200, 202), response.text
    view = wait_for(client, response.json()["session_id"], TERMINAL, timeout=RUN_S)
    assert view["status"] == "completed", view.get("error")
    report = client.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    assert report.status_code == 200, report.text
    return view, report.json()


@pytest.mark.parametrize("mode", ["search", "deep_research"])
def test_documents_only_cites_the_pdf_page_and_sends_nothing_to_the_web(people, site, mode):
    alice = people["alice"]
    collection_id, ids = collection_with_documents(alice)
    before = len(site.server.requests)
    options = {"collections": [collection_id], "web": False}
    if mode == "deep_research":
        options.update(enable_clarifying_questions=False, run_deep_search_first=False, num_agents=1)
    _, report = research(alice, mode, options)

    assert len(site.server.requests) == before, "documents only, yet the web was asked"
    urls = [s["url"] for s in report["sources"]]
    pdf = f"/api/collections/{collection_id}/documents/{ids['runbook.pdf']}#page=3"
    assert pdf in urls, urls
    assert all(u.startswith(f"/api/collections/{collection_id}/documents/") for u in urls)
    assert f"/api/collections/{collection_id}/documents/{ids['seals.docx']}" in urls, urls
    page3 = next(s for s in report["sources"] if s["url"] == pdf)
    assert page3["title"] == "Coolant pump runbook, p. 3"
    text = report.get("answer") or " ".join(s.get("content", "") for s in report["sections"])
    assert "March 2021" in text or "March 2021" in str(report)
    original = alice.get(pdf.split("#")[0])
    assert original.status_code == 200 and original.content.startswith(b"%PDF")


def test_a_research_naming_someone_elses_collection_is_refused(people):
    collection_id, _ = collection_with_documents(people["alice"])
    body = {"query": QUESTION, "mode": "search", "options": {"collections": [collection_id]}}
    refused = people["bob"].post("/api/research", json=body)
    assert refused.status_code == 404
    assert refused.json()["error"]["message"] == f"unknown collection {collection_id!r}"
    nothing = {"query": QUESTION, "mode": "search", "options": {"web": False}}
    assert people["bob"].post("/api/research", json=nothing).status_code == 422


MIXED = "When was the coolant pump seal replaced, and how do asyncio tasks handle cancellation?"
ON_COLLECTION = "When was the coolant pump seal replaced?"  # the sub-question the PDF answers
ON_WEB = "How do asyncio tasks handle cancellation?"  # ... and the one only the web does


def research_mixed(client: httpx.Client, collection_id: str, mode: str) -> tuple[dict, dict]:
    options: dict = {"collections": [collection_id]}
    if mode == "deep_research":
        options.update(enable_clarifying_questions=False, run_deep_search_first=False, num_agents=2)
    response = client.post("/api/research", json={"query": MIXED, "mode": mode, "options": options})
    assert response.status_code in (200, 202), response.text
    view = wait_for(client, response.json()["session_id"], TERMINAL, timeout=RUN_S)
    assert view["status"] == "completed", view.get("error")
    report = client.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    assert report.status_code == 200, report.text
    return view, report.json()


def assert_topics_split(view: dict, report: dict) -> None:
    """The status and the Limitations say, per topic, which rested on which, with the
    judge's evidence: the PDF's sentence for the seal, none for asyncio."""
    by_topic = {t["topic"]: t for t in view["topic_sources"]}
    seal, tasks = by_topic[ON_COLLECTION], by_topic[ON_WEB]
    assert (seal["source"], seal["covered"]) == ("collection", True), seal
    assert any("replaced in March 2021" in quote for quote in seal["evidence"]), seal
    assert (tasks["source"], tasks["covered"]) == ("web", False), tasks
    limitations = report["limitations"]
    assert f"“{ON_COLLECTION}” rests on your collections alone: they cover it (" in " ".join(
        limitations
    ), limitations
    said = next(x for x in limitations if x.startswith(f"“{ON_WEB}” was researched on the web"))
    assert f"({len(tasks['evidence'])} quoted passages as evidence)" in said


def test_a_question_half_in_the_collection_gets_the_other_half_from_the_web(people, site, host):
    """Search mode: each sub-question is a topic; a search about the covered one rests on
    the collection, a search about both goes to the web too."""
    alice = people["alice"]
    collection_id, _ = collection_with_documents(alice)
    before = len(site.server.requests)
    view, answer = research_mixed(alice, collection_id, "search")

    items = host.settings.data_dir / "memory" / view["session_id"] / "items"
    read = [json.loads(p.read_text())["url"] for p in sorted(items.glob("search_*.json"))]
    own = f"/api/collections/{collection_id}/documents/"
    assert any(u.startswith(own) for u in read), read
    assert any(u.startswith(f"{site.origin}/guide/cancellation") for u in read), read
    assert len(site.server.requests) > before
    assert answer["sources"] and all(s["url"] in read for s in answer["sources"])
    assert_topics_split(view, answer)
    split = view["searches_by_source"]  # and search by search
    assert "coolant pump seal overview" in split["collection"]
    assert MIXED in split["web"]


def test_a_deep_research_cites_the_collection_for_one_topic_and_the_web_for_the_other(people, site):
    """Deep research: one planned topic per sub-question; the covered one is researched on
    the collection alone, the other on the web, and the report cites both."""
    alice = people["alice"]
    collection_id, ids = collection_with_documents(alice)
    view, report = research_mixed(alice, collection_id, "deep_research")

    urls = [s["url"] for s in report["sources"]]
    pdf = f"/api/collections/{collection_id}/documents/{ids['runbook.pdf']}#page=3"
    web = [u for u in urls if u.startswith(f"{site.origin}/guide/")]
    assert pdf in urls and web, urls
    sections = [s["content"] for s in report["sections"]]
    text = " ".join([report["executive_summary"], *sections, report["conclusion"]])
    cited = {int(n) for n in CITATION.findall(text)}
    numbers = {s["url"]: s["n"] for s in report["sources"]}
    assert numbers[pdf] in cited and numbers[web[0]] in cited, text
    assert "March 2021" in text and "cancel" in text.lower(), text
    assert_topics_split(view, report)


def test_urls_are_fetched_to_the_crawl_depth_on_the_same_site(people, site):
    alice = people["alice"]
    collection_id = alice.post("/api/collections", json={"name": "web"}).json()["collection_id"]
    url = f"/api/collections/{collection_id}"
    start = f"{site.origin}/guide/tasks"
    shallow = alice.post(f"{url}/documents", json={"urls": [start]})
    assert shallow.status_code == 202, shallow.text
    assert [d["name"] for d in shallow.json()["documents"]] == [start]
    [page] = wait_ingested(alice, url)["documents"]
    assert (page["status"], page["title"]) == (
        "ingested",
        "Creating and awaiting asyncio tasks | AsyncWeekly",
    )

    # Depth 1 follows the page's links on its own site (the fixture site's header and
    # cookie-banner links, which answer 404): each is a document naming why it failed.
    deep = alice.post(f"{url}/documents", json={"urls": [start], "crawl_depth": 1})
    assert deep.status_code == 200, deep.text  # the page itself is unchanged
    followed = {d["name"]: d for d in deep.json()["documents"] if d["name"] != start}
    assert followed and all(n.startswith(site.origin) for n in followed)
    assert all("answered HTTP 404" in d["error"] for d in followed.values())
    assert deep.json()["unchanged"] == [page["document_id"]]

    too_deep = alice.post(f"{url}/documents", json={"urls": [start], "crawl_depth": 3})
    assert too_deep.status_code == 422
    # A given URL the SSRF guard refuses is the request's error: 422 naming it, nothing kept.
    refused = alice.post(f"{url}/documents", json={"urls": [start, "http://10.0.0.1/x"]})
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["loc"] == ["urls", 1] and "10.0.0.1" in detail["msg"]
    assert {d["name"] for d in alice.get(url).json()["documents"]} == {start, *followed}
