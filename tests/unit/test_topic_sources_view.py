"""The status of a research of collections says per topic what it rested on, as documented."""

from __future__ import annotations

import json

from api.views import session_view
from shared.bootstrap import AppServices
from shared.core.config import ResearchOptions, Settings
from shared.core.coverage_models import TopicSource
from shared.usecases.research.coverage import COVERAGE_FILE, topic_key
from tests.unit.test_openapi_document import DOCUMENT, _record, validator_for

SEAL = TopicSource(
    topic="When was the coolant pump seal replaced?",
    source="collection",
    covered=True,
    evidence=["The coolant pump seal was replaced in March 2021."],
    reason="page 3 dates it",
)
TASKS = TopicSource(topic="How do asyncio tasks handle cancellation?", source="web", covered=False)


def test_the_status_lists_each_judged_topic_and_matches_the_schema(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))
    record = _record(options=ResearchOptions(collections=["c0ffee"]))
    for verdict in (SEAL, TASKS):
        line = "- " + verdict.model_dump_json()
        svc.memory.append(record.id, COVERAGE_FILE, topic_key(verdict.topic), line)

    view = json.loads(json.dumps(session_view(svc, record), default=str))

    assert view["topic_sources"] == [SEAL.model_dump(), TASKS.model_dump()]
    document = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    assert [e.message for e in validator_for(document, "SessionView").iter_errors(view)] == []
    view["topic_sources"][0]["source"] = "somewhere"
    assert not validator_for(document, "SessionView").is_valid(view)


def test_a_research_without_collections_has_no_topic_sources(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))
    assert session_view(svc, _record())["topic_sources"] is None
