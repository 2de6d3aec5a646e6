"""Session fixtures that run Azurite and the Cosmos DB stand-in on 127.0.0.1.

Both are npm packages pinned in ``tests/emulators/package.json``; ``npm ci``
runs here when ``node_modules`` is missing. Each emulator is a subprocess in
its own process group on a free loopback port, stopped by PID at the end of
the session. Without ``node`` on the machine the tests that need them are
skipped with a loud message (CI has node, so there they always run).

Import the fixtures explicitly in a test module::

    from tests.emulators.fixtures import azurite, cosmos_standin  # noqa: F401
"""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

EMULATORS_DIR = Path(__file__).resolve().parent
NODE_MODULES = EMULATORS_DIR / "node_modules"

# The documented development-storage account and the Cosmos emulator's
# well-known key: public constants, not secrets.
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
COSMOS_KEY = (
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
)
START_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class AzuriteInfo:
    """Where the running Azurite answers; ``connection_string`` names all three services."""

    blob_url: str
    queue_url: str
    table_url: str
    connection_string: str
    pid: int


@dataclass(frozen=True)
class CosmosInfo:
    """Where the Cosmos stand-in answers; its TLS certificate is self-signed."""

    endpoint: str
    key: str
    pid: int


def free_port() -> int:
    """A currently unused loopback TCP port (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ensure_node_modules() -> None:
    """Skip loudly without node; install the pinned packages once when missing."""
    if not _which("node") or not _which("npm"):
        pytest.skip(
            "!!! node/npm not found: Azurite and Cosmos stand-in tests are SKIPPED. "
            "Install Node.js 20+ to run the Azure adapter contract tests. !!!"
        )
    if (NODE_MODULES / ".bin" / "azurite").exists() and (
        NODE_MODULES / "@vercel" / "cosmosdb-server"
    ).exists():
        return
    result = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=EMULATORS_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"npm ci failed in {EMULATORS_DIR}:\n{result.stderr[-4000:]}")


def _which(program: str) -> bool:
    return any(
        os.access(Path(folder) / program, os.X_OK)
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder
    )


def _start(command: list[str], log_path: Path) -> subprocess.Popen:
    with log_path.open("wb") as log:
        return subprocess.Popen(
            command,
            cwd=log_path.parent,  # anything an emulator writes lands in the temporary folder
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group, so stop() takes its children too
        )


def _wait_until(ready: Callable[[], bool], process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"emulator exited early:\n{log_path.read_text(errors='replace')}")
        if ready():
            return
        time.sleep(0.1)
    _stop(process)
    raise RuntimeError(f"emulator did not answer in time:\n{log_path.read_text(errors='replace')}")


def _stop(process: subprocess.Popen) -> None:
    """Stop the emulator's process group by its PID: TERM, then KILL."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _port_open(port: int) -> Callable[[], bool]:
    def check() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    return check


def _https_answers(url: str) -> Callable[[], bool]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE

    def check() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=1, context=context) as response:
                return response.status == 200
        except OSError:
            return False

    return check


def start_azurite(workdir: Path) -> tuple[subprocess.Popen, AzuriteInfo]:
    """Start Azurite in memory on three free ports; returns the process and its endpoints."""
    ensure_node_modules()
    blob, queue, table = free_port(), free_port(), free_port()
    # --skipApiVersionCheck: the Python SDK sends a newer API version than Azurite knows.
    command = [
        "node",
        str(NODE_MODULES / ".bin" / "azurite"),
        "--blobHost",
        "127.0.0.1",
        "--blobPort",
        str(blob),
        "--queueHost",
        "127.0.0.1",
        "--queuePort",
        str(queue),
        "--tableHost",
        "127.0.0.1",
        "--tablePort",
        str(table),
        "--inMemoryPersistence",
        "--skipApiVersionCheck",
        "--disableTelemetry",
        "--silent",
    ]
    log_path = workdir / "azurite.log"
    process = _start(command, log_path)
    _wait_until(_port_open(blob), process, log_path)
    urls = {
        name: f"http://127.0.0.1:{port}/{AZURITE_ACCOUNT}"
        for name, port in (("Blob", blob), ("Queue", queue), ("Table", table))
    }
    connection_string = (
        f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};AccountKey={AZURITE_KEY};"
        + "".join(f"{name}Endpoint={url};" for name, url in urls.items())
    )
    info = AzuriteInfo(urls["Blob"], urls["Queue"], urls["Table"], connection_string, process.pid)
    return process, info


def start_cosmos_standin(workdir: Path) -> tuple[subprocess.Popen, CosmosInfo]:
    """Start the Cosmos stand-in (``cosmos_launcher.js``) on a free port."""
    ensure_node_modules()
    port = free_port()
    log_path = workdir / "cosmos.log"
    process = _start(["node", str(EMULATORS_DIR / "cosmos_launcher.js"), str(port)], log_path)
    endpoint = f"https://127.0.0.1:{port}/"
    _wait_until(_https_answers(endpoint), process, log_path)
    return process, CosmosInfo(endpoint, COSMOS_KEY, process.pid)


@pytest.fixture(scope="session")
def azurite() -> Iterator[AzuriteInfo]:
    """A running Azurite (blob, queue, table) for the whole test session."""
    with tempfile.TemporaryDirectory(prefix="azurite-") as workdir:
        process, info = start_azurite(Path(workdir))
        try:
            yield info
        finally:
            _stop(process)


@pytest.fixture(scope="session")
def cosmos_standin() -> Iterator[CosmosInfo]:
    """A running Cosmos DB stand-in for the whole test session (TLS not verifiable)."""
    with tempfile.TemporaryDirectory(prefix="cosmos-") as workdir:
        process, info = start_cosmos_standin(Path(workdir))
        try:
            yield info
        finally:
            _stop(process)
