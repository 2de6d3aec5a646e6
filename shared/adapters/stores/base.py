"""The two storage ports: SessionStore (documents) and MemoryStore (files).

SessionStore adapters: ``sqlite.py`` (embedded) and ``cosmos.py``.
MemoryStore adapters: ``filesystem.py`` (embedded) and ``blob.py``.
Both adapters of a port pass the same contract suite in ``tests/contract``.

SessionStore guarantees:
- ``create`` of a ``deep_research`` session is atomic with respect to the
  "one active deep research per chat" rule: a concurrent second create
  raises ``ActiveSessionConflict`` (a conditional insert, not read-then-write);
- ``update`` is optimistic (version / ETag): a lost race reloads, re-applies
  the mutation and retries a bounded number of times, so no write is lost;
- moving a session to a terminal status frees the chat's active slot, and so
  does ``delete`` (which also removes the session's chat messages);
- ``create`` with a ``StartQuota`` also holds the owner to their quotas, as
  part of the create (``quota.py`` says what is counted and when it frees);
- answer chunks (``shared.core.stream_models``) are numbered per session: an
  existing seq is refused (``ConflictError``), ``chunks_after`` reads in seq
  order, and ``delete`` removes them with the session.

MemoryStore guarantees:
- names are ``{session_id}/{relative path}``; ids and paths are validated and
  nothing can escape the session folder (``InvalidInputError`` otherwise);
- writes overwrite (idempotent when an activity runs twice);
- ``append`` takes an ``entry_id``: the same entry appended twice is stored once,
  and concurrent appenders (threads or processes) lose no entry;
- no file grows past ``max_file_bytes`` (``MemoryFileTooLarge``, nothing written).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from shared.adapters.stores.quota import StartQuota
from shared.core.errors import InvalidInputError, MemoryFileTooLarge
from shared.core.session_models import ChatMessage, Owner, SessionRecord, SessionStatus, Usage
from shared.core.stream_models import AnswerChunk

MAX_MEMORY_FILE_BYTES = 16 * 1024 * 1024
"""Default cap on one memory file: far above a report with its PDF (≈ 1-5 MB), far
below what an activity could read back and rewrite on every append."""

SESSION_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,127}$")
_SEGMENT_RE = re.compile(r"^[^/\\\x00]{1,200}$")


def validate_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not SESSION_ID_RE.match(session_id):
        raise InvalidInputError(f"invalid session id: {session_id!r}")
    return session_id


def validate_relative_name(name: str) -> str:
    """A relative file name inside a session folder: no absolute paths, no ``..``."""
    if not isinstance(name, str) or not name or name.startswith(("/", "\\")):
        raise InvalidInputError(f"invalid memory file name: {name!r}")
    parts = name.split("/")
    for part in parts:
        if part in ("", ".", "..") or not _SEGMENT_RE.match(part):
            raise InvalidInputError(f"invalid memory file name: {name!r}")
    return name


def entry_marker(entry_id: str) -> str:
    """The marker that makes ``append`` idempotent; invisible in rendered Markdown."""
    return f"<!-- entry:{entry_id} -->"


def with_entry(existing: str, entry_id: str, text: str) -> str | None:
    """``existing`` with the entry appended, or ``None`` when it is already there.

    Shared by every MemoryStore adapter so an appended file reads the same in
    Blob storage and on disk: the marker line, then the text, newline-terminated.
    """
    marker = entry_marker(entry_id)
    if marker in existing:
        return None
    separator = "" if not existing or existing.endswith("\n") else "\n"
    body = text if text.endswith("\n") else text + "\n"
    return f"{existing}{separator}{marker}\n{body}"


def check_size(ref: str, size: int, limit: int) -> None:
    """Refuse a memory file of ``size`` bytes over ``limit``, before anything is written."""
    if size > limit:
        raise MemoryFileTooLarge(ref, size, limit)


def mutated_copy(current: SessionRecord, mutate: Callable[[SessionRecord], None]) -> SessionRecord:
    """``mutate`` applied to a deep copy, re-validated, for an optimistic ``update``.

    The id and chat (the partition) may not change. ``updated_at`` becomes now
    unless the mutation set it. The mutation may run several times (on a lost
    race), so it must be a pure edit of the record it is given.
    """
    draft = current.model_copy(deep=True)
    mutate(draft)
    if draft.id != current.id or draft.chat_id != current.chat_id:
        raise InvalidInputError("an update may not change a session's id or chat_id")
    if draft.updated_at == current.updated_at:
        draft.updated_at = datetime.now(UTC)
    return SessionRecord.model_validate(draft.model_dump())


def supersede_each(
    update: Callable[[str, Callable[[SessionRecord], None]], SessionRecord],
    session_ids: list[str],
    except_id: str | None,
) -> list[SessionRecord]:
    """Mark each still non-terminal session superseded through ``update``; return those.

    Shared by both session stores: the query that finds the ids differs, the
    race-safe status change (re-checked inside each optimistic update) does not.
    """
    superseded = []
    for session_id in session_ids:
        if session_id == except_id:
            continue
        changed = False

        def supersede(record: SessionRecord) -> None:
            nonlocal changed
            changed = not record.status.is_terminal
            if changed:
                record.status = SessionStatus.superseded

        record = update(session_id, supersede)
        if changed:
            superseded.append(record)
    return superseded


@runtime_checkable
class SessionStore(Protocol):
    kind: str

    def create(self, record: SessionRecord, quota: StartQuota | None = None) -> SessionRecord:
        """Insert; ``ConflictError`` if the id exists, ``ActiveSessionConflict`` as above,
        ``QuotaExceeded`` when ``quota`` (for ``record.owner``) has no room left."""
        ...

    def spent_today(self, owner: Owner, day_start: datetime) -> Usage:
        """What ``owner``'s sessions started since ``day_start`` used, deleted ones included."""
        ...

    def get(self, session_id: str) -> SessionRecord:
        """``NotFoundError`` if unknown."""
        ...

    def update(self, session_id: str, mutate: Callable[[SessionRecord], None]) -> SessionRecord:
        """Apply ``mutate`` to the latest version and save it with optimistic concurrency."""
        ...

    def active_deep_research(self, chat_id: str) -> SessionRecord | None: ...

    def supersede_active(self, chat_id: str, except_id: str | None = None) -> list[SessionRecord]:
        """Mark the chat's non-terminal sessions superseded; returns them (for termination)."""
        ...

    def list_by_chat(self, chat_id: str, limit: int = 50) -> list[SessionRecord]:
        """Newest first."""
        ...

    def list_active(self, limit: int = 1000) -> list[SessionRecord]:
        """Non-terminal sessions of every chat and mode, oldest first (for reconciliation)."""
        ...

    def list_idle_before(self, cutoff: datetime, limit: int = 100) -> list[SessionRecord]:
        """Finished sessions of every chat last updated before ``cutoff``, up to ``limit``.

        For retention: a session still running or waiting for its user is never listed.
        """
        ...

    def delete(self, session_id: str) -> None:
        """Remove the session, its chat messages and its hold on the chat's active slot.

        Idempotent: a session that is already gone is not an error (a retried delete).
        """
        ...

    def append_chunks(self, session_id: str, chunks: list[AnswerChunk]) -> None:
        """Store ``chunks`` (their seqs follow ``last_chunk_seq``); ``ConflictError`` when a
        seq is taken, a prefix of ``chunks`` may then be stored."""
        ...

    def chunks_after(self, session_id: str, after: int, limit: int) -> list[AnswerChunk]:
        """Up to ``limit`` chunks with ``seq > after``, in seq order."""
        ...

    def last_chunk_seq(self, session_id: str) -> int:
        """The highest seq stored for the session, 0 when none."""
        ...

    def append_message(self, chat_id: str, message: ChatMessage) -> None: ...

    def history(self, chat_id: str, limit: int) -> list[ChatMessage]:
        """The last ``limit`` messages, oldest first."""
        ...

    def ping(self) -> None:
        """Raise if the store does not answer (for ``/api/health``)."""
        ...


