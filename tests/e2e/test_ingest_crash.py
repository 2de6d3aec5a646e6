"""Killing devhost with SIGKILL mid-ingestion: the resumed run ingests each file exactly once.

``python -m devhost serve`` runs as a real subprocess in its own process group. Fifty
generated PDFs (many pages each, so the batch takes seconds) are uploaded; as soon as
the host's history shows some ``ingest_document`` calls answered and others in flight,
the whole group gets SIGKILL. A second host on the same DATA_DIR and port must finish
the ingestion; the collection then holds exactly the chunks that a clean run of the
same files (a second collection, on the second host) holds, none twice.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from shared.core import names
from tests.e2e.crash_history import instance_ids, read_history
from tests.e2e.serve_process import ServeProcess, free_port
from tests.e2e.test_crash_resume import warm_corpus
from tests.e2e.web_host import wait_ingested
from tests.fakes.documents import pdf_with_pages

pytestmark = pytest.mark.e2e

FILES = 50
PAGES = 12
FINISH_S = 180.0
UPLOAD = {"X-Requested-With": "crash-test"}


def files() -> list[tuple[str, tuple[str, bytes, str]]]:
    def page(n: int, p: int) -> str:
        return "\n".join(
            f"Document {n} page {p} line {i}: pumps, seals, valves." for i in range(40)
        )

    return [
        ("file", (f"doc-{n:02}.pdf", pdf_with_pages([page(n, p) for p in range(PAGES)]), "x"))
        for n in range(FILES)
    ]


def start(tmp_path: Path, data_dir: Path, port: int) -> ServeProcess:
    return ServeProcess(
        port,
        tmp_path / "devhost.log",
        data_dir=str(data_dir),
        reasoner="offline",
        search_provider="local",
        collection_max_files_per_request=str(FILES),
    )


def wait_mid_ingestion(db: Path, collection_id: str) -> None:
    """Until one ingestion instance has answered some documents and not all (a deadline)."""
    deadline = time.monotonic() + FINISH_S
    while time.monotonic() < deadline:
        for instance_id in instance_ids(db, collection_id):
            run = read_history(db, instance_id)
            answered = len(run.completed(names.INGEST_DOCUMENT))
            if answered > 0 and names.INGEST_DOCUMENT in run.in_flight():
                return
            assert answered < FILES, "the batch finished before the kill: make it bigger"
        time.sleep(0.01)
    pytest.fail("the ingestion never got under way")


def chunk_rows(data_dir: Path, collection_id: str) -> tuple[int, int]:
    conn = sqlite3.connect(data_dir / "collections.sqlite3")
    try:
        sql = "SELECT count(*), count(DISTINCT chunk_id) FROM chunks WHERE collection_id = ?"
        return conn.execute(sql, (collection_id,)).fetchone()
    finally:
        conn.close()


def test_a_killed_host_resumes_the_ingestion_and_ingests_each_file_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    warm_corpus(data_dir)
    port = free_port()
    batch = files()
    started: list[ServeProcess] = []
    try:
        with httpx.Client(timeout=60) as http:
            first = start(tmp_path, data_dir, port)
            started.append(first)
            first.wait_ready(http)
            made = http.post(f"{first.url}/api/collections", json={"name": "crash"})
            collection_id = made.json()["collection_id"]
            url = f"{first.url}/api/collections/{collection_id}"
            response = http.post(f"{url}/documents", files=batch, headers=UPLOAD)
            assert response.status_code == 202, response.text
            wait_mid_ingestion(data_dir / "devhost.sqlite3", collection_id)
            first.kill()

            second = start(tmp_path, data_dir, port)
            started.append(second)
            second.wait_ready(http)
            resumed = wait_ingested(http, url, FINISH_S)
            clean_id = http.post(f"{second.url}/api/collections", json={"name": "clean"}).json()[
                "collection_id"
            ]
            clean_url = f"{second.url}/api/collections/{clean_id}"
            http.post(f"{clean_url}/documents", files=batch, headers=UPLOAD)
            clean = wait_ingested(http, clean_url, FINISH_S)
    finally:
        for process in started:
            process.kill()

    assert resumed["progress"] == {"queued": 0, "ingested": FILES, "failed": 0}
    assert resumed["chunks"] == clean["chunks"] > FILES
    total, distinct = chunk_rows(data_dir, collection_id)
    assert total == distinct == clean["chunks"]
    [ingestion] = instance_ids(data_dir / "devhost.sqlite3", collection_id)
    run = read_history(data_dir / "devhost.sqlite3", ingestion)
    assert run.status == "Completed"
    assert run.custom_status["ingested"] == FILES
