"""The SDK's own DurableOrchestrationClient works unmodified against devhost's RPC.

A host is assembled from the parts (engine + HttpFront + aiohttp on a free
loopback port) for ``tests.fakes.sample_app``; the client is built from
``front.client_binding()`` exactly as the SDK's binding middleware does, and
every call runs on the server's event loop, as in the Python worker.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import azure.durable_functions as df
import azure.functions as func
import httpx
import pytest
from aiohttp import web
from azure.durable_functions.models.OrchestrationRuntimeStatus import OrchestrationRuntimeStatus
from azure.durable_functions.models.utils.http_utils import _close_session

from devhost.engine import Engine
from devhost.http import HttpFront
from devhost.registry import index
from tests.fakes import sample_app

WAIT_S = 30.0


class SampleHost:
    """Engine + HttpFront served from one event-loop thread."""

    def __init__(self, db_path: Path) -> None:
        self.engine = Engine(index(sample_app.app), db_path, activity_workers=4)
        self.front = HttpFront(self.engine)
        self.loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> SampleHost:
        self._thread.start()
        port = self.run(self._boot())
        self.front.base_url = f"http://127.0.0.1:{port}"
        self.engine.start()
        return self

    async def _boot(self) -> int:
        self._runner = web.AppRunner(self.front.application(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        return self._runner.addresses[0][1]

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(WAIT_S)

    def client(self) -> df.DurableOrchestrationClient:
        return df.DurableOrchestrationClient(self.front.client_binding())

    def stop(self) -> None:
        self.engine.stop()
        self.run(self._shutdown())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

    async def _shutdown(self) -> None:
        await _close_session()  # the SDK's process-wide session lives on this loop
        if self._runner:
            await self._runner.cleanup()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SampleHost]:
    host = SampleHost(tmp_path_factory.mktemp("durable-client") / "devhost.sqlite3").start()
    yield host
    host.stop()


@pytest.fixture
def client(host: SampleHost) -> df.DurableOrchestrationClient:
    return host.client()


def poll(host: SampleHost, client, instance_id: str, done: Callable[[Any], bool]) -> Any:
    deadline = time.monotonic() + WAIT_S
    while True:
        status = host.run(client.get_status(instance_id))
        if done(status):
            return status
        assert time.monotonic() < deadline, f"{instance_id}: still {status.runtime_status}"
        time.sleep(0.05)


def finished(status) -> bool:
    return status.runtime_status in (
        OrchestrationRuntimeStatus.Completed,
        OrchestrationRuntimeStatus.Failed,
        OrchestrationRuntimeStatus.Terminated,
    )


def test_start_new_and_get_status_report_output_custom_status_and_history(host, client) -> None:
    instance_id = host.run(client.start_new("fan_out", None, 3))
    status = poll(host, client, instance_id, finished)

    assert status.runtime_status == OrchestrationRuntimeStatus.Completed
    assert status.output == [0, 2, 4]
    assert status.custom_status == {"done": 3}
    assert status.name == "fan_out" and status.instance_id == instance_id
    detailed = host.run(client.get_status(instance_id, show_history=True, show_input=True))
    assert detailed.input_ == 3
    assert any(e["EventType"] == 4 and e["Name"] == "double" for e in detailed.historyEvents)


def test_start_new_with_a_running_id_or_unknown_name_raises(host, client) -> None:
    instance_id = f"fixed-{uuid.uuid4().hex}"
    host.run(client.start_new("long_running", instance_id))

    with pytest.raises(Exception, match="already exists"):
        host.run(client.start_new("long_running", instance_id))
    with pytest.raises(Exception, match="doesn't exist"):
        host.run(client.start_new("no_such_orchestrator"))
    host.run(client.terminate(instance_id, "cleanup"))


def test_raise_event_reaches_a_waiting_orchestrator(host, client) -> None:
    instance_id = host.run(client.start_new("approval", None, 3600))
    poll(host, client, instance_id, lambda s: s.custom_status == "waiting")

    host.run(client.raise_event(instance_id, "approval", {"by": "ana"}))
    poll(host, client, instance_id, lambda s: s.custom_status == "approved")
    host.run(client.raise_event(instance_id, "confirm"))
    status = poll(host, client, instance_id, finished)

    assert status.output == {"approved": {"by": "ana"}}
    with pytest.raises(Exception, match="is gone"):
        host.run(client.raise_event(instance_id, "approval", {"by": "late"}))
    with pytest.raises(Exception, match="No instance"):
        host.run(client.raise_event("nobody-" + uuid.uuid4().hex, "approval", 1))


def test_terminate_then_purge(host, client) -> None:
    instance_id = host.run(client.start_new("long_running"))
    poll(host, client, instance_id, lambda s: s.custom_status == "sleeping")

    host.run(client.terminate(instance_id, "operator said so"))
    status = host.run(client.get_status(instance_id))
    assert status.runtime_status == OrchestrationRuntimeStatus.Terminated
    assert status.output == "operator said so"
    host.run(client.terminate(instance_id, "again"))  # 410 is accepted by the client

    assert host.run(client.purge_instance_history(instance_id)).instances_deleted == 1
    assert host.run(client.purge_instance_history(instance_id)).instances_deleted == 0
    gone = host.run(client.get_status(instance_id))
    assert gone.runtime_status is None  # 404: the client returns an empty status


def test_purging_a_running_instance_deletes_nothing(host, client) -> None:
    """Why shared/usecases/purge.py stops a run before purging it: a live history is not purged."""
    instance_id = host.run(client.start_new("long_running"))
    poll(host, client, instance_id, lambda s: s.custom_status == "sleeping")

    assert host.run(client.purge_instance_history(instance_id)).instances_deleted == 0
    status = host.run(client.get_status(instance_id))
    assert status.runtime_status == OrchestrationRuntimeStatus.Running
    host.run(client.terminate(instance_id, "cleanup"))


def test_get_status_by_filters_on_status_and_time(host, client) -> None:
    before = datetime.now(UTC) - timedelta(seconds=1)
    running = host.run(client.start_new("long_running"))
    done = host.run(client.start_new("fan_out", None, 1))
    poll(host, client, done, finished)

    live = [OrchestrationRuntimeStatus.Running, OrchestrationRuntimeStatus.Pending]
    found = host.run(client.get_status_by(created_time_from=before, runtime_status=live))
    ids = {s.instance_id for s in found}
    assert running in ids and done not in ids
    later = host.run(client.get_status_by(created_time_from=datetime.now(UTC) + timedelta(hours=1)))
    assert later == []
    host.run(client.terminate(running, "cleanup"))


def test_purge_by_removes_only_finished_instances(host, client) -> None:
    before = datetime.now(UTC) - timedelta(seconds=1)
    running = host.run(client.start_new("long_running"))
    done = host.run(client.start_new("fan_out", None, 1))
    poll(host, client, done, finished)

    result = host.run(client.purge_instance_history_by(created_time_from=before))
    assert result.instances_deleted >= 1
    assert host.run(client.get_status(done)).runtime_status is None
    assert host.run(client.get_status(running)).runtime_status == OrchestrationRuntimeStatus.Running
    host.run(client.terminate(running, "cleanup"))


def test_check_status_links_work_with_the_system_key_only(host, client) -> None:
    instance_id = host.run(client.start_new("fan_out", None, 2))
    poll(host, client, instance_id, finished)
    request = func.HttpRequest("POST", f"{host.front.base_url}/api/start", body=b"")

    response = client.create_check_status_response(request, instance_id)
    links = json.loads(response.get_body())
    assert response.status_code == 202
    assert response.headers["Location"] == links["statusQueryGetUri"]

    with httpx.Client(timeout=10) as http:
        status = http.get(links["statusQueryGetUri"])
        assert status.status_code == 200 and status.json()["output"] == [0, 2]
        keyless = links["statusQueryGetUri"].split("code=")[0]
        assert http.get(keyless).status_code == 401


def test_status_of_a_long_history_reads_the_same_as_the_full_instance(host, client) -> None:
    """A status poll skips the history (constant cost) yet answers what the full row says."""
    instance_id = host.run(client.start_new("fan_out", None, 500))
    poll(host, client, instance_id, finished)

    quick = host.run(client.get_status(instance_id))
    full = host.run(client.get_status(instance_id, show_history=True, show_input=True))
    listed = [s for s in host.run(client.get_status_all()) if s.instance_id == instance_id]

    assert len(full.historyEvents) > 1000
    assert getattr(quick, "historyEvents", None) is None
    for status in (quick, *listed):
        assert status.runtime_status == full.runtime_status == OrchestrationRuntimeStatus.Completed
        assert status.custom_status == full.custom_status == {"done": 500}
        assert status.output == full.output
        assert status.created_time == full.created_time
        assert status.last_updated_time == full.last_updated_time
    assert len(listed) == 1
