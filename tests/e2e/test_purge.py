"""Deleting a session purges everything it left, on the embedded and the Azure stores (issue 20).

``DELETE /api/research/{id}`` by its owner, and the retention timer at devhost
start-up, must leave nothing of the session: no session document, no chat
message, no memory file, no Durable history (the run, its deep search). What
is left is read straight from where it lives (SQLite and the memory folder,
or the Cosmos DB stand-in and Azurite with their own SDKs, and devhost's
history file), not through our stores; another person's session next to it
must be untouched. Before deleting, the same places show whose session it
is: ``owner`` in the document and ``owner.json`` beside the memory files.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from azure.cosmos import CosmosClient
from azure.storage.blob import BlobServiceClient

from devhost.host import DevHost
from shared.adapters.stores.cosmos import CosmosSessionStore
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.session_models import SessionRecord
from shared.core.stream_models import AnswerChunk
from tests.e2e.polling import TERMINAL, wait_for
from tests.fakes.entra import TENANT, easy_auth_headers

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning"),
]

ALICE = easy_auth_headers("a11ce000-0000-4000-8000-000000000001")
BOB = easy_auth_headers("b0b00000-0000-4000-8000-000000000002")
RESEARCH = {"num_agents": 2, "enable_clarifying_questions": False, "search_iterations": 1}


@pytest.fixture(params=["embedded", pytest.param("azure", marks=pytest.mark.emulators)])
def settings(request: pytest.FixtureRequest, data_dir: Path) -> Settings:
    base = {
        "data_dir": data_dir,
        "reasoner": "offline",
        "search_provider": "local",
        "auth_mode": "easyauth",
        "website_auth_enabled": True,  # as App Service sets it with Easy Auth on
    }
    if request.param == "embedded":
        return Settings(**base)
    azurite = request.getfixturevalue("azurite")
    cosmos = request.getfixturevalue("cosmos_standin")
    run = uuid.uuid4().hex[:8]
    return Settings(
        **base,
        cosmos_endpoint=cosmos.endpoint,
        cosmos_key=cosmos.key,
        cosmos_verify_tls=False,
        cosmos_database=f"purge-{run}",
        azure_storage_connection_string=azurite.connection_string,
        memory_container=f"purge-{run}",
    )


class Leftovers:
    """What is left of a session where the data lives, read without our stores."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def of(self, session_id: str) -> dict[str, int]:
        documents, messages, chunks = (
            self._cosmos(session_id) if self.settings.use_cosmos else self._sqlite(session_id)
        )
        return {
            "session documents": documents,
            "chat messages": messages,
            "answer chunks": chunks,
            "memory files": self._files(session_id),
            "durable instances": self._instances(session_id),
        }

    def owner(self, session_id: str) -> tuple[dict, dict]:
        """The owner as the session document holds it, and as ``owner.json`` beside the files."""
        if self.settings.use_cosmos:
            doc = next(
                iter(
                    self._container().query_items(
                        "SELECT * FROM c WHERE c.id = @id AND c.type = 'session'",
                        parameters=[{"name": "@id", "value": session_id}],
                        enable_cross_partition_query=True,
                    )
                )
            )
        else:
            with sqlite3.connect(self.settings.data_dir / "sessions.sqlite3") as db:
                row = db.execute("SELECT doc FROM sessions WHERE id=?", (session_id,)).fetchone()
            doc = json.loads(row[0])
        if self.settings.use_blob:
            service = BlobServiceClient.from_connection_string(
                self.settings.azure_storage_connection_string.get_secret_value()
            )
            with service.get_container_client(self.settings.memory_container) as container:
                file = container.download_blob(f"{session_id}/owner.json").readall()
        else:
            file = (self.settings.data_dir / "memory" / session_id / "owner.json").read_bytes()
        return doc["owner"], json.loads(file)

    def _container(self):
        client = CosmosClient(
            self.settings.cosmos_endpoint,
            credential=self.settings.cosmos_key.get_secret_value(),
            connection_verify=False,
        )
        database = client.get_database_client(self.settings.cosmos_database)
        return database.get_container_client(self.settings.cosmos_container)

    def _sqlite(self, session_id: str) -> tuple[int, int, int]:
        with sqlite3.connect(self.settings.data_dir / "sessions.sqlite3") as db:
            sessions = db.execute("SELECT count(*) FROM sessions WHERE id=?", (session_id,))
            documents = sessions.fetchone()[0]
            messages = db.execute(
                "SELECT count(*) FROM chat_messages WHERE session_id=?", (session_id,)
            ).fetchone()[0]
            chunks = db.execute(
                "SELECT count(*) FROM answer_chunks WHERE session_id=?", (session_id,)
            ).fetchone()[0]
        return documents, messages, chunks

    def _cosmos(self, session_id: str) -> tuple[int, int, int]:
        docs = list(
            self._container().query_items(
                "SELECT c.type FROM c WHERE c.id = @id OR c.session_id = @id",
                parameters=[{"name": "@id", "value": session_id}],
                enable_cross_partition_query=True,
            )
        )
        messages = sum(1 for d in docs if d["type"] == "message")
        chunks = sum(1 for d in docs if d["type"] == "chunk")
        return sum(1 for d in docs if d["type"] == "session"), messages, chunks

    def _files(self, session_id: str) -> int:
        if not self.settings.use_blob:
            folder = self.settings.data_dir / "memory" / session_id
            return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0
        service = BlobServiceClient.from_connection_string(
            self.settings.azure_storage_connection_string.get_secret_value()
        )
        with service.get_container_client(self.settings.memory_container) as container:
            return sum(1 for _ in container.list_blobs(name_starts_with=f"{session_id}/"))

    def _instances(self, session_id: str) -> int:
        with sqlite3.connect(self.settings.data_dir / "devhost.sqlite3") as db:
            rows = db.execute(
                "SELECT count(*) FROM instances WHERE id = ? OR id LIKE ?",
                (session_id, f"{session_id}:%"),
            )
            return rows.fetchone()[0]


