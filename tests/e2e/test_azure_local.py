"""Deep research end to end through devhost on the Azure adapters, against the emulators.

Sessions live in the Cosmos DB stand-in and memory files in Azurite: what the
API serves is checked against what the emulators hold (read with the SDKs
directly), so a silent fallback to SQLite or the filesystem would fail here.
"""

from __future__ import annotations

import ssl
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from azure.cosmos import CosmosClient, PartitionKey
from azure.storage.blob import BlobServiceClient

from devhost.host import DevHost
from shared.adapters.stores.cosmos import CosmosSessionStore
from shared.bootstrap import services
from shared.core.config import Settings
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from tests.e2e.polling import TERMINAL
from tests.emulators.fixtures import AzuriteInfo, CosmosInfo

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulators,
    pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning"),
]

# Small caps keep one offline deep research to seconds on a busy machine.
SMALL_CAPS = {
    "num_agents": 2,
    "max_supervisor_calls": 2,
    "run_deep_search_first": False,
    "search_iterations": 1,
}
# Short and ambiguous: the offline reasoner asks clarifying questions.
QUESTION = "python"
DEADLINE_SECONDS = 240.0


@pytest.fixture
def azure_settings(data_dir: Path, azurite: AzuriteInfo, cosmos_standin: CosmosInfo) -> Settings:
    run = uuid.uuid4().hex[:8]
    return Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        cosmos_endpoint=cosmos_standin.endpoint,
        cosmos_key=cosmos_standin.key,
        cosmos_verify_tls=False,
        cosmos_database=f"e2e-{run}",
        azure_storage_connection_string=azurite.connection_string,
        memory_container=f"e2e-{run}",
    )


@pytest.fixture
def host(start_devhost: Callable[..., DevHost], azure_settings: Settings) -> DevHost:
    return start_devhost(azure_settings)


@pytest.fixture
def client(host: DevHost) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=host.url, timeout=60) as http:
        yield http


def start(client: httpx.Client, chat_id: str, **options: object) -> httpx.Response:
    body = {"query": QUESTION, "chat_id": chat_id, "options": {**SMALL_CAPS, **options}}
    return client.post("/api/research", json=body)


def wait_for(client: httpx.Client, session_id: str, statuses: set[str]) -> dict:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        view = client.get(f"/api/research/{session_id}").json()
        if view["status"] in statuses:
            return view
        if view["status"] in TERMINAL:
            pytest.fail(f"session ended {view['status']}: {view.get('error')}")
        time.sleep(0.3)
    pytest.fail(f"session {session_id} not in {statuses} after {DEADLINE_SECONDS}s")


def cosmos_session(settings: Settings, chat_id: str, session_id: str) -> dict:
    """The session document as the Cosmos stand-in holds it (not through our store)."""
    client = CosmosClient(
        settings.cosmos_endpoint,
        credential=settings.cosmos_key.get_secret_value(),
        connection_verify=False,
    )
    container = client.get_database_client(settings.cosmos_database).get_container_client(
        settings.cosmos_container
    )
    return container.read_item(session_id, partition_key=chat_id)


def blobs(settings: Settings, session_id: str) -> dict[str, tuple[bytes, str]]:
    """Every memory file of the session in Azurite: name -> (content, content type)."""
    service = BlobServiceClient.from_connection_string(
        settings.azure_storage_connection_string.get_secret_value()
    )
    with service.get_container_client(settings.memory_container) as container:
        found = {}
        for item in container.list_blobs(name_starts_with=f"{session_id}/"):
            data = container.download_blob(item.name).readall()
            found[item.name[len(session_id) + 1 :]] = (data, item.content_settings.content_type)
        return found


def test_health_names_the_azure_stores_and_pings_each_with_one_call(
    client: httpx.Client,
) -> None:
    client.get("/api/health")  # the stores are built lazily on first use
    svc = services()
    before = (Counter(svc.sessions.operation_counts()), Counter(svc.memory.operation_counts()))

    response = client.get("/api/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["stores"] == {
        "sessions": {"kind": "cosmos", "ok": True},
        "memory": {"kind": "blob", "ok": True},
    }
    sessions_delta = Counter(svc.sessions.operation_counts()) - before[0]
    memory_delta = Counter(svc.memory.operation_counts()) - before[1]
    assert sessions_delta == Counter({"read": 1})
    assert memory_delta == Counter({"properties": 1})


