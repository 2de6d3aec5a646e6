"""Deleting a session for good: its run, its Durable history, its files and its document.

Two entry points, one procedure (``purge_session``):
- ``DELETE /api/research/{id}`` by the session's owner (``api/purge.py``);
- the retention timer (``purge_expired``), for finished sessions whose last
  activity (``updated_at``) is more than ``SESSION_RETENTION_DAYS`` days old.
  A session that is still running or waiting for its user is left alone,
  however old: its clarification and plan waits end on their own timers, and
  the reconcile sweep closes one whose orchestration is gone; from then on it
  is finished and its retention period starts.

The order makes a failure part-way safe to repeat: a live run is first marked
cancelled and stopped (every instance the session started), then the Durable
histories are purged (inputs and outputs hold the question and the findings),
then the memory files, and the session document with its chat messages last,
so a retry still finds the session and finishes the job. The session's
instances are found by their names (``shared.core.names.session_instance_id``):
every id with the session id as prefix, listed from Durable, so the deep
search, the cancel's webhook and every redelivery go with the run.

A step that was already running when its session was deleted cannot be
stopped by Durable and may write a file afterwards; the retention timer sweeps
memory folders whose session no longer exists (``sweep_orphan_files``).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from shared.core import names
from shared.core.errors import NotFoundError, TransientError
from shared.core.session_models import SessionRecord, SessionStatus

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

    async def ids_with_prefix(self, prefix: str) -> list[str]:
        """The ids of every instance whose id starts with ``prefix``, whatever its status."""
        ...


@dataclass(frozen=True)
class Purged:
    session_id: str
    instances: int
    files: int


async def instance_ids(instances: Instances, record: SessionRecord) -> list[str]:
    """Every orchestration the session started, the run first (it starts the others)."""
    listed = await instances.ids_with_prefix(record.id)
    found = {i for i in listed if names.is_session_instance(i, record.id)}
    others = sorted(found - {record.instance_id})
    return [record.instance_id, *others]


async def purge_session(
    svc: Services, instances: Instances, record: SessionRecord, reason: str
) -> Purged:
    """Remove everything of ``record`` (see the module docstring); idempotent.

    ``TransientError`` when an orchestration did not stop in time: nothing is
    deleted yet and the caller may try again.
    """
    if not record.status.is_terminal:
        await asyncio.to_thread(svc.sessions.update, record.id, _cancelled(reason))
    purged = await _purge_instances(instances, record, reason)
    files = await asyncio.to_thread(svc.memory.delete_session, record.id)
    await asyncio.to_thread(svc.sessions.delete, record.id)
    # A redelivery or cancel that got past its session check just before the
    # document went may have started one more instance: nothing can start now.
    purged += await _purge_instances(instances, record, reason)
    return Purged(session_id=record.id, instances=purged, files=files)


async def _purge_instances(instances: Instances, record: SessionRecord, reason: str) -> int:
    """Stop and purge the session's instances, listing again until no new one shows.

    Durable's list answers one page (100 in Azure); purged instances leave the
    list, so the next listing reaches the ones past the first page.
    """
    purged, seen = 0, set()
    while ids := [i for i in await instance_ids(instances, record) if i not in seen]:
        seen.update(ids)
        for instance_id in ids:
            await stop_instance(instances, instance_id, reason)
        for instance_id in ids:
            purged += await instances.purge(instance_id)
    return purged


async def purge_expired(svc: Services, instances: Instances, now: datetime) -> list[Purged]:
    """Purge finished sessions idle for more than ``SESSION_RETENTION_DAYS`` days before ``now``.

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
            svc.sessions.list_idle_before, cutoff, RETENTION_BATCH + len(failed)
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


async def sweep_orphan_files(svc: Services) -> list[str]:
    """Delete the memory folders whose session document is gone; their session ids.

    A session's document is written before any of its files and deleted after
    them, so a folder without a document is what a step still running at the
    delete wrote afterwards: never the files of a session being started. Such a
    step may have streamed answer chunks too (before the answer file it then
    saved): the store's delete, which needs no document, takes those. One
    folder that fails is logged and left for the next run.
    """
    swept = []
    for session_id in await asyncio.to_thread(svc.memory.folders):
        if session_id.startswith(names.WATCH_ID_PREFIX):
            continue  # a watch's folder: it has no session document (shared/usecases/watches.py)
        try:
            if not await asyncio.to_thread(_session_exists, svc, session_id):
                await asyncio.to_thread(svc.sessions.delete, session_id)
                await asyncio.to_thread(svc.memory.delete_session, session_id)
                swept.append(session_id)
        except Exception:
            log.exception("could not sweep the memory folder of session %s", session_id)
    return swept


def _session_exists(svc: Services, session_id: str) -> bool:
    try:
        svc.sessions.get(session_id)
    except NotFoundError:
        return False
    return True


async def stop_instance(instances: Instances, instance_id: str, reason: str) -> None:
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
