"""A follow-up research: a new deep research that builds on a finished one of the same person.

``options.follow_up_of`` names the parent. Before the new run starts, its memory
folder gets the parent's evidence as its starting memory:

- the pages the parent read and that are still fresh (fetched less than
  ``FOLLOW_UP_PAGE_MAX_AGE_HOURS`` ago) are copied into its page cache, so a
  researcher that meets the same URL reads the copy instead of fetching it again;
  a stale page (or one stored before fetch times were kept) is fetched anew;
- the parent's merged findings (``findings.json``) become ``parent_findings.json``,
  which compression adds to the new findings (after them, so the new research's
  own sources are numbered first);
- ``follow_up.json`` names the parent, and the report names and links it.

Following up someone else's session is the 404 of an unknown id (``session_for``),
and the parent must be a finished deep research with a report (409 otherwise).
The copies are idempotent (writes overwrite), so a retried start is harmless.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ValidationError

from shared.adapters.identity import Principal
from shared.core.errors import ConflictError, NotFoundError
from shared.core.report_models import FollowUpOf
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.core.source_models import Page
from shared.ports import Services
from shared.usecases.access import session_for
from shared.usecases.research.compress import COMPRESSED, PARENT_FINDINGS, Compressed
from shared.usecases.research.page_cache import PAGES

FOLLOW_UP = "follow_up.json"


class Seeded(BaseModel):
    """What the new session starts with (shown in the start's log and the tests)."""

    pages_reused: int
    pages_stale: int
    findings: int


def parent_of(svc: Services, principal: Principal, parent_id: str) -> SessionRecord:
    """The parent ``principal`` may build on; 404 as an unknown id for anyone else's."""
    parent = session_for(svc, principal, parent_id, "act")
    if parent.mode != Mode.deep_research or parent.status != SessionStatus.completed:
        raise ConflictError(
            f"session {parent_id} is a {parent.mode.value} that is {parent.status.value}; "
            "only a completed deep research can be followed up"
        )
    if not svc.memory.exists(parent.id, COMPRESSED):
        raise ConflictError(f"session {parent_id} has no findings to build on")
    return parent


def seed(svc: Services, parent: SessionRecord, session_id: str, now: datetime) -> Seeded:
    """Copy the parent's fresh pages and its findings into ``session_id``'s folder."""
    oldest = now - timedelta(hours=svc.settings.follow_up_page_max_age_hours)
    reused = stale = 0
    for name in svc.memory.list(parent.id):
        if not name.startswith(PAGES):
            continue
        data = svc.memory.read(parent.id, name)
        try:
            page = Page.model_validate_json(data)
        except ValidationError:
            continue
        if page.fetched_at is None or page.fetched_at < oldest:
            stale += 1
            continue
        svc.memory.write(session_id, name, data, "application/json")
        reused += 1
    compressed = svc.memory.read(parent.id, COMPRESSED)
    svc.memory.write(session_id, PARENT_FINDINGS, compressed, "application/json")
    link = FollowUpOf(session_id=parent.id, query=parent.original_query)
    svc.memory.write(session_id, FOLLOW_UP, link.model_dump_json(), "application/json")
    findings = len(Compressed.model_validate_json(compressed).findings)
    return Seeded(pages_reused=reused, pages_stale=stale, findings=findings)


def parent_link(svc: Services, session_id: str) -> FollowUpOf | None:
    try:
        return FollowUpOf.model_validate_json(svc.memory.read(session_id, FOLLOW_UP))
    except NotFoundError:
        return None
