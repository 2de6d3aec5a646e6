"""devhost's HTTP front: the app's HTTP functions under /api, and the Durable RPC.

- ``/api/{route}`` calls the function registered for the route, like the
  Functions host: a ``func.HttpRequest`` in, a ``func.HttpResponse`` out, and
  for functions with a durable client binding the client's binding JSON as
  the keyword argument (the SDK's own middleware builds the real
  ``DurableOrchestrationClient`` from it).
- ``rpcBaseUrl`` endpoints (start, status, raise event, terminate, purge,
  query) are what that client calls. They live under a per-process secret
  path; the operator-facing management URLs (``/runtime/webhooks/durabletask``)
  require the system key, as in Azure.

All handlers run on one event loop, as in the Python worker (the SDK keeps a
process-wide aiohttp session bound to the loop that created it).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import azure.functions as func
from aiohttp import web

from devhost.engine import Engine, InstanceExists
from devhost.instances import Instance

MAX_BODY_BYTES = 1024 * 1024
WEBHOOK_PREFIX = "/runtime/webhooks/durabletask"


class HttpFront:
    def __init__(self, engine: Engine, task_hub: str = "devhost") -> None:
        self.engine = engine
        self.task_hub = task_hub
        self.system_key = secrets.token_urlsafe(24)
        self._rpc_secret = secrets.token_urlsafe(16)
        self.base_url = ""  # set once the port is known

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        rpc = f"/_rpc/{self._rpc_secret}"
        for prefix, guarded in ((rpc, False), (WEBHOOK_PREFIX, True)):
            app.router.add_post(prefix + "/orchestrators/{name}", self._guard(self._start, guarded))
            app.router.add_post(
                prefix + "/orchestrators/{name}/{instance_id}", self._guard(self._start, guarded)
            )
            app.router.add_get(prefix + "/instances/", self._guard(self._query, guarded))
            app.router.add_get(prefix + "/instances/{id}", self._guard(self._status, guarded))
            app.router.add_post(
                prefix + "/instances/{id}/raiseEvent/{event}", self._guard(self._raise, guarded)
            )
            app.router.add_post(
                prefix + "/instances/{id}/terminate", self._guard(self._terminate, guarded)
            )
            app.router.add_delete(prefix + "/instances/", self._guard(self._purge_by, guarded))
            app.router.add_delete(prefix + "/instances/{id}", self._guard(self._purge, guarded))
        app.router.add_route("*", "/api/{tail:.*}", self._api)
        return app

    # -- the client binding ------------------------------------------------------

    def client_binding(self) -> str:
        base = f"{self.base_url}{WEBHOOK_PREFIX}"
        query = f"taskHub={self.task_hub}&connection=Storage&code={self.system_key}"
        instance = f"{base}/instances/INSTANCEID"
        return json.dumps(
            {
                "taskHubName": self.task_hub,
                "creationUrls": {
                    "createNewInstancePostUri": f"{base}/orchestrators/{{functionName}}"
                    f"[/{{instanceId}}]?code={self.system_key}",
                    "createAndWaitOnNewInstancePostUri": f"{base}/orchestrators/{{functionName}}"
                    f"[/{{instanceId}}]?timeout={{timeoutInSeconds}}&pollingInterval="
                    f"{{intervalInSeconds}}&code={self.system_key}",
                },
                "managementUrls": {
                    "id": "INSTANCEID",
                    "statusQueryGetUri": f"{instance}?{query}",
                    "sendEventPostUri": f"{instance}/raiseEvent/{{eventName}}?{query}",
                    "terminatePostUri": f"{instance}/terminate?reason={{text}}&{query}",
                    "purgeHistoryDeleteUri": f"{instance}?{query}",
                    "rewindPostUri": f"{instance}/rewind?reason={{text}}&{query}",
                    "restartPostUri": f"{instance}/restart?{query}",
                    "suspendPostUri": f"{instance}/suspend?reason={{text}}&{query}",
                    "resumePostUri": f"{instance}/resume?reason={{text}}&{query}",
                },
                "rpcBaseUrl": f"{self.base_url}/_rpc/{self._rpc_secret}/",
                "requiredQueryStringParameters": f"code={self.system_key}",
            }
        )

    # -- /api ------------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = request.match_info["tail"].strip("/")
        registry = self.engine.registry
        found = registry.match(request.method, path)
        if found is None:
            status = 405 if registry.path_exists(path) else 404
            return web.json_response(
                {
                    "error": {
                        "code": "not_found" if status == 404 else "method_not_allowed",
                        "message": f"no function for {request.method} /api/{path}",
                        "details": [],
                    }
                },
                status=status,
            )
        route, params = found
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return web.json_response(
                {
                    "error": {
                        "code": "payload_too_large",
                        "details": [],
                        "message": f"request body is over {MAX_BODY_BYTES} bytes",
                    }
                },
                status=413,
            )
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
        response = await route.func(**kwargs)
        return _to_aiohttp(response)

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
        payload = json.loads(self.client_binding())["managementUrls"]
        links = {k: v.replace("INSTANCEID", instance_id) for k, v in payload.items()}
        location = {"Location": links["statusQueryGetUri"]}
        return web.json_response(links, status=202, headers=location)

    async def _status(self, request: web.Request) -> web.Response:
        inst = self.engine.get(request.match_info["id"])
        if inst is None:
            return web.json_response(None, status=404)
        show_history = request.query.get("showHistory", "").lower() == "true"
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
