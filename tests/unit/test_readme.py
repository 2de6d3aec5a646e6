"""The README's first lines, and the reference pages it links: every variable, the limits table.

The README is the front page: its first lines give the two commands. Every
setting is documented in ``docs/configuration.md``. The limits table in
``docs/limits.md`` is generated here from ``api/openapi.json`` (itself checked
against the pydantic models by ``test_openapi_document.py``), ``Settings``
and ``api.errors.MAX_BODY_BYTES``; when a bound changes, the failing test
prints the table to paste there. The commands of the README and of every
``docs/`` page are run by ``tests/e2e/test_readme_examples.py``; their links
are checked by ``test_docs.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from api.errors import MAX_BODY_BYTES
from shared.config import Caps, ResearchOptions, Settings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
SCHEMAS = json.loads((ROOT / "api" / "openapi.json").read_text(encoding="utf-8"))["components"][
    "schemas"
]

# Which setting gives an option its default when the request leaves it out (Settings.caps_for).
OPTION_DEFAULTS: dict[str, tuple[str, ...]] = {
    "num_agents": ("deep_research_num_agents",),
    "agent_max_steps": ("deep_research_agent_max_steps",),
    "max_supervisor_calls": ("deep_research_max_supervisor_calls",),
    "supervisor_max_iterations": ("deep_research_supervisor_max_iterations",),
    "max_iterations": ("deep_research_default_max_iterations",),
    "run_deep_search_first": ("deep_research_run_deep_search_first",),
    "enable_clarifying_questions": ("deep_research_enable_clarifying_questions",),
    "clarification_timeout_minutes": ("deep_research_clarification_timeout_minutes",),
    "require_plan_approval": ("deep_research_require_plan_approval",),
    "plan_approval_timeout_minutes": ("deep_research_plan_approval_timeout_minutes",),
    "search_iterations": ("speed_max_iterations", "balanced_max_iterations"),
    "source_policy": (),
    "max_tokens": ("max_tokens_per_session",),
    "max_cost_usd": ("max_cost_per_session_usd",),
}
NOTES = {
    "query": "required; not only whitespace, no control characters",
    "chat_id": "default: the session id (a chat of its own)",
    "callback_url": "http(s), SSRF-guarded like fetching",
    "wait_seconds": "wait for the result (200) or the clarifying questions (202)",
    "max_tokens": "token budget: when reached, straight to the report",
    "max_cost_usd": "cost budget, the same",
    "search_iterations": "default: the first setting for `search`, the second otherwise",
    "answers": "one per question, each at most 2000 characters; give `answers` or `text`",
    "require_plan_approval": "stop after planning for the user's approval",
    "source_policy": "`strict`: tiers 1-2 only; `monitor`: the report contrasts official "
    "(tier 1) with community (tier 5) sources, and the critic checks it",
}


def _branch(schema: dict) -> dict:
    """The non-null branch of an ``X | None`` field, with the field's own keys."""
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            return {**schema, **option}
    if "$ref" in schema:
        return {**schema, **SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]}
    return schema


def _number(value: float) -> str:
    return f"{value:g}"


def _bounds(schema: dict) -> str:
    s = _branch(schema)
    if "enum" in s:
        return " · ".join(f"`{v}`" for v in s["enum"])
    if s.get("type") == "boolean":
        return "`true` · `false`"
    if "pattern" in s:
        return f"`{s['pattern']}`"
    for low, high, unit in (
        ("minLength", "maxLength", " characters"),
        ("minItems", "maxItems", " items"),
        ("minimum", "maximum", ""),
    ):
        if low in s and high in s:
            return f"{_number(s[low])}-{_number(s[high])}{unit}"
        if high in s:
            return f"≤ {_number(s[high])}{unit}"
        if low in s:
            return f"≥ {_number(s[low])}{unit}"
    if "exclusiveMinimum" in s:
        return f"> {_number(s['exclusiveMinimum'])}"
    return "—"


def _setting_default(name: str) -> str:
    value = Settings.model_fields[name].default
    shown = "unset" if value is None else str(value).lower() if isinstance(value, bool) else value
    return f"`{name.upper()}` ({shown})"


def _option_default(field: str) -> str:
    settings = OPTION_DEFAULTS[field]
    if not settings:
        return f"`{Caps.model_fields[field].default}`"
    return ", ".join(_setting_default(name) for name in settings)


def _row(shown: str, field: str, default: str, schema: dict) -> str:
    return f"| {shown} | {default} | {_bounds(schema)} | {NOTES.get(field, '')} |"


def limits_table() -> str:
    request = SCHEMAS["ResearchRequest"]["properties"]
    options = SCHEMAS["ResearchOptions"]["properties"]
    reply = SCHEMAS["ClarificationReply"]["properties"]
    rows = [
        "| field | default | bounds | notes |",
        "|---|---|---|---|",
        f"| request body | — | ≤ {MAX_BODY_BYTES} bytes (64 KB) | else 413 |",
    ]
    for field, schema in request.items():
        if field == "options":
            continue
        default = schema.get("default")
        shown = "—" if default is None else f"`{default}`"
        rows.append(_row(f"`{field}`", field, shown, schema))
    rows += [_row(f"`options.{f}`", f, _option_default(f), s) for f, s in options.items()]
    rows += [_row(f"clarification `{f}`", f, "—", s) for f, s in reply.items()]
    return "\n".join(rows)


def test_first_lines_give_the_two_commands():
    head = "\n".join(README.splitlines()[:8])
    assert "make demo" in head and "make test" in head


def test_the_readme_stays_a_front_page():
    """Reference text belongs in a ``docs/`` page, linked from the README."""
    assert len(README.splitlines()) <= 250


def test_every_setting_is_documented():
    """Each ``Settings`` field, upper-cased, has a row in the configuration page."""
    missing = [
        name.upper()
        for name in Settings.model_fields
        if f"| `{name.upper()}` |" not in CONFIGURATION
    ]
    assert missing == [], "add these to docs/configuration.md"


def test_every_option_has_a_documented_default():
    assert set(OPTION_DEFAULTS) == set(ResearchOptions.model_fields)


def test_the_limits_table_matches_the_api():
    expected = limits_table()
    limits = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    assert expected in limits, "paste this table into docs/limits.md:\n\n" + expected


def test_test_targets_are_listed_one_per_line():
    """A line like ``make a | b`` pasted into a shell runs a pipe."""
    for page in [ROOT / "README.md", *DOCS]:
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("make "):
                assert "|" not in line.split("#", 1)[0], f"{page.name}: {line}"
