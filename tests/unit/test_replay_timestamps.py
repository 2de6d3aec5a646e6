"""History timestamps read without dateutil must give exactly what dateutil gave."""

from __future__ import annotations

import importlib

import pytest
from azure.durable_functions.models.history import HistoryEvent, HistoryEventType
from dateutil.parser import parse as dateutil_parse

import function_app  # noqa: F401  (installs the parser, as in the worker)
from orchestrators.replay_timestamps import install, parse_timestamp

# what the Durable extension (7 fraction digits, Z), DTS and devhost send, and odd ones
STAMPS = [
    "2026-11-22T09:09:27.1234567Z",
    "2026-11-22T09:09:27.123456Z",
    "2026-11-22T09:09:27.12Z",
    "2026-11-22T09:09:27Z",
    "2026-11-22T09:09:27.1234567+00:00",
    "2026-11-22T10:09:27.5+01:00",
    "2026-11-22T09:09:27",
    "0001-01-01T00:00:00Z",
]


@pytest.mark.parametrize("stamp", STAMPS)
def test_durable_timestamps_read_the_same_as_with_dateutil(stamp: str) -> None:
    ours, theirs = parse_timestamp(stamp), dateutil_parse(stamp)
    assert ours == theirs
    assert ours.utcoffset() == theirs.utcoffset()
    assert ours.isoformat() == theirs.isoformat()


def test_what_iso_cannot_read_still_goes_to_dateutil() -> None:
    assert parse_timestamp("Sun, 22 Nov 2026 09:09:27 GMT") == dateutil_parse(
        "Sun, 22 Nov 2026 09:09:27 GMT"
    )
    with pytest.raises(ValueError):
        parse_timestamp("not a time")


def test_the_sdk_reads_history_events_with_it_once_the_app_is_imported() -> None:
    module = importlib.import_module("azure.durable_functions.models.history.HistoryEvent")
    assert module.dt_parse is parse_timestamp
    assert install() is True  # a second install changes nothing
    event = HistoryEvent(
        EventType=HistoryEventType.ORCHESTRATOR_STARTED,
        EventId=-1,
        IsPlayed=False,
        Timestamp="2026-11-22T09:09:27.1234567Z",
    )
    assert event.timestamp == dateutil_parse("2026-11-22T09:09:27.1234567Z")
