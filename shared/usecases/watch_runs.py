"""One run of a watch: start its session (the watch activities), then compare it with the last.

``start_run`` decides what the watch orchestration does now: stop (the watch is
gone), skip (paused: the run number is kept for the next one) or run a session.
A run's session id is ``{watch_id}-r{n}`` and its run file is written before the
session starts, so a retried activity or a replayed orchestration finds and reuses
them instead of starting a second session. Each run is a new session of the watch's
owner, admitted by the per-person quotas like any start (a refused run is recorded
as ``refused``, with the quota's message, and the schedule goes on); it asks no
clarifying question and waits for no plan approval: nobody is there to answer.

``compare`` reads the run's report (the sources and the sentences that cite them)
and the last completed run's, records what changed, and, only when something did and
the watch has a ``callback_url``, sends one ``research.watch_update`` webhook with a
short "what changed" summary. Its id is ``{watch_id}:run-{n}``, the same on a retry,
so a receiver drops a repeat.
"""

from __future__ import annotations

from datetime import UTC, datetime

from shared.adapters.report.citations import CITATION_RE, cited_numbers, sentence_key
from shared.adapters.search.pipeline import normalize_url
from shared.adapters.webhooks import WebhookEvent
from shared.core import names
from shared.core.config import ResearchOptions
from shared.core.errors import ConflictError, NotFoundError, QuotaExceeded
from shared.core.session_models import SessionRecord, SessionStatus, StartInput
from shared.core.watch_models import WatchChanges, WatchRun, WatchRunRef, WatchStep, WatchTick
from shared.ports import Services
from shared.tools import sentence_split
from shared.tools.language import detect_language
from shared.usecases import quotas, watches
from shared.usecases.access import chat_key, public_chat_id, write_owner_file
from shared.usecases.research import ask_evidence

RUN_OPTIONS = ResearchOptions(enable_clarifying_questions=False, require_plan_approval=False)
MAX_LISTED = 10  # sources or claims named per kind in a webhook's summary


def session_id_of(watch_id: str, n: int) -> str:
    return f"{watch_id}-r{n}"


def start_run(svc: Services, tick: WatchTick) -> WatchStep:
    record = watches.read(svc, tick.watch_id)
    if record is None or record.status == "deleted":
        return WatchStep(action="stop")
    now = datetime.now(UTC)
    next_due = watches.next_time(record.every, max(now, tick.due or now))
    watches.save_schedule(svc, record.id, next_due)
    if record.status == "paused":
        return WatchStep(action="skip", next_due=next_due, next_run=tick.run)
    name = watches.run_name(tick.run)
    session_id = session_id_of(record.id, tick.run)
    session = SessionRecord(
        id=session_id,
        chat_id=chat_key(record.owner, record.id),
        owner=record.owner,
        original_query=record.question,
        mode=record.mode,
        instance_id=session_id,
        language=detect_language(record.question),
        options=RUN_OPTIONS,
        created_at=now,
        updated_at=now,
    )
    caps = svc.settings.caps_for(RUN_OPTIONS)
    try:
        admission = quotas.admit(svc, record.owner, caps, now)
        svc.sessions.create(session, admission.quota)
        caps = admission.caps
    except QuotaExceeded as exc:
        refused = WatchRun(n=tick.run, status="refused", started_at=now, reason=str(exc)[:300])
        svc.memory.write(record.id, name, refused.model_dump_json(), "application/json")
        return WatchStep(action="skip", next_due=next_due, next_run=tick.run + 1)
    except ConflictError:
        session = svc.sessions.get(session_id)  # a retried start: the session exists
    write_owner_file(svc.memory, session)
    if not svc.memory.exists(record.id, name):
        run = WatchRun(n=tick.run, session_id=session_id, started_at=now)
        svc.memory.write(record.id, name, run.model_dump_json(), "application/json")
    start = StartInput(
        session_id=session_id,
        chat_id=session.chat_id,
        query=record.question,
        mode=record.mode,
        language=session.language,
        caps=caps,
    )
    return WatchStep(
        action="run",
        next_due=next_due,
        next_run=tick.run + 1,
        orchestrator=names.ORCHESTRATOR_BY_MODE[record.mode.value],
        start_input=start.model_dump(mode="json"),
    )


def compare(svc: Services, ref: WatchRunRef) -> dict:
    record = watches.read(svc, ref.watch_id)
    if record is None:
        return {"changed": False}
    name = watches.run_name(ref.run)
    run = WatchRun.model_validate_json(svc.memory.read(record.id, name))
    session = svc.sessions.get(run.session_id)
    now = datetime.now(UTC)
    run.finished_at = run.finished_at or now
    run.status = "completed" if session.status == SessionStatus.completed else "failed"
    if run.status == "completed":
        previous = _last_completed(svc, record.id, before=ref.run)
        if previous is not None:
            run.compared_with = previous.n
            run.changes = changes_between(
                _evidence(svc, svc.sessions.get(previous.session_id)), _evidence(svc, session)
            )
    if run.changes and run.changes.any and record.callback_url and not run.notified:
        event = WebhookEvent(
            id=f"{record.id}:run-{ref.run}",
            event="watch_update",
            session_id=session.id,
            chat_id=public_chat_id(session.chat_id),
            status=session.status.value,
            links={
                "watch": f"/api/watches/{record.id}",
                "report": f"/api/research/{session.id}/report",
            },
            occurred_at=now.isoformat(),
            watch_id=record.id,
            changes=run.changes.model_dump(),
            summary=summary(run.changes),
        )
        run.delivery = svc.webhooks.deliver(record.callback_url, event)
        run.notified = True
    svc.memory.write(record.id, name, run.model_dump_json(), "application/json")
    return {"changed": bool(run.changes and run.changes.any), "notified": run.notified}


Evidence = tuple[set[str], dict[str, str]]  # source URLs; claims by sentence key


def _evidence(svc: Services, session: SessionRecord) -> Evidence:
    """A finished run's source URLs and the sentences of its report that cite them."""
    try:
        sources, texts = ask_evidence.sources_and_texts(svc, session)
    except NotFoundError:
        return set(), {}
    claims = {}
    for text in texts:
        for sentence in sentence_split.segment(text):
            if cited_numbers(sentence):
                plain = " ".join(CITATION_RE.sub("", sentence).split())
                claims.setdefault(sentence_key(plain), plain)
    return {normalize_url(s.url) for s in sources}, claims


def changes_between(before: Evidence, after: Evidence) -> WatchChanges:
    (old_sources, old_claims), (new_sources, new_claims) = before, after
    return WatchChanges(
        new_sources=sorted(new_sources - old_sources),
        gone_sources=sorted(old_sources - new_sources),
        new_claims=[t for k, t in new_claims.items() if k and k not in old_claims],
        gone_claims=[t for k, t in old_claims.items() if k and k not in new_claims],
    )


def summary(changes: WatchChanges) -> str:
    """The webhook's short "what changed" section, in Markdown."""
    lines = ["## What changed", ""]
    for label, items in (
        ("New sources", changes.new_sources),
        ("Sources no longer found", changes.gone_sources),
        ("New or changed claims", changes.new_claims),
        ("Claims no longer made", changes.gone_claims),
    ):
        if items:
            lines.append(f"**{label}** ({len(items)}):")
            lines += [f"- {item}" for item in items[:MAX_LISTED]]
            lines.append("")
    return "\n".join(lines).strip() + "\n"


def _last_completed(svc: Services, watch_id: str, before: int) -> WatchRun | None:
    done = [r for r in watches.runs(svc, watch_id) if r.n < before and r.status == "completed"]
    return done[-1] if done else None
