"""The corrective judge, per topic: do the session's collections cover it, or the web?

For each topic a session researches (a planned topic in a deep research; the question,
or each of its sub-questions, in the search modes), the collections are searched with
the topic's content words, as the research's own searches are (``ranked_hits``), and
their best ``COVERAGE_PASSAGES`` passages go to the reasoner's ``judge_coverage`` (the
model with verbatim quotes; offline, the relevance gate; either verifies its quotes with
``coverage_models.verified``). Covered, the topic rests on the collections alone; not
covered, it is researched on the web too when the session allows the web, and rests on
the collections anyway, marked not covered, when it does not. A model that gives no valid
verdict leaves the topic not covered: the web is the safe side of a failed judge.

Each verdict is appended to the session's ``coverage.md`` under the topic's key, once:
a retried activity, or another agent on the same topic, reads the verdict already
there instead of judging again, so a topic never moves between sources mid-session.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from shared.adapters.documents.collection_search import document_link, ranked_hits
from shared.adapters.report.limits_text import say
from shared.core.ask_models import Passage
from shared.core.coverage_models import Coverage, TopicSource
from shared.core.errors import NotFoundError, StructuredOutputError
from shared.core.limits import COVERAGE_PASSAGES
from shared.ports import Services

COVERAGE_FILE = "coverage.md"
ON_COLLECTION, ON_WEB = "collection", "web"
_ENTRY = "- "
# The (session, topic) pairs being judged in this worker, each with the event set when its
# verdict is recorded: only a search of the same topic in the same session waits.
_IN_FLIGHT: dict[str, threading.Event] = {}
_IN_FLIGHT_LOCK = threading.Lock()


def judged(
    svc: Services,
    session_id: str,
    topic: str,
    collections: tuple[str, ...],
    web: bool,
    language: str,
) -> TopicSource:
    """The topic's verdict: the one recorded for it, else judged now and recorded."""
    topic = " ".join(topic.split())
    key = topic_key(topic)
    with _judging(f"{session_id}/{key}"):  # searches fanned out at once: one judges
        recorded = _recorded(svc, session_id)
        if key in recorded:
            return recorded[key]
        return _judge(svc, session_id, topic, key, collections, web, language)


def _judge(
    svc: Services,
    session_id: str,
    topic: str,
    key: str,
    collections: tuple[str, ...],
    web: bool,
    language: str,
) -> TopicSource:
    hits = ranked_hits(svc.index, list(collections), topic, COVERAGE_PASSAGES, every=True)
    passages = [
        Passage(
            n=n,
            url=document_link(h.chunk.collection_id, h.chunk.document_id, h.chunk.page),
            text=h.chunk.text,
        )
        for n, h in enumerate(hits, start=1)
    ]
    try:
        verdict = svc.reasoner.judge_coverage(topic, passages, language)  # quotes verified
    except StructuredOutputError as exc:  # no verdict: not covered (transient errors raise)
        verdict = Coverage(reason=f"the judge gave no verdict ({type(exc).__name__})")
    source = ON_COLLECTION if verdict.covered or not web else ON_WEB
    decided = TopicSource(topic=topic, source=source, **verdict.model_dump())
    svc.memory.append(session_id, COVERAGE_FILE, key, _ENTRY + decided.model_dump_json())
    return _recorded(svc, session_id).get(key, decided)  # the first verdict written wins


def topic_sources(svc: Services, session_id: str) -> list[TopicSource]:
    """The session's topics in the order they were judged, each with its verdict."""
    return list(_recorded(svc, session_id).values())


def coverage_limitations(svc: Services, session_id: str, language: str) -> list[str]:
    """Per topic, in the report's language: what it rested on, with the judge's evidence."""
    said = []
    for t in topic_sources(svc, session_id):
        key = "topic_on_web" if t.source == ON_WEB else "topic_on_collection"
        if t.source == ON_COLLECTION and not t.covered:
            key = "topic_not_covered"
        said.append(say(language, key, topic=t.topic, quotes=len(t.evidence)))
    return said


@contextmanager
def _judging(name: str) -> Iterator[None]:
    """Held while one topic is judged in this worker: the other searches of the same topic
    wait for its verdict instead of asking the judge again. (Another worker process may
    still judge it at the same time; the first verdict written is the one all use.) Nothing
    is held during the judging itself, so other topics and sessions never wait on it."""
    while True:
        with _IN_FLIGHT_LOCK:
            running = _IN_FLIGHT.get(name)
            if running is None:
                mine = _IN_FLIGHT[name] = threading.Event()
                break
        running.wait()  # then look again: the verdict is recorded, or its judge failed
    try:
        yield
    finally:
        with _IN_FLIGHT_LOCK:
            del _IN_FLIGHT[name]
        mine.set()


def topic_key(topic: str) -> str:
    return hashlib.sha256(" ".join(topic.lower().split()).encode()).hexdigest()[:16]


def _recorded(svc: Services, session_id: str) -> dict[str, TopicSource]:
    try:
        lines = svc.memory.read_text(session_id, COVERAGE_FILE).splitlines()
    except NotFoundError:
        return {}
    out: dict[str, TopicSource] = {}
    for line in lines:
        if line.startswith(_ENTRY + "{"):
            verdict = TopicSource.model_validate(json.loads(line.removeprefix(_ENTRY)))
            out.setdefault(topic_key(verdict.topic), verdict)
    return out
