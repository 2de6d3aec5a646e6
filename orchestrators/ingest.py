"""Ingesting one upload into a collection: one activity per document, fanned out.

The documents' originals and records are stored before this starts, so the input
is ids only. Each ``ingest_document`` is idempotent (it swaps in the document's
chunks in one step), which is what makes a run resumed after a crash end with
exactly the chunks of a clean run. A document that cannot be read is a ``failed``
record, not a failed activity; an activity that still fails after its retries
counts as failed here and the rest go on. The custom status counts the documents
done, for ``GET /api/collections/{collection_id}`` and its events.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators.common import call
from shared.core import names
from shared.core.collection_models import (
    DocumentStatus,
    IngestDocumentIn,
    IngestDocumentOut,
    IngestIn,
    IngestProgress,
)
from shared.core.payloads import FAILURE_KEY

bp = df.Blueprint()


@bp.orchestration_trigger(context_name="context")
def ingest_orchestrator(context: df.DurableOrchestrationContext):
    job = IngestIn.model_validate(context.get_input())
    progress = IngestProgress(total=len(job.document_ids))
    tasks = [
        call(
            context,
            names.INGEST_DOCUMENT,
            IngestDocumentIn(collection_id=job.collection_id, document_id=doc),
        )
        for doc in job.document_ids
    ]
    context.set_custom_status(progress.model_dump())
    pending = list(tasks)
    while pending:
        done = yield context.task_any(pending)
        pending = [task for task in pending if task is not done]
        _count(progress, done.result)
        context.set_custom_status(progress.model_dump())
    progress.phase = "done"
    context.set_custom_status(progress.model_dump())
    return progress.model_dump()


def _count(progress: IngestProgress, result: object) -> None:
    progress.done += 1
    if isinstance(result, dict) and FAILURE_KEY not in result:
        out = IngestDocumentOut.model_validate(result)
        if out.status == DocumentStatus.ingested:
            progress.ingested += 1
            progress.chunks += out.chunks
            return
    progress.failed += 1
