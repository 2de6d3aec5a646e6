"""A watch's schedule (``shared.usecases.watches``) and what counts as a change
(``shared.usecases.watch_runs``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shared.core.errors import InvalidInputError
from shared.usecases.watch_runs import changes_between, summary
from shared.usecases.watches import check_every, next_time

WEDNESDAY = datetime(2026, 11, 25, 15, 30, tzinfo=UTC)


def test_named_schedules_are_midnight_utc_daily_and_on_mondays():
    assert next_time("daily", WEDNESDAY) == datetime(2026, 11, 26, tzinfo=UTC)
    assert next_time("weekly", WEDNESDAY) == datetime(2026, 11, 30, tzinfo=UTC)
    assert next_time("*/15 * * * * 0", WEDNESDAY) == datetime(2026, 11, 25, 15, 45, tzinfo=UTC)


def test_a_schedule_runs_no_more_often_than_the_setting_allows():
    assert check_every(" daily ", 3600, WEDNESDAY) == "daily"
    assert check_every("0 */2 * * *", 3600, WEDNESDAY) == "0 */2 * * *"
    for every, words in (("*/5 * * * *", "every 300 s"), ("next tuesday", "not daily")):
        with pytest.raises(InvalidInputError, match=words) as raised:
            check_every(every, 3600, WEDNESDAY)
        assert raised.value.details[0]["loc"] == ["every"]


def test_changes_are_sources_and_claims_found_and_no_longer_found():
    before = ({"https://a", "https://b"}, {"x": "Tasks can be cancelled.", "y": "Old claim."})
    after = ({"https://b", "https://c"}, {"x": "Tasks can be cancelled.", "z": "New claim."})
    changes = changes_between(before, after)
    assert changes.new_sources == ["https://c"] and changes.gone_sources == ["https://a"]
    assert changes.new_claims == ["New claim."] and changes.gone_claims == ["Old claim."]
    assert changes.any and not changes_between(after, after).any
    text = summary(changes)
    assert text.startswith("## What changed") and "**Claims no longer made** (1):" in text
