"""Closing sessions whose orchestration is gone, so no chat stays blocked for good.

A start writes the session document, then starts its orchestration. A crash
between the two (or an instance that ends without its last activity having
recorded the outcome: an operator's terminate, a host that lost it) leaves a
session that says "active" with nothing behind it; for a deep research that
blocks the chat's one active slot forever. Reconciling compares the document
with the instance's runtime status:

- no instance, and the session is older than ``START_GRACE_SECONDS`` (a
  younger one may be a start still between its two steps) → failed, "never
  started";
- instance Completed / Failed / Terminated / Canceled while the document still
  says active → failed, "ended without recording an outcome";
- anything else (Pending, Running, Suspended, an unknown status) → left alone.

Marking is race-safe: the update re-checks that nobody touched the session
since it was looked at, so an orchestration that records its outcome at the
same moment wins. Runs on each new deep research start that finds its chat
taken (``close_orphan_in_chat``) and as a sweep at start-up (``sweep``).

Plain Python: the caller passes ``runtime_status_of(instance_id)``, an async
callable returning the Durable runtime status name or ``None`` for no such
instance, so nothing here imports the Functions SDKs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from shared.adapters.stores.base import SessionStore
from shared.core.session_models import SessionRecord, SessionStatus

log = logging.getLogger(__name__)

RuntimeStatusOf = Callable[[str], Awaitable[str | None]]

START_GRACE_SECONDS = 60.0
ENDED_RUNTIME = frozenset({"Completed", "Failed", "Terminated", "Canceled"})
NEVER_STARTED = "orphaned: its orchestration never started"
ENDED_SILENTLY = "orphaned: its orchestration ended ({runtime}) without recording an outcome"
SWEEP_LIMIT = 1000


def orphan_reason(
    record: SessionRecord, runtime: str | None, now: datetime, grace: float
) -> str | None:
    """Why ``record`` is orphaned given its instance's ``runtime`` status, or ``None``."""
    if record.status.is_terminal:
        return None
    if runtime is None:
        created = record.created_at
        if created.tzinfo is None:  # written without a zone: the service writes UTC
            created = created.replace(tzinfo=UTC)
        age = (now - created).total_seconds()
        return NEVER_STARTED if age > grace else None
    if runtime in ENDED_RUNTIME:
        return ENDED_SILENTLY.format(runtime=runtime)
    return None


async def reconcile(
    store: SessionStore,
    record: SessionRecord,
    runtime_status_of: RuntimeStatusOf,
    grace: float = START_GRACE_SECONDS,
) -> SessionRecord | None:
    """Mark ``record`` failed if its orchestration is gone; the failed record, or ``None``."""
    if record.status.is_terminal:
        return None
    runtime = await runtime_status_of(record.instance_id)
    reason = orphan_reason(record, runtime, datetime.now(UTC), grace)
    if reason is None:
        return None
    marked = False

    def mark_failed(current: SessionRecord) -> None:
        nonlocal marked
        marked = not current.status.is_terminal and current.updated_at == record.updated_at
        if marked:  # untouched since it was looked at: nobody is recording an outcome
            current.status, current.error = SessionStatus.failed, reason

    updated = await asyncio.to_thread(store.update, record.id, mark_failed)
    if not marked:
        return None
    log.warning("session %s: %s", record.id, reason)  # ids only: see shared/tools/log_privacy.py
    return updated


async def close_orphan_in_chat(
    store: SessionStore,
    chat_id: str,
    runtime_status_of: RuntimeStatusOf,
    grace: float = START_GRACE_SECONDS,
) -> SessionRecord | None:
    """Free the chat's deep research slot if its holder is orphaned; the closed session."""
    active = await asyncio.to_thread(store.active_deep_research, chat_id)
    if active is None:
        return None
    return await reconcile(store, active, runtime_status_of, grace)


async def sweep(
    store: SessionStore,
    runtime_status_of: RuntimeStatusOf,
    grace: float = START_GRACE_SECONDS,
    limit: int = SWEEP_LIMIT,
) -> list[SessionRecord]:
    """Reconcile every unfinished session (any mode); returns those marked failed.

    One session's failure to reconcile (a store or Durable hiccup) is logged
    and the sweep goes on: the next sweep or start retries it.
    """
    closed = []
    for record in await asyncio.to_thread(store.list_active, limit):
        try:
            failed = await reconcile(store, record, runtime_status_of, grace)
        except Exception:
            log.exception("could not reconcile session %s", record.id)
            continue
        if failed is not None:
            closed.append(failed)
    return closed
