"""Shared fixtures: fake servers, emulators, and a devhost per test.

Every server binds 127.0.0.1 on a free port and is stopped at teardown.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from shared.config import Settings

pytest_plugins = [
    "tests.fakes.web",
    "tests.fakes.openai_server",
    "tests.fakes.webhook_receiver",
    "tests.emulators.fixtures",
]

# Tests never read the developer's environment: settings are built explicitly.
for _name in list(os.environ):
    if _name.upper() in {f.upper() for f in Settings.model_fields} and _name != "PATH":
        os.environ.pop(_name)

CORPUS_CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "deep-research-test-corpus"


@pytest.fixture
def offline_settings(tmp_path: Path) -> Settings:
    """Offline reasoner, local corpus, embedded stores in a fresh folder."""
    return Settings(data_dir=tmp_path / "data", reasoner="offline", search_provider="local")


@pytest.fixture
def start_devhost(tmp_path: Path) -> Iterator[Callable[..., DevHost]]:
    """Start devhost(s) in-process on free loopback ports; all are stopped afterwards."""
    hosts: list[DevHost] = []

    def start(settings: Settings | None = None) -> DevHost:
        settings = settings or Settings(data_dir=tmp_path / "data", reasoner="offline",
                                        search_provider="local")  # fmt: skip
        host = DevHost(settings=settings, port=0).start()
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.stop()


@pytest.fixture
def devhost(start_devhost) -> DevHost:
    return start_devhost()


@pytest.fixture
def api(devhost: DevHost) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=devhost.url, timeout=30) as client:
        yield client
