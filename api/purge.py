"""Deleting sessions (shared/usecases/purge.py): by their owner over HTTP, and by retention on a
timer.

- ``DELETE /api/research/{session_id}``: the owner only (an admin may read
  other people's sessions, not delete them); 204 when everything is gone, 404
  for an unknown session or someone else's.
- ``purge_expired_sessions``: daily, and at host start-up (devhost runs
  timers only then), removes finished sessions idle for more than
  ``SESSION_RETENTION_DAYS`` days, then the memory folders whose session is
  gone (files a step still running at a delete wrote afterwards; always, with
  or without the setting), and collections unchanged for as long.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import azure.durable_functions as df
import azure.functions as func

from api.caller import route_session
from api.errors import handled
from api.maintenance import runtime_status_reader
from api.transport import http_function
from shared.bootstrap import services
from shared.core.errors import TransientError
from shared.usecases.collections import purge_expired_collections
from shared.usecases.purge import purge_expired, purge_session, sweep_orphan_files

bp = df.Blueprint()
log = logging.getLogger(__name__)
RETENTION_SCHEDULE = "0 30 3 * * *"  # NCRONTAB: 03:30 UTC every day


@bp.route(route="research/{session_id}", methods=["DELETE"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def delete_research(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    _, record = await route_session(req, svc, "act")
    purged = await purge_session(svc, DurableInstances(client), record, "deleted by its owner")
    log.info(
        "deleted session %s: %d instance histories, %d files",
        purged.session_id,
        purged.instances,
        purged.files,
    )
    return func.HttpResponse(status_code=204)


@bp.timer_trigger(arg_name="timer", schedule=RETENTION_SCHEDULE, run_on_startup=True)
@bp.durable_client_input(client_name="client")
async def purge_expired_sessions(timer: func.TimerRequest, client) -> None:
    svc = services()
    purged = await purge_expired(svc, DurableInstances(client), datetime.now(UTC))
    if purged:
        log.info("retention: deleted %d session(s)", len(purged))
    swept = await sweep_orphan_files(svc)
    if swept:
        log.info("retention: swept the files of %d deleted session(s)", len(swept))
    collections = await purge_expired_collections(svc, DurableInstances(client), datetime.now(UTC))
    if collections:
        log.info("retention: deleted %d collection(s)", len(collections))


class DurableInstances:
    """``shared.usecases.purge.Instances`` over the real ``DurableOrchestrationClient``."""

    def __init__(self, client) -> None:
        self._client = client
        self._status_of = runtime_status_reader(client)

    async def runtime_status(self, instance_id: str) -> str | None:
        return await self._status_of(instance_id)

    async def terminate(self, instance_id: str, reason: str) -> None:
        try:
            await self._client.terminate(instance_id, reason)
        except Exception as exc:  # the SDK raises bare Exception for 404/410: already over
            log.info("terminate %s: %s", instance_id, exc)

    async def purge(self, instance_id: str) -> int:
        result = await self._client.purge_instance_history(instance_id)
        return int(result.instances_deleted)

    async def ids_with_prefix(self, prefix: str) -> list[str]:
        # One page of the Durable list API (100 in Azure): the purge lists again
        # after purging what it got, until nothing new shows.
        try:
            found = await self._client.get_status_by(instance_id_prefix=prefix)
        except Exception as exc:  # the SDK raises bare Exception for unexpected codes
            raise TransientError(f"durable instances under {prefix} unavailable: {exc}") from exc
        return [status.instance_id for status in found if status.instance_id]
