"""Quotas per person: how much one owner may start, whichever door they come through.

Chat ids cost nothing, so "one active deep research per chat" limits nobody;
these quotas limit a person (an owner: principal id and tenant; everyone who
holds the MCP key is the one MCP owner). Each is a setting, 0 = unlimited:

- ``QUOTA_CONCURRENT_SESSIONS_PER_OWNER``: unfinished sessions at once;
- ``QUOTA_SESSIONS_PER_DAY_PER_OWNER``: sessions started per UTC day;
- ``QUOTA_TOKENS_PER_DAY_PER_OWNER`` / ``QUOTA_COST_PER_DAY_PER_OWNER_USD``:
  what the sessions the owner started that UTC day have used.

Every path that starts a session (``POST /api/research``, the MCP
``start_research`` tool, and scheduled runs) does the same two steps:
:func:`admit` before anything is written, then ``SessionStore.create(record,
admission.quota)``. ``admit`` refuses a start once the day's spend has
reached a spend quota, and caps the new session's budget (``Caps.max_tokens``
/ ``max_cost_usd``) to what is left of the day, so one run cannot spend the
day many times over. Sessions running at once each get what was left when they
started, so the day can still end over its spend quota by what they overlap;
the next start is then refused. The store does the counting that must be
exact under concurrency (running sessions, starts per day) inside the create
(``shared/adapters/stores/quota.py``). A refusal is ``QuotaExceeded``: HTTP 429 with
``Retry-After`` and the quota named.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from shared.adapters.stores.quota import StartQuota, day_start, refuse_until_tomorrow
from shared.core.config import Caps, Settings
from shared.core.session_models import Owner, Usage
from shared.ports import Services

TOKENS_SETTING = "QUOTA_TOKENS_PER_DAY_PER_OWNER"
COST_SETTING = "QUOTA_COST_PER_DAY_PER_OWNER_USD"


@dataclass(frozen=True)
class Admission:
    """What a start may go on with: the quota its create is held to, and its caps."""

    quota: StartQuota
    caps: Caps


def start_quota(settings: Settings, now: datetime) -> StartQuota:
    return StartQuota(
        day_start=day_start(now),
        concurrent=settings.quota_concurrent_sessions_per_owner,
        per_day=settings.quota_sessions_per_day_per_owner,
    )


def admit(svc: Services, owner: Owner, caps: Caps, now: datetime) -> Admission:
    """Refuse (``QuotaExceeded``) a start the day's spend leaves no room for; else the quota
    for the create and ``caps`` with the budget cut to what is left of the day.

    Reads the store only when a spend quota is set. Blocking: call it in a thread.
    """
    settings = svc.settings
    quota = start_quota(settings, now)
    tokens_quota = settings.quota_tokens_per_day_per_owner
    cost_quota = settings.quota_cost_per_day_per_owner_usd
    if not (tokens_quota or cost_quota):
        return Admission(quota, caps)
    spent = svc.sessions.spent_today(owner, quota.day_start)
    refuse_if_spent(spent, tokens_quota, cost_quota, quota, now)
    tokens_left = tokens_quota - spent.total_tokens if tokens_quota else None
    cost_left = round(cost_quota - spent.cost, 6) if cost_quota else None
    return Admission(quota, capped(caps, tokens_left, cost_left))


def refuse_if_spent(
    spent: Usage, tokens_quota: int, cost_quota: float, quota: StartQuota, now: datetime
) -> None:
    if tokens_quota and spent.total_tokens >= tokens_quota:
        raise refuse_until_tomorrow(
            TOKENS_SETTING, tokens_quota, spent.total_tokens, quota.next_day, now
        )
    if cost_quota and spent.cost >= cost_quota:
        raise refuse_until_tomorrow(COST_SETTING, cost_quota, spent.cost, quota.next_day, now)


def capped(caps: Caps, tokens_left: int | None, cost_left: float | None) -> Caps:
    """``caps`` whose budget is at most what is left (``None``: that quota is unlimited)."""
    update: dict[str, float | int] = {}
    if tokens_left is not None:
        update["max_tokens"] = min(caps.max_tokens or tokens_left, tokens_left)
    if cost_left is not None:
        update["max_cost_usd"] = min(caps.max_cost_usd or cost_left, cost_left)
    return caps.model_copy(update=update)
