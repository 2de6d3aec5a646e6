"""The corrective fallback per topic (shared/usecases/research/sources.py, coverage.py).

Real stores (SQLite sessions, the filesystem memory, the SQLite FTS5 index) and the
offline reasoner; the web search provider is a stand-in for its port that records the
queries it is asked, so "the web was not asked" is what it saw.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.reasoning.offline import OfflineReasoner
from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.ask_models import Passage
from shared.core.collection_models import Chunk
from shared.core.config import ResearchOptions
from shared.core.coverage_models import Coverage
from shared.core.errors import StructuredOutputError
from shared.core.session_models import Mode, SessionRecord
from shared.core.source_models import SearchResult, TimeRange
from shared.usecases.research.coverage import COVERAGE_FILE, topic_sources
from shared.usecases.research.sources import (
    searches_by_source,
    source_limitations,
    sources_for,
    topics_of,
)
from tests.contract.conftest import shared_corpus

COLLECTION = "c0ffee"
SEAL = "When was the coolant pump seal replaced?"
TASKS = "How do asyncio tasks handle cancellation?"
MIXED = "When was the coolant pump seal replaced, and how do asyncio tasks handle cancellation?"
PAGE3 = (
    "Primary loop maintenance log. The coolant pump seal was replaced in March 2021 after a"
    " leak in the primary loop. The loop was flushed afterwards."
)
WEB_PAGE = "https://example.org/asyncio/cancellation"
BUILTIN = "python-docs"
CONTEXT_MANAGERS = "How do context managers and the with statement work in Python?"


class RecordingWeb:
    """The web search provider's port, answering one page and recording each query."""

    name = "web"

    def __init__(self) -> None:
        self.queries: list[str] = []

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        self.queries.append(query)
        return [SearchResult(url=WEB_PAGE, title="Cancellation", snippet="Task.cancel ...")]


class CountingReasoner:
    """The offline reasoner, counting how often the judge is asked; ``fails``: it raises
    what a model that never answers valid JSON makes the LLM reasoner raise."""

    def __init__(self) -> None:
        self.offline = OfflineReasoner(shared_corpus())
        self.judged: list[str] = []
        self.fails = False

    def judge_coverage(self, topic: str, passages: list[Passage], language: str) -> Coverage:
        self.judged.append(topic)
        if self.fails:
            raise StructuredOutputError("no valid reply after the repairs")
        return self.offline.judge_coverage(topic, passages, language)


class Svc:
    """The ports ``sources_for`` reads (hashable: the session's options are cached by it)."""

    def __init__(self, tmp_path: Path) -> None:
        self.sessions = SqliteSessionStore(tmp_path / "sessions.sqlite3")
        self.memory = FilesystemMemoryStore(tmp_path / "memory")
        self.index = SqliteIndex(tmp_path / "collections.sqlite3")
        self.search = RecordingWeb()
        self.fetcher = None
        self.reasoner = CountingReasoner()
        self.builtin_collection_id = BUILTIN

    def builtin_search(self):
        return shared_corpus()


@pytest.fixture
def svc(tmp_path: Path) -> Svc:
    services = Svc(tmp_path)
    chunk = Chunk(
        id="k1",
        collection_id=COLLECTION,
        document_id="d1",
        ordinal=0,
        title="Coolant pump runbook",
        origin="runbook.pdf",
        page=3,
        text=PAGE3,
    )
    services.index.replace_document(COLLECTION, "d1", [chunk])
    return services


def session(
    svc: Svc,
    question: str,
    web: bool = True,
    language: str = "en",
    collections: tuple[str, ...] = (COLLECTION,),
) -> str:
    now = datetime.now(UTC)
    options = ResearchOptions(collections=list(collections), web=None if web else False)
    record = SessionRecord(
        id=uuid.uuid4().hex,
        chat_id=uuid.uuid4().hex,
        original_query=question,
        mode=Mode.deep_research,
        instance_id=uuid.uuid4().hex,
        language=language,
        options=options,
        created_at=now,
        updated_at=now,
    )
    svc.sessions.create(record)
    return record.id


def test_a_covered_topic_rests_on_the_collection_and_asks_no_web(svc):
    sid = session(svc, MIXED)
    found = sources_for(svc, sid, SEAL).search.search("coolant pump seal replaced", 5)

    assert [r.url for r in found] == [f"/api/collections/{COLLECTION}/documents/d1#page=3"]
    assert svc.search.queries == []
    [verdict] = topic_sources(svc, sid)
    assert (verdict.topic, verdict.source, verdict.covered) == (SEAL, "collection", True)
    assert verdict.evidence == [
        "The coolant pump seal was replaced in March 2021 after a leak in the primary loop."
    ]


