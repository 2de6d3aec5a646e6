"""The one active deep research of a chat, on Cosmos DB: a lock document per chat.

``_lock-active-deep-research`` in a chat's partition points at the chat's
active deep research session. Creating it is the atomic "one active deep
research" check (409 = taken); it is deleted, with an ETag condition, when
that session reaches a terminal status or is deleted. When in doubt the lock
is kept: a create that timed out may still land, so it is read back (and
re-sent: the id makes a second create idempotent) instead of freeing the
chat. A lock kept without cause is cleared by the next start once its session
is seen not to hold it; a lock freed wrongly lets two sessions in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from azure.core import MatchConditions
from azure.cosmos import exceptions as cosmos_errors

from shared.adapters.stores.base import ACTIVE_STATUSES
from shared.core.errors import ActiveSessionConflict, ConflictError, NotFoundError, TransientError
from shared.core.session_models import Mode, SessionRecord

log = logging.getLogger(__name__)
LOCK_ATTEMPTS = 3
LOCK_ID = "_lock-active-deep-research"
# A lock whose session document does not exist yet may belong to a create in
# progress; only after this long is it taken for the leftover of a crash.
ORPHAN_LOCK_GRACE_SECONDS = 60.0


def holds_slot(record: SessionRecord) -> bool:
    return record.mode is Mode.deep_research and record.status in ACTIVE_STATUSES


class ChatSlots:
    """Take and free a chat's slot through the store's container and call accounting."""

    def __init__(
        self,
        container: Any,
        call: Callable[[str], AbstractContextManager[None]],
        read_session: Callable[[str, str], SessionRecord],
    ) -> None:
        self._container = container
        self._call = call
        self._read_session = read_session

    def take(self, record: SessionRecord) -> bool:
        """Create the chat's lock document; 409 means another session holds the slot.

        Returns whether this call created the lock (and must drop it if the
        session write then fails). A lock that already names this session (a
        retried create) is kept as is. A lock left behind by a session that is no
        longer active (a crash between the session's last write and the lock's
        deletion) is cleared once.
        """
        lock = {
            "id": LOCK_ID,
            "type": "lock",
            "chat_id": record.chat_id,
            "session_id": record.id,
            "created_ts": time.time(),
        }
        unanswered: TransientError | None = None
        for _attempt in range(LOCK_ATTEMPTS):
            try:
                with self._call("create"):
                    self._container.create_item(lock)
                return True
            except (ConflictError, TransientError) as exc:
                # 409, or no answer (the lock may have been written): look at the lock.
                unanswered = exc if isinstance(exc, TransientError) else None
                holder = self._lock_doc(record.chat_id)
                if holder is None:
                    continue  # freed meanwhile, or our write did not land: try again
                if holder.get("session_id") == record.id:
                    return unanswered is not None  # ours if this call wrote it
                if not self._is_stale(holder):
                    raise ActiveSessionConflict(record.chat_id, holder["session_id"]) from None
                self._delete_lock(holder)
        if unanswered is not None:
            raise unanswered
        raise ActiveSessionConflict(record.chat_id, None)

    def release(self, chat_id: str, session_id: str) -> None:
        """Delete the lock only while it still points at ``session_id``."""
        holder = self._lock_doc(chat_id)
        if holder is not None and holder.get("session_id") == session_id:
            self._delete_lock(holder)

    def release_idle(self, chat_id: str, session_id: str) -> None:
        """Delete the lock naming ``session_id`` unless that session exists and holds it."""
        holder = self._lock_doc(chat_id)
        ours = holder is not None and holder.get("session_id") == session_id
        if ours and self._is_stale(holder, grace=0.0):
            self._delete_lock(holder)

    def release_after_finish(self, record: SessionRecord) -> None:
        """Free the slot of a session just saved as finished; a failure leaves a stale lock.

        The session write is what counts and it succeeded: the caller must not see
        an error (and repeat a finished update) because the clean-up did not answer.
        The next start clears a lock whose session no longer holds it.
        """
        try:
            self.release(record.chat_id, record.id)
        except TransientError:
            log.warning("chat lock of session %s left for the next start to clear", record.id)

    def _lock_doc(self, chat_id: str) -> dict[str, Any] | None:
        try:
            with self._call("read"):
                return self._container.read_item(LOCK_ID, partition_key=chat_id)
        except NotFoundError:
            return None

    def _delete_lock(self, holder: dict[str, Any]) -> None:
        """Delete with the lock's ETag, so a lock someone just re-took survives."""
        try:
            with self._call("delete"):
                self._container.delete_item(
                    LOCK_ID,
                    partition_key=holder["chat_id"],
                    etag=holder["_etag"],
                    match_condition=MatchConditions.IfNotModified,
                )
        except (NotFoundError, cosmos_errors.CosmosAccessConditionFailedError):
            pass

    def _is_stale(self, holder: dict[str, Any], grace: float = ORPHAN_LOCK_GRACE_SECONDS) -> bool:
        """Whether the lock's session no longer holds the slot.

        A lock without its session document may belong to a create still on its
        way: it is stale only after ``grace`` seconds.
        """
        try:
            session = self._read_session(holder["chat_id"], holder["session_id"])
        except NotFoundError:
            age = time.time() - float(holder.get("created_ts", 0))
            return age > grace
        return not holds_slot(session)
