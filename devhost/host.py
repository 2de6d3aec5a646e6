"""DevHost: function_app's own functions, served on loopback, run by the devhost engine.

One process: an aiohttp server on a dedicated event loop thread (like the
Python worker's single loop), the engine's orchestration and timer threads,
and the activity thread pool sized from host.json; with
``FUNCTIONS_WORKER_PROCESS_COUNT`` > 1 activities run in that many worker
processes instead (``devhost.worker_processes``). History lives in
``{DATA_DIR}/devhost.sqlite3``; starting again resumes running instances.

Like the Functions host at start-up, it runs once every timer function
registered with ``run_on_startup=True`` (on the server's loop, with the
durable client binding when the function has one); ``startup_done`` is set
when they have all returned.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
from pathlib import Path
from typing import Any

from aiohttp import web

from api.errors import MAX_BODY_BYTES
from devhost.bindings import call_function, startup_timer_request
from devhost.engine import Engine
from devhost.host_config import load_host_config
from devhost.http import HttpFront
from devhost.keys import FunctionKeys, load_or_create_keys
from devhost.registry import Registry, TimerFunction, index
from devhost.worker_processes import app_reference
from shared.bootstrap import configure
from shared.core.config import Settings

log = logging.getLogger("devhost")
ROOT = Path(__file__).resolve().parent.parent
KEYS_FILE = "devhost-keys.json"
SHUTDOWN_GRACE_S = 2.0  # open requests on stop; the whole stop waits at most 10 s


def app_registry(app: object) -> Registry:
    """Index an app once per process: the SDK refuses to build its function list twice."""
    return index(app)


class DevHost:
    def __init__(
        self,
        settings: Settings | None = None,
        host: str = "127.0.0.1",
        port: int = 7071,
        app: Any = None,
        host_json: Path = ROOT / "host.json",
    ) -> None:
        """``app``: the Functions app to host (default: ``function_app.app``, imported on start)."""
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"devhost only listens on loopback addresses, not {host}")
        self.settings = settings or Settings()
        self.host, self.port = host, port
        self.engine: Engine | None = None
        self.keys: FunctionKeys | None = None
        self.startup_done = threading.Event()
        self._app = app
        self._config = load_host_config(host_json)
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_url(self) -> str:
        """Where the app's HTTP functions are served (``url`` plus the route prefix)."""
        prefix = self._config.route_prefix
        return f"{self.url}/{prefix}" if prefix else self.url

    @property
    def mcp_url(self) -> str:
        """The MCP endpoint (streamable HTTP; ``/sse`` below it for older clients)."""
        return f"{self.url}/runtime/webhooks/mcp"

    def start(self) -> DevHost:
        """Serve; a sign-in setup that cannot work (``ConfigurationError``) stops it here."""
        configure(self.settings).authenticator  # noqa: B018 - built now, not at the first request
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        registry = app_registry(self._app if self._app is not None else _function_app())
        self.engine = Engine(
            registry,
            self.settings.data_dir / "devhost.sqlite3",
            self._config.activity_workers,
            self.settings.functions_worker_process_count,
            self.settings,
            # only worker processes import the app again: an app built in this process is fine
            app_reference(self._app) if self.settings.functions_worker_process_count > 1 else "",
        )
        if self.settings.devhost_require_keys:
            self.keys = load_or_create_keys(self.settings.data_dir / KEYS_FILE)
        front = HttpFront(
            self.engine,
            route_prefix=self._config.route_prefix,
            keys=self.keys,
            mcp_info=self._config.mcp,
            max_body_bytes=MAX_BODY_BYTES,  # the app's own cap: reading stops there
            max_upload_bytes=self.settings.collection_max_request_bytes,
        )
        started = threading.Event()
        self._thread = threading.Thread(
            target=self._serve, args=(front, started), name="devhost-http", daemon=True
        )
        self._thread.start()
        if not started.wait(15):
            raise RuntimeError("devhost HTTP server did not start")
        front.base_url = self.url
        self.engine.start()
        asyncio.run_coroutine_threadsafe(self._run_startup_timers(front), self._loop)
        log.info("devhost listening on %s (MCP: %s)", self.api_url, self.mcp_url)
        if self.keys:
            log.warning("devhost: function keys required; x-functions-key: %s", self.keys.function)
        return self

    def _serve(self, front: HttpFront, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)

        async def boot() -> None:
            # An open long poll or event stream gets this long to end on stop, then is
            # cancelled: stopping must not wait out a client's poll (aiohttp waits 60 s).
            self._runner = web.AppRunner(
                front.application(), access_log=None, shutdown_timeout=SHUTDOWN_GRACE_S
            )
            await self._runner.setup()
            site = web.TCPSite(self._runner, self.host, self.port)
            await site.start()
            self.port = self._runner.addresses[0][1]
            started.set()

        self._loop.run_until_complete(boot())
        self._loop.run_forever()

    async def _run_startup_timers(self, front: HttpFront) -> None:
        assert self.engine is not None
        try:
            for timer in self.engine.registry.timers:
                if timer.run_on_startup:
                    await _run_timer(timer, front)
        finally:
            self.startup_done.set()

    def stop(self) -> None:
        """Stop serving and running; a second call does nothing."""
        if self._stopped:
            return
        self._stopped = True
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
        # What libraries left running on this loop (sse-starlette's shutdown watcher,
        # started by the MCP endpoint's streams) ends here, not as a destroyed task.
        current = asyncio.current_task()
        leftovers = [t for t in asyncio.all_tasks() if t is not current]
        for task in leftovers:
            task.cancel()
        await asyncio.gather(*leftovers, return_exceptions=True)

    def __enter__(self) -> DevHost:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _function_app() -> Any:
    import function_app  # registers every function; reads no settings

    return function_app.app


async def _run_timer(timer: TimerFunction, front: HttpFront) -> None:
    """One timer invocation as the worker makes it: async on the loop, sync in a thread.

    A failure is logged and does not stop the host, as in Azure.
    """
    kwargs: dict[str, Any] = {timer.timer_param: startup_timer_request()}
    if timer.client_param:
        kwargs[timer.client_param] = front.client_binding()
    try:
        await call_function(timer.func, kwargs)
    except Exception:
        log.exception("devhost: timer function %s failed at start-up", timer.name)
