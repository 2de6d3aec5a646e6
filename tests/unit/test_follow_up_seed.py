"""A follow-up's starting memory (``research/follow_up.seed``) on the real filesystem store:
fresh pages are copied, stale ones (and pages stored before fetch times were kept) are not,
and the parent's findings come along to be merged after the new research's own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.core.config import Settings
from shared.core.research_models import Finding, KeyFinding
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.core.source_models import Page, Source
from shared.usecases.research.compress import COMPRESSED, compress, parent_findings
from shared.usecases.research.follow_up import parent_link, seed
from shared.usecases.research.page_cache import cached_page, page_name

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def _finding(url: str) -> Finding:
    return Finding(
        agent_id=1,
        topic="Cancellation",
        topic_id=1,
        todo_id="todo-1",
        summary="Tasks are cancelled with cancel().",
        key_findings=[KeyFinding(text="Task.cancel() requests cancellation.", source_urls=[url])],
        sources=[Source(url=url, title="Tasks")],
    )


def test_seed_copies_fresh_pages_and_the_findings_and_leaves_stale_pages(tmp_path):
    memory = FilesystemMemoryStore(tmp_path / "memory")
    svc = SimpleNamespace(settings=Settings(follow_up_page_max_age_hours=24), memory=memory)
    pages = {
        "https://site.example/fresh": NOW - timedelta(hours=2),
        "https://site.example/stale": NOW - timedelta(hours=30),
        "https://site.example/undated": None,
    }
    for url, fetched_at in pages.items():
        page = Page(url=url, text="Some text.", fetched_at=fetched_at)
        memory.write("parent1", page_name(url), page.model_dump_json(), "application/json")
    parent_evidence = compress([_finding("https://site.example/fresh")])
    memory.write("parent1", COMPRESSED, parent_evidence.model_dump_json(), "application/json")
    parent = SessionRecord(
        id="parent1",
        chat_id="c",
        original_query="How are asyncio tasks cancelled?",
        mode=Mode.deep_research,
        status=SessionStatus.completed,
        instance_id="parent1",
        created_at=NOW,
        updated_at=NOW,
    )

    seeded = seed(svc, parent, "child1", NOW)
    again = seed(svc, parent, "child1", NOW)  # a retried start changes nothing

    assert seeded == again and (seeded.pages_reused, seeded.pages_stale) == (1, 2)
    assert cached_page(memory, "child1", "https://site.example/fresh") is not None
    assert cached_page(memory, "child1", "https://site.example/stale") is None
    assert cached_page(memory, "child1", "https://site.example/undated") is None
    link = parent_link(svc, "child1")
    assert link is not None and link.session_id == "parent1"
    assert link.query == "How are asyncio tasks cancelled?"

    own = _finding("https://site.example/new")
    merged = compress([own, *parent_findings(svc, "child1")])
    assert [s.url for s in merged.sources] == [
        "https://site.example/new",
        "https://site.example/fresh",
    ]
    assert merged.findings[-1].topic == "Earlier research: Cancellation"
    assert parent_findings(svc, "parent1") == []  # a research that follows up nothing
