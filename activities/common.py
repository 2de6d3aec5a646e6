"""What every activity does around its one call: validate, meter usage, dump."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from shared.bootstrap import Services, services
from shared.reasoning.usage import metered

In = TypeVar("In", bound=BaseModel)


def run_step(payload: dict, model: type[In], step: Callable[[Services, In], Any]) -> dict:
    """Decode ``payload`` into ``model``, run ``step`` metered, return JSON-safe output.

    Usage recorded by the reasoner during the step is put into the result's
    ``usage`` field when the result model has one.
    """
    request = model.model_validate(payload)
    with metered() as meter:
        result = step(services(), request)
    if isinstance(result, BaseModel):
        if "usage" in type(result).model_fields:
            result = result.model_copy(update={"usage": meter.usage})
        return result.model_dump(mode="json")
    return result if isinstance(result, dict) else {"ok": True}
