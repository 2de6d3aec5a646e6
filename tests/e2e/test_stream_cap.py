"""Open progress streams per person are capped (issue 27 item 11), over real HTTP.

``python -m devhost serve`` with ``HTTP_STREAMING=true`` and
``QUOTA_OPEN_STREAMS_PER_OWNER=2``, signed in through Easy Auth headers. A
streamed response has begun (its ``retry`` line arrived) only once the
server counts it, so the test knows both streams are open before it asks for
a third; they end by themselves when the session does, which frees them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.e2e.polling import wait_for
from tests.e2e.serve_process import serving
from tests.e2e.test_sse import AMBIGUOUS_QUERY, parse_sse
from tests.fakes.entra import easy_auth_headers

pytestmark = pytest.mark.e2e

ALICE = easy_auth_headers("a11ce000-0000-4000-8000-000000000001")
BOB = easy_auth_headers("b0b00000-0000-4000-8000-000000000002")
WAITS = {"run_deep_search_first": False, "enable_clarifying_questions": True}


@pytest.fixture
def streaming_host(tmp_path: Path) -> Iterator[str]:
    with serving(
        tmp_path,
        auth_mode="easyauth",
        website_auth_enabled="true",
        http_streaming="true",
        quota_open_streams_per_owner="2",
    ) as url:
        yield url


def waiting_session(api: httpx.Client) -> str:
    body = {"query": AMBIGUOUS_QUERY, "mode": "deep_research", "options": WAITS}
    started = api.post("/api/research", json=body)
    assert started.status_code == 202, started.text
    session_id = started.json()["session_id"]
    wait_for(api, session_id, {"waiting_clarification"})
    return session_id


def test_a_third_open_stream_of_one_person_is_429_until_one_ends(streaming_host: str) -> None:
    with (
        httpx.Client(base_url=streaming_host, headers=ALICE, timeout=60) as alice,
        httpx.Client(base_url=streaming_host, headers=BOB, timeout=60) as bob,
    ):
        session_id = waiting_session(alice)
        events = f"/api/research/{session_id}/events"
        with ExitStack() as open_streams:
            streams = []
            for _ in range(2):
                stream = open_streams.enter_context(alice.stream("GET", events))
                assert stream.status_code == 200
                chunks = stream.iter_text()
                assert next(chunks).startswith("retry:")  # begun: the server counts it
                streams.append(chunks)

            refused = alice.get(events)

            assert refused.status_code == 429, refused.text
            error = refused.json()["error"]
            assert error["code"] == "quota_exceeded"
            assert error["details"][0] | {"frees": ""} == {
                "quota": "QUOTA_OPEN_STREAMS_PER_OWNER",
                "limit": 2,
                "used": 2,
                "frees": "",
                "frees_at": None,
                "retry_after_seconds": 5,
            }
            assert refused.headers["Retry-After"] == "5"
            # Bob's streams are his own.
            with bob.stream("GET", f"/api/research/{waiting_session(bob)}/events") as his:
                assert his.status_code == 200

            # Cancelling the session ends both streams (their last event is the end) ...
            assert alice.post(f"/api/research/{session_id}/cancel").status_code == 202
            for chunks in streams:
                text = "".join(chunks)
                assert parse_sse(text)[0][-1].event == "cancelled"

        # ... and an ended stream no longer counts.
        again = alice.get(events)
        assert again.status_code == 200 and "event: cancelled" in again.text
