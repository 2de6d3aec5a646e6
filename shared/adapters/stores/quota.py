"""What a session store enforces when it creates a session under per-owner quotas.

``SessionStore.create(record, quota)`` takes a :class:`StartQuota` (built by
``shared/usecases/quotas.py`` from the settings) and makes two checks part of the
create itself, so that two starts at once cannot both take the last slot:

- ``concurrent``: at most this many unfinished sessions of the owner (any mode).
  A session's slot frees when it reaches a terminal status or is deleted;
- ``per_day``: at most this many sessions started by the owner in the UTC day.
  The count is kept apart from the sessions, so deleting a session does not
  give its start back; a create that fails gives it back.

0 is unlimited, and an unlimited quota costs the store nothing. What the owner
spent today (``SessionStore.spent_today``) counts the usage of the sessions
they started that UTC day, plus what deleted ones had spent: deleting a
session does not give its spend back either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from shared.core.errors import QuotaExceeded

CONCURRENT_SETTING = "QUOTA_CONCURRENT_SESSIONS_PER_OWNER"
PER_DAY_SETTING = "QUOTA_SESSIONS_PER_DAY_PER_OWNER"
# Nobody knows when a running session ends; a client retrying sooner mostly hears 429 again.
CONCURRENT_RETRY_AFTER_SECONDS = 30
FREES_WITH_A_SESSION = "when one of your unfinished sessions ends (done, failed or cancelled)"


def day_start(now: datetime) -> datetime:
    """The UTC midnight that starts ``now``'s day: daily quotas count from there."""
    now = now.astimezone(UTC)
    return datetime(now.year, now.month, now.day, tzinfo=UTC)


@dataclass(frozen=True)
class StartQuota:
    """The limits one start is held to (0 = unlimited) and the UTC day it counts in.

    The owner is the created session's (``SessionRecord.owner``).
    """

    day_start: datetime
    concurrent: int = 0
    per_day: int = 0

    @property
    def day(self) -> str:
        """The day as ``YYYY-MM-DD``, the key of the owner's daily counter."""
        return self.day_start.date().isoformat()

    @property
    def next_day(self) -> datetime:
        return self.day_start + timedelta(days=1)

    @property
    def limited(self) -> bool:
        return bool(self.concurrent or self.per_day)

    def refuse_concurrent(self, used: int) -> QuotaExceeded:
        return QuotaExceeded(
            CONCURRENT_SETTING,
            self.concurrent,
            used,
            FREES_WITH_A_SESSION,
            CONCURRENT_RETRY_AFTER_SECONDS,
        )

    def refuse_per_day(self, used: int, now: datetime | None = None) -> QuotaExceeded:
        return refuse_until_tomorrow(PER_DAY_SETTING, self.per_day, used, self.next_day, now)


def refuse_until_tomorrow(
    setting: str, limit: float, used: float, next_day: datetime, now: datetime | None = None
) -> QuotaExceeded:
    """The refusal of a daily quota: it frees at the next UTC midnight."""
    seconds = (next_day - (now or datetime.now(UTC))).total_seconds()
    return QuotaExceeded(
        setting,
        limit,
        used,
        f"at {next_day.isoformat()} (UTC midnight)",
        max(1, int(seconds) + 1),
        frees_at=next_day,
    )
