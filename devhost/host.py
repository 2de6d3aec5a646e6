"""DevHost: function_app's own functions, served on loopback, run by the devhost engine.

One process: an aiohttp server on a dedicated event loop thread (like the
Python worker's single loop), the engine's orchestration and timer threads,
and the activity thread pool sized from host.json. History lives in
``{DATA_DIR}/devhost.sqlite3``; starting again resumes running instances.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import threading
from pathlib import Path

from aiohttp import web

from devhost.engine import Engine
from devhost.http import HttpFront
from devhost.registry import Registry, index
from shared.bootstrap import configure
from shared.config import Settings

log = logging.getLogger("devhost")
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ACTIVITY_WORKERS = 8


def activity_workers(host_json: Path = ROOT / "host.json") -> int:
    """``extensions.durableTask.maxConcurrentActivityFunctions`` from host.json."""
    try:
        config = json.loads(host_json.read_text(encoding="utf-8"))
        return int(config["extensions"]["durableTask"]["maxConcurrentActivityFunctions"])
    except (OSError, KeyError, ValueError, TypeError):
        return DEFAULT_ACTIVITY_WORKERS


_REGISTRIES: dict[int, Registry] = {}


def app_registry(app: object) -> Registry:
    """Index an app once per process: the SDK refuses to build its function list twice."""
    if id(app) not in _REGISTRIES:
        _REGISTRIES[id(app)] = index(app)
    return _REGISTRIES[id(app)]


class DevHost:
    def __init__(
        self, settings: Settings | None = None, host: str = "127.0.0.1", port: int = 7071
    ) -> None:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"devhost only listens on loopback addresses, not {host}")
        self.settings = settings or Settings()
        self.host, self.port = host, port
        self.engine: Engine | None = None
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> DevHost:
        configure(self.settings)
        import function_app  # registers every function; reads no settings

        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.engine = Engine(
            app_registry(function_app.app),
            self.settings.data_dir / "devhost.sqlite3",
            activity_workers(),
        )
        front = HttpFront(self.engine)
        started = threading.Event()
        self._thread = threading.Thread(
            target=self._serve, args=(front, started), name="devhost-http", daemon=True
        )
        self._thread.start()
        if not started.wait(15):
            raise RuntimeError("devhost HTTP server did not start")
        front.base_url = self.url
        self.engine.start()
        log.info("devhost listening on %s/api", self.url)
        return self

    def _serve(self, front: HttpFront, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)

        async def boot() -> None:
            self._runner = web.AppRunner(front.application(), access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, self.host, self.port)
            await site.start()
            self.port = self._runner.addresses[0][1]
            started.set()

        self._loop.run_until_complete(boot())
        self._loop.run_forever()

    def stop(self) -> None:
        if self.engine:
            self.engine.stop()
        if self._runner:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread:
            self._thread.join(10)

    async def _shutdown(self) -> None:
        # The Durable client keeps one aiohttp session per process, on this loop.
        from azure.durable_functions.models.utils.http_utils import _close_session

        await _close_session()
        if self._runner:
            await self._runner.cleanup()

    def __enter__(self) -> DevHost:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
