"""devhost's HTTP front: the app's HTTP functions under the route prefix, and the Durable RPC.

- ``/{routePrefix}/{route}`` (host.json's ``extensions.http.routePrefix``,
  ``api`` by default) calls the function registered for the route, like the
  Functions host: a ``func.HttpRequest`` in, a ``func.HttpResponse`` out, and
  for functions with a durable client binding the client's binding JSON as
  the keyword argument (the SDK's own middleware builds the real
  ``DurableOrchestrationClient`` from it). Routes match case-insensitively,
  as ASP.NET routing does; with function keys required (``devhost.keys``), a
  ``FUNCTION``/``ADMIN`` route without a valid key answers an empty 401.
- ``/runtime/webhooks/mcp`` (and ``/sse``, ``/message``): the app's MCP tool
  functions, served by ``devhost.mcp`` as the MCP extension serves them; with
  keys required, only with the ``mcp_extension`` system key or the master key.
- ``rpcBaseUrl`` endpoints (start, status, raise event, terminate, purge,
  query) are what that client calls. They live under a per-process secret
  path; the operator-facing management URLs (``/runtime/webhooks/durabletask``)
  require the system key, as in Azure.

Every request passes ``devhost.guard`` first: a loopback ``Host`` (else 421),
no foreign ``Origin`` (403), JSON bodies only (415); app and MCP bodies stop
being read at ``max_body_bytes`` (413).

All handlers run on one event loop, as in the Python worker (the SDK keeps a
process-wide aiohttp session bound to the loop that created it).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import azure.functions as func
from aiohttp import web

from devhost import http_v2
from devhost.bindings import call_function
from devhost.engine import Engine, InstanceExists
from devhost.guard import (
    BodyTooLarge,
    error_response,
    is_upload,
    loopback_only,
    read_capped,
    refuse_body,
)
from devhost.host_config import DEFAULT_ROUTE_PREFIX, McpServerInfo
from devhost.instances import Instance
from devhost.keys import FunctionKeys
from devhost.mcp import MCP_PREFIX, McpFront
from devhost.registry import HttpRoute

MAX_BODY_BYTES = 1024 * 1024  # the Durable RPC's bodies; the app's routes get their own cap
WEBHOOK_PREFIX = "/runtime/webhooks/durabletask"
INSTANCE_PLACEHOLDER = "INSTANCEID"
CONNECTION_NAME = "Storage"


class HttpFront:
    def __init__(
        self,
        engine: Engine,
        task_hub: str = "devhost",
        route_prefix: str = DEFAULT_ROUTE_PREFIX,
        keys: FunctionKeys | None = None,
        mcp_info: McpServerInfo | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_upload_bytes: int = 0,
    ) -> None:
        """``keys``: require keys on non-anonymous routes (None: no checks, as Core Tools).

        ``max_body_bytes``: the cap on a request body to the app's routes and the MCP
        endpoint; reading stops there and the answer is 413 (``devhost.guard``).
        """
        self.engine = engine
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes  # multipart document uploads
        info = mcp_info or McpServerInfo()
        self.mcp = McpFront(engine.registry.mcp_tools, info, self.client_binding, max_body_bytes)
        self.task_hub = task_hub
        self.route_prefix = route_prefix.strip("/")
        self.keys = keys
        self.system_key = secrets.token_urlsafe(24)
        self._rpc_secret = secrets.token_urlsafe(16)
        self.base_url = ""  # set once the port is known

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[loopback_only])
        rpc = f"/_rpc/{self._rpc_secret}"
        for prefix, guarded in ((rpc, False), (WEBHOOK_PREFIX, True)):
            for method, path, handler in (
                ("POST", "/orchestrators/{name}", self._start),
                ("POST", "/orchestrators/{name}/{instance_id}", self._start),
                ("GET", "/instances/", self._query),
                ("GET", "/instances/{id}", self._status),
                ("POST", "/instances/{id}/raiseEvent/{event}", self._raise),
                ("POST", "/instances/{id}/terminate", self._terminate),
                ("DELETE", "/instances/", self._purge_by),
                ("DELETE", "/instances/{id}", self._purge),
            ):
                app.router.add_route(method, prefix + path, self._guard(handler, guarded))
        app.router.add_route("*", MCP_PREFIX + "{tail:(/.*)?}", self._mcp)
        app.router.add_route("*", r"/{tail:[\s\S]*}", self._api)
        app.on_startup.append(self.mcp.start)
        app.on_shutdown.append(self.mcp.stop)
        return app

    async def _mcp(self, request: web.Request) -> web.StreamResponse:
        if self.keys is not None and not self.keys.allows_mcp(request.headers, request.query):
            return web.Response(status=401)
        return await self.mcp.handle(request)

    # -- the client binding ------------------------------------------------------

    def client_binding(self) -> str:
        """The ``durableClient`` binding value, field for field as the Durable extension sends it.

        (``BindingHelper.DurableOrchestrationClientToString`` for out-of-proc
        languages: Newtonsoft keeps the unused fields as nulls.)
        """
        base = f"{self.base_url}{WEBHOOK_PREFIX}"
        code = f"code={self.system_key}"
        creation = f"{base}/orchestrators/{{functionName}}[/{{instanceId}}]"
        return json.dumps(
            {
                "taskHubName": self.task_hub,
                "connectionName": None,
                "creationUrls": {
                    "createNewInstancePostUri": f"{creation}?{code}",
                    "createAndWaitOnNewInstancePostUri": f"{creation}?timeout={{timeoutInSeconds}}"
                    f"&pollingInterval={{intervalInSeconds}}&{code}",
                },
                "managementUrls": self._management_urls(INSTANCE_PLACEHOLDER),
                "baseUrl": base,
                "requiredQueryStringParameters": code,
                "rpcBaseUrl": f"{self.base_url}/_rpc/{self._rpc_secret}/",
                "httpBaseUrl": None,
                "maxGrpcMessageSizeInBytes": None,
            }
        )

    def _management_urls(self, instance_id: str) -> dict[str, str]:
        """The operator links of one instance (``HttpApiHandler.GetClientResponseLinks``)."""
        instance = f"{self.base_url}{WEBHOOK_PREFIX}/instances/{instance_id}"
        query = f"taskHub={self.task_hub}&connection={CONNECTION_NAME}&code={self.system_key}"
        return {
            "id": instance_id,
            "statusQueryGetUri": f"{instance}?{query}",
            "sendEventPostUri": f"{instance}/raiseEvent/{{eventName}}?{query}",
            "terminatePostUri": f"{instance}/terminate?reason={{text}}&{query}",
            "rewindPostUri": f"{instance}/rewind?reason={{text}}&{query}",
            "purgeHistoryDeleteUri": f"{instance}?{query}",
            "restartPostUri": f"{instance}/restart?{query}",
            "suspendPostUri": f"{instance}/suspend?reason={{text}}&{query}",
            "resumePostUri": f"{instance}/resume?reason={{text}}&{query}",
        }

    # -- the app's HTTP functions -----------------------------------------------------

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = self._function_path(request.match_info["tail"])
        found = None if path is None else self.engine.registry.match(request.method, path)
        if found is None:
            return self._no_function(request, path)
        route, params = found
        if self.keys is not None and not self.keys.allows(
            route.auth_level, request.headers, request.query
        ):
            return web.Response(status=401)
        cap, named = self.max_body_bytes, ""
        if is_upload(request.headers.get("Content-Type", "")):  # documents: their own cap
            cap, named = max(cap, self.max_upload_bytes), "collection_max_request_bytes"
        try:
            body = await read_capped(request, cap)
        except BodyTooLarge:
            return await refuse_body(request, cap, named)
        v2 = http_v2.uses_v2(route.func, route.request_param)
        arguments = self._arguments(route, request, params, body, v2)
        response = await call_function(route.func, arguments)
        return await http_v2.send(response, request) if v2 else _to_aiohttp(response)

    def _function_path(self, tail: str) -> str | None:
        """The route part of a request path, or None when it is outside the route prefix."""
        path = tail.strip("/")
        if not self.route_prefix:
            return path
        head, _, rest = path.partition("/")
        return rest if head.lower() == self.route_prefix.lower() else None

    def _no_function(self, request: web.Request, path: str | None) -> web.Response:
        if path is not None and self.engine.registry.path_exists(path):
            message = f"no function for {request.method} {request.path}"
            return error_response(405, "method_not_allowed", message)
        message = f"no function for {request.method} {request.path}"
        return error_response(404, "not_found", message)

    def _arguments(
        self,
        route: HttpRoute,
        request: web.Request,
        params: dict[str, str],
        body: bytes,
        v2: bool,
    ) -> dict[str, Any]:
        """The trigger's request (FastAPI's under HTTP v2) and the client binding, if any."""
        if v2:
            http_request = http_v2.fastapi_request(request, params, body)
        else:
            http_request = func.HttpRequest(
                method=request.method,
                url=str(request.url),
                headers=dict(request.headers),
                params=dict(request.query),
                route_params=params,
                body=body,
            )
        kwargs: dict[str, Any] = {route.request_param: http_request}
        if route.client_param:
            kwargs[route.client_param] = self.client_binding()
        return kwargs

    # -- RPC -----------------------------------------------------------------------------

    def _guard(self, handler, guarded: bool):
        async def guarded_handler(request: web.Request) -> web.StreamResponse:
            if guarded and request.query.get("code") != self.system_key:
                return web.json_response({"Message": "Unauthorized"}, status=401)
            return await handler(request)

        return guarded_handler

    async def _start(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        raw = await request.text()
        input_json = json.loads(raw) if raw else None  # the client double-encodes: a JSON string
        try:
            instance_id = self.engine.start_instance(
                name, request.match_info.get("instance_id"), input_json
            )
        except KeyError:
            return web.json_response(
                {"ExceptionMessage": f"The function '{name}' doesn't exist."}, status=400
            )
        except InstanceExists as exc:
            return web.json_response(
                {"ExceptionMessage": f"An instance with ID '{exc}' already exists."}, status=409
            )
        links = self._management_urls(instance_id)
        location = {"Location": links["statusQueryGetUri"]}
        return web.json_response(links, status=202, headers=location)

    async def _status(self, request: web.Request) -> web.Response:
        show_history = request.query.get("showHistory", "").lower() == "true"
        store = self.engine.store
        instance_id = request.match_info["id"]
        inst = store.get(instance_id) if show_history else store.summary(instance_id)
        if inst is None:
            return web.json_response(None, status=404)
        show_input = request.query.get("showInput", "true").lower() != "false"
        code = {"Completed": 200, "Failed": 500, "Terminated": 200}.get(inst.status, 202)
        return web.json_response(_status_json(inst, show_history, show_input), status=code)

    async def _query(self, request: web.Request) -> web.Response:
        statuses = [s for s in request.query.get("runtimeStatus", "").split(",") if s]
        found = self.engine.store.query(
            statuses or None,
            request.query.get("createdTimeFrom"),
            request.query.get("createdTimeTo"),
            request.query.get("instanceIdPrefix"),
            history=False,
        )
        return web.json_response([_status_json(i, False, False) for i in found])

    async def _raise(self, request: web.Request) -> web.Response:
        raw = await request.text()
        data = json.loads(raw) if raw else None
        outcome = self.engine.raise_event(
            request.match_info["id"], request.match_info["event"], data
        )
        return web.Response(status={"ok": 202, "not_found": 404, "gone": 410}[outcome])

    async def _terminate(self, request: web.Request) -> web.Response:
        outcome = self.engine.terminate(request.match_info["id"], request.query.get("reason", ""))
        return web.Response(status={"ok": 202, "not_found": 404, "gone": 410}[outcome])

    async def _purge(self, request: web.Request) -> web.Response:
        deleted = self.engine.purge(request.match_info["id"])
        if not deleted:
            return web.json_response({"instancesDeleted": 0}, status=404)
        return web.json_response({"instancesDeleted": deleted})

    async def _purge_by(self, request: web.Request) -> web.Response:
        statuses = [s for s in request.query.get("runtimeStatus", "").split(",") if s]
        deleted = self.engine.purge_by(
            statuses or None,
            request.query.get("createdTimeFrom"),
            request.query.get("createdTimeTo"),
        )
        return web.json_response({"instancesDeleted": deleted}, status=200 if deleted else 404)


def _status_json(inst: Instance, show_history: bool, show_input: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": inst.name,
        "instanceId": inst.id,
        "runtimeStatus": inst.status,
        "createdTime": inst.created_at,
        "lastUpdatedTime": inst.updated_at,
        "customStatus": json.loads(inst.custom_status) if inst.custom_status else None,
        "output": json.loads(inst.output) if inst.output else None,
    }
    if show_input:
        body["input"] = json.loads(inst.input) if inst.input else None
    if show_history:
        body["historyEvents"] = inst.history
    return body


def _to_aiohttp(response: func.HttpResponse) -> web.Response:
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    if response.mimetype and "content-type" not in {k.lower() for k in headers}:
        charset = (
            f"; charset={response.charset}"
            if response.mimetype.startswith("text") or response.mimetype == "application/json"
            else ""
        )
        headers["Content-Type"] = response.mimetype + charset
    return web.Response(status=response.status_code, body=response.get_body(), headers=headers)
