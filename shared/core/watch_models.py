"""A watched question: the watch, each of its runs, and what changed from one run to the next.

A watch is kept in the memory store under its own folder (``watch.json``,
``runs/run_NNNN.json``, ``schedule.json``), each file with one writer: the API
writes ``watch.json`` (create, pause, resume, delete), the watch's activities write
the run and schedule files, so a pause never races a run's bookkeeping.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from shared.core.session_models import Mode, Owner

WatchStatus = Literal["active", "paused", "deleted"]
WatchMode = Literal["search", "deep_search", "deep_research"]  # a chat reads no sources


class WatchRecord(BaseModel):
    """``watch.json``: what is watched, how often, for whom, and whether it runs."""

    id: str
    owner: Owner
    question: str
    mode: Mode
    every: str  # "daily", "weekly" or a cron expression (UTC; a sixth field is seconds)
    callback_url: str | None = None
    status: WatchStatus = "active"
    created_at: datetime
    updated_at: datetime


class WatchChanges(BaseModel):
    """What a run found that the run before it did not, and what it no longer found."""

    new_sources: list[str] = Field(default_factory=list)
    gone_sources: list[str] = Field(default_factory=list)
    new_claims: list[str] = Field(default_factory=list)
    gone_claims: list[str] = Field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.new_sources or self.gone_sources or self.new_claims or self.gone_claims)


class WatchRun(BaseModel):
    """``runs/run_NNNN.json``: one run of the watch and how it compared with the one before."""

    n: int = Field(ge=1)
    session_id: str | None = None  # None when the run was refused (a quota) or skipped
    status: Literal["running", "completed", "failed", "refused"] = "running"
    started_at: datetime
    finished_at: datetime | None = None
    reason: str | None = None  # why a run was refused
    compared_with: int | None = None  # the run this one was compared with
    changes: WatchChanges | None = None
    notified: bool = False  # a research.watch_update webhook was sent for it
    delivery: dict | None = None  # its delivery record


class WatchTick(BaseModel):
    """The watch orchestration's input: run ``run`` is due at ``due`` (None: now)."""

    watch_id: str
    run: int = Field(1, ge=1)
    due: datetime | None = None


class WatchStep(BaseModel):
    """What the watch's run-start activity decided: stop, skip this run, or run a session."""

    action: Literal["stop", "skip", "run"]
    next_due: datetime | None = None  # the following run's time (stop: None)
    next_run: int | None = None  # the following run's number (a refused run used its own)
    orchestrator: str | None = None  # the mode's orchestration, for "run"
    start_input: dict | None = None  # its input (StartInput), for "run"


class WatchRunRef(BaseModel):
    """The compare activity's input: run ``run`` of ``watch_id`` finished."""

    watch_id: str
    run: int = Field(ge=1)
