"""The built-in collection (issues 32 and 33): the Python documentation is a read-only
collection of the same index, listed for everyone, researched like any other.

devhost runs the real orchestrations with the offline reasoner; the web is
``tests.fakes.search_site`` behind the real SearXNG adapter and fetcher, and it records
every request, so "only the built-in collection" is checked by what the web saw.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.web_host import PEOPLE, site_settings
from tests.fakes.search_site import SearchSite

pytestmark = pytest.mark.e2e

BUILTIN = "python-docs"
UPLOAD = {"X-Requested-With": "test"}
QUESTION = "How do context managers and the with statement work in Python?"


@pytest.fixture
def client(start_devhost, data_dir, site: SearchSite) -> Iterator[httpx.Client]:
    host = start_devhost(site_settings(data_dir, site))
    with httpx.Client(base_url=host.url, headers=PEOPLE["alice"], timeout=60) as http:
        yield http


def test_everyone_sees_the_builtin_collection_marked_read_only(client):
    listed = client.get("/api/collections")
    assert listed.status_code == 200, listed.text
    first = listed.json()["collections"][0]
    assert first["collection_id"] == BUILTIN
    assert first["built_in"] is True and first["read_only"] is True

    own = client.post("/api/collections", json={"name": "team-docs"}).json()["collection_id"]
    rows = client.get("/api/collections").json()["collections"]
    assert [r["collection_id"] for r in rows] == [BUILTIN, own]  # the caller's own follow it
    assert rows[1]["built_in"] is False and rows[1]["read_only"] is False

    described = client.get(f"/api/collections/{BUILTIN}").json()
    names = {d["name"] for d in described["documents"]}
    assert {"corpus://python-reference/with", "corpus://python-stdlib/functools"} <= names
    assert described["chunks"] > len(described["documents"]) > 100
    assert described["progress"]["ingested"] == len(described["documents"])
    assert all(d["links"] == {} for d in described["documents"])  # no original to open


def test_changing_the_builtin_collection_is_a_409_saying_it_is_read_only(client):
    said = "is built in and read-only"
    named = client.post("/api/collections", json={"name": BUILTIN})
    assert named.status_code == 409, named.text
    assert "built-in, read-only collection" in named.json()["error"]["message"]
    deleted = client.delete(f"/api/collections/{BUILTIN}", headers=UPLOAD)
    assert deleted.status_code == 409 and said in deleted.json()["error"]["message"]
    files = [("file", ("notes.md", b"# Notes\n\nA note.", "text/markdown"))]
    upload = client.post(f"/api/collections/{BUILTIN}/documents", files=files, headers=UPLOAD)
    assert upload.status_code == 409 and said in upload.json()["error"]["message"]
    document_id = client.get(f"/api/collections/{BUILTIN}").json()["documents"][0]["document_id"]
    gone = client.delete(f"/api/collections/{BUILTIN}/documents/{document_id}", headers=UPLOAD)
    assert gone.status_code == 409 and said in gone.json()["error"]["message"]
    assert client.get(f"/api/collections/{BUILTIN}").json()["documents"][0]["document_id"] == (
        document_id
    )


def test_researching_only_the_builtin_collection_cites_it_and_asks_no_web(client, site):
    before = len(site.server.requests)
    options = {
        "collections": [BUILTIN],
        "web": False,
        "enable_clarifying_questions": False,
        "num_agents": 1,
    }
    body = {"query": QUESTION, "mode": "deep_research", "options": options}
    response = client.post("/api/research", json=body)
    assert response.status_code in (200, 202), response.text
    view = wait_for(client, response.json()["session_id"], TERMINAL, timeout=240)
    assert view["status"] == "completed", view.get("error")
    report = client.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    urls = [s["url"] for s in report.json()["sources"]]

    assert len(site.server.requests) == before, (
        "only the built-in collection, yet the web was asked"
    )
    assert urls and all(u.startswith("corpus://python-") for u in urls), urls
    assert "corpus://python-reference/with" in urls, urls
