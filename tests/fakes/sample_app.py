"""A small Durable Functions app that exercises every Durable API devhost supports.

The devhost engine and its RPC front are tested against this app instead of
``function_app`` so each test isolates one Durable behaviour (fan-out, retry,
events raced with timers, sub-orchestrations, continue_as_new, terminate,
non-determinism) without the research flow's own logic in the way.

Activities keep their side effects in module state (``calls``, ``gates``) so a
test can see how often an activity really ran (at-least-once after a crash)
and hold one open until the test releases it.

A few HTTP and timer functions let ``tests/integration/test_devhost_fidelity.py``
check devhost against the Functions host: routing, keys, the raw durable
client binding, custom objects through activity bindings, start-up timers.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from datetime import timedelta
from typing import Any

import azure.durable_functions as df
import azure.functions as func

app = df.DFApp(http_auth_level=func.AuthLevel.ANONYMOUS)

calls: Counter[str] = Counter()
_calls_lock = threading.Lock()
# gate name -> released event; an activity "gated" waits on it (crash tests).
gates: dict[str, threading.Event] = {}
entered: dict[str, threading.Event] = {}
_replays: Counter[str] = Counter()

GATE_TIMEOUT_S = 30.0


def _count(key: str) -> int:
    with _calls_lock:
        calls[key] += 1
        return calls[key]


def gate(name: str) -> tuple[threading.Event, threading.Event]:
    """(entered, release) events for the ``gated`` activity called with ``name``."""
    with _calls_lock:
        entered.setdefault(name, threading.Event())
        gates.setdefault(name, threading.Event())
        return entered[name], gates[name]


# -- activities ------------------------------------------------------------------------


@app.activity_trigger(input_name="value")
def double(value: int) -> int:
    _count("double")
    return value * 2


@app.activity_trigger(input_name="request")
def flaky(request: dict) -> dict:
    """Fails the first ``fail_times`` calls for ``request["key"]``, then succeeds."""
    attempt = _count(f"flaky:{request['key']}")
    if attempt <= request["fail_times"]:
        raise RuntimeError(f"flaky failure {attempt}")
    return {"attempts": attempt}


@app.activity_trigger(input_name="request")
def sleep_echo(request: dict) -> Any:
    """Returns ``value`` after ``seconds``: lets ``task_any`` see a clear winner."""
    _count("sleep_echo")
    time.sleep(request["seconds"])
    return request["value"]


@app.activity_trigger(input_name="name")
def gated(name: str) -> str:
    """Blocks until the test opens the gate ``name`` (bounded, never hangs a run)."""
    _count(f"gated:{name}")
    came_in, release = gate(name)
    came_in.set()
    release.wait(GATE_TIMEOUT_S)
    return f"passed {name}"


# -- orchestrators -----------------------------------------------------------------------


@app.activity_trigger(input_name="code")
def exits(code: int) -> int:
    """Ends the process that runs it: only ever called in a worker process, which dies."""
    os._exit(code)


@app.orchestration_trigger(context_name="context")
def fan_out(context: df.DurableOrchestrationContext):
    """``task_all`` over ``n`` activities; an empty list is guarded (1.x hung on it)."""
    n = context.get_input()
    tasks = [context.call_activity("double", i) for i in range(n)]
    results = (yield context.task_all(tasks)) if tasks else []
    context.set_custom_status({"done": len(results)})
    return results


@app.orchestration_trigger(context_name="context")
def retrying(context: df.DurableOrchestrationContext):
    request = context.get_input()
    options = df.RetryOptions(
        first_retry_interval_in_milliseconds=50, max_number_of_attempts=request["max_attempts"]
    )
    try:
        result = yield context.call_activity_with_retry("flaky", options, request)
    except Exception as exc:
        return {"error": str(exc).split("\n", 1)[0].strip()}
    return {"result": result}


@app.orchestration_trigger(context_name="context")
def poisoned(context: df.DurableOrchestrationContext):
    """An activity that kills every worker process it runs in: it must fail, not loop."""
    try:
        yield context.call_activity("exits", 3)
    except Exception as exc:
        return {"error": str(exc).split("\n", 1)[0].strip()}
    return {"error": None}


@app.orchestration_trigger(context_name="context")
def retrying_fan(context: df.DurableOrchestrationContext):
    """Retried and plain activities completing together: the host batches their events."""
    key, n = context.get_input()["key"], context.get_input()["n"]
    options = df.RetryOptions(first_retry_interval_in_milliseconds=20, max_number_of_attempts=3)
    flaky_calls = [
        context.call_activity_with_retry(
            "flaky", options, {"key": f"{key}:{i}", "fail_times": i % 3}
        )
        for i in range(n)
    ]
    plain = [context.call_activity("double", i) for i in range(n)]
    results = yield context.task_all(flaky_calls + plain)
    return [r["attempts"] for r in results[:n]] + results[n:]


@app.orchestration_trigger(context_name="context")
def first_of(context: df.DurableOrchestrationContext):
    fast = context.call_activity("sleep_echo", {"value": "fast", "seconds": 0.0})
    slow = context.call_activity("sleep_echo", {"value": "slow", "seconds": 2.0})
    winner = yield context.task_any([slow, fast])
    return winner.result


@app.orchestration_trigger(context_name="context")
def approval(context: df.DurableOrchestrationContext):
    """Waits for ``approval`` or gives up after ``timeout_s``; cancels the losing timer."""
    timeout_s = context.get_input()
    timer = context.create_timer(context.current_utc_datetime + timedelta(seconds=timeout_s))
    reply = context.wait_for_external_event("approval")
    context.set_custom_status("waiting")
    winner = yield context.task_any([reply, timer])
    if winner is reply:
        timer.cancel()
        context.set_custom_status("approved")
        # Still running after the cancel, so a test can see the timer is really gone.
        yield context.wait_for_external_event("confirm")
        return {"approved": reply.result}
    context.set_custom_status("timed out")
    return {"approved": None}


@app.orchestration_trigger(context_name="context")
def parent(context: df.DurableOrchestrationContext):
    doubled = yield context.call_sub_orchestrator("fan_out", 3)
    try:
        yield context.call_sub_orchestrator("broken", None, f"{context.instance_id}:broken")
        child_error = None
    except Exception as exc:
        child_error = str(exc).split("\n", 1)[0]
    return {"doubled": doubled, "child_error": child_error}


@app.orchestration_trigger(context_name="context")
def broken(context: df.DurableOrchestrationContext):
    yield context.call_activity("double", 1)
    raise ValueError("the child gave up")


@app.orchestration_trigger(context_name="context")
def counter(context: df.DurableOrchestrationContext):
    """Counts to ``target`` through continue_as_new, one activity per generation."""
    state = context.get_input()
    value = yield context.call_activity("double", state["n"])
    context.set_custom_status({"generation": state["n"]})
    if state["n"] + 1 < state["target"]:
        context.continue_as_new(
            {"n": state["n"] + 1, "target": state["target"], "seen": [*state["seen"], value]}
        )
        return None
    return [*state["seen"], value]


@app.orchestration_trigger(context_name="context")
def pipeline(context: df.DurableOrchestrationContext):
    """Three steps in a row; the middle one can be held open to simulate a crash."""
    first = yield context.call_activity("double", 1)
    middle = yield context.call_activity("gated", context.get_input())
    last = yield context.call_activity("double", first)
    return [first, middle, last]


@app.orchestration_trigger(context_name="context")
def long_running(context: df.DurableOrchestrationContext):
    context.set_custom_status("sleeping")
    yield context.create_timer(context.current_utc_datetime + timedelta(hours=1))
    return "woke up"


@app.orchestration_trigger(context_name="context")
def nondeterministic(context: df.DurableOrchestrationContext):
    """Schedules a different activity on replay: what a ``random`` call would do."""
    _replays[context.instance_id] += 1
    name = "double" if _replays[context.instance_id] == 1 else "sleep_echo"
    yield context.call_activity(name, 1)
    yield context.call_activity("double", 2)
    return "unreachable"


# -- custom objects through activity bindings ------------------------------------------


class Point:
    """A user type with the SDK's ``to_json``/``from_json`` protocol."""

    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y

    @staticmethod
    def to_json(obj: Point) -> dict[str, int]:
        return {"x": obj.x, "y": obj.y}

    @staticmethod
    def from_json(data: dict[str, int]) -> Point:
        return Point(data["x"], data["y"])


