"""Adding documents to a collection, and ingesting one: parse, chunk, index.

Uploading stores each original and its record (``queued``) first, so ingestion
reads everything it needs by reference. A document's id comes from its name and
its record keeps the content hash: the same bytes again are a no-op, changed bytes
queue the document again and ingesting it replaces its chunks. ``ingest_document``
is idempotent (it recomputes the same chunks and swaps them in one step), so it
can run again after a crash or a retry and end with exactly one copy of each chunk.
With an embedding model, each chunk is stored with its vector (``chunk_vectors``).
A document that cannot be read, or is over the size limit, becomes a ``failed``
record naming why; the other documents of the batch go on. An ingestion that
finds its collection being deleted after writing undoes its writes, so a deleted
collection stays deleted (``_unless_deleted``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from shared.adapters.documents.base import UnreadableDocument
from shared.adapters.documents.chunking import chunk_document
from shared.core.collection_models import (
    Collection,
    DocumentRecord,
    DocumentStatus,
    VectorState,
    content_hash,
    document_id,
)
from shared.core.errors import InvalidInputError, NotFoundError
from shared.usecases.chunk_vectors import chunk_vectors
from shared.usecases.collections import (
    DOCUMENTS,
    ORIGINALS,
    documents,
    save_document,
    still_there,
    touch,
)
from shared.usecases.collections import document as load_document

if TYPE_CHECKING:
    from shared.ports import Services

MAX_FILE_NAME_CHARS = 200
MAX_URL_CHARS = 2000


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes


@dataclass(frozen=True)
class Added:
    record: DocumentRecord
    changed: bool  # True: to ingest; False: already there unchanged, or refused
    unchanged: bool = False  # the same bytes under the same name were there already


def add_documents(svc: Services, collection: Collection, uploads: list[Upload]) -> list[Added]:
    """Store each upload's original and record; the ones to ingest have ``changed``.

    An upload over ``collection_max_file_bytes`` is recorded as ``failed`` naming the
    limit (its earlier version, if any, is gone: the person meant to replace it)."""
    settings = svc.settings
    if len(uploads) > settings.collection_max_files_per_request:
        raise InvalidInputError(
            f"{len(uploads)} files in one request: over collection_max_files_per_request "
            f"({settings.collection_max_files_per_request})",
            [{"limit": "collection_max_files_per_request", "value": len(uploads)}],
        )
    known = {d.id: d for d in documents(svc, collection.id)}
    names = [_file_name(u.name) for u in uploads]
    new = {document_id(collection.id, n) for n in names} - known.keys()
    if len(known) + len(new) > settings.collection_max_documents:
        raise InvalidInputError(
            f"the collection would hold {len(known) + len(new)} documents: over "
            f"collection_max_documents ({settings.collection_max_documents})",
            [{"limit": "collection_max_documents", "value": len(known) + len(new)}],
        )
    pairs = zip(names, uploads, strict=True)
    added = [_add(svc, collection, name, u.data, known) for name, u in pairs]
    touch(svc, collection)
    return added


def _add(
    svc: Services,
    collection: Collection,
    name: str,
    data: bytes,
    known: dict[str, DocumentRecord],
) -> Added:
    doc_id = document_id(collection.id, name)
    digest = content_hash(data)
    previous = known.get(doc_id)
    if (
        previous is not None
        and previous.content_hash == digest
        and not _wants_vectors(svc, previous)
    ):
        return Added(previous, changed=False, unchanged=True)
    record = DocumentRecord(
        id=doc_id,
        collection_id=collection.id,
        name=name,
        media_type="",
        size=len(data),
        content_hash=digest,
        updated_at=datetime.now(UTC),
    )
    limit = svc.settings.collection_max_file_bytes
    if len(data) > limit:
        record.status, record.error = (
            DocumentStatus.failed,
            f"{len(data)} bytes: over collection_max_file_bytes ({limit})",
        )
        svc.index.delete_document(collection.id, doc_id)
        svc.collection_files.delete_file(collection.id, f"{ORIGINALS}{doc_id}")
        save_document(svc, record)
        return Added(record, changed=False)
    svc.collection_files.write(collection.id, f"{ORIGINALS}{doc_id}", data, "")
    save_document(svc, record)
    return Added(record, changed=True)


def ingest_document(svc: Services, collection_id: str, doc_id: str) -> DocumentRecord:
    """Parse, chunk and index one stored document; record what came of it."""
    try:
        record = load_document(svc, collection_id, doc_id)
        data = svc.collection_files.read(collection_id, f"{ORIGINALS}{doc_id}")
    except NotFoundError:  # deleted since it was queued: nothing to do
        svc.index.delete_document(collection_id, doc_id)
        raise
    if content_hash(data) != record.content_hash:
        return record  # replaced since: the newer upload's ingestion does the work
    try:
        kind, parsed = svc.parser.parse(record.name, data)
    except UnreadableDocument as exc:
        svc.index.delete_document(collection_id, doc_id)
        failed = record.model_copy(
            update={"status": DocumentStatus.failed, "error": str(exc), "chunks": 0}
        )
        failed.updated_at = datetime.now(UTC)
        save_document(svc, failed)
        _unless_deleted(svc, collection_id, doc_id)
        return failed
    chunks = chunk_document(parsed, collection_id, doc_id, record.name)
    embedded = chunk_vectors(svc, collection_id, doc_id, chunks)
    count = svc.index.replace_document(collection_id, doc_id, chunks, embedded.vectors)
    done = record.model_copy(
        update={
            "status": DocumentStatus.ingested,
            "media_type": kind,
            "title": parsed.title,
            "pages": parsed.pages,
            "chunks": count,
            "error": None,
            "vectors": embedded.state,
            "vector_error": embedded.error,
            "updated_at": datetime.now(UTC),
        }
    )
    save_document(svc, done)
    _unless_deleted(svc, collection_id, doc_id)
    return done


def _unless_deleted(svc: Services, collection_id: str, doc_id: str) -> None:
    """Undo this ingestion's writes if the collection's delete has begun meanwhile.

    Checked after writing, so either the check sees the delete's mark, or the writes
    came before the mark and the delete (which runs after it) removes them."""
    if still_there(svc, collection_id):
        return
    svc.index.delete_document(collection_id, doc_id)
    for name in (f"{ORIGINALS}{doc_id}", f"{DOCUMENTS}{doc_id}.json"):
        svc.collection_files.delete_file(collection_id, name)
    raise NotFoundError(f"collection {collection_id!r} was deleted while {doc_id!r} was ingested")


def _wants_vectors(svc: Services, record: DocumentRecord) -> bool:
    """An ingested document without vectors while an embedder is set: the same file
    uploaded again is ingested again, to embed it (after a failed embeddings call, or
    when EMBEDDING_MODEL was set after it was ingested)."""
    return (
        svc.embedder is not None
        and record.status == DocumentStatus.ingested
        and record.vectors != VectorState.stored
    )


def _file_name(name: str) -> str:
    """The upload's base name (a browser may send a path), or a fetched page's URL as it
    is; 422 when nothing is left."""
    if name.startswith(("http://", "https://")) and len(name) <= MAX_URL_CHARS:
        return name
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base in (".", "..") or len(base) > MAX_FILE_NAME_CHARS:
        raise InvalidInputError(
            f"invalid file name {name!r}",
            [{"loc": ["file"], "msg": "invalid file name", "type": "value_error"}],
        )
    return base
