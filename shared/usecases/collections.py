"""Collections: a person's documents, kept, indexed and deleted by the same owner rules as sessions.

- A collection belongs to the principal that created it. Its owner may read it and act
  on it (upload, delete); the admin role (``AUTH_ADMIN_ROLE``) may read it, never act;
  anyone else is told it does not exist (``NotFoundError``, 404), as for an unused id
  (the rule is ``shared.usecases.access``'s, applied to a collection's owner).
- Its records and originals live in ``Services.collection_files`` (one folder per
  collection: ``collection.json``, ``documents/{id}.json``, ``originals/{id}``), its
  chunks in ``Services.index``. Deleting removes all three.
- Retention (``SESSION_RETENTION_DAYS``) deletes collections not changed for that long,
  and finishes every delete that stopped half way (a folder with the ``deleting`` mark).
- The built-in collection (``Services.builtin_collection_id``, ``python-docs``: the
  service's Python documentation) is listed for everyone and anyone may read and
  research it; changing it (upload, delete) is a ``ConflictError`` (409) saying it is
  built in and read-only.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from shared.adapters.identity import Principal
from shared.core import names
from shared.core.collection_models import Collection, DocumentRecord
from shared.core.errors import ConflictError, InvalidInputError, NotFoundError
from shared.core.session_models import Owner
from shared.usecases import owned_ids
from shared.usecases.access import Action, is_admin
from shared.usecases.purge import Instances, stop_instance

if TYPE_CHECKING:
    from shared.ports import Services

audit = logging.getLogger("deepresearch.audit")
log = logging.getLogger(__name__)
COLLECTION_FILE = "collection.json"
DOCUMENTS = "documents/"
ORIGINALS = "originals/"
DELETING = "deleting"  # a delete's first write, naming the owner: ingestion checks it (still_there)
MAX_NAME_CHARS = 100


def may(principal: Principal, owner: Owner, action: Action, admin_role: str) -> bool:
    return owner == principal.owner or (action == "read" and is_admin(principal, admin_role))


def create_collection(svc: Services, principal: Principal, name: str) -> Collection:
    """A new empty collection; 409 for the built-in collection's name (a name that then
    meant two collections would send uploads to the read-only one) or one the caller has."""
    name = validate_name(name)
    if name.casefold() == svc.builtin_collection_id.casefold():
        raise ConflictError(
            f"{name!r} is the name of the built-in, read-only collection: choose another name"
        )
    if any(c.name == name for c in own_collections(svc, principal)):
        raise ConflictError(f"you already have a collection named {name!r}")
    now = datetime.now(UTC)
    collection = Collection(
        id=owned_ids.new_id(principal.owner),
        name=name,
        owner=principal.owner,
        created_at=now,
        updated_at=now,
    )
    save_collection(svc, collection)
    return collection


def validate_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS or any(ord(ch) < 32 for ch in name):
        raise InvalidInputError(
            f"a collection name is 1 to {MAX_NAME_CHARS} printable characters",
            [{"loc": ["name"], "msg": "invalid collection name", "type": "value_error"}],
        )
    return name


def list_collections(svc: Services, principal: Principal) -> list[Collection]:
    """The built-in collection, then the caller's own, newest first (a listing never shows
    anyone else's)."""
    return [svc.builtin_catalog().collection, *own_collections(svc, principal)]


def own_collections(svc: Services, principal: Principal) -> list[Collection]:
    """The caller's own collections, newest first: what a name given by the caller means
    (the built-in corpus is not loaded to answer). Only folders named for the caller
    are read (``owned_ids``)."""
    mine = []
    for folder in owned_ids.candidates(svc.collection_files.folders(), principal.owner):
        collection = _load(svc, folder)
        if collection is not None and collection.owner == principal.owner:
            mine.append(collection)
    return sorted(mine, key=lambda c: c.created_at, reverse=True)


