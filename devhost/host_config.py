"""The parts of host.json devhost honours, read the way the Functions host reads them.

- ``extensions.http.routePrefix`` (default ``api``; an empty string serves
  routes at the root), as the host's HTTP extension does;
- ``extensions.durableTask.maxConcurrentActivityFunctions``: the size of the
  activity thread pool;
- ``extensions.mcp`` ``serverName``, ``serverVersion``, ``instructions``: what the
  MCP endpoint tells clients at initialize (the extension's defaults otherwise;
  keys are case-insensitive, as in the host's configuration).

A missing or unreadable host.json gives the host's defaults.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_ROUTE_PREFIX = "api"
DEFAULT_ACTIVITY_WORKERS = 8


@dataclass(frozen=True)
class McpServerInfo:
    name: str = "Azure Functions MCP server"
    version: str = "1.0.0"
    instructions: str | None = None


@dataclass(frozen=True)
class HostConfig:
    route_prefix: str = DEFAULT_ROUTE_PREFIX
    activity_workers: int = DEFAULT_ACTIVITY_WORKERS
    mcp: McpServerInfo = McpServerInfo()


def load_host_config(host_json: Path) -> HostConfig:
    try:
        config = json.loads(host_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return HostConfig()
    extensions = config.get("extensions") if isinstance(config, dict) else None
    extensions = extensions if isinstance(extensions, dict) else {}
    return HostConfig(
        route_prefix=_route_prefix(extensions.get("http")),
        activity_workers=_activity_workers(extensions.get("durableTask")),
        mcp=_mcp(extensions.get("mcp")),
    )


def _mcp(section: Any) -> McpServerInfo:
    if not isinstance(section, dict):
        return McpServerInfo()
    values = {str(k).lower(): v for k, v in section.items()}
    default = McpServerInfo()
    return McpServerInfo(
        name=str(values.get("servername") or default.name),
        version=str(values.get("serverversion") or default.version),
        instructions=values.get("instructions") or None,
    )


def _route_prefix(http: Any) -> str:
    prefix = http.get("routePrefix") if isinstance(http, dict) else None
    return DEFAULT_ROUTE_PREFIX if prefix is None else str(prefix).strip("/")


def _activity_workers(durable: Any) -> int:
    try:
        return int(durable["maxConcurrentActivityFunctions"])
    except (KeyError, TypeError, ValueError):
        return DEFAULT_ACTIVITY_WORKERS