def test_deep_research_with_clarification_runs_on_cosmos_and_blob(
    client: httpx.Client, azure_settings: Settings
) -> None:
    chat_id = f"chat-{uuid.uuid4().hex[:8]}"
    started = start(client, chat_id, enable_clarifying_questions=True)
    assert started.status_code == 202, started.text
    session_id = started.json()["session_id"]

    waiting = wait_for(client, session_id, {"waiting_clarification"})
    questions = waiting["clarification"]["questions"]
    assert questions
    stored = cosmos_session(azure_settings, chat_id, session_id)
    assert stored["status"] == "waiting_clarification"
    assert stored["clarification_questions"] == questions

    answers = ["The language: how it works, with examples."]
    reply = client.post(f"/api/research/{session_id}/clarification", json={"answers": answers})
    assert reply.status_code == 202, reply.text
    done = wait_for(client, session_id, {"completed"})
    assert done["clarification"]["answers"] == answers

    stored = cosmos_session(azure_settings, chat_id, session_id)
    assert stored["status"] == "completed"
    assert stored["clarification_answers"] == answers

    # The reports the API serves are the blobs in Azurite, with their content types.
    files = blobs(azure_settings, session_id)
    assert {"main.md", "report.md", "report.json", "report.pdf"} <= files.keys()
    assert any(name.startswith("agents/agent_") for name in files)
    md = client.get(f"/api/research/{session_id}/report", params={"format": "md"})
    assert md.status_code == 200
    assert md.content == files["report.md"][0]
    assert files["report.md"][1].startswith("text/markdown")
    report = client.get(f"/api/research/{session_id}/report", params={"format": "json"})
    assert report.status_code == 200
    assert report.content == files["report.json"][0]
    assert len(report.json()["sections"]) >= 3
    pdf = client.get(f"/api/research/{session_id}/report.pdf")
    assert pdf.status_code == 200
    assert pdf.content.startswith(b"%PDF")
    assert pdf.content == files["report.pdf"][0]
    assert files["report.pdf"][1] == "application/pdf"
    # Nothing went to the embedded stores.
    assert not (azure_settings.data_dir / "memory").exists()
    assert not (azure_settings.data_dir / "sessions.sqlite3").exists()

    listed = client.get(f"/api/chats/{chat_id}/sessions")
    assert listed.status_code == 200
    assert [(s["session_id"], s["status"]) for s in listed.json()["sessions"]] == [
        (session_id, "completed")
    ]


def test_two_concurrent_deep_research_starts_in_one_chat_let_one_through(
    host: DevHost, client: httpx.Client
) -> None:
    chat_id = f"chat-{uuid.uuid4().hex[:8]}"
    barrier = threading.Barrier(2)

    def race(_: int) -> httpx.Response:
        with httpx.Client(base_url=host.url, timeout=60) as own:
            barrier.wait()
            return start(own, chat_id, enable_clarifying_questions=True)

    with ThreadPoolExecutor(2) as pool:
        responses = list(pool.map(race, range(2)))

    assert sorted(r.status_code for r in responses) == [202, 409]
    loser = next(r for r in responses if r.status_code == 409)
    assert loser.json()["error"]["code"] == "active_session"
    winner = next(r for r in responses if r.status_code == 202).json()["session_id"]
    listed = client.get(f"/api/chats/{chat_id}/sessions").json()["sessions"]
    assert [s["session_id"] for s in listed] == [winner]

    # Cancelling the winner frees the chat for the next deep research.
    assert client.post(f"/api/research/{winner}/cancel").status_code == 202
    wait_for(client, winner, {"cancelled"})
    again = start(client, chat_id, enable_clarifying_questions=True)
    assert again.status_code == 202, again.text
    client.post(f"/api/research/{again.json()['session_id']}/cancel")


