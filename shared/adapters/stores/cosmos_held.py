"""What a chat's lock (``cosmos_slots.py``) and an owner's slot (``cosmos_quotas.py``)
have in common on Cosmos DB: a document that holds a place for one session.

Such a document is taken by a create (409 = taken) and carries ``session_id``.
It is given back by a delete conditioned on the ETag it was read with, so a
place someone re-took in between survives; it is stale once its session no
longer holds the place, and the next start that finds it in the way clears it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from azure.core import MatchConditions
from azure.cosmos import exceptions as cosmos_errors

from shared.core.errors import NotFoundError
from shared.core.session_models import SessionRecord

# A holder whose session document does not exist yet may belong to a create in
# progress; only after this long is it taken for the leftover of a crash.
ORPHAN_GRACE_SECONDS = 60.0


class HeldDocuments:
    """Read, free and judge place-holding documents through the store's container.

    ``holds`` says whether a session (as stored) still holds the kind of place a
    subclass keeps; ``call`` counts and translates one SDK call.
    """

    def __init__(
        self,
        container: Any,
        call: Callable[[str], AbstractContextManager[None]],
        read_session: Callable[[str, str], SessionRecord],
        holds: Callable[[SessionRecord], bool],
    ) -> None:
        self._container = container
        self._call = call
        self._read_session = read_session
        self._holds = holds

    def _read_doc(self, doc_id: str, partition: str) -> dict[str, Any] | None:
        try:
            with self._call("read"):
                return self._container.read_item(doc_id, partition_key=partition)
        except NotFoundError:
            return None

    def _delete_unchanged(self, doc: dict[str, Any]) -> None:
        """Delete with the document's ETag, so a place someone just re-took survives."""
        try:
            with self._call("delete"):
                self._container.delete_item(
                    doc["id"],
                    partition_key=doc["chat_id"],
                    etag=doc["_etag"],
                    match_condition=MatchConditions.IfNotModified,
                )
        except (NotFoundError, cosmos_errors.CosmosAccessConditionFailedError):
            pass

    def _release_if_held(self, doc_id: str, partition: str, session_id: str) -> None:
        """Delete the document only while it still names ``session_id`` (a point read)."""
        holder = self._read_doc(doc_id, partition)
        if holder is not None and holder.get("session_id") == session_id:
            self._delete_unchanged(holder)

    def _is_stale(
        self, holder: dict[str, Any], session_chat_id: str, grace: float = ORPHAN_GRACE_SECONDS
    ) -> bool:
        """Whether the holder's session no longer holds the place.

        A holder without its session document may belong to a create still on
        its way: it is stale only after ``grace`` seconds.
        """
        try:
            session = self._read_session(session_chat_id, holder["session_id"])
        except NotFoundError:
            return time.time() - float(holder.get("created_ts", 0)) > grace
        return not self._holds(session)
