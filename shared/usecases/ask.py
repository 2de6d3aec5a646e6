"""Asking a finished session: one question, answered from that session's evidence only.

The answer costs what the reasoner spends, and that is the session's money: it is
added to the session's usage (so the per-person daily spend counts it too), a
session whose budget (``max_tokens`` / ``max_cost_usd``) is spent takes no more
questions, and the day's spend quotas refuse a question as they refuse a start.
Each exchange is a file of its own (``asks/{id}.json``, ids sort by time) in the
session's memory folder: written once, never appended to, and purged with the session.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from pydantic import ValidationError

from shared.core.ask_models import AskExchange
from shared.core.errors import ConflictError, NotFoundError
from shared.core.session_models import SessionRecord, SessionStatus
from shared.ports import Services
from shared.tools.language import detect_language
from shared.tools.llm_endpoint.usage import metered
from shared.usecases import quotas
from shared.usecases.research import ask_evidence

ASKS = "asks/"
MAX_EXCHANGES = 50  # per session: a conversation about one report, not a new chat
MAX_PASSAGES = 80  # handed to the reasoner, best first (an LLM reads as many as fit)


def ask(svc: Services, record: SessionRecord, question: str) -> AskExchange:
    """Answer ``question`` from ``record``'s evidence, keep the exchange, charge its usage.

    ``ConflictError`` (409) while the session runs, when it has no report or sources, when
    its budget or the exchange limit is reached; ``QuotaExceeded`` (429) past a daily quota."""
    _require_finished(record)
    _require_budget(svc, record)
    if len(_names(svc, record.id)) >= MAX_EXCHANGES:
        raise ConflictError(
            f"session {record.id} has {MAX_EXCHANGES} questions already; start a follow-up "
            "research to go on"
        )
    try:
        sources, found = ask_evidence.passages(svc, record)
    except NotFoundError as exc:
        raise ConflictError(
            f"session {record.id} was {record.status.value} without a report to ask about"
        ) from exc
    if not sources:
        raise ConflictError(f"session {record.id} has no sources to answer from")
    language = detect_language(question, default=record.language)
    evidence = ask_evidence.ranked(question, found, MAX_PASSAGES)
    with metered() as meter:
        answer = svc.reasoner.answer_from(question, evidence, language)
    now = datetime.now(UTC)
    exchange = AskExchange(
        id=f"{now:%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:8]}",
        question=question,
        answer=answer.answer,
        answered=answer.answered,
        language=language,
        sources=[s for s in sources if s.n in set(answer.cited)],
        usage=meter.usage,
        asked_at=now,
    )
    name = f"{ASKS}{exchange.id}.json"
    svc.memory.write(record.id, name, exchange.model_dump_json(), "application/json")

    def charge(r: SessionRecord) -> None:
        r.usage = r.usage + meter.usage

    if meter.usage.llm_calls:
        svc.sessions.update(record.id, charge)
    return exchange


def exchanges(svc: Services, session_id: str) -> list[AskExchange]:
    """The session's exchanges, oldest first (one torn by a crash is left out)."""
    out = []
    for name in _names(svc, session_id):
        try:
            out.append(AskExchange.model_validate_json(svc.memory.read(session_id, name)))
        except (NotFoundError, ValidationError):
            continue
    return out


def _names(svc: Services, session_id: str) -> list[str]:
    return sorted(n for n in svc.memory.list(session_id) if n.startswith(ASKS))


def _require_finished(record: SessionRecord) -> None:
    if not record.status.is_terminal:
        raise ConflictError(
            f"session {record.id} is {record.status.value}; ask once its report is ready"
        )
    if record.status not in (SessionStatus.completed, SessionStatus.failed):
        raise ConflictError(f"session {record.id} was {record.status.value}; it has no report")


def _require_budget(svc: Services, record: SessionRecord) -> None:
    caps = svc.settings.caps_for()
    max_tokens = record.options.max_tokens or caps.max_tokens
    max_cost = record.options.max_cost_usd or caps.max_cost_usd
    used = record.usage
    if (max_tokens and used.total_tokens >= max_tokens) or (max_cost and used.cost >= max_cost):
        raise ConflictError(
            f"session {record.id} has spent its budget ({used.total_tokens} tokens, "
            f"${used.cost:g}); start a follow-up research with a budget of its own"
        )
    quotas.admit(svc, record.owner, caps, datetime.now(UTC))