def collection_for(
    svc: Services, principal: Principal, collection_id: str, action: Action = "read"
) -> Collection:
    """The collection if ``principal`` may ``action`` it; the unknown-id 404 otherwise
    (the built-in one: anyone may read it, nobody may act on it)."""
    if collection_id == svc.builtin_collection_id:
        if action != "read":
            raise ConflictError(
                f"collection {collection_id!r} is built in and read-only: "
                "documents cannot be added to it or deleted from it, nor it deleted"
            )
        return svc.builtin_catalog().collection
    collection = _load(svc, collection_id)
    if collection is None or not may(
        principal, collection.owner, action, svc.settings.auth_admin_role
    ):
        raise NotFoundError(f"unknown collection {collection_id!r}")
    if collection.owner != principal.owner:
        audit.warning(
            "admin %s (tenant %s) read collection %s of another principal",
            principal.id,
            principal.tenant,
            collection.id,
        )
    return collection


def check_sources(
    svc: Services, principal: Principal, collection_ids: list[str] | None, web: bool | None
) -> None:
    """A research may name only its caller's own collections (else the unknown-id 404),
    and a documents-only one (``web: false``) must name at least one."""
    for collection_id in collection_ids or []:
        if collection_id != svc.builtin_collection_id:  # anyone may research the built-in
            collection_for(svc, principal, collection_id, "act")
    if web is False and not collection_ids:
        raise InvalidInputError(
            "options.web false leaves nothing to research: name options.collections",
            [{"loc": ["options", "collections"], "msg": "required when web is false"}],
        )


def save_collection(svc: Services, collection: Collection) -> None:
    svc.collection_files.write(
        collection.id, COLLECTION_FILE, collection.model_dump_json(), "application/json"
    )


def touch(svc: Services, collection: Collection) -> None:
    """Mark the collection changed now (retention counts from its last change)."""
    save_collection(svc, collection.model_copy(update={"updated_at": datetime.now(UTC)}))


def documents(svc: Services, collection_id: str) -> list[DocumentRecord]:
    if collection_id == svc.builtin_collection_id:
        return svc.builtin_catalog().documents
    names = [n for n in svc.collection_files.list(collection_id) if n.startswith(DOCUMENTS)]
    records = []
    for name in names:
        try:
            raw = svc.collection_files.read(collection_id, name)
        except NotFoundError:
            continue  # deleted while listing
        records.append(DocumentRecord.model_validate_json(raw))
    return sorted(records, key=lambda d: d.name)


def document(svc: Services, collection_id: str, document_id: str) -> DocumentRecord:
    if collection_id == svc.builtin_collection_id:
        found = [d for d in svc.builtin_catalog().documents if d.id == document_id]
        if not found:
            raise NotFoundError(f"unknown document {document_id!r}")
        return found[0]
    try:
        raw = svc.collection_files.read(collection_id, f"{DOCUMENTS}{document_id}.json")
    except (NotFoundError, InvalidInputError) as exc:
        raise NotFoundError(f"unknown document {document_id!r}") from exc
    return DocumentRecord.model_validate_json(raw)


def save_document(svc: Services, record: DocumentRecord) -> None:
    svc.collection_files.write(
        record.collection_id,
        f"{DOCUMENTS}{record.id}.json",
        record.model_dump_json(),
        "application/json",
    )


def original(svc: Services, collection_id: str, document_id: str) -> tuple[DocumentRecord, bytes]:
    """The document's record and the bytes it was uploaded as."""
    record = document(svc, collection_id, document_id)
    try:
        return record, svc.collection_files.read(collection_id, f"{ORIGINALS}{document_id}")
    except NotFoundError as exc:
        raise NotFoundError(f"document {document_id!r} has no stored original") from exc


def delete_document(svc: Services, collection: Collection, document_id: str) -> None:
    """Chunks first, then the original, then the record: a half-done delete can be redone."""
    document(svc, collection.id, document_id)  # 404 for an unknown one
    svc.index.delete_document(collection.id, document_id)
    for name in (f"{ORIGINALS}{document_id}", f"{DOCUMENTS}{document_id}.json"):
        svc.collection_files.delete_file(collection.id, name)
    touch(svc, collection)


