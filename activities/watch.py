"""The watch orchestration's two activities: start a run, then compare it with the last one."""

from __future__ import annotations

import azure.durable_functions as df

from activities.common import run_step
from shared.core.watch_models import WatchRunRef, WatchTick
from shared.usecases import watch_runs

bp = df.Blueprint()


@bp.activity_trigger(input_name="payload")
def watch_run_start(payload: dict) -> dict:
    return run_step(payload, WatchTick, watch_runs.start_run)


@bp.activity_trigger(input_name="payload")
def watch_compare(payload: dict) -> dict:
    return run_step(payload, WatchRunRef, watch_runs.compare)
