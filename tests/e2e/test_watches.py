"""A watched question (issue 34, part 3) over real HTTP against devhost, on a local website
whose pages the test changes between runs, with a real webhook receiver.

The watch runs every few seconds (``WATCH_MIN_INTERVAL_SECONDS`` is short here). Its
second run finds what the first found: no webhook. The test then takes away a page the
runs cited (paused meanwhile, so no run straddles the change), resumes, and the next run
sends one signed ``research.watch_update`` naming the source that is gone. Bob cannot
see Alice's watch; a schedule more frequent than the setting allows is a 422.
"""

from __future__ import annotations

import base64
import time
from urllib.parse import urlsplit

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from devhost.host import DevHost
from tests.e2e.web_host import site_settings
from tests.fakes.search_site import SearchSite
from tests.fakes.web import Reply

pytestmark = pytest.mark.e2e

SECRET = "whsec_" + base64.b64encode(b"watch-receiver-shared-secret-32b").decode()
QUESTION = "How do asyncio tasks, coroutines and the event loop handle cancellation?"
EVERY = "* * * * * */3"  # every 3 seconds (a sixth cron field is seconds)
TIMEOUT = 120.0


@pytest.fixture
def host(start_devhost, data_dir, site: SearchSite) -> DevHost:
    return start_devhost(
        site_settings(
            data_dir,
            site,
            webhook_allowed_hosts="127.0.0.1",
            webhook_secret=SECRET,
            watch_min_interval_seconds=2,
        )
    )


def finished_runs(api: httpx.Client, watch_id: str, count: int) -> list[dict]:
    """Poll the watch's runs until ``count`` of them have finished (and been compared)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        runs = api.get(f"/api/watches/{watch_id}/runs").json()["runs"]
        done = [r for r in runs if r["finished_at"]]
        if len(done) >= count and len(done) == len(runs):
            return runs
        assert time.monotonic() < deadline, runs
        time.sleep(0.2)


def test_a_watch_runs_on_schedule_and_calls_back_only_when_something_changed(
    people: dict[str, httpx.Client], site: SearchSite, webhook_receiver
) -> None:
    alice, bob = people["alice"], people["bob"]
    body = {
        "question": QUESTION,
        "mode": "search",
        "every": EVERY,
        "callback_url": webhook_receiver.url,
    }
    created = alice.post("/api/watches", json=body)
    assert created.status_code == 201, created.text
    watch = created.json()
    watch_id = watch["watch_id"]
    assert watch["status"] == "active" and watch["next_run_at"]

    runs = finished_runs(alice, watch_id, 2)
    first, second = runs[0], runs[1]
    assert first["status"] == second["status"] == "completed"
    assert first["session_id"] != second["session_id"]
    assert second["compared_with"] == 1 and second["notified"] is False
    assert not any(second["changes"].values()), second["changes"]
    assert webhook_receiver.requests == []  # nothing changed: nobody is called

    assert alice.post(f"/api/watches/{watch_id}/pause").json()["status"] == "paused"
    runs = finished_runs(alice, watch_id, len(runs))  # a run already started ends first
    report = alice.get(f"/api/research/{runs[-1]['session_id']}/report", params={"format": "json"})
    gone = report.json()["sources"][0]["url"]
    site.server.routes[urlsplit(gone).path] = lambda r: Reply(404, b"gone", {})
    assert webhook_receiver.requests == []
    assert alice.post(f"/api/watches/{watch_id}/resume").json()["status"] == "active"

    [delivered] = webhook_receiver.wait_for(1, timeout=TIMEOUT)
    event = Webhook(SECRET).verify(delivered.body, delivered.headers)
    assert event["type"] == "research.watch_update"
    data = event["data"]
    assert data["watch_id"] == watch_id and gone in data["changes"]["gone_sources"]
    assert "## What changed" in data["summary"] and gone in data["summary"]
    changed = finished_runs(alice, watch_id, len(runs) + 1)[len(runs)]
    assert changed["notified"] is True and changed["delivery"]["ok"] is True
    assert data["session_id"] == changed["session_id"]

    listed = alice.get("/api/watches").json()["watches"]
    assert [w["watch_id"] for w in listed] == [watch_id]
    for response in (
        bob.get(f"/api/watches/{watch_id}"),
        bob.post(f"/api/watches/{watch_id}/pause"),
        bob.delete(f"/api/watches/{watch_id}"),
    ):
        assert response.status_code == 404, response.text
    assert bob.get("/api/watches").json()["watches"] == []

    assert alice.delete(f"/api/watches/{watch_id}").status_code == 204
    assert alice.get(f"/api/watches/{watch_id}").status_code == 404


def test_a_schedule_more_frequent_than_allowed_is_refused(people: dict[str, httpx.Client]) -> None:
    body = {"question": QUESTION, "mode": "search", "every": "* * * * * *"}
    response = people["alice"].post("/api/watches", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"][0]["loc"] == ["every"]
    nonsense = people["alice"].post("/api/watches", json=body | {"every": "now and then"})
    assert nonsense.status_code == 422 and "cron" in nonsense.json()["error"]["message"]
    chat = people["alice"].post("/api/watches", json=body | {"every": "daily", "mode": "chat"})
    assert chat.status_code == 422, chat.text
