"""What an open progress stream costs while nothing happens (api/streams.py).

The poll schedule decides how often a quiet stream reads the store and asks
Durable: it must stretch to a few seconds while a session waits for its
user, and snap back at once when something changes. The cap's bookkeeping
must not keep a person locked out by a stream whose end was never seen.
"""

from __future__ import annotations

import pytest

from api.streams import LONGEST_POLL_SECONDS, OpenStreams, PollBackoff
from shared.core.errors import QuotaExceeded
from shared.core.session_models import Owner


def test_a_quiet_stream_polls_less_and_less_often_up_to_a_few_seconds() -> None:
    backoff = PollBackoff()

    pauses = [backoff.pause(changed=False) for _ in range(6)]

    assert pauses == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert LONGEST_POLL_SECONDS <= 5  # a waiting user still sees a change within seconds


def test_a_change_brings_the_shortest_pause_back() -> None:
    backoff = PollBackoff()
    for _ in range(5):
        backoff.pause(changed=False)

    assert [backoff.pause(changed=True), backoff.pause(changed=False)] == [0.5, 1.0]


def test_a_quiet_hour_costs_a_fraction_of_fixed_half_second_polls() -> None:
    backoff, elapsed, polls = PollBackoff(), 0.0, 0
    while elapsed < 3600:
        elapsed += backoff.pause(changed=False)
        polls += 1

    assert polls < 3600 / 0.5 / 7  # 7200 polls an hour before


def test_streams_are_counted_per_person_and_an_ended_one_frees_its_place() -> None:
    streams, alice, bob = OpenStreams(max_age_seconds=60), Owner(id="alice"), Owner(id="bob")
    first = streams.open(alice, 2)
    streams.open(alice, 2)

    with pytest.raises(QuotaExceeded) as caught:
        streams.open(alice, 2)
    streams.open(bob, 2)
    streams.close(alice, first)

    assert (caught.value.quota, caught.value.limit, caught.value.used) == (
        "QUOTA_OPEN_STREAMS_PER_OWNER",
        2,
        2,
    )
    streams.open(alice, 2)
    streams.open(alice, 0)  # 0 = unlimited


def test_a_stream_whose_end_was_never_seen_stops_counting_after_its_longest_life() -> None:
    now = [0.0]
    streams, alice = OpenStreams(max_age_seconds=3660, clock=lambda: now[0]), Owner(id="alice")
    streams.open(alice, 1)  # its response never began, so nothing will close it

    with pytest.raises(QuotaExceeded):
        streams.open(alice, 1)
    now[0] = 3661.0

    streams.open(alice, 1)
