"""Maintenance: sessions whose orchestration is gone are closed (shared/usecases/reconcile.py).

Two entry points, one logic:
- ``create_session``: the start handler's create; when the chat's deep research
  slot is taken by an orphaned session, that session is marked failed and the
  create is tried once more;
- ``reconcile_sessions``: a timer that sweeps every unfinished session, at
  host start-up (``run_on_startup``) and every 15 minutes, so orphans of any
  mode are closed even if nobody starts a new research in their chat.
  ``run_on_startup`` also fires on each scale-out instance; the sweep is
  idempotent and costs one query plus one status call per unfinished session.
"""

from __future__ import annotations

import asyncio
import logging

import azure.durable_functions as df
import azure.functions as func

from shared.adapters.stores.base import SessionStore
from shared.adapters.stores.quota import StartQuota
from shared.bootstrap import services
from shared.core.errors import ActiveSessionConflict, TransientError
from shared.core.session_models import SessionRecord
from shared.usecases.reconcile import RuntimeStatusOf, close_orphan_in_chat, sweep

bp = df.Blueprint()
log = logging.getLogger(__name__)
SWEEP_SCHEDULE = "0 */15 * * * *"  # NCRONTAB: second 0 of every 15th minute


@bp.timer_trigger(arg_name="timer", schedule=SWEEP_SCHEDULE, run_on_startup=True)
@bp.durable_client_input(client_name="client")
async def reconcile_sessions(timer: func.TimerRequest, client) -> None:
    closed = await sweep(services().sessions, runtime_status_reader(client))
    if closed:
        log.warning("closed %d orphaned session(s): %s", len(closed), [r.id for r in closed])


async def create_session(
    store: SessionStore, client, record: SessionRecord, quota: StartQuota | None = None
) -> SessionRecord:
    """``store.create`` (under ``quota``: ``shared/usecases/quotas.py``); a chat blocked by an
    orphaned deep research is freed once first.

    When the holder's orchestration cannot be asked about (Durable not
    answering), the original conflict stands: better a 409 than a wrong guess.
    """
    try:
        return await asyncio.to_thread(store.create, record, quota)
    except ActiveSessionConflict:
        runtime_status_of = runtime_status_reader(client)
        try:
            closed = await close_orphan_in_chat(store, record.chat_id, runtime_status_of)
        except TransientError as exc:
            log.warning("could not check the chat's active session for %s: %s", record.id, exc)
            closed = None
        if closed is None:
            raise
    return await asyncio.to_thread(store.create, record, quota)


def runtime_status_reader(client) -> RuntimeStatusOf:
    """``instance_id -> runtime status name | None`` through the Durable client."""

    async def runtime_status_of(instance_id: str) -> str | None:
        try:
            status = await client.get_status(instance_id)
        except Exception as exc:  # the SDK raises bare Exception for unexpected codes
            raise TransientError(f"durable status of {instance_id} unavailable: {exc}") from exc
        return getattr(status.runtime_status, "value", None)

    return runtime_status_of
