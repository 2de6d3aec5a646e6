"""History timestamps for the Durable Python SDK's replay, read without dateutil.

azure-functions-durable 1.7 parses the timestamp of every history event with
``dateutil.parser.parse`` each time an orchestrator replays, about 90 µs per
event: a deep research episode replays around 100 events, so reading dates
was close to half the CPU of an episode, on Azure as in devhost. The Durable
extension sends ISO 8601 (``2026-11-22T09:09:27.1234567Z``), which
``datetime.fromisoformat`` reads to the same value in about a microsecond;
anything it cannot read still goes to dateutil.

``install`` swaps the parser only while the SDK still calls dateutil's
``parse`` there (the SDK is pinned in requirements.txt); otherwise it leaves
the SDK alone.
"""

from __future__ import annotations

import importlib
from datetime import datetime

from dateutil.parser import parse as dateutil_parse

_HISTORY_EVENT_MODULE = "azure.durable_functions.models.history.HistoryEvent"


def parse_timestamp(value: str) -> datetime:
    """The datetime dateutil would give for a Durable timestamp, about 90× faster."""
    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return dateutil_parse(value)


def install() -> bool:
    """Use ``parse_timestamp`` for history events; whether the SDK now uses it."""
    module = importlib.import_module(_HISTORY_EVENT_MODULE)
    if getattr(module, "dt_parse", None) is dateutil_parse:
        module.dt_parse = parse_timestamp
    return getattr(module, "dt_parse", None) is parse_timestamp