@runtime_checkable
class MemoryStore(Protocol):
    kind: str

    def write(self, session_id: str, name: str, data: str | bytes, content_type: str) -> str:
        """Overwrite; returns the reference ``{session_id}/{name}``."""
        ...

    def read(self, session_id: str, name: str) -> bytes:
        """``NotFoundError`` if missing."""
        ...

    def read_text(self, session_id: str, name: str) -> str: ...

    def exists(self, session_id: str, name: str) -> bool: ...

    def append(self, session_id: str, name: str, entry_id: str, text: str) -> None:
        """Append ``text`` once per ``entry_id`` (creates the file if missing)."""
        ...

    def list(self, session_id: str) -> list[str]:
        """Relative names under the session folder, sorted."""
        ...

    def delete_file(self, session_id: str, name: str) -> bool:
        """Remove one file; False when it was not there (a repeated delete is a no-op)."""
        ...

    def delete_session(self, session_id: str) -> int:
        """Remove every file of the session; returns how many there were (0 when none)."""
        ...

    def folders(self, prefix: str = "") -> list[str]:
        """The folders that have files and whose names start with ``prefix``, sorted (to sweep
        the files of deleted sessions, to list collections or watches). Listed by the prefix in
        the store: finding the watches does not walk every session's folder."""
        ...

    def ping(self) -> None: ...


ACTIVE_STATUSES = (
    SessionStatus.active,
    SessionStatus.waiting_clarification,
    SessionStatus.waiting_plan_approval,
    SessionStatus.researching,
)
ACTIVE_SQL = ", ".join(f"'{status.value}'" for status in ACTIVE_STATUSES)
"""The active statuses as the list of an SQL ``IN (...)``: the same text on SQLite and Cosmos."""
USAGE_FIELDS = tuple(Usage.model_fields)
"""The counters of ``Usage``, in order: what the stores sum per owner and day."""
