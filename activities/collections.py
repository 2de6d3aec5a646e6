"""The ingestion activity: one document of a collection parsed, chunked and indexed."""

from __future__ import annotations

import azure.durable_functions as df

from activities.common import run_step
from shared.core.collection_models import IngestDocumentIn, IngestDocumentOut
from shared.ports import Services
from shared.usecases.ingestion import ingest_document as ingest

bp = df.Blueprint()


@bp.activity_trigger(input_name="payload")
def ingest_document(payload: dict) -> dict:
    return run_step(payload, IngestDocumentIn, _ingest)


def _ingest(svc: Services, request: IngestDocumentIn) -> IngestDocumentOut:
    record = ingest(svc, request.collection_id, request.document_id)
    return IngestDocumentOut(document_id=record.id, status=record.status, chunks=record.chunks)
