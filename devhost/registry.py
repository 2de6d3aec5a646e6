"""What ``function_app.app`` registered, indexed the way the Functions host sees it.

devhost never imports our orchestrators or activities directly: it asks the
app for its functions, exactly like the worker's indexing does, so a function
that is not registered does not exist here either.

Routes match as ASP.NET Core routing matches them in the Functions host:
literal segments case-insensitively (``/API/Research`` is ``/api/research``),
parameter values as sent, literal routes before templates.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from devhost import http_v2


@dataclass(frozen=True)
class HttpRoute:
    name: str
    route: str
    methods: tuple[str, ...]
    auth_level: str
    func: Callable[..., Any]
    request_param: str
    client_param: str | None
    pattern: re.Pattern[str] = field(compare=False)


@dataclass(frozen=True)
class TimerFunction:
    """A timer-triggered function; devhost runs it once at start-up when ``run_on_startup``."""

    name: str
    schedule: str
    run_on_startup: bool
    func: Callable[..., Any]
    timer_param: str
    client_param: str | None


@dataclass(frozen=True)
class McpTool:
    """An ``mcpToolTrigger`` function, read from its binding as the MCP extension reads it.

    ``properties`` is the binding's ``toolProperties`` list (``propertyName``,
    ``propertyType``, ``description``, ``isRequired``, ``isArray``, ``enumValues``).
    """

    name: str
    tool_name: str
    description: str
    properties: tuple[dict[str, Any], ...]
    use_result_schema: bool
    func: Callable[..., Any]
    trigger_param: str
    client_param: str | None


@dataclass
class Registry:
    orchestrators: dict[str, Callable[[str], str]]
    activities: dict[str, tuple[Callable[..., Any], str]]
    routes: list[HttpRoute]
    timers: list[TimerFunction] = field(default_factory=list)
    mcp_tools: dict[str, McpTool] = field(default_factory=dict)

    def match(self, method: str, path: str) -> tuple[HttpRoute, dict[str, str]] | None:
        """Route ``path`` (without the ``/api/`` prefix); literal routes win over templates."""
        for route in sorted(self.routes, key=lambda r: r.route.count("{")):
            m = route.pattern.fullmatch(path)
            if m and method.upper() in route.methods:
                return route, m.groupdict()
        return None

    def path_exists(self, path: str) -> bool:
        return any(route.pattern.fullmatch(path) for route in self.routes)


def _route_pattern(route: str) -> re.Pattern[str]:
    parts = []
    for piece in re.split(r"(\{[^}]+\})", route.strip("/")):
        if piece.startswith("{"):
            name = piece[1:-1].split(":")[0].rstrip("?")
            parts.append(f"(?P<{name}>[^/]+)")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts), re.IGNORECASE)


_indexed: dict[int, tuple[Any, Registry]] = {}
_indexing = threading.Lock()  # hosts may start from several threads (tests, bench)


def index(app: Any) -> Registry:
    """The app's functions, indexed once per app object.

    ``FunctionApp.get_functions()`` may run only once per app: a second call
    fails its unique-name check against the names the first call recorded.
    Several hosts in one process (tests, the CLI) therefore share one index.
    """
    with _indexing:
        known = _indexed.get(id(app))
        if known is None or known[0] is not app:
            known = (app, _index(app))
            _indexed[id(app)] = known
        return known[1]


def _index(app: Any) -> Registry:
    registry = Registry({}, {}, [])
    for fn in app.get_functions():
        trigger = fn.get_trigger()
        user_function = fn.get_user_function()
        name = fn.get_function_name()
        if trigger.type == "orchestrationTrigger":
            registry.orchestrators[name] = user_function
        elif trigger.type == "activityTrigger":
            registry.activities[name] = (user_function, trigger.name)
        elif trigger.type == "httpTrigger":
            registry.routes.append(_http_route(fn, trigger, name, user_function))
        elif trigger.type == "timerTrigger":
            registry.timers.append(
                TimerFunction(
                    name=name,
                    schedule=trigger.schedule,
                    run_on_startup=bool(trigger.run_on_startup),
                    func=user_function,
                    timer_param=trigger.name,
                    client_param=_client_param(fn),
                )
            )
        elif trigger.type == "mcpToolTrigger":
            tool = _mcp_tool(fn, trigger.get_dict_repr(), name, user_function)
            registry.mcp_tools[tool.tool_name] = tool
    http_v2.check_app(registry.routes)
    return registry


def _client_param(fn: Any) -> str | None:
    """The parameter that receives the durable client binding, if the function has one."""
    return next((b.name for b in fn.get_bindings() if b.type == "durableClient"), None)


def _mcp_tool(
    fn: Any, binding: dict[str, Any], name: str, user_function: Callable[..., Any]
) -> McpTool:
    return McpTool(
        name=name,
        tool_name=binding["toolName"],
        description=binding.get("description") or "",
        properties=tuple(json.loads(binding.get("toolProperties") or "[]")),
        use_result_schema=bool(binding.get("useResultSchema")),
        func=user_function,
        trigger_param=binding["name"],
        client_param=_client_param(fn),
    )


def _http_route(fn: Any, trigger: Any, name: str, user_function: Callable[..., Any]) -> HttpRoute:
    methods = tuple(str(getattr(m, "value", m)).upper() for m in (trigger.methods or []))
    return HttpRoute(
        name=name,
        route=(trigger.route or name).strip("/"),
        methods=methods or ("GET", "POST"),
        auth_level=str(getattr(trigger.auth_level, "value", trigger.auth_level)),
        func=user_function,
        request_param=trigger.name,
        client_param=_client_param(fn),
        pattern=_route_pattern(trigger.route or name),
    )