@app.activity_trigger(input_name="point")
def mirror(point: Point) -> Point:
    """Needs a real ``Point`` in (a dict has no ``.x``) and returns one."""
    return Point(point.y, point.x)


@app.orchestration_trigger(context_name="context")
def points(context: df.DurableOrchestrationContext):
    mirrored = yield context.call_activity("mirror", Point(1, 2))
    return {"type": type(mirrored).__name__, "x": mirrored.x, "y": mirrored.y}


# -- HTTP functions ------------------------------------------------------------------------


@app.route(route="Orchestrators/{name}", methods=["POST"], auth_level=func.AuthLevel.FUNCTION)
@app.durable_client_input(client_name="client")
async def start_orchestration(req: func.HttpRequest, client) -> func.HttpResponse:
    """Starts ``name`` with the JSON body as input; the Durable 202 with its links."""
    body = req.get_body()
    instance_id = await client.start_new(
        req.route_params["name"], None, json.loads(body) if body else None
    )
    return client.create_check_status_response(req, instance_id)


@app.route(route="ping", methods=["GET"], auth_level=func.AuthLevel.ANONYMOUS)
def ping(req: func.HttpRequest) -> func.HttpResponse:
    """A plain (sync) function, open to anyone."""
    return func.HttpResponse("pong", mimetype="text/plain")


@app.route(route="binding", methods=["GET"], auth_level=func.AuthLevel.ANONYMOUS)
@app.generic_input_binding(arg_name="client", type="durableClient")
def raw_binding(req: func.HttpRequest, client: str) -> func.HttpResponse:
    """The durable client binding as the host sends it (a generic binding gets the raw JSON)."""
    return func.HttpResponse(client, mimetype="application/json")


# -- timer functions -----------------------------------------------------------------------

startup_runs: list[dict[str, Any]] = []
startup_ran = threading.Event()


@app.timer_trigger(schedule="0 0 3 * * *", arg_name="timer", run_on_startup=True)
@app.durable_client_input(client_name="client")
async def on_startup(timer: func.TimerRequest, client) -> None:
    """Starts one ``fan_out`` when the host starts, like a reconciliation job would."""
    instance_id = await client.start_new("fan_out", None, 2)
    startup_runs.append({"past_due": timer.past_due, "instance_id": instance_id})
    startup_ran.set()


@app.timer_trigger(schedule="0 0 4 * * *", arg_name="timer")
def nightly(timer: func.TimerRequest) -> None:
    """Not ``run_on_startup``: a host must leave it to its schedule."""
    _count("nightly")
