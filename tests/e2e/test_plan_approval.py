"""Plan approval through devhost: approved, edited, cancelled, timed out, and across a host kill.

Real pieces: devhost runs function_app (offline reasoner, local corpus), the
client is plain HTTP, webhooks go to a stdlib receiver and are verified with
the reference ``standardwebhooks`` library, and the crash test SIGKILLs a
``python -m devhost serve`` process while the run waits for its plan.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from shared.core.config import Settings
from tests.e2e.crash_history import assert_completed_once, read_history, wait_ended
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.serve_process import ServeProcess, free_port
from tests.e2e.test_crash_resume import warm_corpus

pytestmark = pytest.mark.e2e

QUERY = "How do Python generators and the yield statement work compared with iterators?"
SECRET = "whsec_" + base64.b64encode(b"plan-approval-secret-32-bytes-ok").decode()
APPROVAL = {"require_plan_approval": True, "enable_clarifying_questions": False, "num_agents": 2}


def start(api: httpx.Client, chat_id: str, callback_url: str | None = None, **options) -> dict:
    """Start and wait (``wait_seconds``) until the plan waits for approval."""
    body = {
        "query": QUERY,
        "mode": "deep_research",
        "chat_id": chat_id,
        "options": {**APPROVAL, **options},
        "wait_seconds": 60,
    }
    if callback_url:
        body["callback_url"] = callback_url
    response = api.post("/api/research", json=body, timeout=90)
    assert response.status_code == 202, response.text
    view = response.json()
    assert view["status"] == "waiting_plan_approval", view
    return view


def review(api: httpx.Client, sid: str, **decision) -> httpx.Response:
    return api.post(f"/api/research/{sid}/plan", json=decision)


def memory_file(data_dir: Path, sid: str, name: str) -> str:
    return (data_dir / "memory" / sid / name).read_text(encoding="utf-8")


def report_json(api: httpx.Client, sid: str) -> dict:
    return api.get(f"/api/research/{sid}/report", params={"format": "json"}).json()


@pytest.fixture
def host(start_devhost, data_dir):
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        webhook_secret=SECRET,
        webhook_allowed_hosts="127.0.0.1",
    )
    return start_devhost(settings)


@pytest.fixture
def api(host):
    with httpx.Client(base_url=host.url, timeout=30) as client:
        yield client


def test_an_approved_plan_is_researched_and_the_receiver_heard_of_it(api, host, webhook_receiver):
    waiting = start(api, "plan-approve", webhook_receiver.url)
    plan = waiting["plan"]
    assert plan["status"] == "waiting" and plan["topics"] and plan["max_agents"] == 2
    assert all(t["title"] and t["queries"] for t in plan["topics"])
    [ready] = webhook_receiver.wait_for(1)

    approved = review(api, waiting["session_id"], action="approve")
    again = review(api, waiting["session_id"], action="approve")
    done = wait_for(api, waiting["session_id"], TERMINAL)

    event = Webhook(SECRET).verify(ready.body, ready.headers)
    assert event["type"] == "research.plan_ready"
    assert event["data"]["status"] == "waiting_plan_approval"
    assert approved.status_code == 202, approved.text
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert done["status"] == "completed", done.get("error")
    assert done["plan"]["status"] == "approved"
    assert [t["title"] for t in done["plan"]["topics"]] == [t["title"] for t in plan["topics"]]
    main = memory_file(host.settings.data_dir, waiting["session_id"], "main.md")
    assert "## Plan review" in main and "approved by the user" in main
    assert any(
        "approved by the user" in line
        for line in report_json(api, done["session_id"])["limitations"]
    )
    types = [
        Webhook(SECRET).verify(r.body, r.headers)["type"] for r in webhook_receiver.wait_for(2)
    ]
    assert types == ["research.plan_ready", "research.completed"]


def test_an_edited_plan_is_what_gets_researched_and_recorded(api, host) -> None:
    waiting = start(api, "plan-edit")
    sid, topics = waiting["session_id"], waiting["plan"]["topics"]
    first = topics[0]
    new_topics = [
        {"id": first["id"], "title": "Generator expressions versus list comprehensions"},
        {"title": "The send and throw methods of generator objects", "queries": ["generator send"]},
    ]

    refused = {
        "unknown topic": review(api, sid, action="edit", topics=[{"id": 99, "title": "x"}]),
        "too many agents": review(api, sid, action="edit", num_agents=5),
        "no topics": review(api, sid, action="edit", topics=[]),
        "nothing to edit": review(api, sid, action="edit"),
        "blank title": review(api, sid, action="edit", topics=[{"title": "  "}]),
        "approve with topics": review(api, sid, action="approve", topics=new_topics),
    }
    still = api.get(f"/api/research/{sid}").json()
    edited = review(api, sid, action="edit", topics=new_topics, num_agents=1)
    done = wait_for(api, sid, TERMINAL)

    for name, response in refused.items():
        assert response.status_code == 422, (name, response.text)
        assert response.json()["error"]["code"] == "validation_error", name
    assert refused["unknown topic"].json()["error"]["details"][0]["loc"] == ["topics", 0, "id"]
    assert "num_agents" in refused["too many agents"].json()["error"]["message"]
    assert still["status"] == "waiting_plan_approval"  # a refused edit changes nothing
    assert edited.status_code == 202, edited.text
    assert done["status"] == "completed", done.get("error")
    plan = done["plan"]
    assert plan["status"] == "edited" and plan["num_agents"] == 1
    assert [t["title"] for t in plan["topics"]] == [t["title"] for t in new_topics]
    assert plan["topics"][1]["queries"] == ["generator send"]
    assert f"reworded topic: {first['title']} -> {new_topics[0]['title']}" in plan["changes"]
    assert f"added topic: {new_topics[1]['title']}" in plan["changes"]
    assert any(c.startswith("removed topic: ") for c in plan["changes"]) == (len(topics) > 1)
    assert len(done["progress"]["agents"]) == 1
    main = memory_file(host.settings.data_dir, sid, "main.md")
    assert new_topics[1]["title"] in main and "edited by the user" in main
    limitations = report_json(api, sid)["limitations"]
    assert any("edited by the user" in line and "added topic" in line for line in limitations)


def test_a_plan_can_be_cancelled_and_then_nothing_more_happens(api) -> None:
    waiting = start(api, "plan-cancel")

    cancelled = review(api, waiting["session_id"], action="cancel")
    late = review(api, waiting["session_id"], action="approve")
    done = wait_for(api, waiting["session_id"], TERMINAL)

    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    assert late.status_code == 409
    assert done["status"] == "cancelled" and done["plan"]["status"] == "waiting"
    assert api.get(f"/api/research/{done['session_id']}/report").status_code == 409


def test_an_unanswered_plan_proceeds_when_the_wait_times_out(api) -> None:
    waiting = start(api, "plan-timeout", plan_approval_timeout_minutes=0.05)

    done = wait_for(api, waiting["session_id"], TERMINAL, timeout=120)

    assert done["status"] == "completed", done.get("error")
    assert done["plan"]["status"] == "timed_out"
    limitations = report_json(api, done["session_id"])["limitations"]
    assert any("Nobody approved the research plan" in line for line in limitations)
    assert review(api, done["session_id"], action="approve").status_code == 409


# -- a host killed while the plan waits --------------------------------------------------


def _serve(tmp_path: Path, data_dir: Path, port: int) -> ServeProcess:
    return ServeProcess(
        port,
        tmp_path / "devhost.log",
        data_dir=str(data_dir),
        reasoner="offline",
        search_provider="local",
    )


@pytest.mark.parametrize("answer", ["approve after the restart", "timer fired while down"])
def test_a_host_killed_while_the_plan_waits_resumes_the_same_wait(tmp_path, answer) -> None:
    data_dir = tmp_path / "data"
    warm_corpus(data_dir)
    port = free_port()
    timeout_minutes = 1440 if answer.startswith("approve") else 0.1
    hosts: list[ServeProcess] = []
    try:
        with httpx.Client(timeout=30) as http:
            hosts.append(_serve(tmp_path, data_dir, port))
            hosts[0].wait_ready(http)
            api = httpx.Client(base_url=hosts[0].url, timeout=30)
            waiting = start(api, "plan-crash", plan_approval_timeout_minutes=timeout_minutes)
            sid = waiting["session_id"]
            db = data_dir / "devhost.sqlite3"
            assert read_history(db, sid).status == "Running"
            hosts[0].kill()  # SIGKILL the whole process group while the run waits

            if answer.startswith("timer"):  # the deadline passes while no host runs
                deadline = datetime.fromisoformat(waiting["plan"]["deadline"])
                while datetime.now(UTC) <= deadline:
                    time.sleep(0.2)
            hosts.append(_serve(tmp_path, data_dir, port))
            hosts[1].wait_ready(http)
            after = api.get(f"/api/research/{sid}").json()
            if answer.startswith("approve"):
                assert after["status"] == "waiting_plan_approval"
                assert after["plan"] == waiting["plan"]  # the same wait, the same plan
                assert review(api, sid, action="approve").status_code == 202
            done = wait_for(api, sid, TERMINAL, timeout=120)
            api.close()
            wait_ended(db, sid)
    finally:
        for host in hosts:
            host.kill()

    assert done["status"] == "completed", done.get("error")
    assert done["plan"]["status"] == ("approved" if answer.startswith("approve") else "timed_out")
    assert_completed_once(db, sid)
    reports = list((data_dir / "memory" / sid).rglob("report.json"))
    assert len(reports) == 1
