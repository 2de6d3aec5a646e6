"""The JSON schema we put on the wire for a pydantic model (strict-mode safe).

OpenAI strict structured outputs (and several compatible servers) reject
schemas with ``default`` and many validation keywords, and demand that every
property is ``required`` with ``additionalProperties: false``. pydantic's own
schema has all of those. So we send a *wire* schema with them removed, keep
the intent as plain words in ``description`` ("At least 3 items."), and
validate the reply against the real model afterwards: the real bounds still
hold, a violation goes through the validation-repair loop.

The schema is built in validation mode, so computed fields (``Finding``'s
counts) are never asked of the model.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel

# keyword -> how it is described once stripped
_DESCRIBED = {
    "minItems": "At least {} items.",
    "maxItems": "At most {} items.",
    "minimum": "Minimum {}.",
    "maximum": "Maximum {}.",
    "exclusiveMinimum": "Greater than {}.",
    "exclusiveMaximum": "Less than {}.",
    "minLength": "At least {} characters.",
    "maxLength": "At most {} characters.",
}
_DROPPED = ("default", "title", "pattern", "format", "multipleOf", "examples")


@functools.cache
def wire_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A strict-compatible JSON schema for ``model``, shared: callers must not mutate it.

    Built once per class: pydantic rebuilds the schema on every
    ``model_json_schema()`` call, milliseconds for the larger replies, and a
    copy per request would cost most of that again.
    """
    schema = copy.deepcopy(model.model_json_schema(mode="validation"))
    defs = schema.pop("$defs", {})
    cleaned = _clean(schema)
    if defs:
        cleaned["$defs"] = {name: _clean(sub) for name, sub in defs.items()}
    return cleaned


def schema_name(model: type[BaseModel]) -> str:
    """A name the API accepts (``^[a-zA-Z0-9_-]{1,64}$``)."""
    return "".join(c for c in model.__name__ if c.isalnum() or c in "_-")[:64] or "Reply"


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        # strict mode forbids siblings next to $ref
        return {"$ref": node["$ref"]}
    hints = [text.format(node[key]) for key, text in _DESCRIBED.items() if key in node]
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key in _DESCRIBED:
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        else:
            out[key] = _clean(value)
    if hints:
        out["description"] = " ".join([out.get("description", ""), *hints]).strip()
    if out.get("type") == "object" or "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out.get("properties", {}))
    return out
