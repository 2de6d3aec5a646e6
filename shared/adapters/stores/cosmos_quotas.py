"""Per-owner quotas on Cosmos DB (``quota.py`` says what is enforced): documents
in a partition of the owner's own.

Sessions are partitioned by chat, and an owner has any number of chats, so an
owner's counts live in a partition named after the owner (``_owner.<hash>``; a
chat key never starts with ``_``):

- ``_slot-<n>`` (n < the concurrent quota): one per unfinished session. Taking
  a slot is a create (409 = taken), so two starts can never hold the same
  one; a full set of slots is a refusal. A slot is deleted, with its ETag,
  when its session ends or is deleted; a slot whose session has ended or never
  came to exist (after a grace) is cleared by the next start that finds the
  slots full, as for the chat locks of ``cosmos_slots.py`` (``cosmos_held.py``).
  The session document names its slot in ``owner_slot`` (``null``: none), so
  freeing it is a point read and a delete, and no work at all without a slot;
  a document written before that field existed has its slot looked up by query;
- ``_day-<YYYY-MM-DD>``: the day's starts and what the day's deleted sessions
  had spent, changed with ETag conditions (a lost race reads again).

When in doubt a slot is kept: a create that got no answer may have landed, and
a slot kept without cause is cleared later, while one freed wrongly lets a
start past the quota.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from azure.core import MatchConditions
from azure.cosmos import exceptions as cosmos_errors

from shared.adapters.stores.base import ACTIVE_STATUSES, USAGE_FIELDS
from shared.adapters.stores.cosmos_held import HeldDocuments
from shared.adapters.stores.quota import StartQuota
from shared.core.errors import ConflictError, TransientError
from shared.core.session_models import Owner, SessionRecord, Usage

log = logging.getLogger(__name__)
DAY_UPDATE_ATTEMPTS = 40  # one owner's concurrent starts race on one document
SLOT_FIELD = "owner_slot"  # on a session document: the id of the slot it took, or null
SYSTEM_KEYS = frozenset({"_rid", "_self", "_etag", "_attachments", "_ts"})


def owner_partition(owner: Owner) -> str:
    digest = hashlib.sha256(f"{owner.tenant}\n{owner.id}".encode()).hexdigest()
    return f"_owner.{digest[:32]}"


def holds_owner_slot(record: SessionRecord) -> bool:
    return record.status in ACTIVE_STATUSES


@dataclass(frozen=True)
class Admitted:
    """What one create took: the slot document (if any) and whether the day counted it."""

    partition: str
    slot: dict[str, Any] | None
    day: str | None


class OwnerQuotas(HeldDocuments):
    """Take, give back and free an owner's quota documents through the store's container."""

    def __init__(
        self,
        container: Any,
        call: Callable[[str], AbstractContextManager[None]],
        read_session: Callable[[str, str], SessionRecord],
    ) -> None:
        super().__init__(container, call, read_session, holds_owner_slot)

    @contextmanager
    def held(self, record: SessionRecord, quota: StartQuota | None) -> Iterator[str | None]:
        """Take ``record``'s quota around its create; give it back if the create says no.

        Yields the id of the slot taken (``None``: no concurrent quota), for the
        session document's ``owner_slot``. A create that got no answer
        (``TransientError``) keeps what it took: the session may exist.
        """
        if quota is None or not quota.limited:
            yield None
            return
        admitted = self._admit(record, quota)
        try:
            yield None if admitted.slot is None else admitted.slot["id"]
        except TransientError:
            raise
        except BaseException:
            self._give_back(admitted)
            raise

    def release_after_finish(self, record: SessionRecord, doc: dict[str, Any]) -> None:
        """Free the slot of a session that just ended or is being deleted.

        ``doc`` is the session as stored: its ``owner_slot`` names the slot, if
        any. A document from before that field gets one query in the owner's
        partition. A failure only leaves a slot for the next start to clear: the
        caller's write succeeded and must not be repeated for this.
        """
        partition = owner_partition(record.owner)
        try:
            if SLOT_FIELD not in doc:
                for slot in self._slots(partition, record.id):
                    self._delete_unchanged(slot)
            elif doc[SLOT_FIELD] is not None:
                self._release_if_held(doc[SLOT_FIELD], partition, record.id)
        except TransientError:
            log.warning("quota slot of session %s left for the next start to clear", record.id)

    def keep_spend_of(self, record: SessionRecord) -> None:
        """Add a session's usage to its owner's day before the session is deleted."""
        if record.usage == Usage():
            return  # nothing spent (the offline reasoner): no write
        usage = record.usage.model_dump()

        def add(doc: dict[str, Any]) -> None:
            kept = doc.setdefault("deleted_sessions", [])
            if record.id in kept:  # a delete repeated after a failure counts its spend once
                return
            kept.append(record.id)
            for name in USAGE_FIELDS:
                doc[f"deleted_{name}"] = doc.get(f"deleted_{name}", 0) + usage[name]

        day = record.created_at.date().isoformat()
        self._change_day(owner_partition(record.owner), day, add)

    def spent_today(self, owner: Owner, day_start: datetime) -> Usage:
        """The sessions the owner started since ``day_start`` (one cross-partition query)
        plus what the day's deleted sessions had spent."""
        params = [
            {"name": "@id", "value": owner.id},
            {"name": "@tenant", "value": owner.tenant},
            {"name": "@since", "value": day_start.timestamp()},
        ]
        with self._call("query"):
            rows = list(
                self._container.query_items(
                    "SELECT c.usage FROM c WHERE c.type = 'session' AND c.owner.id = @id"
                    " AND c.owner.tenant = @tenant AND c.created_ts >= @since",
                    parameters=params,
                    enable_cross_partition_query=True,
                )
            )
        day = self._read_doc(f"_day-{day_start.date().isoformat()}", owner_partition(owner)) or {}
        deleted = Usage(**{name: day.get(f"deleted_{name}", 0) for name in USAGE_FIELDS})
        return sum((Usage.model_validate(row.get("usage") or {}) for row in rows), deleted)

    # -- taking and giving back ------------------------------------------------------

    def _admit(self, record: SessionRecord, quota: StartQuota) -> Admitted:
        partition = owner_partition(record.owner)
        slot = self._take_slot(partition, record, quota) if quota.concurrent else None
        try:
            if quota.per_day:
                self._change_day(partition, quota.day, _count_one(quota))
        except BaseException:
            if slot is not None:
                self._delete_unchanged(slot)
            raise
        return Admitted(partition, slot, quota.day if quota.per_day else None)

    def _give_back(self, admitted: Admitted) -> None:
        if admitted.day is not None:
            self._change_day(admitted.partition, admitted.day, _uncount_one)
        if admitted.slot is not None:
            self._delete_unchanged(admitted.slot)

    def _take_slot(
        self, partition: str, record: SessionRecord, quota: StartQuota
    ) -> dict[str, Any]:
        """Create the first free ``_slot-<n>``; when all are taken, clear stale ones once."""
        for cleared in (False, True):
            for n in range(quota.concurrent):
                doc = {
                    "id": f"_slot-{n}",
                    "type": "owner_slot",
                    "chat_id": partition,
                    "session_id": record.id,
                    "session_chat_id": record.chat_id,
                    "created_ts": time.time(),
                }
                try:
                    with self._call("create"):
                        return self._container.create_item(doc)
                except ConflictError:
                    continue
            holders = self._slots(partition)
            stale = [slot for slot in holders if self._is_stale(slot, slot["session_chat_id"])]
            if cleared or not stale:
                raise quota.refuse_concurrent(len(holders) - len(stale))
            for slot in stale:
                self._delete_unchanged(slot)
        raise AssertionError("unreachable")

    # -- documents -------------------------------------------------------------------

    def _slots(self, partition: str, session_id: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT * FROM c WHERE c.chat_id = @p AND c.type = 'owner_slot'"
        params = [{"name": "@p", "value": partition}]
        if session_id is not None:
            query += " AND c.session_id = @s"
            params.append({"name": "@s", "value": session_id})
        with self._call("query"):
            return list(
                self._container.query_items(query, parameters=params, partition_key=partition)
            )

    def _change_day(self, partition: str, day: str, change: Callable[[dict], None]) -> None:
        """Apply ``change`` to the owner's day document (created if missing), race-safe."""
        doc_id = f"_day-{day}"
        for _attempt in range(DAY_UPDATE_ATTEMPTS):
            current = self._read_doc(doc_id, partition)
            draft = {"id": doc_id, "type": "owner_day", "chat_id": partition, "day": day}
            draft.update({k: v for k, v in (current or {}).items() if k not in SYSTEM_KEYS})
            change(draft)
            try:
                with self._call("create" if current is None else "replace"):
                    if current is None:
                        self._container.create_item(draft)
                    else:
                        self._container.replace_item(
                            doc_id,
                            draft,
                            etag=current["_etag"],
                            match_condition=MatchConditions.IfNotModified,
                        )
                return
            except (ConflictError, cosmos_errors.CosmosAccessConditionFailedError):
                continue  # someone else changed the day first: read it again
        raise TransientError(f"the quota day {day} kept changing; try again")


def _count_one(quota: StartQuota) -> Callable[[dict], None]:
    def count(doc: dict[str, Any]) -> None:
        started = doc.get("sessions", 0)
        if started >= quota.per_day:
            raise quota.refuse_per_day(started)
        doc["sessions"] = started + 1

    return count


def _uncount_one(doc: dict[str, Any]) -> None:
    doc["sessions"] = max(0, doc.get("sessions", 0) - 1)
