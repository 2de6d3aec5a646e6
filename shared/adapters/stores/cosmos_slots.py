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

from shared.adapters.stores.base import ACTIVE_STATUSES
from shared.adapters.stores.cosmos_held import HeldDocuments
from shared.core.errors import ActiveSessionConflict, ConflictError, TransientError
from shared.core.session_models import Mode, SessionRecord

log = logging.getLogger(__name__)
LOCK_ATTEMPTS = 3
LOCK_ID = "_lock-active-deep-research"


def holds_slot(record: SessionRecord) -> bool:
    return record.mode is Mode.deep_research and record.status in ACTIVE_STATUSES


class ChatSlots(HeldDocuments):
    """Take and free a chat's slot through the store's container and call accounting."""

    def __init__(
        self,
        container: Any,
        call: Callable[[str], AbstractContextManager[None]],
        read_session: Callable[[str, str], SessionRecord],
    ) -> None:
        super().__init__(container, call, read_session, holds_slot)

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
                holder = self._read_doc(LOCK_ID, record.chat_id)
                if holder is None:
                    continue  # freed meanwhile, or our write did not land: try again
                if holder.get("session_id") == record.id:
                    return unanswered is not None  # ours if this call wrote it
                if not self._is_stale(holder, record.chat_id):
                    raise ActiveSessionConflict(record.chat_id, holder["session_id"]) from None
                self._delete_unchanged(holder)
        if unanswered is not None:
            raise unanswered
        raise ActiveSessionConflict(record.chat_id, None)

    def release(self, chat_id: str, session_id: str) -> None:
        """Delete the lock only while it still points at ``session_id``."""
        self._release_if_held(LOCK_ID, chat_id, session_id)

    def release_idle(self, chat_id: str, session_id: str) -> None:
        """Delete the lock naming ``session_id`` unless that session exists and holds it."""
        holder = self._read_doc(LOCK_ID, chat_id)
        ours = holder is not None and holder.get("session_id") == session_id
        if ours and self._is_stale(holder, chat_id, grace=0.0):
            self._delete_unchanged(holder)

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