def delete_collection(svc: Services, collection_id: str) -> int:
    """Marked ``deleting``, then its chunks, ``collection.json``, every other file; chunks deleted.

    The order is what lets an ingestion still running win no race (``still_there``):
    from the mark on, it undoes what it wrote, and what it wrote before the mark is
    deleted after it. The mark records the owner, so a delete stopped half way (files
    left, ``collection.json`` maybe gone) is finished by its owner deleting again
    (``collection_to_delete``) or by the next retention run."""
    files = svc.collection_files
    if not files.exists(collection_id, DELETING):
        found = _load(svc, collection_id)
        owner = found.owner.model_dump_json() if found is not None else ""
        files.write(collection_id, DELETING, owner, "application/json")
    chunks = svc.index.delete_collection(collection_id)
    files.delete_file(collection_id, COLLECTION_FILE)
    files.delete_session(collection_id)
    return chunks


def collection_to_delete(svc: Services, principal: Principal, collection_id: str) -> str:
    """The id ``principal`` may delete: its own collection, or the folder of a delete of
    its own that stopped half way (the mark names it as owner); else ``collection_for``'s
    404 (409 for the built-in one)."""
    if collection_id != svc.builtin_collection_id and _deleting_owner(svc, collection_id) == (
        principal.owner
    ):
        return collection_id
    return collection_for(svc, principal, collection_id, "act").id


def _deleting_owner(svc: Services, collection_id: str) -> Owner | None:
    """The owner a ``deleting`` mark records; None without a mark (or an unreadable one)."""
    try:
        raw = svc.collection_files.read(collection_id, DELETING)
        return Owner.model_validate_json(raw)
    except (NotFoundError, InvalidInputError, ValueError):
        return None


def still_there(svc: Services, collection_id: str) -> bool:
    """False from the moment a delete of the collection began (the mark first, and
    ``collection.json`` gone before the mark is)."""
    files = svc.collection_files
    return not files.exists(collection_id, DELETING) and files.exists(
        collection_id, COLLECTION_FILE
    )


async def purge_collection(svc: Services, instances: Instances, collection_id: str) -> int:
    """Everything of a collection, its ingestions' Durable histories included; chunks deleted.

    Running ingestions stop first, so none writes after the delete."""
    ids = await instances.ids_with_prefix(f"{collection_id}{names.INSTANCE_SEPARATOR}")
    for instance_id in ids:
        await stop_instance(instances, instance_id, "collection deleted")
    chunks = await asyncio.to_thread(delete_collection, svc, collection_id)
    for instance_id in ids:
        await instances.purge(instance_id)
    return chunks


async def purge_expired_collections(
    svc: Services, instances: Instances, now: datetime
) -> list[str]:
    """Delete collections unchanged for more than ``SESSION_RETENTION_DAYS``, and finish
    every delete that stopped half way (with or without the setting); their ids."""
    days = svc.settings.session_retention_days
    cutoff = now - timedelta(days=days) if days else None
    purged = []
    for folder in await asyncio.to_thread(svc.collection_files.folders):
        try:
            if await asyncio.to_thread(svc.collection_files.exists, folder, DELETING):
                await purge_collection(svc, instances, folder)
                purged.append(folder)
                continue
            collection = await asyncio.to_thread(_load, svc, folder)
            if collection is not None and cutoff is not None and collection.updated_at < cutoff:
                await purge_collection(svc, instances, collection.id)
                purged.append(collection.id)
        except Exception:
            log.exception("retention: could not purge collection %s", folder)
    return purged


def _load(svc: Services, collection_id: str) -> Collection | None:
    try:
        raw = svc.collection_files.read(collection_id, COLLECTION_FILE)
    except (NotFoundError, InvalidInputError):
        return None
    return Collection.model_validate_json(raw)
