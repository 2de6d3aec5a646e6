"""With no exporter configured, tracing costs nothing: no provider, no distro, no spans.

In a fresh interpreter: a provider can be set once per process, and the test
run may have set one already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from shared.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTING_NAMES = {name.upper() for name in Settings.model_fields}

PROBE = """
import json, sys
from opentelemetry import trace
from shared.core.config import Settings
from shared.tools.telemetry import exporters, genai, tracing
exporters.configure(Settings())
with tracing.activity_span("probe", "session-1", "planning", 1) as span:
    with genai.model_call("openai", "gpt-4o") as call:
        call.record(10, 5, 0.001)
print(json.dumps({
    "provider": type(trace.get_tracer_provider()).__name__,
    "enabled": tracing.enabled(),
    "span": span is None,
    "distro": "azure.monitor.opentelemetry" in sys.modules,
}))
"""


def test_no_exporter_means_no_provider_and_no_span() -> None:
    env = {k: v for k, v in os.environ.items() if k.upper() not in SETTING_NAMES}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {
        "provider": "ProxyTracerProvider",
        "enabled": False,
        "span": True,
        "distro": False,
    }
