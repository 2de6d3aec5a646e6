"""Every log record carries the trace and span it was written in (``trace_id``, ``span_id``).

A log line in Application Insights or a terminal then leads to its trace. Set
through the record factory, not a handler's filter, so records of every logger
get the ids whichever handler writes them; outside a span both are empty.
"""

from __future__ import annotations

import logging
from typing import Any

from shared.tools.telemetry.tracing import current_ids


def install() -> None:
    previous = logging.getLogRecordFactory()
    if getattr(previous, "adds_trace_ids", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.trace_id, record.span_id = current_ids()
        return record

    factory.adds_trace_ids = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
