"""Replays of the ingestion orchestration (orchestrators/ingest.py): one activity per
document, all in flight at once; a document whose activity fails for good counts as
failed and the others still finish; the history replays to the same output."""

from __future__ import annotations

import json
from typing import Any

import function_app
from devhost.registry import index
from shared.core import names
from shared.core.collection_models import IngestDocumentOut
from shared.core.payloads import FAILURE_KEY
from tests.fakes.durable_history import Replay, replay

ORCHESTRATOR = index(function_app.app).orchestrators[names.INGEST_ORCHESTRATOR]
JOB = {"collection_id": "c1", "document_ids": ["d1", "d2", "d3"]}


def ingested(chunks: int) -> Any:
    def respond(name: str, request: Any) -> Any:
        assert name == names.INGEST_DOCUMENT
        out = IngestDocumentOut(
            document_id=request["document_id"], status="ingested", chunks=chunks
        )
        return out.model_dump(mode="json")

    return respond


def test_every_document_is_fanned_out_at_once_and_counted() -> None:
    flow = Replay(ORCHESTRATOR, JOB).start()
    inputs = [a.input for a in flow.activities(names.INGEST_DOCUMENT)]
    assert inputs == [{"collection_id": "c1", "document_id": d} for d in JOB["document_ids"]]
    assert flow.custom_status["done"] == 0 and flow.custom_status["total"] == 3

    flow.run_activities(ingested(4))
    assert flow.done and flow.error is None
    assert flow.output == {
        "phase": "done",
        "total": 3,
        "done": 3,
        "ingested": 3,
        "failed": 0,
        "chunks": 12,
    }


def test_a_failed_document_is_counted_and_the_rest_still_finish() -> None:
    flow = Replay(ORCHESTRATOR, JOB).start()
    first, second, third = flow.activities(names.INGEST_DOCUMENT)
    flow.fail_for_good(first.task_id, "TransientError: disk busy")
    envelope = {FAILURE_KEY: {"kind": "permanent", "error": "NotFoundError: gone"}}
    flow.complete(second.task_id, envelope)
    assert not flow.done and flow.custom_status["done"] == 2
    flow.complete(third.task_id, ingested(2)(names.INGEST_DOCUMENT, third.input))

    assert flow.done
    assert (flow.output["ingested"], flow.output["failed"], flow.output["chunks"]) == (1, 2, 2)


def test_the_history_replays_to_the_same_output() -> None:
    flow = Replay(ORCHESTRATOR, JOB).start().run_activities(ingested(1))
    state = replay(ORCHESTRATOR, json.dumps(JOB), flow.history)
    assert state["isDone"] and state["output"] == flow.output
