"""Durable function names: one place, used by orchestrators, activities and tests.

The Python function names in ``activities/`` and ``orchestrators/`` are these
strings (the v2 programming model registers a function under its own name);
``tests/unit/test_registration.py`` checks every constant is registered.
"""

from __future__ import annotations

# orchestrators, one per mode
CHAT = "chat_orchestrator"
SEARCH = "search_orchestrator"
DEEP_SEARCH = "deep_search_orchestrator"
DEEP_RESEARCH = "deep_research_orchestrator"
NOTIFY_ORCHESTRATOR = "notify_orchestrator"  # delivers a webhook for a terminated run
WATCH_ORCHESTRATOR = "watch_orchestrator"  # a watched question, eternal (continue_as_new)
INGEST_ORCHESTRATOR = "ingest_orchestrator"  # one upload into a collection: a document each
ORCHESTRATOR_BY_MODE = {
    "chat": CHAT,
    "search": SEARCH,
    "deep_search": DEEP_SEARCH,
    "deep_research": DEEP_RESEARCH,
}

# activities
CHAT_ANSWER = "chat_answer"
PLAN_QUERIES = "plan_queries"
WEB_SEARCH = "web_search"
SELECT_SOURCES = "select_sources"
SCRAPE_PAGE = "scrape_page"
FOLLOW_UP_QUERIES = "follow_up_queries"
EVALUATE_COMPLETENESS = "evaluate_completeness"
SYNTHESIZE = "synthesize"
UPDATE_SESSION = "update_session"
COMPLETE_SESSION = "complete_session"
NOTIFY = "notify"
WATCH_RUN_START = "watch_run_start"
WATCH_COMPARE = "watch_compare"
CLARIFY = "clarify"
PLAN_RESEARCH = "plan_research"
RECORD_PLAN_REVIEW = "record_plan_review"
SPAWN_AGENTS = "spawn_agents"
RUN_RESEARCHER = "run_researcher"
SUPERVISOR_REVIEW = "supervisor_review"
REPLAN_RESEARCH = "replan_research"
FOLD_LATE_FINDINGS = "fold_late_findings"
COMPRESS_FINDINGS = "compress_findings"
ANALYZE_FINDINGS = "analyze_findings"
GENERATE_FINAL_REPORT = "generate_final_report"
CRITIQUE_REPORT = "critique_report"
RENDER_PDF = "render_pdf"
INGEST_DOCUMENT = "ingest_document"

ACTIVITIES = (
    CHAT_ANSWER,
    PLAN_QUERIES,
    WEB_SEARCH,
    SELECT_SOURCES,
    SCRAPE_PAGE,
    FOLLOW_UP_QUERIES,
    EVALUATE_COMPLETENESS,
    SYNTHESIZE,
    UPDATE_SESSION,
    COMPLETE_SESSION,
    NOTIFY,
    CLARIFY,
    PLAN_RESEARCH,
    RECORD_PLAN_REVIEW,
    SPAWN_AGENTS,
    RUN_RESEARCHER,
    SUPERVISOR_REVIEW,
    REPLAN_RESEARCH,
    FOLD_LATE_FINDINGS,
    COMPRESS_FINDINGS,
    ANALYZE_FINDINGS,
    GENERATE_FINAL_REPORT,
    CRITIQUE_REPORT,
    RENDER_PDF,
    WATCH_RUN_START,
    WATCH_COMPARE,
    INGEST_DOCUMENT,
)

# the memory names of the researchers' findings ("items/item_3"); items/ also holds pages
FINDING_ITEM = "items/item_"

# the external events a deep research waits for (one wait per name and instance)
CLARIFICATION_EVENT = "clarification_1"
PLAN_EVENT = "plan_review_1"

# Durable instance ids. Every orchestration a session starts is named by
# ``session_instance_id``: the run is the session id itself, anything else is
# ``{session_id}:{role}``. Deleting a session (shared/usecases/purge.py) lists the
# instances with the session id as prefix and keeps those ``is_session_instance``
# accepts, so a helper instance added later is purged without touching the purge.
INSTANCE_SEPARATOR = ":"
DEEP_SEARCH_ROLE = "deep-search"  # the deep search a deep research runs first
NOTIFY_CANCELLED_ROLE = "notify-cancelled"  # the webhook of a cancel (the run is terminated)
# A watch's id, its orchestration's instance id and its memory folder (no session document).
WATCH_ID_PREFIX = "watch-"
INGEST_ROLE = "ingest"  # ``{collection_id}:ingest-{n}``: one upload's ingestion


def session_instance_id(session_id: str, role: str = "") -> str:
    """The instance id of ``session_id``'s run (no role) or of one of its helpers."""
    return f"{session_id}{INSTANCE_SEPARATOR}{role}" if role else session_id


def redelivery_role(event: str, number: int) -> str:
    """The role of the ``number``-th redelivery of ``event`` asked for by the user."""
    return f"redeliver-{event}-{number}"


def is_session_instance(instance_id: str, session_id: str) -> bool:
    """True when ``instance_id`` was named by ``session_instance_id`` for ``session_id``."""
    return instance_id == session_id or instance_id.startswith(session_id + INSTANCE_SEPARATOR)
