"""Durable timers for devhost: a heap of due times served by one thread.

Timers are persisted as work rows (``devhost.instances``); this only wakes up
when one is due and hands its work id back to the engine, which turns it into
a ``TimerFired`` event. After a restart the engine re-arms every stored timer.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable


class TimerQueue:
    def __init__(self, on_due: Callable[[int], None]) -> None:
        self._on_due = on_due
        self._heap: list[tuple[float, int]] = []
        self._cv = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._loop, name="timers", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def schedule(self, due_at: float, work_id: int) -> None:
        """Fire ``work_id`` at ``due_at`` (epoch seconds); a past time fires at once."""
        with self._cv:
            heapq.heappush(self._heap, (due_at, work_id))
            self._cv.notify()

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._heap and not self._stopping:
                    self._cv.wait()
                if self._stopping:
                    return
                due, work_id = self._heap[0]
                delay = due - time.time()
                if delay > 0:
                    self._cv.wait(min(delay, 1.0))
                    continue
                heapq.heappop(self._heap)
            self._on_due(work_id)
