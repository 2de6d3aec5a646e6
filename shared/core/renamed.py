"""Fields renamed after histories were recorded.

A durable replay hands an orchestrator the outputs its history holds, written by
the code of their day; a stored session or status carries its old field names
until it is written again. A renamed field therefore validates under both names.
"""

from __future__ import annotations

from pydantic import AliasChoices


def formerly(name: str, old: str) -> AliasChoices:
    """Validation names of a field once called ``old``."""
    return AliasChoices(name, old)
