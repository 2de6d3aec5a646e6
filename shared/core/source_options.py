"""The request options that say where a research looks, beside its limits.

``ResearchOptions`` (shared/core/config.py) is built from the limits in
``shared.core.limits`` plus these fields, which are not limits: the caller's
collections to research, and whether the web may be used at all.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from shared.core.limits import COLLECTIONS_PER_REQUEST

SOURCE_FIELDS: dict[str, Any] = {
    "collections": (
        list[str] | None,
        Field(
            None,
            max_length=COLLECTIONS_PER_REQUEST,
            description="Ids of the caller's collections to research (docs/collections.md)",
        ),
    ),
    "web": (
        bool | None,
        Field(None, description="false: documents only, no web search and no web page read"),
    ),
}

SOURCE_OPTIONS = frozenset(SOURCE_FIELDS)  # the options that are not limits
