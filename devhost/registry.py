"""What ``function_app.app`` registered, indexed the way the Functions host sees it.

devhost never imports our orchestrators or activities directly: it asks the
app for its functions, exactly like the worker's indexing does, so a function
that is not registered does not exist here either.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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


@dataclass
class Registry:
    orchestrators: dict[str, Callable[[str], str]]
    activities: dict[str, tuple[Callable[..., Any], str]]
    routes: list[HttpRoute]

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
    return re.compile("".join(parts))


_indexed: dict[int, tuple[Any, Registry]] = {}


def index(app: Any) -> Registry:
    """The app's functions, indexed once per app object.

    ``FunctionApp.get_functions()`` may run only once per app: a second call
    fails its unique-name check against the names the first call recorded.
    Several hosts in one process (tests, the CLI) therefore share one index.
    """
    known = _indexed.get(id(app))
    if known is None or known[0] is not app:
        known = (app, _index(app))
        _indexed[id(app)] = known
    return known[1]


def _index(app: Any) -> Registry:
    orchestrators: dict[str, Callable[[str], str]] = {}
    activities: dict[str, tuple[Callable[..., Any], str]] = {}
    routes: list[HttpRoute] = []
    for fn in app.get_functions():
        trigger = fn.get_trigger()
        user_function = fn.get_user_function()
        name = fn.get_function_name()
        if trigger.type == "orchestrationTrigger":
            orchestrators[name] = user_function
        elif trigger.type == "activityTrigger":
            activities[name] = (user_function, trigger.name)
        elif trigger.type == "httpTrigger":
            client = next((b.name for b in fn.get_bindings() if b.type == "durableClient"), None)
            methods = tuple(str(getattr(m, "value", m)).upper() for m in (trigger.methods or []))
            routes.append(
                HttpRoute(
                    name=name,
                    route=(trigger.route or name).strip("/"),
                    methods=methods or ("GET", "POST"),
                    auth_level=str(getattr(trigger.auth_level, "value", trigger.auth_level)),
                    func=user_function,
                    request_param=trigger.name,
                    client_param=client,
                    pattern=_route_pattern(trigger.route or name),
                )
            )
    return Registry(orchestrators, activities, routes)
