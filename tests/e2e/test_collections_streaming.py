"""Collections with HTTP_STREAMING on, over real HTTP (``python -m devhost serve``).

The setting picks the functions' signatures at import, so the host is a subprocess.
An upload far over the 64 KB every other route keeps is read whole (up to
``COLLECTION_MAX_REQUEST_BYTES``), and one open connection to the collection's events
carries its ingestion from ``progress`` to ``ingested`` and then ends by itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.serve_process import serving
from tests.e2e.test_cli_errors import run_cli
from tests.e2e.test_sse import parse_sse

pytestmark = pytest.mark.e2e

UPLOAD = {"X-Requested-With": "test"}
REQUEST_CAP = 400_000  # COLLECTION_MAX_REQUEST_BYTES for this host
OTHER_ROUTES_CAP = 64 * 1024


@pytest.fixture
def streaming_host(tmp_path: Path) -> Iterator[str]:
    with serving(
        tmp_path,
        http_streaming="true",
        collection_max_request_bytes=str(REQUEST_CAP),
    ) as url:
        yield url


def long_markdown(size: int) -> bytes:
    sections = []
    n = 0
    while sum(len(s) for s in sections) < size:
        sections.append(f"## Section {n}\n\nThe pump in bay {n} was checked and its seal kept.\n\n")
        n += 1
    return ("# Plant log\n\n" + "".join(sections)).encode()


def test_an_upload_over_64_kb_is_taken_and_one_stream_carries_its_ingestion(
    streaming_host: str,
) -> None:
    big = long_markdown(200_000)
    assert OTHER_ROUTES_CAP < len(big) < REQUEST_CAP
    with httpx.Client(base_url=streaming_host, timeout=60) as api:
        collection_id = api.post("/api/collections", json={"name": "logs"}).json()["collection_id"]
        files = [("file", ("log.md", big, "text/markdown")), ("file", ("a.txt", b"Hi.", "x"))]
        url = f"/api/collections/{collection_id}/documents"
        uploaded = api.post(url, files=files, headers=UPLOAD)
        assert uploaded.status_code == 202, uploaded.text

        events_url = f"/api/collections/{collection_id}/events"
        with api.stream("GET", events_url) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            text = "".join(stream.iter_text())  # ends when the server ends the response
        events, _, retry = parse_sse(text)
        assert retry == 500 and text.count("retry:") == 1  # one response, not a poll
        assert [e.event for e in events[:-1]] == ["progress"] * (len(events) - 1)
        assert events[-1].event == "ingested"
        assert events[-1].data["progress"] == {"queued": 0, "ingested": 2, "failed": 0}
        assert events[-1].data["chunks"] > 100  # the long file, whole
        # seen the end: the next connection is told to stop
        again = api.get(events_url, headers={"Last-Event-ID": events[-1].id})
        assert again.status_code == 204


def test_only_the_upload_route_reads_past_64_kb_and_up_to_its_own_cap(
    streaming_host: str,
) -> None:
    with httpx.Client(base_url=streaming_host, timeout=60) as api:
        collection_id = api.post("/api/collections", json={"name": "caps"}).json()["collection_id"]
        over = api.post("/api/collections", json={"name": "x" * (OTHER_ROUTES_CAP + 10)})
        assert over.status_code == 413, over.text
        url = f"/api/collections/{collection_id}/documents"
        too_big = [("file", ("huge.md", long_markdown(REQUEST_CAP + 1000), "text/markdown"))]
        refused = api.post(url, files=too_big, headers=UPLOAD)
        assert refused.status_code == 413
        assert "collection_max_request_bytes" in refused.json()["error"]["message"]
        assert api.get(f"/api/collections/{collection_id}").json()["documents"] == []


def test_the_cli_follows_the_open_stream_to_the_end_of_the_ingestion(
    streaming_host: str, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "log.md").write_bytes(long_markdown(100_000))
    (folder / "guide.md").write_text("# Guide\n\nPage the on-call engineer.")
    result = run_cli(
        "ingest", str(folder), "--collection", "cli", "--url", f"{streaming_host}/api", cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ingested guide.md: 1 chunks" in result.stdout
    assert "ingested log.md:" in result.stdout
