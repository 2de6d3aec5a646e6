"""A follow-up research (issue 34, part 2) over real HTTP against devhost, offline, on a local
website with its own SearXNG endpoint, so every page fetched is a request the test counts.

Alice researches a question, then follows it up with the same question: the follow-up
starts from the parent's findings and fresh pages, so it fetches fewer pages than the
same question asked fresh, and its report names and links the parent. Bob cannot
follow up Alice's session: he gets the 404 of an unknown id.
"""

from __future__ import annotations

import httpx
import pytest

from devhost.host import DevHost
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.test_ownership import assert_unknown
from tests.e2e.web_host import site_settings
from tests.fakes.search_site import SearchSite

pytestmark = pytest.mark.e2e

QUESTION = "How do asyncio tasks, coroutines and the event loop handle cancellation?"
QUICK = {"enable_clarifying_questions": False, "num_agents": 2}


@pytest.fixture
def host(start_devhost, data_dir, site: SearchSite) -> DevHost:
    return start_devhost(site_settings(data_dir, site))


def research(
    api: httpx.Client, site: SearchSite, chat_id: str | None, **options
) -> tuple[str, int]:
    """Run a deep research to its end; its session id and the pages it fetched."""
    before = len(site.server.requests)
    body = {"query": QUESTION, "mode": "deep_research", "options": QUICK | options}
    if chat_id:
        body["chat_id"] = chat_id
    response = api.post("/api/research", json=body)
    assert response.status_code == 202, response.text
    session_id = response.json()["session_id"]
    assert wait_for(api, session_id, TERMINAL)["status"] == "completed"
    return session_id, sum(site.page_hits(since=before).values())


def test_a_follow_up_builds_on_its_parent_and_links_it(
    people: dict[str, httpx.Client], site: SearchSite
) -> None:
    alice, bob = people["alice"], people["bob"]
    parent, parent_pages = research(alice, site, "fu-chat")
    follow_up, follow_up_pages = research(alice, site, None, follow_up_of=parent)
    _, fresh_pages = research(alice, site, "fresh-chat")
    assert parent_pages > 0 and fresh_pages > 0
    assert follow_up_pages < fresh_pages, (follow_up_pages, fresh_pages)

    report = alice.get(f"/api/research/{follow_up}/report", params={"format": "json"}).json()
    assert report["follow_up_of"] == {"session_id": parent, "query": QUESTION}
    markdown = alice.get(f"/api/research/{follow_up}/report", params={"format": "md"}).text
    assert f"**Follows up:** [{QUESTION}](/api/research/{parent}/report)" in markdown
    parent_report = alice.get(f"/api/research/{parent}/report", params={"format": "json"}).json()
    inherited = {s["url"] for s in parent_report["sources"]}
    assert inherited <= {s["url"] for s in report["sources"] + report["also_consulted"]}

    # the parent's chat (no chat_id given): its sessions list the follow-up
    chat = alice.get("/api/chats/fu-chat/sessions").json()["sessions"]
    assert {s["session_id"] for s in chat} == {parent, follow_up}

    body = {"query": QUESTION, "options": {"follow_up_of": parent}}
    assert_unknown(bob.post("/api/research", json=body), parent)
    wrong_mode = alice.post("/api/research", json=body | {"mode": "search"})
    assert wrong_mode.status_code == 422, wrong_mode.text
    assert wrong_mode.json()["error"]["details"][0]["loc"] == ["options", "follow_up_of"]
    unknown = alice.post(
        "/api/research", json={"query": QUESTION, "options": {"follow_up_of": "nope"}}
    )
    assert_unknown(unknown, "nope")
