"""Files generated from the code, and the one command that rewrites them.

    .venv/bin/python -m tests.generated

- ``api/openapi.json``: the components derived from the pydantic models (the
  paths and the hand-written shapes stay as they are);
- ``docs/limits.md``: the tables between ``<!-- generated: NAME -->`` and
  ``<!-- /generated -->`` (the prose around them is written by hand).

``tests/unit/test_openapi_document.py`` and ``tests/unit/test_limits.py``
compare each file with what this module renders and print the command above
when they differ, so a changed limit or model is one edit plus a regeneration.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import models_json_schema

from api.collection_schemas import CollectionDetail, CollectionList
from api.errors import MAX_BODY_BYTES
from api.schemas import (
    AskRequest,
    ClarificationReply,
    PlanDecision,
    ResearchRequest,
    WatchRequest,
)
from shared.core.analysis_models import ChainStage
from shared.core.ask_models import AskExchange
from shared.core.limits import LIMITS, Limit
from shared.core.report_models import FinalReport, SynthesizedAnswer
from shared.core.session_models import (
    AgentProgress,
    PhaseFigures,
    PolicyChoice,
    SessionStatus,
    Usage,
)
from shared.core.stream_models import AnswerChunk
from shared.core.watch_models import WatchRun

ROOT = Path(__file__).resolve().parents[1]
OPENAPI = ROOT / "api" / "openapi.json"
LIMITS_DOC = ROOT / "docs" / "limits.md"
COMMAND = ".venv/bin/python -m tests.generated"
REF_TEMPLATE = "#/components/schemas/{model}"
# Requests are described as pydantic validates them, responses as it serializes them.
MODELS = [
    (ResearchRequest, "validation"),
    (ClarificationReply, "validation"),
    (PlanDecision, "validation"),
    (AskRequest, "validation"),
    (AskExchange, "serialization"),
    (WatchRequest, "validation"),
    (WatchRun, "serialization"),
    (SynthesizedAnswer, "serialization"),
    (FinalReport, "serialization"),
    (AgentProgress, "serialization"),
    (ChainStage, "serialization"),
    (PolicyChoice, "serialization"),
    (Usage, "serialization"),
    (PhaseFigures, "serialization"),
    (AnswerChunk, "serialization"),
    (CollectionList, "serialization"),
    (CollectionDetail, "serialization"),
]
_BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- /generated -->)", re.DOTALL)


# -- api/openapi.json ------------------------------------------------------------


def model_components() -> dict[str, dict]:
    _, defs = models_json_schema(MODELS, ref_template=REF_TEMPLATE)
    components = dict(defs["$defs"])
    components["SessionStatus"] = TypeAdapter(SessionStatus).json_schema(ref_template=REF_TEMPLATE)
    return components


def openapi_document() -> str:
    """The committed document with its model components regenerated."""
    document = json.loads(OPENAPI.read_text(encoding="utf-8"))
    document["components"]["schemas"].update(model_components())
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# -- docs/limits.md --------------------------------------------------------------


def _shown(value: object) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float | int):
        return f"`{value:g}`"
    return f"`{value}`"


def _allowed(limit: Limit) -> str:
    if limit.kind is bool:
        return "`true` · `false`"
    words = getattr(limit.kind, "__args__", ())
    if words and all(isinstance(w, str) for w in words):
        return " · ".join(f"`{w}`" for w in words)
    return limit.range_text() or "—"


def limits_table() -> str:
    """One row per limit of ``shared.core.limits``, in declaration order."""
    rows = [
        "| request option | setting | default | allowed | what it is |",
        "|---|---|---|---|---|",
    ]
    for limit in LIMITS:
        option = f"`options.{limit.option}`" if limit.option else "—"
        setting = f"`{limit.env}`" if limit.env else "—"
        if limit.ceiling:
            setting += " (ceiling)"
        default = _shown(limit.default)
        rows.append(
            f"| {option} | {setting} | {default} | {_allowed(limit)} | {limit.description} |"
        )
    return "\n".join(rows)


REQUEST_NOTES = {
    "query": "required; not only whitespace, no control characters",
    "chat_id": "default: the session id (a chat of its own)",
    "callback_url": "http(s), SSRF-guarded like fetching",
    "options": "the research limits above",
    "wait_seconds": "wait for the result (200) or the clarifying questions (202)",
    "answers": "one per question, each at most 2000 characters; give `answers` or `text`",
    "topics": "the whole new topic list: planned topics by `id`, new ones without",
    "num_agents": "at most the session's `plan.max_agents`, at most one per topic",
}


def _bounds(schema: dict, defs: dict) -> str:
    s = schema
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            s = {**schema, **option}
    if "$ref" in s:
        s = {**s, **defs[s["$ref"].rsplit("/", 1)[-1]]}
    if "enum" in s:
        return " · ".join(f"`{v}`" for v in s["enum"])
    if "pattern" in s:
        return f"`{s['pattern']}`"
    for low, high, unit in (
        ("minLength", "maxLength", " characters"),
        ("minItems", "maxItems", " items"),
        ("minimum", "maximum", ""),
    ):
        if low in s and high in s:
            return f"{s[low]:g}-{s[high]:g}{unit}"
        if high in s:
            return f"≤ {s[high]:g}{unit}"
        if low in s:
            return f"≥ {s[low]:g}{unit}"
    return "—"


def _field_rows(prefix: str, model: type[BaseModel]) -> list[str]:
    schema = model.model_json_schema(ref_template="{model}")
    defs = schema.get("$defs", {})
    rows = []
    for field, spec in schema["properties"].items():
        default = spec.get("default")
        shown = "—" if default is None else f"`{default}`"
        notes = REQUEST_NOTES.get(field, "")
        rows.append(f"| {prefix}`{field}` | {shown} | {_bounds(spec, defs)} | {notes} |")
    return rows


def request_table() -> str:
    """The bounds of the request bodies, as the API's models check them."""
    kib = MAX_BODY_BYTES // 1024
    rows = [
        "| field | default | bounds | notes |",
        "|---|---|---|---|",
        f"| request body | — | ≤ {MAX_BODY_BYTES} bytes ({kib} KB) | else 413 |",
    ]
    rows += _field_rows("", ResearchRequest)
    rows += _field_rows("clarification ", ClarificationReply)
    rows += _field_rows("plan ", PlanDecision)
    return "\n".join(rows)


TABLES = {"limits": limits_table, "request": request_table}


def limits_doc() -> str:
    """docs/limits.md with every generated block rendered afresh."""
    text = LIMITS_DOC.read_text(encoding="utf-8")
    return _BLOCK.sub(lambda m: f"{m[1]}{TABLES[m[2]]()}\n{m[4]}", text)


def generated_blocks(text: str) -> list[str]:
    return [m[2] for m in _BLOCK.finditer(text)]


def main() -> None:
    for path, render in ((OPENAPI, openapi_document), (LIMITS_DOC, limits_doc)):
        fresh = render()
        if path.read_text(encoding="utf-8") != fresh:
            path.write_text(fresh, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
