"""A tiny Functions app with a no-op activity: what devhost's engine costs per activity.

Two orchestrators: ``chain`` calls the no-op N times one after another,
``fan`` calls it N times at once and waits for all; ``POST /api/start/{name}``
starts one through the Durable client, as an HTTP starter does, and answers
its status links. The engine runs them
exactly as it runs function_app (replay through the SDK with the same
timestamp parser, SQLite history).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import azure.durable_functions as df
import azure.functions as func

from devhost.engine import Engine
from devhost.registry import index
from orchestrators import replay_timestamps

replay_timestamps.install()
bp = df.Blueprint()


@bp.orchestration_trigger(context_name="context")
def chain(context: df.DurableOrchestrationContext):
    for i in range(context.get_input()):
        yield context.call_activity("noop", i)
    return "done"


@bp.orchestration_trigger(context_name="context")
def fan(context: df.DurableOrchestrationContext):
    yield context.task_all([context.call_activity("noop", i) for i in range(context.get_input())])
    return "done"


@bp.route(route="start/{name}", methods=["POST"])
@bp.durable_client_input(client_name="client")
async def start(req: func.HttpRequest, client: df.DurableOrchestrationClient) -> func.HttpResponse:
    instance_id = await client.start_new(req.route_params["name"], None, req.get_json())
    return client.create_check_status_response(req, instance_id)


@bp.activity_trigger(input_name="n")
def noop(n: int) -> int:
    return n


def build_app() -> df.DFApp:
    """The app, built on demand (module import registers nothing global)."""
    app = df.DFApp(http_auth_level=func.AuthLevel.FUNCTION)
    app.register_functions(bp)
    return app


def per_activity_ms(name: str, n: int, workers: int = 12) -> float:
    """Wall milliseconds per activity for one ``name`` instance of ``n`` no-op calls."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(index(build_app()), Path(tmp) / "engine.sqlite3", workers)
        engine.start()
        try:
            started = time.perf_counter()
            instance_id = engine.start_instance(name, None, str(n))
            inst = engine.wait(instance_id, 300)
            elapsed = time.perf_counter() - started
            assert inst is not None and inst.status == "Completed", inst and inst.status
        finally:
            engine.stop()
    return elapsed * 1000 / n
