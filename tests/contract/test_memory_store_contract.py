"""The MemoryStore contract, run against a local folder and Azurite (Blob storage).

Memory files carry every draft, finding and report of a session, so the
promises are: what was written reads back byte for byte (big and non-ASCII
too), repeating a write or an append (an activity retried) changes nothing,
concurrent appenders lose nothing, no name can reach outside its session, and
no file grows past the size cap (a named error, the old content kept).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from azure.storage.blob import BlobServiceClient

from shared.adapters.stores.base import MemoryStore, entry_marker
from shared.adapters.stores.blob import BlobMemoryStore
from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.core.config import Settings
from shared.core.errors import InvalidInputError, MemoryFileTooLarge, NotFoundError
from tests.emulators.fixtures import AzuriteInfo, azurite  # noqa: F401

SESSION = "sess-1"
TRAVERSALS = [
    "../x",
    "/etc/passwd",
    "a/../../b",
    "a\\b",
    "..\\..\\x",
    "a\x00b",
    "",
    ".",
    "a//b",
    "dir/",
]
CAP = 1024
BAD_SESSION_IDS = ["../x", "", "a/b", ".hidden", "a b", "x\x00", "..", "a\\b"]


def blob_settings(info: AzuriteInfo, container: str | None = None) -> Settings:
    return Settings(
        azure_storage_connection_string=info.connection_string,
        memory_container=container or f"memory-{uuid.uuid4().hex[:12]}",
    )


@pytest.fixture(params=["filesystem", pytest.param("blob", marks=pytest.mark.emulators)])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    if request.param == "filesystem":
        yield FilesystemMemoryStore(tmp_path / "memory")
        return
    info: AzuriteInfo = request.getfixturevalue("azurite")
    blob = BlobMemoryStore(blob_settings(info))
    yield blob
    blob.close()


@pytest.fixture(params=["filesystem", pytest.param("blob", marks=pytest.mark.emulators)])
def capped(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    """The same adapters with a ``CAP``-byte size cap."""
    if request.param == "filesystem":
        yield FilesystemMemoryStore(tmp_path / "memory", max_file_bytes=CAP)
        return
    info: AzuriteInfo = request.getfixturevalue("azurite")
    blob = BlobMemoryStore(blob_settings(info), max_file_bytes=CAP)
    yield blob
    blob.close()


def test_written_files_read_back_and_exist(memory: MemoryStore) -> None:
    ref = memory.write(SESSION, "main.md", "# Plan\n\n- one\n", "text/markdown")
    memory.write(SESSION, "report.pdf", b"%PDF-1.4\x00\xff binary", "application/pdf")

    assert ref == f"{SESSION}/main.md"
    assert memory.read_text(SESSION, "main.md") == "# Plan\n\n- one\n"
    assert memory.read(SESSION, "report.pdf") == b"%PDF-1.4\x00\xff binary"
    assert memory.exists(SESSION, "main.md")
    assert not memory.exists(SESSION, "draft_report.md")
    assert not memory.exists("other-session", "main.md")


def test_missing_file_is_not_found(memory: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        memory.read(SESSION, "nothing.md")
    with pytest.raises(NotFoundError):
        memory.read_text("never-written", "report.md")


def test_a_repeated_write_overwrites(memory: MemoryStore) -> None:
    memory.write(SESSION, "report.json", '{"v": 1}', "application/json")
    memory.write(SESSION, "report.json", '{"v": 1}', "application/json")
    assert memory.read_text(SESSION, "report.json") == '{"v": 1}'
    assert memory.list(SESSION) == ["report.json"]

    memory.write(SESSION, "report.json", '{"v": 2}', "application/json")
    assert memory.read_text(SESSION, "report.json") == '{"v": 2}'


def test_a_five_megabyte_report_round_trips(memory: MemoryStore) -> None:
    paragraph = "Фотосинтез превращает свет в химическую энергию. 光合作用把光能转化为化学能。\n"
    report = (paragraph * (5 * 1024 * 1024 // len(paragraph.encode()) + 1)).encode()
    blob = os.urandom(1024 * 1024)

    memory.write(SESSION, "report.md", report, "text/markdown")
    memory.write(SESSION, "report.pdf", blob, "application/pdf")

    assert len(report) >= 5 * 1024 * 1024
    assert memory.read(SESSION, "report.md") == report
    assert memory.read(SESSION, "report.pdf") == blob


def test_non_ascii_names_and_content_round_trip(memory: MemoryStore) -> None:
    memory.write(SESSION, "отчёт.md", "Итоговый отчёт: всё хорошо.", "text/markdown")
    memory.write(SESSION, "报告/第一章.md", "量子计算的现状与展望。", "text/markdown")

    assert memory.read_text(SESSION, "отчёт.md") == "Итоговый отчёт: всё хорошо."
    assert memory.read_text(SESSION, "报告/第一章.md") == "量子计算的现状与展望。"
    assert memory.list(SESSION) == sorted(["отчёт.md", "报告/第一章.md"])


def test_list_gives_sorted_relative_names_of_one_session(memory: MemoryStore) -> None:
    for name in ["main.md", "agents/agent_2.md", "items/item_1.md", "agents/agent_1.md"]:
        memory.write(SESSION, name, name, "text/markdown")
    memory.write("sess-2", "main.md", "other", "text/markdown")
    memory.write("sess-10", "main.md", "prefix sibling", "text/markdown")

    assert memory.list(SESSION) == [
        "agents/agent_1.md",
        "agents/agent_2.md",
        "items/item_1.md",
        "main.md",
    ]
    assert memory.list("sess-2") == ["main.md"]
    assert memory.list("no-such-session") == []


def test_append_stores_each_entry_once_in_order(memory: MemoryStore) -> None:
    memory.append(SESSION, "supervisor.md", "review-1", "## Review 1\nGood start.")
    memory.append(SESSION, "supervisor.md", "review-1", "## Review 1\nGood start.")
    memory.append(SESSION, "supervisor.md", "review-2", "## Review 2\nДостаточно.\n")
    memory.append(SESSION, "supervisor.md", "review-1", "## Review 1\nGood start.")

    text = memory.read_text(SESSION, "supervisor.md")
    assert text.count(entry_marker("review-1")) == 1
    assert text.count("Good start.") == 1
    assert text.count(entry_marker("review-2")) == 1
    assert text.index("Good start.") < text.index("Достаточно.")


def test_append_after_a_write_keeps_what_was_written(memory: MemoryStore) -> None:
    memory.write(SESSION, "agents/agent_1.md", "# Agent 1\n\n## Todos\n", "text/markdown")
    memory.append(SESSION, "agents/agent_1.md", "step-1", "- searched X")

    text = memory.read_text(SESSION, "agents/agent_1.md")
    assert text.startswith("# Agent 1\n\n## Todos\n")
    assert text.endswith("- searched X\n")


def test_eight_threads_appending_to_one_file_lose_nothing(memory: MemoryStore) -> None:
    workers, per_worker = 8, 3
    barrier = threading.Barrier(workers)

    def appender(worker: int) -> None:
        barrier.wait()
        for n in range(per_worker):
            memory.append(SESSION, "draft_report.md", f"w{worker}-{n}", f"finding {worker}.{n}")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(appender, range(workers)))

    text = memory.read_text(SESSION, "draft_report.md")
    for worker in range(workers):
        for n in range(per_worker):
            assert text.count(entry_marker(f"w{worker}-{n}")) == 1
            assert text.count(f"finding {worker}.{n}\n") == 1


def test_a_write_over_the_cap_is_refused_by_name_and_keeps_the_old_file(
    capped: MemoryStore,
) -> None:
    capped.write(SESSION, "report.md", "a" * CAP, "text/markdown")

    with pytest.raises(MemoryFileTooLarge) as caught:
        capped.write(SESSION, "report.md", "b" * (CAP + 1), "text/markdown")

    assert (caught.value.size, caught.value.limit) == (CAP + 1, CAP)
    assert f"{SESSION}/report.md" in str(caught.value)
    assert capped.read_text(SESSION, "report.md") == "a" * CAP


def test_an_append_over_the_cap_is_refused_and_smaller_ones_still_fit(
    capped: MemoryStore,
) -> None:
    capped.append(SESSION, "supervisor.md", "r1", "x" * 400)

    with pytest.raises(MemoryFileTooLarge):
        capped.append(SESSION, "supervisor.md", "r2", "q" * 700)
    capped.append(SESSION, "supervisor.md", "r3", "z" * 100)

    text = capped.read_text(SESSION, "supervisor.md")
    assert entry_marker("r2") not in text and "q" not in text
    assert text.count(entry_marker("r1")) == 1 and text.count(entry_marker("r3")) == 1
    assert len(text.encode()) <= CAP


@pytest.mark.parametrize("name", TRAVERSALS)
def test_names_that_leave_the_session_folder_are_refused(memory: MemoryStore, name: str) -> None:
    with pytest.raises(InvalidInputError):
        memory.write(SESSION, name, "x", "text/plain")
    with pytest.raises(InvalidInputError):
        memory.read(SESSION, name)
    with pytest.raises(InvalidInputError):
        memory.exists(SESSION, name)
    with pytest.raises(InvalidInputError):
        memory.append(SESSION, name, "e", "x")


@pytest.mark.parametrize("session_id", BAD_SESSION_IDS)
def test_invalid_session_ids_are_refused(memory: MemoryStore, session_id: str) -> None:
    with pytest.raises(InvalidInputError):
        memory.write(session_id, "main.md", "x", "text/markdown")
    with pytest.raises(InvalidInputError):
        memory.read(session_id, "main.md")
    with pytest.raises(InvalidInputError):
        memory.list(session_id)


def test_ping_answers(memory: MemoryStore) -> None:
    memory.ping()
    assert memory.kind in {"filesystem", "blob"}


# -- adapter-specific promises ------------------------------------------------------------


def test_filesystem_refuses_a_symlink_that_leads_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    store = FilesystemMemoryStore(tmp_path / "memory")
    store.write(SESSION, "main.md", "x", "text/markdown")
    (tmp_path / "memory" / SESSION / "link").symlink_to(outside, target_is_directory=True)
    (tmp_path / "memory" / "linked-session").symlink_to(outside, target_is_directory=True)

    with pytest.raises(InvalidInputError):
        store.read(SESSION, "link/secret.txt")
    with pytest.raises(InvalidInputError):
        store.write(SESSION, "link/new.txt", "x", "text/plain")
    with pytest.raises(InvalidInputError):
        store.read("linked-session", "secret.txt")
    assert not (outside / "new.txt").exists()


@pytest.mark.emulators
def test_blob_content_types_follow_the_extension_unless_given(azurite: AzuriteInfo) -> None:  # noqa: F811
    container = f"types-{uuid.uuid4().hex[:12]}"
    store = BlobMemoryStore(blob_settings(azurite, container))
    store.write(SESSION, "report.md", "# r", "")
    store.write(SESSION, "report.json", "{}", "")
    store.write(SESSION, "report.pdf", b"%PDF", "")
    store.write(SESSION, "data.bin", b"\x00", "")
    store.write(SESSION, "notes.txt", "n", "text/plain; charset=utf-8")
    store.append(SESSION, "supervisor.md", "e1", "entry")

    client = BlobServiceClient.from_connection_string(azurite.connection_string)
    blobs = client.get_container_client(container)

    def content_type(name: str) -> str:
        return (
            blobs.get_blob_client(f"{SESSION}/{name}")
            .get_blob_properties()
            .content_settings["content_type"]
        )

    assert content_type("report.md") == "text/markdown; charset=utf-8"
    assert content_type("report.json") == "application/json"
    assert content_type("report.pdf") == "application/pdf"
    assert content_type("data.bin") == "application/octet-stream"
    assert content_type("notes.txt") == "text/plain; charset=utf-8"
    assert content_type("supervisor.md") == "text/markdown; charset=utf-8"


def test_delete_session_removes_every_file_of_that_session_only(memory: MemoryStore) -> None:
    memory.write(SESSION, "report.pdf", b"%PDF", "application/pdf")
    memory.write(SESSION, "agents/agent_1.md", "# Agent", "text/markdown")
    memory.append(SESSION, "supervisor.md", "e1", "review")
    memory.write("sess-2", "main.md", "kept", "text/markdown")

    assert memory.delete_session(SESSION) == 3
    assert memory.delete_session(SESSION) == 0  # nothing left: not an error

    assert memory.list(SESSION) == []
    assert not memory.exists(SESSION, "report.pdf")
    assert memory.read_text("sess-2", "main.md") == "kept"
    assert memory.delete_session("never-written") == 0


def test_folders_are_those_with_files_and_a_prefix_lists_only_its_own(
    memory: MemoryStore,
) -> None:
    assert memory.folders() == []
    memory.write("sess-b", "agents/agent_1.md", "# Agent", "text/markdown")
    memory.write("sess-a", "main.md", "plan", "text/markdown")
    memory.append("sess-a", "supervisor.md", "e1", "review")
    memory.write("watch-1", "watch.json", "{}", "application/json")
    memory.write("watchful", "main.md", "a session named so", "text/markdown")

    assert memory.folders() == ["sess-a", "sess-b", "watch-1", "watchful"]
    assert memory.folders("watch-") == ["watch-1"]
    assert memory.folders("sess-") == ["sess-a", "sess-b"]
    assert memory.folders("nothing-") == []
    memory.delete_session("sess-a")
    assert memory.folders() == ["sess-b", "watch-1", "watchful"]


def test_delete_file_removes_that_file_only_and_a_repeat_is_a_no_op(memory: MemoryStore) -> None:
    memory.write("s1", "originals/a", b"%PDF-1.7 original", "application/pdf")
    memory.write("s1", "originals/b", b"kept", "")
    assert memory.delete_file("s1", "originals/a") is True
    assert memory.delete_file("s1", "originals/a") is False
    assert memory.list("s1") == ["originals/b"]
    assert memory.read("s1", "originals/b") == b"kept"
