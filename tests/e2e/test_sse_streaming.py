"""With HTTP_STREAMING on, GET /api/research/{id}/events is one response that stays open.

``python -m devhost serve`` runs with ``HTTP_STREAMING=true`` (a subprocess: the
setting picks the functions' signatures at import), so the app imports the
FastAPI extension and every HTTP function goes through the FastAPI-typed
wrapper, as the Python worker requires. One connection must carry the whole
run: the clarification request, then (after the answer is posted on another
connection) every later change, and end by itself after the final event. The
other routes (start, answer, status, report) keep answering as documented.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.serve_process import serving
from tests.e2e.test_sse import AMBIGUOUS_QUERY, ANSWER, SESSION_VIEW, parse_sse, rank, start

pytestmark = pytest.mark.e2e


@pytest.fixture
def streaming_host(tmp_path: Path) -> Iterator[str]:
    with serving(
        tmp_path,
        http_streaming="true",
    ) as url:
        yield url


def joined_parts(chunks: list[dict]) -> dict[str, str]:
    """What a client holds per part: the text after each part's last reset."""
    texts: dict[str, str] = {}
    for chunk in chunks:
        if chunk["kind"] == "reset":
            texts[chunk["part"]] = ""
        texts[chunk["part"]] = texts.get(chunk["part"], "") + chunk["text"]
    return texts


def test_one_connection_carries_the_whole_run_and_ends_with_it(streaming_host: str) -> None:
    with httpx.Client(base_url=streaming_host, timeout=60) as api:
        session_id = start(api, AMBIGUOUS_QUERY)
        text, answered = "", False
        with api.stream("GET", f"/api/research/{session_id}/events") as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            for chunk in stream.iter_text():  # ends when the server ends the response
                text += chunk
                if not answered and "event: clarification_requested" in text:
                    reply = api.post(
                        f"/api/research/{session_id}/clarification", json={"text": ANSWER}
                    )
                    assert reply.status_code == 202, reply.text
                    answered = True
        every, _, retry = parse_sse(text)
        events = [e for e in every if e.event != "answer_chunk"]  # the session's states

        names = [e.event for e in events]
        assert answered and names[-1] == "completed", names
        # before, during and after the wait for the answer: all on this one connection
        # (how many progress states fall between depends on the machine's speed)
        assert names[0] == "phase" and "clarification_requested" in names[1:-1], names
        assert retry == 500
        phases = [rank(e.data["phase"]) for e in events]
        assert phases == sorted(phases), [e.data["phase"] for e in events]
        assert len({e.id for e in events}) == len(events)  # no state sent twice
        for event in events:
            assert not list(SESSION_VIEW.iter_errors(event.data))

        # The end was seen: a reconnect says so at once, and the rest of the API works.
        again = api.get(
            f"/api/research/{session_id}/events", headers={"Last-Event-ID": events[-1].id}
        )
        assert again.status_code == 204
        assert api.get(f"/api/research/{session_id}").json()["status"] == "completed"
        report = api.get(f"/api/research/{session_id}/report", params={"format": "md"})
        assert report.status_code == 200 and report.text.startswith("# ")
        # the same connection carried the report as it was written, section by section,
        # before the end; what a client joins from it is the stored report
        chunks = [e.data for e in every if e.event == "answer_chunk"]
        last_chunk = max(i for i, e in enumerate(every) if e.event == "answer_chunk")
        assert last_chunk < len(every) - 1 and every[-1].event == "completed"
        written = [c for c in chunks if c["part"] == "report" and c["kind"] == "text"]
        assert len(written) >= 3, chunks
        assert joined_parts(chunks)["report"] == report.text
        missing = api.get("/api/research/no-such-session/events")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
