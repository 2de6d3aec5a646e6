"""The parts of host.json devhost honours, read the way the Functions host reads them.

- ``extensions.http.routePrefix`` (default ``api``; an empty string serves
  routes at the root), as the host's HTTP extension does;
- ``extensions.durableTask.maxConcurrentActivityFunctions``: the size of the
  activity thread pool.

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
class HostConfig:
    route_prefix: str = DEFAULT_ROUTE_PREFIX
    activity_workers: int = DEFAULT_ACTIVITY_WORKERS


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
    )


def _route_prefix(http: Any) -> str:
    prefix = http.get("routePrefix") if isinstance(http, dict) else None
    return DEFAULT_ROUTE_PREFIX if prefix is None else str(prefix).strip("/")


def _activity_workers(durable: Any) -> int:
    try:
        return int(durable["maxConcurrentActivityFunctions"])
    except (KeyError, TypeError, ValueError):
        return DEFAULT_ACTIVITY_WORKERS
