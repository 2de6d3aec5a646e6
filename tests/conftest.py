"""Shared fixtures: fake servers, emulators, and a devhost per test.

Every server binds 127.0.0.1 on a free port and is stopped at teardown. With
``CI`` set (``.ci/run`` sets it; ``CI=true make test`` does the same locally)
an unexpected skip fails the run: see ``tests/ci_skip_policy.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings

pytest_plugins = [
    "tests.fakes.web",
    "tests.fakes.openai_server",
    "tests.fakes.webhook_receiver",
    "tests.emulators.fixtures",
    "tests.e2e.browser",  # Chromium through Playwright, for the web page's tests
    "tests.ci_skip_policy",  # in CI a skip fails the run unless tests/skip_allowlist.py allows it
]

# Tests never read the developer's environment: settings are built explicitly.
for _name in list(os.environ):
    if _name.upper() in {f.upper() for f in Settings.model_fields} and _name != "PATH":
        os.environ.pop(_name)

CORPUS_CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "deep-research-test-corpus"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh DATA_DIR whose corpus index cache is shared by the whole run.

    The cache is keyed by the corpus content, so sharing it never serves a stale
    index; it saves rebuilding the built-in collection (seconds) in every test.
    """
    return with_shared_corpus_cache(tmp_path / "data")


def with_shared_corpus_cache(folder: Path) -> Path:
    """``folder`` (created) as a DATA_DIR whose corpus index cache is the run's shared one:
    a host started on it opens the built-in collection instead of building it again."""
    folder.mkdir(parents=True, exist_ok=True)
    CORPUS_CACHE.mkdir(parents=True, exist_ok=True)
    link = folder / "corpus-cache"
    if not link.exists():
        link.symlink_to(CORPUS_CACHE, target_is_directory=True)
    return folder


@pytest.fixture
def offline_settings(data_dir: Path) -> Settings:
    """Offline reasoner, local corpus, embedded stores in a fresh folder."""
    return Settings(data_dir=data_dir, reasoner="offline", search_provider="local")


@pytest.fixture
def start_devhost(data_dir: Path) -> Iterator[Callable[..., DevHost]]:
    """Start devhost(s) in-process on free loopback ports; all are stopped afterwards."""
    hosts: list[DevHost] = []

    def start(settings: Settings | None = None) -> DevHost:
        settings = settings or Settings(
            data_dir=data_dir, reasoner="offline", search_provider="local"
        )
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