@pytest.fixture
def people(start_devhost, settings: Settings) -> Iterator[Callable[[dict], httpx.Client]]:
    host = start_devhost(settings)
    clients: list[httpx.Client] = []

    def client(headers: dict) -> httpx.Client:
        clients.append(httpx.Client(base_url=host.url, headers=headers, timeout=60))
        return clients[-1]

    yield client
    for c in clients:
        c.close()


def run(client: httpx.Client, query: str, mode: str, chat_id: str, **options) -> str:
    body = {"query": query, "mode": mode, "chat_id": chat_id, "options": options}
    response = client.post("/api/research", json=body)
    assert response.status_code in (200, 202), response.text
    session_id = response.json()["session_id"]
    assert wait_for(client, session_id, TERMINAL)["status"] == "completed"
    return session_id


def test_delete_purges_everything_of_the_session_and_nothing_of_others(
    people, settings: Settings
) -> None:
    alice, bob = people(ALICE), people(BOB)
    research = run(alice, "How do Python decorators wrap functions?", "deep_research", "c1")
    chat = run(alice, "What is a Python tuple?", "chat", "c1")
    bobs = run(bob, "What is a Python set?", "chat", "c1")
    left = Leftovers(settings)
    before = left.of(research)
    assert before["session documents"] == 1 and before["memory files"] > 5
    assert before["durable instances"] == 2, "the run and its deep search"
    assert before["answer chunks"] > 0, "the deep search answer and the report streamed"
    assert left.of(chat)["chat messages"] == 2
    alice_owner = {"id": "a11ce000-0000-4000-8000-000000000001", "tenant": TENANT}
    assert left.owner(research) == (alice_owner, alice_owner)
    assert left.owner(bobs)[0]["id"] == "b0b00000-0000-4000-8000-000000000002"

    for session_id in (research, chat):
        assert alice.delete(f"/api/research/{session_id}").status_code == 204

    for session_id in (research, chat):
        assert left.of(session_id) == dict.fromkeys(before, 0), session_id
        assert alice.get(f"/api/research/{session_id}").status_code == 404
        assert alice.delete(f"/api/research/{session_id}").status_code == 404
    assert alice.get("/api/chats/c1/sessions").json()["sessions"] == []
    kept = left.of(bobs)
    assert kept["session documents"] == 1 and kept["chat messages"] == 2
    assert kept["answer chunks"] > 0
    assert kept["memory files"] > 0 and kept["durable instances"] == 1
    assert bob.get(f"/api/research/{bobs}/report").status_code == 200


def test_deleting_a_waiting_session_stops_its_run_and_frees_the_chat(
    people, settings: Settings
) -> None:
    alice = people(ALICE)
    body = {"query": "python", "chat_id": "c2", "options": {"num_agents": 2}}
    session_id = alice.post("/api/research", json=body).json()["session_id"]
    assert wait_for(alice, session_id, {"waiting_clarification"} | TERMINAL)["status"] == (
        "waiting_clarification"
    )

    assert alice.delete(f"/api/research/{session_id}").status_code == 204

    assert Leftovers(settings).of(session_id) == {
        "session documents": 0,
        "chat messages": 0,
        "answer chunks": 0,
        "memory files": 0,
        "durable instances": 0,
    }
    again = alice.post("/api/research", json=body)  # the chat's deep research slot is free
    assert again.status_code == 202, again.text


