"""Chat history on Cosmos DB: one ``message`` document per chat message.

Messages live in their chat's partition, ordered by ``order_key`` (zero-padded
nanoseconds + a uuid) because JSON numbers cannot hold nanoseconds exactly;
their ids start with ``_msg-``, which a session id never does.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from shared.core.session_models import ChatMessage

Query = Callable[[str, dict[str, Any], str], list[dict[str, Any]]]


class ChatHistory:
    """Append and read a chat's messages through the store's container and call accounting."""

    def __init__(
        self, container: Any, call: Callable[[str], AbstractContextManager[None]], query: Query
    ) -> None:
        self._container = container
        self._call = call
        self._query = query
        self._order_lock = threading.Lock()
        self._last_order_ns = 0

    def append(self, chat_id: str, message: ChatMessage) -> None:
        created_at = message.created_at or datetime.now(UTC)
        order_key = f"{self._next_order_ns():020d}-{uuid.uuid4().hex}"
        doc = {
            "id": f"_msg-{order_key}",
            "type": "message",
            "chat_id": chat_id,
            "order_key": order_key,
            **message.model_dump(mode="json"),
            "created_at": created_at.isoformat(),
        }
        with self._call("create"):
            self._container.create_item(doc)

    def last(self, chat_id: str, limit: int) -> list[ChatMessage]:
        """The last ``limit`` messages, oldest first."""
        if limit <= 0:
            return []
        docs = self._query(
            "SELECT TOP @n * FROM c WHERE c.chat_id = @chat AND c.type = 'message'"
            " ORDER BY c.order_key DESC",
            {"@n": limit, "@chat": chat_id},
            chat_id,
        )
        return [ChatMessage.model_validate(doc) for doc in reversed(docs)]

    def ids_of_session(self, chat_id: str, session_id: str) -> list[str]:
        """The ids of the messages a session added (a delete removes them)."""
        docs = self._query(
            "SELECT c.id FROM c WHERE c.chat_id = @chat AND c.type = 'message'"
            " AND c.session_id = @id",
            {"@chat": chat_id, "@id": session_id},
            chat_id,
        )
        return [doc["id"] for doc in docs]

    def _next_order_ns(self) -> int:
        """Wall-clock nanoseconds, strictly increasing within this process."""
        with self._order_lock:
            self._last_order_ns = max(time.time_ns(), self._last_order_ns + 1)
            return self._last_order_ns
