"""Deleting a session for good: its run, its Durable history, its files and its document.

Two entry points, one procedure (``purge_session``):
- ``DELETE /api/research/{id}`` by the session's owner (``api/purge.py``);
- the retention timer, for sessions created more than ``SESSION_RETENTION_DAYS``
  days ago (``purge_expired``).

The order makes a failure part-way safe to repeat: a live run is first marked
cancelled and stopped (its orchestration and the deep search under it), then
the Durable histories are purged (inputs and outputs hold the question and
the findings), then the memory files, and the session document with its chat
messages last, so a retry still finds the session and finishes the job.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from shared.errors import TransientError
from shared.session_models import SessionRecord, SessionStatus

if TYPE_CHECKING:
    from shared.ports import Services

log = logging.getLogger(__name__)
FINISHED_RUNTIME = frozenset({"Completed", "Failed", "Terminated"})
STOP_TIMEOUT_SECONDS = 20.0
STOP_POLL_SECONDS = 0.2
RETENTION_BATCH = 100
RETENTION_MAX_PER_RUN = 2000  # one timer run stays far inside the function timeout


class Instances(Protocol):
    """The Durable operations a purge needs (``api/purge.py`` adapts the real client)."""

    async def runtime_status(self, instance_id: str) -> str | None:
        """The runtime status name, or None when the instance does not exist."""
        ...

    async def terminate(self, instance_id: str, reason: str) -> None: ...

    async def purge(self, instance_id: str) -> int:
        """Purge a finished instance's history; the number of instances deleted (0 or 1)."""
        ...


@dataclass(frozen=True)
class Purged:
    session_id: str
    instances: int
    files: int


def instance_ids(record: SessionRecord) -> list[str]:
    """Every orchestration a session may have: the run, its deep search, the cancel webhook."""
    base = record.instance_id
    return [base, f"{base}:deep-search", f"{base}:notify-cancelled"]


async def purge_session(
    svc: Services, instances: Instances, record: SessionRecord, reason: str
) -> Purged:
    """Remove everything of ``record`` (see the module docstring); idempotent.

    ``TransientError`` when an orchestration did not stop in time: nothing is
    deleted yet and the caller may try again.
    """
    if not record.status.is_terminal:
        await asyncio.to_thread(svc.sessions.update, record.id, _cancelled(reason))
    ids = instance_ids(record)
    for instance_id in ids:
        await _stop(instances, instance_id, reason)
    purged = 0
    for instance_id in ids:
        purged += await instances.purge(instance_id)
    files = await asyncio.to_thread(svc.memory.delete_session, record.id)
    await asyncio.to_thread(svc.sessions.delete, record.id)
    return Purged(session_id=record.id, instances=purged, files=files)


async def purge_expired(svc: Services, instances: Instances, now: datetime) -> list[Purged]:
    """Purge sessions created more than ``SESSION_RETENTION_DAYS`` days before ``now``.

    Without the setting nothing is removed. One failing session is logged and
    left for the next run; the others go on.
    """
    days = svc.settings.session_retention_days
    if not days:
        return []
    cutoff = now - timedelta(days=days)
    done: list[Purged] = []
    failed: set[str] = set()
    while len(done) + len(failed) < RETENTION_MAX_PER_RUN:
        batch = await asyncio.to_thread(
            svc.sessions.list_created_before, cutoff, RETENTION_BATCH + len(failed)
        )
        todo = [r for r in batch if r.id not in failed]
        if not todo:
            break
        for record in todo:
            try:
                done.append(await purge_session(svc, instances, record, "retention period over"))
            except Exception:
                log.exception("retention: could not purge session %s", record.id)
                failed.add(record.id)
    return done


async def _stop(instances: Instances, instance_id: str, reason: str) -> None:
    """Terminate a running instance and wait until Durable reports it finished."""
    status = await instances.runtime_status(instance_id)
    if status is None or status in FINISHED_RUNTIME:
        return
    await instances.terminate(instance_id, reason)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_TIMEOUT_SECONDS
    while True:
        status = await instances.runtime_status(instance_id)
        if status is None or status in FINISHED_RUNTIME:
            return
        if loop.time() >= deadline:
            raise TransientError(f"orchestration {instance_id} is still stopping; try again")
        await asyncio.sleep(STOP_POLL_SECONDS)


def _cancelled(reason: str):
    def mutate(record: SessionRecord) -> None:
        if not record.status.is_terminal:
            record.status, record.error = SessionStatus.cancelled, reason

    return mutate
