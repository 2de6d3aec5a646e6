"""A collection deleted while one of its documents is being ingested stays deleted.

The ingestion runs on the real local adapters (SQLite FTS5 index, filesystem store);
its index is wrapped in a gate that holds it just before or just after it writes the
chunks, so the delete runs exactly there: events, no sleeps."""

from __future__ import annotations

import threading

import pytest

from shared.adapters.identity import system_principal
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.errors import NotFoundError
from shared.usecases import collections as uc
from shared.usecases.ingestion import Upload, add_documents, ingest_document

WAIT = 30  # seconds: a deadline, never a pause


class GatedIndex:
    """The real index, held around ``replace_document`` until the test lets it go."""

    def __init__(self, inner, hold: str) -> None:
        self._inner, self._hold = inner, hold
        self.reached, self.go_on = threading.Event(), threading.Event()

    def replace_document(self, *args, **kwargs) -> int:
        if self._hold == "before":
            self._wait()
        count = self._inner.replace_document(*args, **kwargs)
        if self._hold == "after":
            self._wait()
        return count

    def _wait(self) -> None:
        self.reached.set()
        assert self.go_on.wait(WAIT)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


@pytest.mark.parametrize("hold", ["before", "after"])
def test_an_ingestion_running_when_its_collection_is_deleted_writes_nothing_back(
    tmp_path, hold: str
) -> None:
    svc = AppServices(Settings(data_dir=tmp_path))
    real = svc.index
    owner = system_principal("ingest-vs-delete")
    collection = uc.create_collection(svc, owner, "doomed")
    [added] = add_documents(svc, collection, [Upload("runbook.md", b"# Pumps\n\nSeal check.")])
    gate = GatedIndex(real, hold)
    svc.index = gate  # the port, wrapped; the code under test is not touched
    outcome: list[BaseException | None] = []

    def ingest() -> None:
        try:
            ingest_document(svc, collection.id, added.record.id)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=ingest)
    worker.start()
    assert gate.reached.wait(WAIT)
    uc.delete_collection(svc, collection.id)  # what DELETE does once the instance is stopped
    gate.go_on.set()
    worker.join(WAIT)

    assert isinstance(outcome[0], NotFoundError)  # the activity says why it wrote nothing
    assert real.count(collection.id) == 0
    assert real.search([collection.id], "seal check", 5) == []
    assert svc.collection_files.list(collection.id) == []
    with pytest.raises(NotFoundError):
        uc.collection_for(svc, owner, collection.id, "read")


def test_an_ingestion_that_ends_before_the_delete_is_deleted_with_it(tmp_path) -> None:
    svc = AppServices(Settings(data_dir=tmp_path))
    collection = uc.create_collection(svc, system_principal("ingest-vs-delete"), "kept")
    [added] = add_documents(svc, collection, [Upload("a.md", b"# A\n\nSeal check.")])
    assert ingest_document(svc, collection.id, added.record.id).chunks == 1
    assert uc.delete_collection(svc, collection.id) == 1
    assert svc.index.count(collection.id) == 0
    assert svc.collection_files.list(collection.id) == []
