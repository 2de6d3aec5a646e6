"""What the corrective judge reads and who waits for it (shared/usecases/research/coverage.py).

Real stores (the filesystem memory, the SQLite FTS5 index) and the offline reasoner. The
judge is searched with the topic's content words, as the research is: the topic's
stopwords do not pull short unrelated chunks in ahead of the passage that covers it. A
search of a topic waits only for the same session's judging of the same topic, never for
another topic's model call.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.reasoning.offline import OfflineReasoner
from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.core.ask_models import Passage
from shared.core.collection_models import Chunk
from shared.core.coverage_models import Coverage, TopicSource
from shared.usecases.research.coverage import judged
from tests.contract.conftest import shared_corpus

COLLECTION = "c0ffee"
TOPIC = "How do we know when the coolant pump seal was replaced?"
SENTENCE = "The coolant pump seal was replaced in March 2021 after a leak in the primary loop."
VALVES = " ".join(f"Valve {n} was inspected and its torque logged." for n in range(12))
PAGE = f"Primary loop maintenance log, reactor building two. {VALVES} {SENTENCE}"  # long
OTHER = "How do asyncio tasks handle cancellation?"
WAIT = 30  # seconds: a deadline for a thread that should be done long before


class GatedReasoner:
    """The offline reasoner; the first judging of a topic in ``held`` waits in the judge
    until ``release``."""

    def __init__(self) -> None:
        self.offline = OfflineReasoner(shared_corpus())
        self.held: set[str] = set()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.judged: list[str] = []

    def judge_coverage(self, topic: str, passages: list[Passage], language: str) -> Coverage:
        self.judged.append(topic)
        if topic in self.held:
            self.held.discard(topic)
            self.entered.set()
            assert self.release.wait(WAIT)
        return self.offline.judge_coverage(topic, passages, language)


class Svc:
    def __init__(self, tmp_path: Path) -> None:
        self.memory = FilesystemMemoryStore(tmp_path / "memory")
        self.index = SqliteIndex(tmp_path / "collections.sqlite3")
        self.reasoner = GatedReasoner()


def chunk(n: int, text: str, title: str = "Notes") -> Chunk:
    return Chunk(
        id=f"k{n}",
        collection_id=COLLECTION,
        document_id=f"d{n}",
        ordinal=0,
        title=title,
        origin=f"doc{n}.md",
        text=text,
    )


@pytest.fixture
def svc(tmp_path: Path) -> Svc:
    services = Svc(tmp_path)
    services.index.replace_document(COLLECTION, "d0", [chunk(0, PAGE, "Maintenance log")])
    for n in range(1, 9):  # short chunks of the topic's stopwords only
        text = "How do we do it? When was it done, and how?"
        services.index.replace_document(COLLECTION, f"d{n}", [chunk(n, text)])
    for n in range(9, 40):  # short notes on the same pump, and on other things
        text = (
            f"Area {n}: the coolant pump seal was inspected."
            if n % 2
            else f"Area {n}: no findings."
        )
        services.index.replace_document(COLLECTION, f"d{n}", [chunk(n, text)])
    return services


def judge(svc: Svc, topic: str, session: str = "s1") -> TopicSource:
    return judged(svc, session, topic, (COLLECTION,), web=True, language="en")


def test_the_topics_stopwords_do_not_crowd_out_the_passage_that_covers_it(svc):
    verdict = judge(svc, TOPIC)

    assert (verdict.source, verdict.covered) == ("collection", True)
    assert verdict.evidence[0] == SENTENCE


def test_another_topic_is_judged_while_one_waits_on_its_judge(svc):
    svc.reasoner.held.add(TOPIC)
    slow = threading.Thread(target=judge, args=(svc, TOPIC))
    slow.start()
    try:
        assert svc.reasoner.entered.wait(WAIT)
        done: list[TopicSource] = []
        others = [  # other sessions, and another topic of the same session
            threading.Thread(target=lambda s=s, t=t: done.append(judge(svc, t, s)))
            for s, t in [(f"s{n}", TOPIC) for n in range(2, 70)] + [("s1", OTHER)]
        ]
        for thread in others:
            thread.start()
        for thread in others:
            thread.join(WAIT)
        assert len(done) == len(others)  # none waited for the held judge
    finally:
        svc.reasoner.release.set()
        slow.join(WAIT)


def test_the_same_topic_of_the_same_session_waits_for_the_one_verdict(svc):
    svc.reasoner.held.add(TOPIC)
    verdicts: list[TopicSource] = []
    first = threading.Thread(target=lambda: verdicts.append(judge(svc, TOPIC)))
    first.start()
    assert svc.reasoner.entered.wait(WAIT)
    again = threading.Thread(target=lambda: verdicts.append(judge(svc, f"  {TOPIC.upper()} ")))
    again.start()
    svc.reasoner.release.set()
    first.join(WAIT)
    again.join(WAIT)

    assert svc.reasoner.judged == [TOPIC]  # judged once; the second search read its verdict
    assert [v.topic for v in verdicts] == [TOPIC, TOPIC]
