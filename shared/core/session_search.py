"""The ``web_search`` activity's input within a session (beside ``shared.core.payloads``)."""

from __future__ import annotations

from shared.core.payloads import WebSearchIn


class SessionSearchIn(WebSearchIn):
    """A search within a session, whose sources it searches: its collections, the web or
    not (shared/usecases/research/sources.py). An input without a session (older
    histories) searches the web as configured."""

    session_id: str | None = None
