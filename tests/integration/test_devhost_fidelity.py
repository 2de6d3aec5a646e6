"""devhost behaves like the Functions host where an app can tell the difference.

One test per point, each through real HTTP against a ``DevHost`` started in
the test with ``tests.fakes.sample_app`` (its HTTP, timer and Point functions):
case-insensitive routes, the route prefix from host.json, activity values
through the SDK's converters, the durable client binding's fields, function
keys on request, and ``run_on_startup`` timers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.fakes import sample_app

WAIT_S = 30.0
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def start_host(data_dir: Path) -> Iterator[Callable[..., DevHost]]:
    """DevHosts for sample_app on free loopback ports, all stopped at teardown."""
    hosts: list[DevHost] = []

    def start(require_keys: bool = False, host_json: Path = ROOT / "host.json") -> DevHost:
        settings = Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            devhost_require_keys=require_keys,
        )
        host = DevHost(settings, port=0, app=sample_app.app, host_json=host_json).start()
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.stop()


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=WAIT_S) as client:
        yield client


def finished_output(host: DevHost, http: httpx.Client, status_url: str, instance_id: str):
    """Wait for the instance in the engine, then read its output over the status link."""
    assert host.engine is not None
    inst = host.engine.wait(instance_id, WAIT_S)
    assert inst is not None and inst.terminal, f"{instance_id} still {inst and inst.status}"
    status = http.get(status_url.replace("INSTANCEID", instance_id))
    assert status.status_code == 200, status.text
    assert status.json()["runtimeStatus"] == "Completed"
    return status.json()["output"]


def test_routes_match_case_insensitively(start_host, http: httpx.Client) -> None:
    host = start_host()

    started = http.post(f"{host.url}/API/orchestrators/fan_out", json=3)  # route: Orchestrators
    pong = http.get(f"{host.url}/Api/PING")

    assert started.status_code == 202, started.text
    assert (pong.status_code, pong.text) == (200, "pong")
    links = started.json()
    assert finished_output(host, http, links["statusQueryGetUri"], links["id"]) == [0, 2, 4]


@pytest.mark.parametrize("prefix", ["functions", ""])
def test_the_route_prefix_comes_from_host_json(
    start_host, http: httpx.Client, tmp_path: Path, prefix: str
) -> None:
    host_json = tmp_path / "host.json"
    config = {"version": "2.0", "extensions": {"http": {"routePrefix": prefix}}}
    host_json.write_text(json.dumps(config))
    host = start_host(host_json=host_json)

    served = f"{host.url}/{prefix}/ping" if prefix else f"{host.url}/ping"
    assert http.get(served).text == "pong"
    assert http.get(f"{host.url}/api/ping").status_code == 404


def test_activity_values_go_through_the_sdk_converters(start_host, http: httpx.Client) -> None:
    """A ``to_json``/``from_json`` object reaches the activity and comes back as itself."""
    host = start_host()

    started = http.post(f"{host.api_url}/orchestrators/points")
    links = started.json()

    assert started.status_code == 202, started.text
    output = finished_output(host, http, links["statusQueryGetUri"], links["id"])
    assert output == {"type": "Point", "x": 2, "y": 1}


def test_the_durable_client_binding_carries_the_extension_fields(
    start_host, http: httpx.Client
) -> None:
    host = start_host()

    binding = http.get(f"{host.api_url}/binding").json()

    assert set(binding) == {
        "taskHubName",
        "connectionName",
        "creationUrls",
        "managementUrls",
        "baseUrl",
        "requiredQueryStringParameters",
        "rpcBaseUrl",
        "httpBaseUrl",
        "maxGrpcMessageSizeInBytes",
    }
    assert set(binding["managementUrls"]) == {
        "id",
        "statusQueryGetUri",
        "sendEventPostUri",
        "terminatePostUri",
        "rewindPostUri",
        "purgeHistoryDeleteUri",
        "restartPostUri",
        "suspendPostUri",
        "resumePostUri",
    }
    assert binding["baseUrl"] == f"{host.url}/runtime/webhooks/durabletask"
    assert binding["requiredQueryStringParameters"].startswith("code=")
    assert binding["rpcBaseUrl"].startswith(f"{host.url}/") and binding["rpcBaseUrl"].endswith("/")
    # An operator starts and reads an instance with nothing but the binding's URLs.
    create = binding["creationUrls"]["createNewInstancePostUri"]
    create = create.replace("{functionName}", "fan_out").replace("[/{instanceId}]", "")
    started = http.post(create, json=2)
    assert started.status_code == 202, started.text
    status_url = binding["managementUrls"]["statusQueryGetUri"]
    assert finished_output(host, http, status_url, started.json()["id"]) == [0, 2]


def test_function_keys_are_required_only_when_asked(start_host, http: httpx.Client) -> None:
    open_host = start_host()
    assert http.post(f"{open_host.api_url}/orchestrators/fan_out", json=1).status_code == 202
    open_host.stop()

    host = start_host(require_keys=True)
    url = f"{host.api_url}/orchestrators/fan_out"
    assert host.keys is not None

    refused = http.post(url, json=1)
    assert (refused.status_code, refused.content) == (401, b"")
    for key, status in (("wrong", 401), (host.keys.function, 202), (host.keys.master, 202)):
        assert http.post(url, json=1, headers={"x-functions-key": key}).status_code == status
    assert http.post(url, json=1, params={"code": host.keys.function}).status_code == 202
    assert http.post(url, json=1, params={"code": host.keys.master}).status_code == 202
    assert http.get(f"{host.api_url}/ping").status_code == 200  # AuthLevel.ANONYMOUS
    key = host.keys.function
    host.stop()

    again = start_host(require_keys=True)
    assert again.keys is not None and again.keys.function == key  # keys survive a restart


def test_run_on_startup_timers_run_once_when_the_host_starts(start_host) -> None:
    host = start_host()

    assert host.startup_done.wait(WAIT_S), "the start-up timers did not finish"
    assert host.engine is not None
    mine = [run for run in sample_app.startup_runs if host.engine.get(run["instance_id"])]
    assert len(mine) == 1 and mine[0]["past_due"] is False
    inst = host.engine.wait(mine[0]["instance_id"], WAIT_S)
    assert inst is not None and inst.status == "Completed"
    assert sample_app.calls["nightly"] == 0  # not run_on_startup: left to its schedule
