"""A counting stand-in for a store, used by the bench only (never by tests).

It forwards every call to the real store and counts calls per method, so the
bench can report how many Cosmos / Blob operations one deep research costs
(the embedded SQLite / filesystem stores answer the same calls).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

READS = ("get", "read", "list", "history", "exists", "ping")


class CountingStore:
    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if not callable(target):
            return target

        def counted(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self.calls[name] += 1
            return target(*args, **kwargs)

        return counted

    def reads_writes(self) -> tuple[int, int]:
        reads = sum(n for name, n in self.calls.items() if name.startswith(READS))
        return reads, sum(self.calls.values()) - reads
