"""``shared.usecases.quotas.admit`` over a real SQLite session store: the day's spend decides.

A start is refused once the owner's sessions of the UTC day have used the
token or cost quota, and a start that is let in gets a budget no larger than
what is left of the day, so one run cannot spend the day several times over.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import ResearchOptions, Settings
from shared.core.errors import QuotaExceeded
from shared.core.session_models import Mode, Owner, SessionRecord, Usage
from shared.usecases.quotas import COST_SETTING, TOKENS_SETTING, admit

NOW = datetime(2026, 3, 14, 15, 0, tzinfo=UTC)
ALICE = Owner(id="alice", tenant="contoso")


@dataclass
class Ports:
    """The two ports ``admit`` uses (``shared.ports.Services`` lets a test hand these)."""

    settings: Settings
    sessions: SqliteSessionStore


def ports(tmp_path: Path, **quotas: float) -> Ports:
    settings = Settings(data_dir=tmp_path, **quotas)
    return Ports(settings, SqliteSessionStore(tmp_path / "sessions.sqlite3"))


def spend(store: SqliteSessionStore, tokens: int, cost: float, when: datetime = NOW) -> None:
    store.create(
        SessionRecord(
            id=uuid.uuid4().hex,
            chat_id=uuid.uuid4().hex,
            owner=ALICE,
            original_query="q",
            mode=Mode.chat,
            instance_id="i",
            usage=Usage(prompt_tokens=tokens, cost=cost),
            created_at=when,
            updated_at=when,
        )
    )


def test_a_new_session_gets_at_most_what_is_left_of_the_day(tmp_path: Path) -> None:
    svc = ports(tmp_path, quota_tokens_per_day_per_owner=10_000, quota_cost_per_day_per_owner_usd=2)
    spend(svc.sessions, 9_000, 0.5)
    spend(svc.sessions, 50_000, 9.0, when=NOW - timedelta(days=1))  # yesterday is over

    caps = admit(svc, ALICE, svc.settings.caps_for(), NOW).caps
    asked_less = svc.settings.caps_for(ResearchOptions(max_tokens=1000, max_cost_usd=0.1))

    assert (caps.max_tokens, caps.max_cost_usd) == (1000, 1.5)
    assert admit(svc, ALICE, asked_less, NOW).caps.max_cost_usd == 0.1
    assert admit(svc, Owner(id="bob"), svc.settings.caps_for(), NOW).caps.max_tokens == 10_000


@pytest.mark.parametrize(
    ("quotas", "setting", "limit", "used"),
    [
        ({"quota_tokens_per_day_per_owner": 10_000}, TOKENS_SETTING, 10_000, 10_000),
        ({"quota_cost_per_day_per_owner_usd": 0.5}, COST_SETTING, 0.5, 0.75),
    ],
)
def test_a_spent_day_refuses_the_next_start_until_utc_midnight(
    tmp_path: Path, quotas: dict, setting: str, limit: float, used: float
) -> None:
    svc = ports(tmp_path, **quotas)
    spend(svc.sessions, 6_000, 0.5)
    spend(svc.sessions, 4_000, 0.25)

    with pytest.raises(QuotaExceeded) as caught:
        admit(svc, ALICE, svc.settings.caps_for(), NOW)

    refused = caught.value
    assert (refused.quota, refused.limit, refused.used) == (setting, limit, used)
    assert refused.frees_at == datetime(2026, 3, 15, tzinfo=UTC)
    assert refused.retry_after == 9 * 3600 + 1
    tomorrow = datetime(2026, 3, 15, 0, 0, 1, tzinfo=UTC)
    assert admit(svc, ALICE, svc.settings.caps_for(), tomorrow).caps is not None