# -- an identity with data-plane roles only ------------------------------------------


class _DataPlaneOnlyProxy(ThreadingHTTPServer):
    """HTTPS in front of the stand-in that answers 403 where AAD data-plane roles do.

    Creating a database or container (``POST /dbs``, ``POST /dbs/{db}/colls``) and,
    for some roles, reading a database's metadata are refused with 403 / 5300 in
    Azure (azure-sdk-for-python#40120). Everything else is forwarded unchanged.
    """

    daemon_threads = True

    def __init__(self, upstream: str, certfile: Path, keyfile: Path) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.upstream = httpx.Client(base_url=upstream, verify=False, timeout=30)
        self.refused: list[str] = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certfile, keyfile)
        self.socket = context.wrap_socket(self.socket, server_side=True)
        self.upstream_netloc = upstream.split("//", 1)[1].rstrip("/").encode()
        self.netloc = f"127.0.0.1:{self.server_address[1]}".encode()

    @staticmethod
    def forbidden(method: str, path: str) -> bool:
        parts = [p for p in path.split("?")[0].split("/") if p]
        creates = method == "POST" and parts in (["dbs"], [*parts[:2], "colls"])
        database_read = method == "GET" and len(parts) == 2 and parts[0] == "dbs"
        return creates or database_read


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # one reply, not two writes split by a delayed ACK
    server: _DataPlaneOnlyProxy

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.forbidden(self.command, self.path):
            self.server.refused.append(f"{self.command} {self.path}")
            self._answer(
                403,
                {"x-ms-substatus": "5300"},
                b'{"code":"Forbidden","message":"Request blocked by Auth"}',
            )
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() != "content-length"}
        reply = self.server.upstream.request(self.command, self.path, headers=headers, content=body)
        skip = {"content-length", "transfer-encoding", "connection", "content-encoding"}
        # The account document names the endpoint to use next: keep the SDK on the proxy.
        content = reply.content.replace(self.server.upstream_netloc, self.server.netloc)
        self._answer(
            reply.status_code,
            {k: v for k, v in reply.headers.items() if k.lower() not in skip},
            content,
        )

    def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", headers.get("content-type", "application/json"))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def data_plane_only(tmp_path: Path, cosmos_standin: CosmosInfo) -> Iterator[_DataPlaneOnlyProxy]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    proxy = _DataPlaneOnlyProxy(cosmos_standin.endpoint, cert, key)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    yield proxy
    proxy.shutdown()
    proxy.server_close()
    proxy.upstream.close()


def test_cosmos_store_works_when_the_identity_may_not_create_databases(
    data_plane_only: _DataPlaneOnlyProxy, cosmos_standin: CosmosInfo
) -> None:
    # The infrastructure created the database and the container beforehand.
    database, container = f"infra-{uuid.uuid4().hex[:8]}", "sessions"
    admin = CosmosClient(
        cosmos_standin.endpoint, credential=cosmos_standin.key, connection_verify=False
    )
    admin.create_database(database).create_container(container, PartitionKey(path="/chat_id"))
    proxy_url = f"https://127.0.0.1:{data_plane_only.server_address[1]}/"
    store = CosmosSessionStore(
        Settings(
            cosmos_endpoint=proxy_url,
            cosmos_key=cosmos_standin.key,
            cosmos_verify_tls=False,
            cosmos_database=database,
            cosmos_container=container,
        )
    )

    assert data_plane_only.refused  # the store did try to create, and was refused
    now = datetime.now(UTC)
    record = SessionRecord(
        id=uuid.uuid4().hex,
        chat_id="chat-infra",
        original_query="q",
        mode=Mode.deep_research,
        instance_id="i",
        created_at=now,
        updated_at=now,
    )
    store.create(record)
    store.update(record.id, lambda r: setattr(r, "status", SessionStatus.completed))
    store.ping()
    assert [(r.id, r.status) for r in store.list_by_chat("chat-infra")] == [
        (record.id, SessionStatus.completed)
    ]
