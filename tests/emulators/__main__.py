"""``python -m tests.emulators <devhost args>``: devhost on the Azure adapters, locally.

Starts Azurite and the Cosmos DB stand-in on free 127.0.0.1 ports (``npm ci``
first when ``node_modules`` is missing), points the service at them through
the environment, runs ``python -m devhost <args>`` (``serve``, ``research
"question"``, ...) as a child process, and stops both emulators by PID when
the child exits, on Ctrl+C, or on SIGTERM.

Both emulators keep their data in memory, so durable history must not outlive
them either: unless ``DATA_DIR`` is set, devhost gets ``.data/azure-local``
with its orchestration history cleared at start (the corpus cache is kept).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType

from tests.emulators.fixtures import _stop, start_azurite, start_cosmos_standin

DEFAULT_DATA_DIR = Path(".data") / "azure-local"
DATABASE = "deepresearch"
MEMORY_CONTAINER = "agent-sessions"
CHILD_STOP_SECONDS = 10


def main(argv: list[str]) -> int:
    if not (shutil.which("node") and shutil.which("npm")):
        print(
            "node/npm not found: install Node.js 20+ to run the Azure emulators.", file=sys.stderr
        )
        return 2
    emulators: list[subprocess.Popen] = []
    # Ctrl+C and SIGTERM both end in ``finally`` below, so the emulators always stop.
    # Installing the handler also undoes an inherited "ignore SIGINT" (background
    # jobs), which the child would otherwise inherit too and never stop on Ctrl+C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    with tempfile.TemporaryDirectory(prefix="azure-local-") as workdir:
        try:
            azurite, blob = start_azurite(Path(workdir))
            emulators.append(azurite)
            cosmos, db = start_cosmos_standin(Path(workdir))
            emulators.append(cosmos)
            env = _environment(blob.connection_string, db.endpoint, db.key)
            print(
                f"Azurite blob {blob.blob_url} (pid {blob.pid}) · Cosmos stand-in "
                f"{db.endpoint} (pid {db.pid})",
                file=sys.stderr,
                flush=True,
            )
            return _run_child([sys.executable, "-m", "devhost", *argv], env)
        except KeyboardInterrupt:
            return 130
        finally:
            for process in reversed(emulators):
                _stop(process)


def _environment(connection_string: str, endpoint: str, key: str) -> dict[str, str]:
    """The child's environment: ours plus the Azure store settings (emulators win)."""
    env = dict(os.environ)
    env.update(
        {
            "COSMOS_ENDPOINT": endpoint,
            "COSMOS_KEY": key,
            "COSMOS_VERIFY_TLS": "false",
            "COSMOS_DATABASE": env.get("COSMOS_DATABASE") or DATABASE,
            "AZURE_STORAGE_CONNECTION_STRING": connection_string,
            "MEMORY_CONTAINER": env.get("MEMORY_CONTAINER") or MEMORY_CONTAINER,
        }
    )
    env.pop("AZURE_STORAGE_ACCOUNT_URL", None)  # the connection string is the one to use
    if not env.get("DATA_DIR"):
        env["DATA_DIR"] = str(DEFAULT_DATA_DIR)
        _clear_durable_history(DEFAULT_DATA_DIR)
    # The stand-in's certificate is self-signed; verification is off on purpose.
    env["PYTHONWARNINGS"] = "ignore:Unverified HTTPS request"
    return env


def _clear_durable_history(data_dir: Path) -> None:
    for path in data_dir.glob("devhost.sqlite3*"):
        path.unlink()


def _run_child(command: list[str], env: dict[str, str]) -> int:
    """Run devhost until it exits; when interrupted, let it stop cleanly, then insist."""
    child = subprocess.Popen(command, env=env)
    try:
        return child.wait()
    except KeyboardInterrupt:
        # A terminal's Ctrl+C reaches the child too; a SIGTERM to us does not.
        for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            if child.poll() is None:
                child.send_signal(stop)
            try:
                child.wait(timeout=CHILD_STOP_SECONDS)
                break
            except subprocess.TimeoutExpired:
                continue
        return 130


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
