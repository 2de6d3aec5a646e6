"""Durable names are constants in one place; every one must be registered."""

from __future__ import annotations

import function_app
from devhost.host import app_registry
from shared.core import names


def _registered() -> dict[str, str]:
    registry = app_registry(function_app.app)
    kinds = {name: "orchestrationTrigger" for name in registry.orchestrators}
    kinds.update({name: "activityTrigger" for name in registry.activities})
    kinds.update({route.name: "httpTrigger" for route in registry.routes})
    return kinds


def test_every_activity_constant_is_a_registered_activity():
    registered = _registered()
    missing = [n for n in names.ACTIVITIES if registered.get(n) != "activityTrigger"]
    assert missing == []


def test_every_orchestrator_constant_is_a_registered_orchestrator():
    registered = _registered()
    wanted = [
        *names.ORCHESTRATOR_BY_MODE.values(),
        names.NOTIFY_ORCHESTRATOR,
        names.INGEST_ORCHESTRATOR,
    ]
    assert [n for n in wanted if registered.get(n) != "orchestrationTrigger"] == []


def test_no_activity_is_registered_without_a_constant():
    registered = _registered()
    activities = {n for n, kind in registered.items() if kind == "activityTrigger"}
    assert activities == set(names.ACTIVITIES)