def age(settings: Settings, session_id: str, days: int, idle_days: int | None = None) -> None:
    """Arrange: make a stored session look ``days`` old and last touched ``idle_days`` ago
    (``days`` unless given): what waiting that long would do."""
    store = (
        CosmosSessionStore(settings)
        if settings.use_cosmos
        else SqliteSessionStore(settings.data_dir / "sessions.sqlite3")
    )
    now = datetime.now(UTC)

    def backdate(record: SessionRecord) -> None:
        record.created_at = now - timedelta(days=days)
        record.updated_at = now - timedelta(days=days if idle_days is None else idle_days)

    store.update(session_id, backdate)


def test_retention_at_start_up_purges_sessions_older_than_the_setting(
    start_devhost, settings: Settings
) -> None:
    first: DevHost = start_devhost(settings)
    with httpx.Client(base_url=first.url, headers=ALICE, timeout=60) as alice:
        old = run(alice, "How do Python decorators wrap functions?", "deep_research", "c3")
        old_chat = run(alice, "What is a Python tuple?", "chat", "c3")
        recent = run(alice, "What is a Python set?", "chat", "c3")
    first.stop()
    for session_id in (old, old_chat):
        age(settings, session_id, days=31)
    age(settings, recent, days=29)

    second = start_devhost(settings.model_copy(update={"session_retention_days": 30}))
    assert second.startup_done.wait(120), "the start-up timers did not finish"

    left = Leftovers(settings)
    for session_id in (old, old_chat):
        assert set(left.of(session_id).values()) == {0}, (session_id, left.of(session_id))
    kept = left.of(recent)
    assert kept["session documents"] == 1 and kept["chat messages"] == 2
    assert kept["answer chunks"] > 0
    with httpx.Client(base_url=second.url, headers=ALICE, timeout=60) as alice:
        listed = alice.get("/api/chats/c3/sessions").json()["sessions"]
        assert [s["session_id"] for s in listed] == [recent]


def test_retention_goes_by_last_activity_spares_waiting_sessions_and_sweeps_late_files(
    start_devhost, settings: Settings
) -> None:
    first: DevHost = start_devhost(settings)
    with httpx.Client(base_url=first.url, headers=ALICE, timeout=60) as alice:
        body = {"query": "python", "chat_id": "c4", "options": {"num_agents": 2}}
        waiting = alice.post("/api/research", json=body).json()["session_id"]
        assert wait_for(alice, waiting, {"waiting_clarification"} | TERMINAL)["status"] == (
            "waiting_clarification"
        )
        touched = run(alice, "What is a Python tuple?", "chat", "c5")
        deleted = run(alice, "What is a Python set?", "chat", "c6")
        assert alice.delete(f"/api/research/{deleted}").status_code == 204
    first.stop()
    age(settings, waiting, days=31)  # asked its question 31 days ago, still unanswered
    age(settings, touched, days=40, idle_days=10)  # old, but used 10 days ago
    # A step that was still running when its session was deleted writes its file after,
    # and the answer it streamed before that.
    late = AppServices(settings)
    late.sessions.append_chunks(deleted, [AnswerChunk(seq=1, part="answer", text="late")])
    late.memory.write(deleted, "items/item_9.md", "late", "text/markdown")
    left = Leftovers(settings)
    assert left.of(deleted)["memory files"] == 1 and left.of(deleted)["answer chunks"] == 1

    second = start_devhost(settings.model_copy(update={"session_retention_days": 30}))
    assert second.startup_done.wait(120), "the start-up timers did not finish"

    assert left.of(deleted)["memory files"] == 0 and left.of(deleted)["answer chunks"] == 0
    assert left.of(touched)["session documents"] == 1
    spared = left.of(waiting)
    assert spared["session documents"] == 1 and spared["durable instances"] >= 1
    assert spared["memory files"] > 0
    with httpx.Client(base_url=second.url, headers=ALICE, timeout=60) as alice:
        assert alice.get(f"/api/research/{waiting}").json()["status"] == "waiting_clarification"
        assert alice.get(f"/api/research/{touched}").status_code == 200
