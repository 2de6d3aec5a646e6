"""Activities in worker processes, as ``FUNCTIONS_WORKER_PROCESS_COUNT`` > 1 runs them in Azure.

Why: in one process the HTTP front, the orchestration thread and the activity
threads share one GIL, so a CPU-bound activity (the offline engine) delays
every status read. The Functions host answers that by starting several
language worker processes; devhost does the same. The host process keeps the
HTTP front, the orchestration thread, the timers and the instance store; each
worker process indexes the app once (as the worker does at start) and runs
activities in its own thread pool, like the Python worker's sync functions.

Only JSON crosses the pipe: ``(call id, activity name, input JSON)`` out and
``(call id, ActivityOutcome)`` back (``devhost.activity_call``). Whatever an
activity keeps between calls must therefore be in the stores, as on Azure where
consecutive activities of one session land on different processes or machines.

Crash semantics are the Durable extension's: a worker process that dies takes
its in-flight activities with it, and each is delivered again (at least once)
to a fresh process; the host never records a failure it did not see. A process that
dies before it is ready (the app does not import, a setting is wrong) ran nothing: its
activities go to another process. When ``MAX_START_FAILURES`` die so in a row, another
would too: the slot is not refilled, and the activities fail with ``WorkerProcessFailed``
(and an error in the log) instead of waiting on processes that never start.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from devhost.activity_call import ActivityOutcome, call_activity
from devhost.instances import WorkItem
from shared.core.config import Settings

log = logging.getLogger("devhost.workers")
DEFAULT_APP = "function_app:app"
# spawn, not fork: the host process has threads (HTTP loop, engine) that fork would copy mid-lock.
CONTEXT = multiprocessing.get_context("spawn")
# A result waiting in the pipe, or a thread woken by its model's reply, waits for the GIL
# up to the switch interval (5 ms by default) while another activity computes: 1 ms here.
SWITCH_INTERVAL_S = 0.001
READY = 0  # the call id of the message a worker process sends once warmed up (calls start at 1)
# Worker processes ending before READY, one after the other, before no more are started.
MAX_START_FAILURES = 3


def app_reference(app: Any) -> str:
    """``module:attribute`` naming ``app`` so that a worker process can import it again."""
    if app is None:
        return DEFAULT_APP
    for module_name, module in list(sys.modules.items()):
        for attribute, value in list(vars(module).items()) if module else ():
            if value is app and module_name != "__main__":
                return f"{module_name}:{attribute}"
    raise ValueError("worker processes need an app importable as module:attribute")


class _Worker:
    """One worker process, its pipe, and the activities it holds (call id → work)."""

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process, self.conn = process, conn
        self.inflight: dict[int, WorkItem] = {}
        self.send_lock = threading.Lock()
        self.ready = threading.Event()  # indexed and warmed up: its first activity runs warm
        self.settled = threading.Event()  # ready, or ended: what a wait for it waits on


class WorkerProcesses:
    """``count`` worker processes with ``threads`` activity threads each."""

    def __init__(
        self,
        count: int,
        threads: int,
        settings: Settings,
        app_ref: str,
        on_result: Callable[[WorkItem, ActivityOutcome], None],
        on_lost: Callable[[WorkItem], None],
    ) -> None:
        self.count, self.threads = count, threads
        self._settings, self._app_ref = settings, app_ref
        self._on_result, self._on_lost = on_result, on_lost
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._next_call = 0
        self._stopping = threading.Event()
        self._start_failures = 0  # processes ended before READY since one was last ready
        self._failure = ""  # why no worker process is left (once none is)

    def start(self) -> None:
        with self._lock:
            self._workers = [self._spawn() for _ in range(self.count)]

    def pids(self) -> list[int]:
        """The worker processes' ids (what a test kills to see an activity redelivered)."""
        with self._lock:
            return [w.process.pid for w in self._workers]

    def wait_ready(self, timeout: float) -> bool:
        """Whether every worker process finished its warm-up within ``timeout`` seconds
        (not when none is left: they ended before they were ready)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                workers = list(self._workers)
            pending = [w for w in workers if not w.ready.is_set()]
            left = deadline - time.monotonic()
            if not workers or not pending or left <= 0:
                return bool(workers) and not pending
            pending[0].settled.wait(left)  # then look again: it may have been replaced

    def submit(self, work: WorkItem) -> None:
        """Hand ``work`` to the process holding the fewest activities (none left: fail it)."""
        with self._lock:
            failure = "" if self._workers else self._failure
            if not failure:
                worker = min(self._workers, key=lambda w: len(w.inflight))
                self._next_call += 1
                call_id = self._next_call
                worker.inflight[call_id] = work
        if failure:
            self._on_result(work, ActivityOutcome(reason=failure))
            return
        try:
            with worker.send_lock:
                worker.conn.send((call_id, work.name, work.input))
        except (OSError, ValueError):
            pass  # the process is gone: its reader redelivers everything it held

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            try:
                with worker.send_lock:
                    worker.conn.send(None)
            except (OSError, ValueError):
                pass
        for worker in workers:
            worker.process.join(5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(5)
            worker.conn.close()

    def _spawn(self) -> _Worker:
        ours, theirs = CONTEXT.Pipe()
        process = CONTEXT.Process(
            target=serve,
            args=(theirs, self._settings, self._app_ref, self.threads, _log_level()),
            name="devhost-worker",
            daemon=True,
        )
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        reader = threading.Thread(
            target=self._read, args=(worker,), name=f"worker-{process.pid}", daemon=True
        )
        reader.start()
        return worker

    def _read(self, worker: _Worker) -> None:
        while True:
            try:
                call_id, outcome = worker.conn.recv()
            except (EOFError, OSError):
                break
            except Exception:  # a message we cannot read: treat the process as lost
                log.exception("devhost: unreadable message from worker %s", worker.process.pid)
                worker.process.kill()  # its results could no longer reach anyone
                break
            if call_id == READY:
                with self._lock:
                    self._start_failures = 0
                worker.ready.set()
                worker.settled.set()
                continue
            with self._lock:
                work = worker.inflight.pop(call_id, None)
            if work is not None:
                try:
                    self._on_result(work, outcome)
                except Exception:  # keep reading: a silent reader would stall the process
                    log.exception("devhost: the result of %s was not recorded", work.name)
        self._lost(worker)
        worker.settled.set()  # replaced (or not) by now: a wait for the processes looks again

    def _lost(self, worker: _Worker) -> None:
        """The process died: replace it, then deliver what it held again (or, when it and
        the ones before it never got ready, fail what it held)."""
        if self._stopping.is_set():
            return
        worker.process.join(5)
        started = worker.ready.is_set()
        failure = ""
        with self._lock:
            if self._stopping.is_set() or worker not in self._workers:
                return
            self._start_failures = 0 if started else self._start_failures + 1
            given_up = self._start_failures >= MAX_START_FAILURES  # another would die too
            if given_up:
                self._workers.remove(worker)
                self._failure = failure = (
                    f"WorkerProcessFailed: {self._start_failures} worker processes in a row"
                    f" ended before they were ready (last exit code {worker.process.exitcode});"
                    " see the log"
                )
            else:
                self._workers[self._workers.index(worker)] = self._spawn()
            lost, worker.inflight = list(worker.inflight.values()), {}
        worker.conn.close()
        what = "redelivering" if started else "handing on"
        if given_up:
            what = "not starting another; failing"
        (log.error if given_up else log.warning)(
            "devhost: worker process %s ended (exit code %s)%s; %s %d activities",
            worker.process.pid,
            worker.process.exitcode,
            "" if started else " before it was ready",
            what,
            len(lost),
        )
        for work in lost:
            if given_up:
                self._on_result(work, ActivityOutcome(reason=failure))
            elif started:
                self._on_lost(work)  # it may have run: counted towards MAX_PROCESS_LOSSES
            else:
                self.submit(work)  # it never ran: another process takes it


# -- in the worker process --------------------------------------------------------------


def _log_level() -> int:
    return logging.getLogger().getEffectiveLevel()


def serve(conn: Connection, settings: Settings, app_ref: str, threads: int, level: int) -> None:
    """A worker process: index the app once, then run activities until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the host, which stops us
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # What activities log goes to the host's output (inherited stderr), as devhost logs.
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    from devhost.registry import index
    from shared.bootstrap import configure

    services = configure(settings)
    module_name, _, attribute = app_ref.partition(":")
    registry = index(getattr(importlib.import_module(module_name), attribute))
    _warm_up(services)  # activities sent meanwhile wait in the pipe
    send_lock = threading.Lock()
    conn.send((READY, None))

    def run(call_id: int, name: str | None, input_json: str | None) -> None:
        outcome = call_activity(registry, name, input_json)
        with send_lock:
            conn.send((call_id, outcome))

    pool = ThreadPoolExecutor(threads, thread_name_prefix="activity")
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            os._exit(1)  # the host died: its worker goes with it (the next host redelivers)
        if message is None:
            break
        pool.submit(run, *message)
    pool.shutdown(wait=True, cancel_futures=True)  # a stopping host: as its thread pool does
    conn.close()
    os._exit(0)  # do not wait on the SDK's atexit hooks


def _warm_up(services: Any) -> None:
    """Pay the per-process costs before the first activity has to (``AppServices.warm_up``)."""
    try:
        services.warm_up()
    except Exception:  # a cold start is slower, never wrong
        log.exception("devhost: worker warm-up failed")
