"""MCP tools for collections: list them, add a text document, read a collection's status.

The same use cases as the HTTP routes (api/collections.py), with the MCP caller of
``api.caller.tool_caller``. ``add_document`` takes text (Markdown, plain text or
HTML) rather than a file: tool arguments are JSON, and a model has text in hand.
It finds the caller's collection by name or creates it, stores the document and
starts the same ingestion orchestration as an upload; ``get_collection`` shows its
progress. To research a collection, pass its id in ``start_research``'s
``options.collections``.

No ``from __future__ import annotations``: ``mcp_tool`` reads the annotations at
import to build each tool's input schema (see api/mcp_tools.py).
"""

import asyncio
import uuid

import azure.durable_functions as df

from api.caller import tool_caller
from api.collections import collection_view, document_view
from api.mcp_tools import tool_result
from shared.bootstrap import services
from shared.core import names
from shared.core.collection_models import IngestIn
from shared.usecases import collections as uc
from shared.usecases.ingestion import Upload, add_documents

bp = df.Blueprint()


@bp.function_name("mcp_list_collections")
@bp.mcp_tool(use_result_schema=True)
@tool_result
async def list_collections() -> dict:
    """
    The caller's document collections (id, name). Research one by passing its id in
    start_research's options.collections; add options.web false to leave the web out."""
    svc = services()
    found = await asyncio.to_thread(uc.list_collections, svc, tool_caller(svc))
    return {"collections": [collection_view(c, None) for c in found]}


@bp.function_name("mcp_get_collection")
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="collection_id", description="A collection id.")
@tool_result
async def get_collection(collection_id: str) -> dict:
    """
    A collection with its documents: each one's ingestion status (queued, ingested,
    failed with the reason), chunk count and pages."""
    svc = services()
    collection = await asyncio.to_thread(uc.collection_for, svc, tool_caller(svc), collection_id)
    docs = await asyncio.to_thread(uc.documents, svc, collection.id)
    return collection_view(collection, docs)


@bp.function_name("mcp_add_document")
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="collection", description="The collection's name (created if new).")
@bp.mcp_tool_property(
    arg_name="file_name",
    description="The document's name with its extension (.md, .txt or .html); the same name "
    "again replaces the document when its text changed.",
)
@bp.mcp_tool_property(arg_name="text", description="The document's text.")
@bp.durable_client_input(client_name="client")
@tool_result
async def add_document(
    collection: str, file_name: str, text: str, client: df.DurableOrchestrationClient
) -> dict:
    """
    Add a text document to one of the caller's collections and start its ingestion;
    follow it with get_collection until its status is ingested."""
    svc = services()
    principal = tool_caller(svc)
    found = await asyncio.to_thread(uc.own_collections, svc, principal)
    target = next((c for c in found if c.name == collection.strip()), None)
    if target is None:  # the built-in's name is refused here (409: read-only)
        target = await asyncio.to_thread(uc.create_collection, svc, principal, collection)
    upload = Upload(name=file_name, data=text.encode("utf-8"))
    [added] = await asyncio.to_thread(add_documents, svc, target, [upload])
    if added.changed:
        role = f"{names.INGEST_ROLE}-{uuid.uuid4().hex[:12]}"
        job = IngestIn(collection_id=target.id, document_ids=[added.record.id])
        await client.start_new(
            names.INGEST_ORCHESTRATOR,
            names.session_instance_id(target.id, role),
            job.model_dump(),
        )
    return {"collection_id": target.id, "document": document_view(added.record)}
