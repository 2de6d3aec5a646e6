"""HTTP_STREAMING decides, at import, the signatures the Python worker indexes.

With the FastAPI extension imported, the worker checks every HTTP trigger's
request and return annotations with the extension's own type trackers
(``azure_functions_worker/bindings/meta.py``); these tests make the same
checks on the app as it is imported in a fresh process with the setting on
and off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import inspect, json, sys
import function_app
from azurefunctions.extensions.base import RequestTrackerMeta, ResponseTrackerMeta
from devhost.registry import index

out = {"extension": "azurefunctions.extensions.http.fastapi" in sys.modules, "routes": {}}
for route in index(function_app.app).routes:  # devhost refuses what the worker refuses
    sig = inspect.signature(route.func)
    out["routes"][route.name] = [
        RequestTrackerMeta.check_type(sig.parameters[route.request_param].annotation),
        ResponseTrackerMeta.check_type(sig.return_annotation),
    ]
print(json.dumps(out))
"""


def probe(streaming: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "HTTP_STREAMING"}
    if streaming is not None:
        env["HTTP_STREAMING"] = streaming
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_streaming_types_every_http_function_for_the_fastapi_extension() -> None:
    found = probe("true")
    assert found["extension"] is True
    assert len(found["routes"]) >= 13
    wrong = {name: checks for name, checks in found["routes"].items() if checks != [True, True]}
    assert wrong == {}


@pytest.mark.parametrize("streaming", [None, "false"])
def test_buffered_by_default_never_imports_the_extension(streaming: str | None) -> None:
    found = probe(streaming)
    assert found["extension"] is False  # importing it would switch the whole worker over
    assert not any(request for request, _ in found["routes"].values())


def test_devhost_refuses_a_buffered_function_once_the_extension_is_imported() -> None:
    """As the worker does: one ``func.HttpRequest`` function among FastAPI ones fails."""
    script = """
import azure.functions as func
import azurefunctions.extensions.http.fastapi  # noqa: F401
from devhost.registry import index

app = func.FunctionApp()

@app.route(route="old")
def old(req: func.HttpRequest) -> func.HttpResponse:
    return func.HttpResponse("x")

try:
    index(app)
except TypeError as exc:
    print(exc)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "do not take a fastapi.Request: old" in done.stdout, done.stdout + done.stderr
