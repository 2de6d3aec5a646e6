"""Watches: a question researched again on a schedule, kept as files in the memory store.

A watch lives in a folder of its own (``watch-{hex}``) beside the sessions' folders:
``watch.json`` (the ``WatchRecord``, written only here, by the API), ``schedule.json``
(the next run's time) and ``runs/run_NNNN.json`` (written only by the watch's
activities, ``watch_runs.py``). Owner rules as for sessions: a watch belongs to whoever
created it and anyone else gets the 404 an unknown id gets. The schedule is ``daily``,
``weekly`` or a cron expression in UTC (croniter; a sixth field is seconds); two runs
are never closer than ``WATCH_MIN_INTERVAL_SECONDS``.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from croniter import croniter
from pydantic import BaseModel, ValidationError

from shared.adapters.identity import Principal
from shared.core import names
from shared.core.errors import InvalidInputError, NotFoundError
from shared.core.session_models import Mode
from shared.core.watch_models import WatchRecord, WatchRun, WatchStatus
from shared.ports import Services
from shared.usecases import owned_ids

WATCH = "watch.json"
SCHEDULE = "schedule.json"
RUNS = "runs/"
PREFIX = names.WATCH_ID_PREFIX
NAMED = {"daily": "0 0 * * *", "weekly": "0 0 * * 1"}  # midnight UTC; Mondays
GAPS_CHECKED = 5  # consecutive runs whose spacing is checked against the shortest interval


class Schedule(BaseModel):
    next_run_at: datetime | None = None


def cron_of(every: str) -> str:
    return NAMED.get(every.strip().lower(), every.strip())


def next_time(every: str, after: datetime) -> datetime:
    """The first run time of ``every`` strictly after ``after`` (UTC)."""
    return croniter(cron_of(every), after.astimezone(UTC)).get_next(datetime).astimezone(UTC)


def check_every(every: str, min_seconds: int, now: datetime) -> str:
    """``every`` if it is a schedule whose runs are at least ``min_seconds`` apart (422 else)."""
    cron = cron_of(every)
    if not croniter.is_valid(cron):
        raise _bad_every(f"{every!r} is not daily, weekly or a cron expression")
    times = [next_time(every, now)]
    for _ in range(GAPS_CHECKED):
        times.append(next_time(every, times[-1]))
    shortest = min((b - a).total_seconds() for a, b in itertools.pairwise(times))
    if shortest < min_seconds:
        raise _bad_every(
            f"{every!r} runs every {shortest:g} s; the shortest interval allowed is "
            f"{min_seconds} s (WATCH_MIN_INTERVAL_SECONDS)"
        )
    return every.strip()


def _bad_every(message: str) -> InvalidInputError:
    return InvalidInputError(message, [{"loc": ["every"], "msg": message}])


def create(
    svc: Services,
    principal: Principal,
    question: str,
    mode: Mode,
    every: str,
    callback_url: str | None,
) -> WatchRecord:
    now = datetime.now(UTC)
    every = check_every(every, svc.settings.watch_min_interval_seconds, now)
    record = WatchRecord(
        id=owned_ids.new_id(principal.owner, PREFIX),
        owner=principal.owner,
        question=question,
        mode=mode,
        every=every,
        callback_url=callback_url,
        created_at=now,
        updated_at=now,
    )
    _save(svc, record)
    save_schedule(svc, record.id, next_time(every, now))
    return record


def watch_for(svc: Services, principal: Principal, watch_id: str) -> WatchRecord:
    """The watch if it is ``principal``'s; ``NotFoundError`` (404) otherwise."""
    record = read(svc, watch_id)
    if record is None or record.owner != principal.owner or record.status == "deleted":
        raise NotFoundError(f"unknown watch {watch_id!r}")
    return record


def read(svc: Services, watch_id: str) -> WatchRecord | None:
    if not watch_id.startswith(PREFIX):
        return None
    try:
        return WatchRecord.model_validate_json(svc.memory.read(watch_id, WATCH))
    except (NotFoundError, InvalidInputError, ValidationError):
        return None


def list_for(svc: Services, principal: Principal) -> list[WatchRecord]:
    """``principal``'s watches, newest first: only the watch folders named for them are
    read (``owned_ids``), found by their prefix among the sessions'."""
    names = owned_ids.candidates(svc.memory.folders(PREFIX), principal.owner, PREFIX)
    found = [read(svc, i) for i in names]
    mine = [w for w in found if w and w.owner == principal.owner and w.status != "deleted"]
    return sorted(mine, key=lambda w: w.created_at, reverse=True)


def set_status(svc: Services, record: WatchRecord, status: WatchStatus) -> WatchRecord:
    changed = record.model_copy(update={"status": status, "updated_at": datetime.now(UTC)})
    _save(svc, changed)
    return changed


def delete(svc: Services, record: WatchRecord) -> None:
    """Marks it deleted first (a run that starts meanwhile stops), then removes its folder;
    the sessions its runs started stay, as the owner's sessions."""
    set_status(svc, record, "deleted")
    svc.memory.delete_session(record.id)


def runs(svc: Services, watch_id: str) -> list[WatchRun]:
    out = []
    for name in sorted(n for n in svc.memory.list(watch_id) if n.startswith(RUNS)):
        try:
            out.append(WatchRun.model_validate_json(svc.memory.read(watch_id, name)))
        except (NotFoundError, ValidationError):
            continue
    return out


def run_name(n: int) -> str:
    return f"{RUNS}run_{n:04d}.json"


def next_run_at(svc: Services, watch_id: str) -> datetime | None:
    try:
        return Schedule.model_validate_json(svc.memory.read(watch_id, SCHEDULE)).next_run_at
    except NotFoundError:
        return None


def _save(svc: Services, record: WatchRecord) -> None:
    svc.memory.write(record.id, WATCH, record.model_dump_json(), "application/json")


def save_schedule(svc: Services, watch_id: str, when: datetime | None) -> None:
    data = Schedule(next_run_at=when).model_dump_json()
    svc.memory.write(watch_id, SCHEDULE, data, "application/json")
