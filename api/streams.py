"""What an open progress stream may cost: a cap per owner, and polling that backs off.

Every open ``/events`` response (a streamed one for up to an hour, a long
poll for up to ~25 s) reads the session store and asks Durable for the
instance's status on each poll. Two things keep that bounded:

- :class:`OpenStreams` caps the streams one owner holds open at once
  (``QUOTA_OPEN_STREAMS_PER_OWNER``, 0 = unlimited); one more is a 429
  naming the quota. The count is per app instance (each instance polls for
  its own streams), kept in memory; a stream whose end was never seen (a
  response dropped before it began) stops counting after ``max_age_seconds``;
- :class:`PollBackoff` stretches the pause between polls while nothing
  changes (0.5 s, doubling up to 4 s) and goes back to the shortest pause on
  a change: a run that is busy is followed closely, a session waiting for
  its user costs a poll every few seconds.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shared.core.errors import QuotaExceeded
from shared.core.session_models import Owner

SETTING = "QUOTA_OPEN_STREAMS_PER_OWNER"
FREES = "when one of your open event streams ends"
RETRY_AFTER_SECONDS = 5
FIRST_POLL_SECONDS = 0.5
LONGEST_POLL_SECONDS = 4.0


@dataclass
class PollBackoff:
    """The pause before the next poll: the shortest after a change, doubling while quiet."""

    first: float = FIRST_POLL_SECONDS
    longest: float = LONGEST_POLL_SECONDS
    _next: float = field(init=False)

    def __post_init__(self) -> None:
        self._next = self.first

    def pause(self, changed: bool) -> float:
        """Seconds to wait after a poll that saw a change (``changed``) or nothing new."""
        if changed:
            self._next = self.first
        pause = self._next
        self._next = min(self._next * 2, self.longest)
        return pause


class OpenStreams:
    """The open event streams of each owner in this process (see the module docstring)."""

    def __init__(self, max_age_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._max_age = max_age_seconds
        self._clock = clock
        self._open: dict[Owner, dict[int, float]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def open(self, owner: Owner, limit: int) -> int:
        """Count one more stream of ``owner`` and return its ticket for :meth:`close`;
        ``QuotaExceeded`` when ``limit`` (0 = unlimited) are open already."""
        now = self._clock()
        with self._lock:
            held = {t: ends for t, ends in self._open.get(owner, {}).items() if ends > now}
            if limit and len(held) >= limit:
                self._open[owner] = held
                raise QuotaExceeded(SETTING, limit, len(held), FREES, RETRY_AFTER_SECONDS)
            ticket = next(self._ids)
            held[ticket] = now + self._max_age
            self._open[owner] = held
            return ticket

    def close(self, owner: Owner, ticket: int) -> None:
        with self._lock:
            held = self._open.get(owner, {})
            held.pop(ticket, None)
            if not held:
                self._open.pop(owner, None)
