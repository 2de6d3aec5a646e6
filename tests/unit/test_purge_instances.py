"""Deleting a session purges every instance named after it, past the first page of Durable's list.

Azure's Durable list API answers one page (100 instances); a session with many
redeliveries over its life has more. The Durable side here is a small
adapter of the purge's ``Instances`` port that answers a page of two, the
stores are the embedded ones.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from shared.bootstrap import AppServices
from shared.core import names
from shared.core.config import Settings
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.usecases.purge import purge_session

SID = "5e55107d0000400080000000000000aa"
OTHER = "0ther000000040008000000000000bbb"


class PagedInstances:
    """Durable instances whose listing answers at most ``page`` ids, as Azure's does 100."""

    def __init__(self, ids: list[str], page: int = 2) -> None:
        self.live = dict.fromkeys(ids, "Completed")
        self.page = page

    async def runtime_status(self, instance_id: str) -> str | None:
        return self.live.get(instance_id)

    async def terminate(self, instance_id: str, reason: str) -> None:
        self.live[instance_id] = "Terminated"

    async def purge(self, instance_id: str) -> int:
        return 1 if self.live.pop(instance_id, None) else 0

    async def ids_with_prefix(self, prefix: str) -> list[str]:
        return sorted(i for i in self.live if i.startswith(prefix))[: self.page]


def test_every_instance_named_after_the_session_is_purged_page_after_page(tmp_path: Path):
    svc = AppServices(Settings(data_dir=tmp_path))
    now = datetime.now(UTC)
    record = SessionRecord(
        id=SID,
        chat_id="chat",
        original_query="q",
        mode=Mode.deep_research,
        status=SessionStatus.completed,
        instance_id=SID,
        created_at=now,
        updated_at=now,
    )
    svc.sessions.create(record)
    roles = [names.DEEP_SEARCH_ROLE, names.NOTIFY_CANCELLED_ROLE]
    roles += [names.redelivery_role("completed", n) for n in range(1, 8)]
    mine = [SID, *(names.session_instance_id(SID, role) for role in roles)]
    durable = PagedInstances([*mine, OTHER, names.session_instance_id(OTHER, "deep-search")])

    purged = asyncio.run(purge_session(svc, durable, record, "deleted by its owner"))

    assert purged.instances == len(mine) == 10
    assert sorted(durable.live) == [OTHER, f"{OTHER}:deep-search"]
