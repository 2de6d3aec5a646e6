"""Collections over real HTTP against devhost (issue 33): upload, ingest, read, own, delete.

Alice, Bob and an admin are signed in as in ``test_ownership.py`` (Easy Auth
headers). The documents are made in the test: a PDF with a known fact on page 3,
a DOCX, Markdown, HTML, a corrupt PDF and a file over the size limit.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from devhost.host import DevHost
from shared.adapters.documents.fts import SqliteIndex
from shared.core.config import Settings
from tests.e2e.crash_history import instance_ids
from tests.e2e.web_host import ADMIN_ROLE, INGEST_S, wait_ingested
from tests.fakes.documents import docx_with_sections, pdf_with_pages

pytestmark = pytest.mark.e2e

UPLOAD = {"X-Requested-With": "test"}
MAX_FILE_BYTES = 40_000
FACT = "The coolant pump seal was replaced in March 2021."
PDF = pdf_with_pages(["Overview", "History", FACT], title="Plant runbook")


@pytest.fixture
def host(start_devhost, data_dir) -> DevHost:
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            auth_mode="easyauth",
            website_auth_enabled=True,
            auth_admin_role=ADMIN_ROLE,
            collection_max_file_bytes=MAX_FILE_BYTES,
            collection_max_files_per_request=6,
        )
    )


def batch() -> list[tuple[str, tuple[str, bytes, str]]]:
    files = {
        "runbook.pdf": PDF,
        "notes.docx": docx_with_sections("Design notes", {"Storage": "Blobs hold originals."}),
        "guide.md": b"# Guide\n\n## Paging\n\nPage the on-call engineer after ten minutes.",
        "ops.html": b"<html><title>Ops</title><main><h2>Backups</h2><p>Nightly.</p></main></html>",
        "broken.pdf": b"%PDF-1.7\nnot really a pdf",
        "huge.txt": b"word " * (MAX_FILE_BYTES // 4),
    }
    return [("file", (name, data, "application/octet-stream")) for name, data in files.items()]


def upload(client: httpx.Client, collection_id: str, files: list) -> dict:
    """Upload, then wait (polling with a deadline) until no document is still queued."""
    response = client.post(
        f"/api/collections/{collection_id}/documents", files=files, headers=UPLOAD
    )
    assert response.status_code in (200, 202), response.text
    view = wait_ingested(client, f"/api/collections/{collection_id}")
    return {**response.json(), "view": view}


def create(client: httpx.Client, name: str = "team-docs") -> str:
    response = client.post("/api/collections", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()["collection_id"]


def test_a_batch_is_ingested_with_named_errors_and_a_repeat_is_a_no_op(people, data_dir):
    alice = people["alice"]
    collection_id = create(alice)
    result = upload(alice, collection_id, batch())
    assert result["ingestion_id"]
    docs = {d["name"]: d for d in result["view"]["documents"]}
    assert {n for n, d in docs.items() if d["status"] == "ingested"} == {
        "runbook.pdf",
        "notes.docx",
        "guide.md",
        "ops.html",
    }
    assert "corrupt PDF" in docs["broken.pdf"]["error"]
    assert "collection_max_file_bytes" in docs["huge.txt"]["error"]
    assert docs["runbook.pdf"]["pages"] == 3
    assert docs["runbook.pdf"]["title"] == "Plant runbook"

    status = alice.get(f"/api/collections/{collection_id}").json()
    chunks = status["chunks"]
    assert chunks == SqliteIndex(data_dir / "collections.sqlite3").count(collection_id) > 0
    again = alice.post(
        f"/api/collections/{collection_id}/documents",
        files=[("file", ("runbook.pdf", PDF, "application/pdf"))],
        headers=UPLOAD,
    )
    assert again.status_code == 200  # nothing to ingest
    assert again.json()["unchanged"] == [docs["runbook.pdf"]["document_id"]]
    assert again.json()["ingestion_id"] is None
    assert alice.get(f"/api/collections/{collection_id}").json()["chunks"] == chunks

    original = alice.get(docs["runbook.pdf"]["links"]["original"])
    assert original.status_code == 200
    assert original.headers["content-type"].startswith("application/pdf")
    assert original.content == PDF
    html = alice.get(docs["ops.html"]["links"]["original"])
    assert html.headers["content-disposition"].startswith("attachment")

    doc_url = docs["runbook.pdf"]["links"]["original"]
    assert alice.delete(doc_url).status_code == 204
    assert alice.get(doc_url).status_code == 404
    left = alice.get(f"/api/collections/{collection_id}").json()
    assert "runbook.pdf" not in {d["name"] for d in left["documents"]}
    assert left["chunks"] == chunks - docs["runbook.pdf"]["chunks"]

    assert instance_ids(data_dir / "devhost.sqlite3", collection_id)  # its ingestion
    assert alice.delete(f"/api/collections/{collection_id}").status_code == 204
    assert alice.get(f"/api/collections/{collection_id}").status_code == 404
    assert SqliteIndex(data_dir / "collections.sqlite3").count(collection_id) == 0
    assert instance_ids(data_dir / "devhost.sqlite3", collection_id) == []  # history purged


def test_someone_else_gets_the_unknown_id_404_and_the_admin_may_only_read(people):
    alice, bob, admin = people["alice"], people["bob"], people["admin"]
    collection_id = create(alice)
    files = [("file", ("runbook.pdf", PDF, "application/pdf"))]
    original = upload(alice, collection_id, files)["documents"][0]["links"]["original"]
    base = f"/api/collections/{collection_id}"
    unknown = {
        "error": {
            "code": "not_found",
            "message": f"unknown collection {collection_id!r}",
            "details": [],
        }
    }
    for response in (
        bob.get(base),
        bob.get(original),
        bob.delete(original),
        bob.delete(base),
        bob.post(f"{base}/documents", files=files, headers=UPLOAD),
        admin.get(original),  # originals go to their owner only
        admin.delete(base),
    ):
        assert response.status_code == 404, response.text
        assert response.json() == unknown
    listed = bob.get("/api/collections").json()["collections"]
    assert [c["collection_id"] for c in listed] == ["python-docs"]  # the built-in one only
    assert admin.get(base).status_code == 200
    assert [c["collection_id"] for c in alice.get("/api/collections").json()["collections"]] == [
        "python-docs",
        collection_id,
    ]
    assert alice.get(original).status_code == 200


def test_bad_uploads_are_refused_naming_what_is_wrong(people):
    alice = people["alice"]
    collection_id = create(alice)
    url = f"/api/collections/{collection_id}/documents"
    files = [("file", ("a.txt", b"a", "text/plain"))]
    no_header = alice.post(url, files=files)
    assert no_header.status_code == 403
    assert "X-Requested-With" in no_header.json()["error"]["message"]
    as_json = alice.post(url, json={"files": []})  # JSON is for {"urls": [...]}
    assert as_json.status_code == 422
    assert "urls" in str(as_json.json()["error"]["details"])
    plain = alice.post(url, content=b"notes", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415
    too_many = alice.post(url, files=files * 7, headers=UPLOAD)
    assert too_many.status_code == 422
    assert "collection_max_files_per_request" in too_many.json()["error"]["message"]
    empty = alice.post(url, files=[("other", ("a.txt", b"a", "text/plain"))], headers=UPLOAD)
    assert empty.status_code == 422
    assert alice.post("/api/collections", json={"name": "team-docs"}).status_code == 409
    assert alice.post("/api/collections", json={"name": ""}).status_code == 422


def test_ingestion_progress_arrives_as_server_sent_events(people):
    alice, bob = people["alice"], people["bob"]
    collection_id = create(alice)
    files = [("file", (f"n{i}.md", f"# Note {i}\n\nText {i}.".encode(), "x")) for i in range(3)]
    response = alice.post(
        f"/api/collections/{collection_id}/documents", files=files, headers=UPLOAD
    )
    assert response.status_code == 202
    url = f"/api/collections/{collection_id}/events"
    last, names = None, []
    deadline = time.monotonic() + INGEST_S
    while True:
        headers = {"Last-Event-ID": last} if last else {}
        event = alice.get(url, headers=headers)
        if event.status_code == 204:
            break
        assert event.status_code == 200 and event.headers["content-type"].startswith(
            "text/event-stream"
        )
        fields = dict(line.split(": ", 1) for line in event.text.splitlines() if ": " in line)
        if "id" in fields:
            last = fields["id"]
            names.append(fields["event"])
        assert time.monotonic() < deadline, names
    assert names[-1] == "ingested"
    assert last.startswith("0.3.0.")  # nothing queued, three ingested, none failed
    assert bob.get(url).status_code == 404


def test_a_delete_stopped_half_way_is_finished_by_its_owner_deleting_again(people, data_dir):
    """What a crash between a delete's steps leaves (the mark naming the owner written,
    ``collection.json`` gone, the records and originals still there): the collection no
    longer shows, someone else's DELETE is the unknown-id 404, the owner's finishes it."""
    alice, bob = people["alice"], people["bob"]
    collection_id = create(alice, "half-deleted")
    guide = ("guide.md", b"# Guide\n\nPage the on-call engineer.", "text/markdown")
    upload(alice, collection_id, [("file", guide)])
    folder = data_dir / "collections" / collection_id
    owner = json.loads((folder / "collection.json").read_text())["owner"]
    (folder / "deleting").write_text(json.dumps(owner))
    (folder / "collection.json").unlink()

    url = f"/api/collections/{collection_id}"
    assert alice.get(url).status_code == 404
    refused = bob.delete(url)
    assert refused.status_code == 404, refused.text
    assert refused.json()["error"]["message"] == f"unknown collection {collection_id!r}"
    assert any(folder.rglob("originals/*"))

    assert alice.delete(url).status_code == 204
    assert not folder.exists() or not any(folder.iterdir())
    assert SqliteIndex(data_dir / "collections.sqlite3").count(collection_id) == 0
    assert alice.delete(url).status_code == 404  # nothing left to finish
