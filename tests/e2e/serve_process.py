"""``python -m devhost serve`` as a real process that tests can kill -9 and restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from tests.conftest import with_shared_corpus_cache

ROOT = Path(__file__).resolve().parents[2]
BOOT_S = 45.0
_SETTING_NAMES = {name.upper() for name in Settings.model_fields}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServeProcess:
    """One host in its own process group, so SIGKILL takes all of it."""

    def __init__(self, port: int, log: Path, **settings: str) -> None:
        env = {k: v for k, v in os.environ.items() if k.upper() not in _SETTING_NAMES}
        env.update({k.upper(): v for k, v in settings.items()}, PYTHONPATH=str(ROOT))
        self.url = f"http://127.0.0.1:{port}"
        self._log = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devhost", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, http: httpx.Client) -> None:
        deadline = time.monotonic() + BOOT_S
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, "devhost exited during start-up"
            try:
                if http.get(f"{self.url}/api/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        pytest.fail("devhost did not answer /api/health in time")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(15)
        self._log.close()


@contextmanager
def serving(folder: Path, **settings: str) -> Iterator[str]:
    """An offline devhost process on the small local corpus, ready; its base URL.
    ``settings`` add to or override the offline defaults (as environment variables)."""
    port = free_port()
    data_dir = with_shared_corpus_cache(folder / "data")
    base = {"data_dir": str(data_dir), "reasoner": "offline", "search_provider": "local"}
    host = ServeProcess(port, folder / "devhost.log", **(base | settings))
    try:
        with httpx.Client(timeout=30) as http:
            host.wait_ready(http)
        yield host.url
    finally:
        host.kill()
