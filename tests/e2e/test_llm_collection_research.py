"""The corrective judge with the LLM reasoner, end to end: devhost, the OpenAI-protocol
fake over HTTP, a collection, and the fake web (``tests.fakes.search_site``).

The model is asked once per topic (here the question's two sub-questions), never once
per search; it quotes the collection for the half it covers, and claims the other half
too with a quote the passages do not hold, which the code drops: that half is
researched on the web, and the status and the Limitations say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from shared.adapters.reasoning import call_budget
from shared.core.config import ResearchOptions, Settings
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.test_llm_deep_research import RUN_TIMEOUT, SMALL
from tests.e2e.web_host import wait_ingested
from tests.fakes.documents import pdf_with_pages
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.search_site import SearchSite

pytestmark = pytest.mark.e2e

MIXED = "When was the coolant pump seal replaced, and how do asyncio tasks handle cancellation?"
SEAL, TASKS = (
    "When was the coolant pump seal replaced?",
    "How do asyncio tasks handle cancellation?",
)
FACT = "The coolant pump seal was replaced in March 2021 after a leak in the primary loop."
TASKS_NOTE = "Valve history. Maintenance tasks are logged every week."  # "tasks": a passage
TOPIC = re.compile(r"<query>\n(.*?)\n</query>", re.S)


def judge_requests(server: FakeOpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests if _schema(r) == "CoverageReply"]


def _schema(request: RecordedRequest) -> str:
    return ((request.json.get("response_format") or {}).get("json_schema") or {}).get("name", "")


def responder(request: RecordedRequest) -> Reply:
    """The schema-aware fake; as the judge: the seal quoted from the passages, and the
    asyncio half claimed with a sentence no passage holds."""
    if _schema(request) != "CoverageReply":
        return schema_aware_responder(request)
    topic = TOPIC.search(request.prompt_text).group(1)
    if topic == SEAL and FACT in request.prompt_text:
        return json_completion({"evidence": [FACT], "reason": "page 3 dates it", "covered": True})
    made_up = "Tasks are cancelled with Task.cancel()."
    return json_completion({"evidence": [made_up], "reason": "it is there", "covered": True})


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder) as server:
        yield server


def plant_runbook(api: httpx.Client) -> str:
    """A collection holding the plant's runbook (the seal's date on page 3), ingested."""
    collection = api.post("/api/collections", json={"name": "plant"}).json()["collection_id"]
    pdf = pdf_with_pages(["Cooling overview.", TASKS_NOTE, f"Maintenance log. {FACT}"])
    files = [("file", ("runbook.pdf", pdf, "application/pdf"))]
    url = f"/api/collections/{collection}"
    uploaded = api.post(f"{url}/documents", files=files, headers={"X-Requested-With": "t"})
    assert uploaded.status_code == 202, uploaded.text
    wait_ingested(api, url)
    return collection


def llm_settings(data_dir, fake_llm: FakeOpenAIServer, site: SearchSite) -> Settings:
    return Settings(
        data_dir=data_dir,
        openai_base_url=fake_llm.base_url,
        openai_api_key="test",
        search_provider="searxng",
        searxng_url=site.origin,
        fetch_allowed_hosts=site.host,
    )


def test_the_model_judges_each_topic_once_and_a_made_up_quote_sends_it_to_the_web(
    fake_llm: FakeOpenAIServer, site: SearchSite, start_devhost, data_dir
) -> None:
    host = start_devhost(llm_settings(data_dir, fake_llm, site))
    with httpx.Client(base_url=host.url, timeout=60) as api:
        collection = plant_runbook(api)
        before = len(site.server.requests)
        body = {"query": MIXED, "mode": "search", "options": {"collections": [collection]}}
        started = api.post("/api/research", json=body)
        assert started.status_code in (200, 202), started.text
        view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=180)
        assert view["status"] == "completed", view.get("error")
        answer = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
        answer = answer.json()

    judged = [TOPIC.search(r.prompt_text).group(1) for r in judge_requests(fake_llm)]
    assert sorted(judged) == sorted([SEAL, TASKS])  # once per topic, however many searches
    by_topic = {t["topic"]: t for t in view["topic_sources"]}
    assert by_topic[SEAL] == {
        "topic": SEAL,
        "source": "collection",
        "covered": True,
        "evidence": [FACT],
        "reason": "page 3 dates it",
    }
    assert (by_topic[TASKS]["source"], by_topic[TASKS]["covered"]) == ("web", False)
    assert by_topic[TASKS]["evidence"] == []  # the made-up quote was dropped
    assert by_topic[TASKS]["reason"] == "it is there"  # what the model said, kept as said
    assert len(site.server.requests) > before  # the web was searched for that half
    limitations = " ".join(answer["limitations"])
    assert f"“{SEAL}” rests on your collections alone: they cover it (1 quoted" in limitations
    assert f"“{TASKS}” was researched on the web too" in limitations


def test_the_judges_calls_are_billed_and_within_the_deep_researchs_call_bound(
    fake_llm: FakeOpenAIServer, site: SearchSite, start_devhost, data_dir
) -> None:
    settings = llm_settings(data_dir, fake_llm, site)
    host = start_devhost(settings)
    options = {**SMALL, "enable_clarifying_questions": False}
    with httpx.Client(base_url=host.url, timeout=60) as api:
        collection = plant_runbook(api)
        body = {
            "query": MIXED,
            "mode": "deep_research",
            "options": {**options, "collections": [collection]},
        }
        started = api.post("/api/research", json=body)
        assert started.status_code in (200, 202), started.text
        view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=RUN_TIMEOUT)
    assert view["status"] == "completed", view.get("error")

    judged = [TOPIC.search(r.prompt_text).group(1) for r in judge_requests(fake_llm)]
    assert judged and len(judged) == len(set(judged))  # each topic judged once
    assert view["usage"]["llm_calls"] == len(fake_llm.requests)  # the judge is billed
    caps = settings.caps_for(ResearchOptions(**options))
    assert len(fake_llm.requests) <= call_budget.max_llm_calls(caps, collections=True)
