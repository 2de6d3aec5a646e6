"""Collections over HTTP (shared/usecases/collections.py, shared/usecases/ingestion.py).

- ``POST /api/collections`` ``{"name"}`` → 201 ``{"collection_id", ...}``; ``GET`` lists the
  caller's own.
- ``GET|DELETE /api/collections/{collection_id}``: the collection with its documents
  (status, chunks, errors) | everything gone (chunks, originals, records).
- ``POST /api/collections/{collection_id}/documents``: a ``multipart/form-data`` upload
  (``file``, one or more), or JSON ``{"urls": [...], "crawl_depth": 0-2}``: the pages
  (and, to that depth, their links on the same site) fetched through the SSRF guard.
  Originals and records are stored, then an ingestion orchestration
  (orchestrators/ingest.py) parses, chunks and indexes each new or changed document:
  202 with the documents ``queued``, and their status on ``GET`` as they finish (a
  corrupt or oversized file is a ``failed`` document naming why, the rest are
  ingested); 200 when every file was already there unchanged.
- ``GET|DELETE .../documents/{document_id}``: the stored original, to its owner only
  (PDF inline, so a citation's ``#page=N`` opens that page; anything else as an
  attachment, never rendered on this origin) | the document gone.

Another person gets the unknown-id 404 on every route; the admin role may read.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated

import azure.durable_functions as df
import azure.functions as func
from pydantic import BaseModel, ConfigDict, Field

from api.caller import caller
from api.collection_schemas import CollectionSummary
from api.errors import HttpError, handled, json_response, read_json
from api.purge import DurableInstances
from api.transport import http_function, large_body
from shared.adapters.identity import Principal
from shared.bootstrap import services
from shared.core import names
from shared.core.collection_models import Collection, DocumentRecord, DocumentStatus, IngestIn
from shared.core.limits import COLLECTION_MAX_CRAWL_DEPTH
from shared.usecases import collections as uc
from shared.usecases.access import Action
from shared.usecases.crawl import crawl
from shared.usecases.ingestion import Upload, add_documents

bp = df.Blueprint()
PDF = "application/pdf"
FORM = "multipart/form-data"
JSON = "application/json"


class CollectionCreate(BaseModel):
    name: str = Field(min_length=1, max_length=uc.MAX_NAME_CHARS)


class UrlIngest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    urls: list[Annotated[str, Field(pattern=r"^https?://", max_length=2000)]] = Field(min_length=1)
    crawl_depth: int = Field(0, ge=0, le=COLLECTION_MAX_CRAWL_DEPTH)


UPLOAD_CAP = "collection_max_request_bytes"  # the setting a too large upload is refused by


def _media(req: func.HttpRequest) -> str:
    return req.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


@bp.route(route="collections", methods=["POST"])
@http_function
@handled
async def create_collection(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    body = CollectionCreate.model_validate(read_json(req))
    collection = await asyncio.to_thread(uc.create_collection, svc, principal, body.name)
    view = collection_view(collection, [])
    return json_response(view, status=201, headers={"Location": view["links"]["self"]})


@bp.route(route="collections", methods=["GET"])
@http_function
@handled
async def list_collections(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    found = await asyncio.to_thread(uc.list_collections, svc, principal)
    return json_response({"collections": [collection_view(c, None) for c in found]})


@bp.route(route="collections/{collection_id}", methods=["GET"])
@http_function
@handled
async def collection_status(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    _, collection = await route_collection(req, "read")
    docs = await asyncio.to_thread(uc.documents, svc, collection.id)
    return json_response(collection_view(collection, docs))


@bp.route(route="collections/{collection_id}", methods=["DELETE"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def delete_collection(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    collection_id = req.route_params.get("collection_id", "")
    found = await asyncio.to_thread(uc.collection_to_delete, svc, principal, collection_id)
    await uc.purge_collection(svc, DurableInstances(client), found)
    return func.HttpResponse(status_code=204)


@bp.route(route="collections/{collection_id}/documents", methods=["POST"])
@bp.durable_client_input(client_name="client")
@large_body(lambda: (services().settings.collection_max_request_bytes, UPLOAD_CAP))
@handled
async def add_collection_documents(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    _, collection = await route_collection(req, "act")
    if _media(req) == JSON:  # {"urls": [...], "crawl_depth": 0-2}: fetched, then ingested
        body = UrlIngest.model_validate(read_json(req))
        job = (svc, collection, body.urls, body.crawl_depth)
        added = await asyncio.to_thread(crawl, *job)
    else:
        uploads = _uploads(req, svc.settings.collection_max_request_bytes)
        added = await asyncio.to_thread(add_documents, svc, collection, uploads)
    queued = [item.record.id for item in added if item.changed]
    instance_id = None
    if queued:
        role = f"{names.INGEST_ROLE}-{uuid.uuid4().hex[:12]}"
        instance_id = names.session_instance_id(collection.id, role)
        job = IngestIn(collection_id=collection.id, document_ids=queued)
        await client.start_new(names.INGEST_ORCHESTRATOR, instance_id, job.model_dump())
    base = f"/api/collections/{collection.id}"
    view = {
        "collection_id": collection.id,
        "ingestion_id": instance_id,
        "documents": [document_view(item.record) for item in added],
        "unchanged": [item.record.id for item in added if item.unchanged],
        "links": {"status": base},
    }
    if not queued:  # nothing to ingest: the answer is final
        return json_response(view, status=200)
    return json_response(view, status=202, headers={"Location": base, "Retry-After": "1"})


@bp.route(route="collections/{collection_id}/documents/{document_id}", methods=["GET"])
@http_function
@handled
async def collection_document(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    _, collection = await route_collection(req, "act")  # the owner only, admin included
    doc_id = req.route_params.get("document_id", "")
    record, data = await asyncio.to_thread(uc.original, svc, collection.id, doc_id)
    if record.media_type == PDF:
        disposition, mimetype = "inline", PDF
    else:
        disposition, mimetype = "attachment", "application/octet-stream"
    safe_name = record.name.encode("ascii", "replace").decode().replace('"', "'")
    headers = {
        "Content-Disposition": f'{disposition}; filename="{safe_name}"',
        "Content-Security-Policy": "sandbox",
        "Cache-Control": "private, no-store",
    }
    return func.HttpResponse(data, status_code=200, mimetype=mimetype, headers=headers)


@bp.route(route="collections/{collection_id}/documents/{document_id}", methods=["DELETE"])
@http_function
@handled
async def delete_collection_document(req: func.HttpRequest) -> func.HttpResponse:
    _, collection = await route_collection(req, "act")
    doc_id = req.route_params.get("document_id", "")
    await asyncio.to_thread(uc.delete_document, services(), collection, doc_id)
    return func.HttpResponse(status_code=204)


async def route_collection(req: func.HttpRequest, action: Action) -> tuple[Principal, Collection]:
    svc = services()
    principal = await caller(req, svc)
    collection_id = req.route_params.get("collection_id", "")
    found = await asyncio.to_thread(uc.collection_for, svc, principal, collection_id, action)
    return principal, found


def _uploads(req: func.HttpRequest, max_bytes: int) -> list[Upload]:
    """The request's ``file`` parts; 413/415/422 naming what is wrong."""
    if _media(req) != FORM:
        raise HttpError(
            415,
            "unsupported_media_type",
            f"send the documents as {FORM} with 'file' parts, or {JSON} with 'urls'",
        )
    body = req.get_body() or b""
    if len(body) > max_bytes:
        raise HttpError(
            413,
            "payload_too_large",
            f"request body is over {UPLOAD_CAP} ({max_bytes})",
            [{"limit": UPLOAD_CAP, "value": max_bytes}],
        )
    files = req.files.getlist("file")
    if not files:
        raise HttpError(422, "validation_error", "no 'file' part in the upload")
    return [Upload(name=f.filename or "", data=f.read()) for f in files]


def collection_view(collection: Collection, docs: list[DocumentRecord] | None) -> dict:
    base = f"/api/collections/{collection.id}"
    summary = CollectionSummary(
        collection_id=collection.id,
        name=collection.name,
        built_in=collection.built_in,
        read_only=collection.built_in,
        created_at=collection.created_at,
        updated_at=collection.updated_at,
        links={"self": base, "documents": f"{base}/documents"},
    )
    view: dict = summary.model_dump(mode="json")
    if docs is not None:
        view["documents"] = [document_view(d, collection.built_in) for d in docs]
        view["chunks"] = sum(d.chunks for d in docs)
        view["progress"] = {s.value: sum(d.status == s for d in docs) for s in DocumentStatus}
    return view


def document_view(record: DocumentRecord, built_in: bool = False) -> dict:
    """A document as the routes show it; a built-in one has no stored original to link
    (its ``name`` is its ``corpus://`` citation address)."""
    view = record.model_dump(mode="json", exclude={"collection_id", "id"})
    view["document_id"] = record.id
    base = f"/api/collections/{record.collection_id}/documents/{record.id}"
    view["links"] = {} if built_in else {"original": base}
    return view