def test_an_uncovered_topic_is_researched_on_the_web_with_the_collection_fused_in(svc):
    sid = session(svc, MIXED)
    found = sources_for(svc, sid, TASKS).search.search("asyncio task cancellation", 5)

    assert svc.search.queries == ["asyncio task cancellation"]
    assert WEB_PAGE in [r.url for r in found]
    [verdict] = topic_sources(svc, sid)
    assert (verdict.source, verdict.covered, verdict.evidence) == ("web", False, [])
    assert searches_by_source(svc, sid) == {"collection": [], "web": ["asyncio task cancellation"]}


def test_documents_only_keeps_an_uncovered_topic_on_the_collection_and_says_so(svc):
    sid = session(svc, MIXED, web=False)
    sources_for(svc, sid, TASKS).search.search("asyncio task cancellation", 5)

    assert svc.search.queries == []
    [verdict] = topic_sources(svc, sid)
    assert (verdict.source, verdict.covered) == ("collection", False)
    assert source_limitations(svc, sid, "en") == [
        f"“{TASKS}” rests on your collections, which do not cover it (0 quoted passages as"
        " evidence); the web was left out on request."
    ]


def test_in_the_search_modes_each_query_is_routed_by_the_sub_questions_it_is_about(svc):
    sid = session(svc, MIXED)
    search = sources_for(svc, sid).search  # no planned topic: the question's sub-questions
    search.search("coolant pump seal overview", 5)
    assert svc.search.queries == []  # about the seal only: covered
    search.search(MIXED, 5)
    assert svc.search.queries == [MIXED]  # about both: one of them is not covered
    assert searches_by_source(svc, sid) == {
        "collection": ["coolant pump seal overview"],
        "web": [MIXED],
    }
    assert [t.topic for t in topic_sources(svc, sid)] == [SEAL, TASKS]


def test_a_topic_is_judged_once_and_its_verdict_reused_on_a_retry(svc):
    sid = session(svc, MIXED)
    sources_for(svc, sid, SEAL).search.search("coolant pump seal", 5)
    sources_for(svc, sid, f"  {SEAL.lower()} ").search.search("seal replaced", 5)  # a retry

    assert svc.reasoner.judged == [SEAL]
    assert svc.memory.read_text(sid, COVERAGE_FILE).count('"topic"') == 1


def test_a_judge_without_a_verdict_leaves_the_topic_to_the_web(svc):
    svc.reasoner.fails = True
    sid = session(svc, MIXED)
    sources_for(svc, sid, SEAL).search.search("coolant pump seal", 5)

    assert svc.search.queries == ["coolant pump seal"]
    [verdict] = topic_sources(svc, sid)
    assert (verdict.source, verdict.covered) == ("web", False)
    assert verdict.reason == "the judge gave no verdict (StructuredOutputError)"


def test_the_limitations_say_per_topic_where_it_rested_in_the_reports_language(svc):
    sid = session(svc, MIXED, language="de")
    for topic in (SEAL, TASKS):
        sources_for(svc, sid, topic).search.search(topic, 5)

    assert source_limitations(svc, sid, "de") == [
        f"„{SEAL}“ stützt sich allein auf Ihre Sammlungen: Sie decken das Thema ab (zitierte"
        " Belegstellen: 1).",
        f"„{TASKS}“ wurde auch im Web recherchiert: Ihre Sammlungen decken das Thema nicht ab"
        " (zitierte Belegstellen: 0).",
    ]


def test_a_session_without_collections_has_no_topic_limitations(svc):
    assert source_limitations(svc, None, "en") == []


def test_a_query_about_no_sub_question_in_particular_serves_all_of_them():
    assert topics_of("coolant pump seal overview", [SEAL, TASKS]) == [SEAL]
    assert topics_of("the latest news", [SEAL, TASKS]) == [SEAL, TASKS]
    assert topics_of("anything", [SEAL]) == [SEAL]


def test_the_builtin_collection_is_researched_with_its_own_weighing(svc):
    """Its documents are weighed whole, as the built-in search weighs them: the warnings
    page (one passage on context managers) stays out, as it does there."""
    sid = session(svc, CONTEXT_MANAGERS, web=False, collections=(BUILTIN,))
    found = [r.url for r in sources_for(svc, sid).search.search(CONTEXT_MANAGERS, 12)]

    assert found == [r.url for r in shared_corpus().search(CONTEXT_MANAGERS, 12)]
    assert "corpus://python-stdlib/warnings" not in found


def test_the_builtin_and_an_own_collection_are_searched_together(svc):
    sid = session(svc, MIXED, web=False, collections=(BUILTIN, COLLECTION))
    found = [r.url for r in sources_for(svc, sid).search.search("with statement pump seal", 10)]

    assert f"/api/collections/{COLLECTION}/documents/d1#page=3" in found
    assert "corpus://python-reference/with" in found
