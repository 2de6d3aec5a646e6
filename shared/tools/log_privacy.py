"""What may reach the logs at Information level: ids, counts and error types, never a session.

Our own modules log session ids, counts and the type of a failure, not a
question, an answer, a page or a URL a search turned up: the logs of a
company deployment are read by operators, not by the people whose sessions
they are. Some libraries log a line per HTTP request at INFO, and those lines
carry exactly that: httpx (``HTTP Request: GET https://searx.example/search?q=<the
question>``, every page a researcher opened) and the Azure SDK's HTTP logging
policy (request URLs). ``install`` raises them to WARNING, where they still
report failures. ``function_app`` calls it at import (process-wide, no I/O).
"""

from __future__ import annotations

import logging

REQUEST_LINE_LOGGERS = (
    "httpx",
    "httpcore",
    "azure.core.pipeline.policies.http_logging_policy",
)


def install() -> None:
    """Keep request lines (URLs with questions in them) out of Information-level logs."""
    for name in REQUEST_LINE_LOGGERS:
        logger = logging.getLogger(name)
        # Set on the logger itself: the worker may lower the root level after import.
        if logger.level < logging.WARNING:  # NOTSET (0) included
            logger.setLevel(logging.WARNING)
