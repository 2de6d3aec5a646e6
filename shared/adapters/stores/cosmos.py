"""SessionStore on Azure Cosmos DB (NoSQL API, sync ``azure-cosmos`` client).

One container, partition key ``/chat_id``, three kinds of documents told apart
by ``type``:

- ``session``: the SessionRecord JSON, ``id`` = session id, plus ``created_ts``
  and ``updated_ts`` (epoch seconds) so ordering and retention do not depend
  on how timestamps were written, and the ``owner_slot`` it took (``cosmos_quotas.py``);
- ``lock``: ``_lock-active-deep-research`` in a chat's partition, pointing at
  the chat's active deep research session (``cosmos_slots.py``);
- ``owner_slot`` / ``owner_day``: an owner's quota counts, in a partition of
  the owner's own (``cosmos_quotas.py``);
- ``message``: a chat message; ``chunk``: an answer's piece (``cosmos_history``, ``_chunks``).

System ids start with ``_``, which a session id never does, so they cannot
collide. Session ids are unique per chat (Cosmos ids are unique per
partition); they are generated uuids, so that is enough in practice.

Only features the local stand-in has are used: point operations with ETag
conditions, parameterised queries with ORDER BY and TOP. No OFFSET/LIMIT,
transactional batch, TTL or change feed.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from azure.core import MatchConditions
from azure.cosmos import exceptions as cosmos_errors

from shared.adapters.stores.base import (
    ACTIVE_SQL,
    mutated_copy,
    supersede_each,
    validate_session_id,
)
from shared.adapters.stores.cosmos_chunks import CosmosChunks
from shared.adapters.stores.cosmos_history import ChatHistory
from shared.adapters.stores.cosmos_quotas import SLOT_FIELD, OwnerQuotas, holds_owner_slot
from shared.adapters.stores.cosmos_sdk import open_container, query_items, translated
from shared.adapters.stores.cosmos_slots import ChatSlots, holds_slot
from shared.adapters.stores.quota import StartQuota
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, ConflictError, NotFoundError, TransientError
from shared.core.session_models import ChatMessage, Mode, Owner, SessionRecord, Usage
from shared.core.stream_models import AnswerChunk

MAX_UPDATE_ATTEMPTS = 10
MAX_REMEMBERED_CHATS = 10_000


class CosmosSessionStore:
    """Sessions, the active-session locks and chat history in one Cosmos container."""

    kind = "cosmos"

    def __init__(self, settings: Settings, client_options: dict[str, Any] | None = None) -> None:
        """``client_options``: extra ``CosmosClient`` keywords (see ``open_container``)."""
        if not settings.cosmos_endpoint:
            raise ConfigurationError("COSMOS_ENDPOINT is required for the Cosmos session store")
        self._container = open_container(settings, client_options)
        self._slots = ChatSlots(self._container, self._call, self._read)
        self._owners = OwnerQuotas(self._container, self._call, self._read)
        self._history = ChatHistory(self._container, self._call, self._query)
        self._chunks = CosmosChunks(self._container, self._call, self._query)
        self._chat_of: dict[str, str] = {}  # session id -> chat id, see get()
        # SDK calls by kind (read, query, create, replace, delete): they drive the
        # request-unit bill in Azure. Failed calls count too; Cosmos bills them.
        self.operations: Counter[str] = Counter()
        self._operations_lock = threading.Lock()

    def operation_counts(self) -> dict[str, int]:
        """A snapshot of :attr:`operations`, safe to take while requests run."""
        with self._operations_lock:
            return dict(self.operations)

    # -- sessions ------------------------------------------------------------------

    def create(self, record: SessionRecord, quota: StartQuota | None = None) -> SessionRecord:
        validate_session_id(record.id)
        with self._owners.held(record, quota) as slot_id:
            return self._create(record, {SLOT_FIELD: slot_id})

    def spent_today(self, owner: Owner, day_start: datetime) -> Usage:
        return self._owners.spent_today(owner, day_start)

    def _create(self, record: SessionRecord, kept: dict[str, Any]) -> SessionRecord:
        locked = holds_slot(record) and self._slots.take(record)
        try:
            doc = self._insert(record, kept)
        except TransientError:
            # No answer is not a "no": the document may exist or still arrive.
            doc = self._settle_create(record, kept)
        except ConflictError:
            if locked:  # the id exists; free the slot only if that session does not hold it
                self._slots.release_idle(record.chat_id, record.id)
            raise
        except BaseException:
            if locked:  # the service answered "no": nothing was written
                self._slots.release(record.chat_id, record.id)
            raise
        return self._remember(_record(doc))

    def _insert(self, record: SessionRecord, kept: dict[str, Any]) -> dict[str, Any]:
        with self._call("create"):
            try:
                return self._container.create_item(_session_doc(record, kept))
            except cosmos_errors.CosmosResourceExistsError as exc:
                raise ConflictError(f"session {record.id!r} already exists") from exc

    def _settle_create(self, record: SessionRecord, kept: dict[str, Any]) -> dict[str, Any]:
        """The outcome of a create that got no answer: read back, else send it again.

        Sending the same id again is safe: if the first request lands later it
        gets 409 and changes nothing, so exactly one document exists. Whatever
        still fails here raises with the slot kept (see the module docstring).
        """
        try:
            with self._call("read"):
                return self._container.read_item(record.id, partition_key=record.chat_id)
        except NotFoundError:
            pass
        try:
            return self._insert(record, kept)
        except ConflictError:  # the first request landed in the meantime
            with self._call("read"):
                return self._container.read_item(record.id, partition_key=record.chat_id)

    def get(self, session_id: str) -> SessionRecord:
        """A point read when this process has seen the session's chat, else a query.

        A session never changes chat, so the remembered chat id cannot go stale;
        the point read costs a fraction of the cross-partition query.
        """
        return _record(self._get_doc(session_id))

    def _get_doc(self, session_id: str) -> dict[str, Any]:
        validate_session_id(session_id)
        chat_id = self._chat_of.get(session_id)
        if chat_id is not None:
            return self._read_doc(chat_id, session_id)
        docs = self._query(
            "SELECT * FROM c WHERE c.id = @id AND c.type = 'session'",
            {"@id": session_id},
        )
        if not docs:
            raise NotFoundError(f"unknown session {session_id!r}")
        self._remember(_record(docs[0]))
        return docs[0]

    def update(self, session_id: str, mutate: Callable[[SessionRecord], None]) -> SessionRecord:
        """Optimistic update with the document's ETag; a 412 reloads and re-applies."""
        stored = self._get_doc(session_id)
        for _attempt in range(MAX_UPDATE_ATTEMPTS):
            current = _record(stored)
            draft = mutated_copy(current, mutate)
            took = not holds_slot(current) and holds_slot(draft) and self._slots.take(draft)
            try:
                with self._call("replace"):
                    doc = self._container.replace_item(
                        session_id,
                        _session_doc(draft, {k: v for k, v in stored.items() if k == SLOT_FIELD}),
                        etag=current.etag,
                        match_condition=MatchConditions.IfNotModified,
                    )
            except cosmos_errors.CosmosAccessConditionFailedError:
                if took:
                    self._slots.release(draft.chat_id, draft.id)
                stored = self._read_doc(current.chat_id, session_id)
                continue
            except TransientError:
                raise  # the replace may have landed: keep the slot (see the module docstring)
            except BaseException:
                if took:
                    self._slots.release(draft.chat_id, draft.id)
                raise
            if holds_slot(current) and not holds_slot(draft):
                self._slots.release_after_finish(draft)
            if holds_owner_slot(current) and not holds_owner_slot(draft):
                self._owners.release_after_finish(draft, doc)
            return _record(doc)
        raise TransientError(
            f"session {session_id!r} kept changing; gave up after {MAX_UPDATE_ATTEMPTS} attempts"
        )

    def active_deep_research(self, chat_id: str) -> SessionRecord | None:
        docs = self._query(
            "SELECT * FROM c WHERE c.chat_id = @chat AND c.type = 'session'"
            f" AND c.mode = '{Mode.deep_research.value}' AND c.status IN ({ACTIVE_SQL})",
            {"@chat": chat_id},
            chat_id,
        )
        return _record(docs[0]) if docs else None

    def supersede_active(self, chat_id: str, except_id: str | None = None) -> list[SessionRecord]:
        docs = self._query(
            "SELECT c.id FROM c WHERE c.chat_id = @chat AND c.type = 'session'"
            f" AND c.status IN ({ACTIVE_SQL})",
            {"@chat": chat_id},
            chat_id,
        )
        return supersede_each(self.update, [doc["id"] for doc in docs], except_id)

    def list_by_chat(self, chat_id: str, limit: int = 50) -> list[SessionRecord]:
        if limit <= 0:
            return []
        docs = self._query(
            "SELECT TOP @n * FROM c WHERE c.chat_id = @chat AND c.type = 'session'"
            " ORDER BY c.created_ts DESC",
            {"@n": limit, "@chat": chat_id},
            chat_id,
        )
        return [_record(doc) for doc in docs]

    def list_active(self, limit: int = 1000) -> list[SessionRecord]:
        """One cross-partition query, sorted here.

        Cross-partition ORDER BY / TOP need the gateway's query plan, which the
        local stand-in lacks; the set of unfinished sessions is small anyway.
        """
        if limit <= 0:
            return []
        docs = self._query(
            f"SELECT * FROM c WHERE c.type = 'session' AND c.status IN ({ACTIVE_SQL})", {}
        )
        docs.sort(key=lambda doc: (doc.get("created_ts", 0.0), doc["id"]))
        return [self._remember(_record(doc)) for doc in docs[:limit]]

    def list_idle_before(self, cutoff: datetime, limit: int = 100) -> list[SessionRecord]:
        """One cross-partition query, read only as far as ``limit`` (no TOP: see list_active).

        A document written before ``updated_ts`` existed is judged by its
        ``updated_at`` here, after a query on ``created_ts`` (never later).
        """
        if limit <= 0:
            return []
        docs = self._query(
            f"SELECT * FROM c WHERE c.type = 'session' AND NOT (c.status IN ({ACTIVE_SQL}))"
            " AND (c.updated_ts < @cutoff"
            " OR (NOT IS_DEFINED(c.updated_ts) AND c.created_ts < @cutoff))",
            {"@cutoff": cutoff.timestamp()},
            limit=limit,
        )
        records = [self._remember(_record(doc)) for doc in docs]
        return [r for r in records if r.updated_at.timestamp() < cutoff.timestamp()]

    def delete(self, session_id: str) -> None:
        """The chat messages, the chat's lock if it names the session, then the session.

        Each step is idempotent; a failure part-way leaves the session document, so
        deleting again finishes the job. Answer chunks go first: they need no document.
        """
        self._chunks.delete(session_id)
        try:
            stored = self._get_doc(session_id)
        except NotFoundError:
            return
        record = _record(stored)
        chat_id = record.chat_id
        for message_id in self._history.ids_of_session(chat_id, session_id):
            self._delete_item(message_id, chat_id)
        self._slots.release(chat_id, session_id)
        self._owners.keep_spend_of(record)
        if holds_owner_slot(record):
            self._owners.release_after_finish(record, stored)
        self._delete_item(session_id, chat_id)
        self._chat_of.pop(session_id, None)

    def _delete_item(self, item_id: str, chat_id: str) -> None:
        try:
            with self._call("delete"):
                self._container.delete_item(item_id, partition_key=chat_id)
        except NotFoundError:
            pass

    # -- chat history and answer chunks (cosmos_history.py, cosmos_chunks.py) ---------

    def append_message(self, chat_id: str, message: ChatMessage) -> None:
        self._history.append(chat_id, message)

    def history(self, chat_id: str, limit: int) -> list[ChatMessage]:
        return self._history.last(chat_id, limit)

    def append_chunks(self, session_id: str, chunks: list[AnswerChunk]) -> None:
        self._chunks.append(session_id, chunks)

    def chunks_after(self, session_id: str, after: int, limit: int) -> list[AnswerChunk]:
        return self._chunks.after(session_id, after, limit)

    def last_chunk_seq(self, session_id: str) -> int:
        return self._chunks.last_seq(session_id)

    def ping(self) -> None:
        with self._call("read"):
            self._container.read()

    # -- internals -----------------------------------------------------------------

    def _remember(self, record: SessionRecord) -> SessionRecord:
        if len(self._chat_of) >= MAX_REMEMBERED_CHATS:
            self._chat_of.clear()
        self._chat_of[record.id] = record.chat_id
        return record

    def _read(self, chat_id: str, session_id: str) -> SessionRecord:
        return _record(self._read_doc(chat_id, session_id))

    def _read_doc(self, chat_id: str, session_id: str) -> dict[str, Any]:
        try:
            with self._call("read"):
                return self._container.read_item(session_id, partition_key=chat_id)
        except NotFoundError:
            raise NotFoundError(f"unknown session {session_id!r}") from None

    def _query(
        self,
        query: str,
        parameters: dict[str, Any],
        chat_id: str | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        with self._call("query"):
            return query_items(self._container, query, parameters, chat_id, limit)

    def _call(self, kind: str) -> AbstractContextManager[None]:
        """Count one SDK call of ``kind`` and translate its errors (wrap exactly one call)."""
        with self._operations_lock:
            self.operations[kind] += 1
        return translated()


def _session_doc(record: SessionRecord, kept: dict[str, Any]) -> dict[str, Any]:
    """The document of ``record``, with ``kept``: what the store notes beside the record."""
    doc = record.model_dump(mode="json", exclude={"etag"}) | kept
    doc["type"] = "session"
    doc["created_ts"] = record.created_at.timestamp()
    doc["updated_ts"] = record.updated_at.timestamp()  # retention goes by last activity
    return doc


def _record(doc: dict[str, Any]) -> SessionRecord:
    return SessionRecord.model_validate(doc).model_copy(update={"etag": doc.get("_etag")})
