"""The research limits: every bound and default of a session, declared once.

A limit is a number or a switch that the operator sets with an environment
variable (``env``, a field of ``Settings``), that a request may override
through ``options`` (``option``, a field of ``ResearchOptions``) within the
declared bounds, and that reaches the orchestration as a field of ``Caps``
(``name``). ``shared.core.config`` builds those three models from the list below;
request schemas, prompts, the OpenAPI document, MCP descriptions, the web page
and ``docs/limits.md`` read the same objects, so changing a bound is one edit
here (``tests/unit/test_limits.py`` fails when a value is typed anywhere else).

A limit marked ``ceiling`` is the operator's upper bound when set: a request
may lower it, never raise it (``Settings.caps_for`` answers 422 naming the
ceiling). The other limits are defaults: a request may choose any value within
the declared bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

SourcePolicy = Literal["discovery", "strict", "monitor"]
# What a deep research does when nobody approved its plan in time.
PlanTimeoutAction = Literal["proceed", "cancel"]

# azure-functions-durable 1.x splits a durable timer longer than about six days into
# several timers, and a split timer can no longer be cancelled when the reply comes
# first; a wait for a person therefore stays an hour under six days.
LONGEST_WAIT_MINUTES = 6 * 24 * 60 - 60


@dataclass(frozen=True)
class Limit:
    """One limit: what it is called where, its default, its bounds, and what it means."""

    name: str  # field of Caps (what the orchestration reads)
    kind: Any  # int, float, bool or a Literal of the allowed words
    default: Any  # None: unlimited unless the operator or the request sets it
    description: str
    env: str | None = None  # environment variable (its lower-case name is the Settings field)
    option: str | None = None  # field of a request's ``options``
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    ceiling: bool = False  # the operator's value bounds the request's from above
    # Caps fields this limit had before: an orchestration input stored under an old name
    # (a run in flight, a session document) still validates.
    former_names: tuple[str, ...] = ()

    @property
    def setting(self) -> str | None:
        """The ``Settings`` field that holds the operator's value."""
        return self.env.lower() if self.env else None

    @property
    def bounds(self) -> dict[str, float]:
        """The bounds as pydantic ``Field`` keywords: ``Field(1, **NUM_AGENTS.bounds)``."""
        pairs = (("ge", self.ge), ("gt", self.gt), ("le", self.le))
        return {key: value for key, value in pairs if value is not None}

    @property
    def low(self) -> float | None:
        """The smallest value allowed (inclusive ``ge``, or the exclusive ``gt``)."""
        return self.ge if self.ge is not None else self.gt

    def range_text(self) -> str:
        """The bounds as a reader sees them: ``1-5``, ``≥ 1000``, ``> 0``, or ``""``."""
        if self.ge is not None and self.le is not None:
            return f"{self.ge:g}-{self.le:g}"
        signs = (("≥", self.ge), (">", self.gt), ("≤", self.le))
        return ", ".join(f"{sign} {value:g}" for sign, value in signs if value is not None)


def _count(name: str, default: int, description: str, **more: Any) -> Limit:
    return Limit(name, int, default, description, **more)


NUM_AGENTS = _count(
    "max_agents",
    4,
    "researcher agents working in parallel",
    env="DEEP_RESEARCH_NUM_AGENTS",
    option="num_agents",
    ge=1,
    le=5,
    former_names=("num_agents",),
)
AGENT_MAX_STEPS = _count(
    "agent_max_steps",
    5,
    "ReAct steps a researcher takes per todo",
    env="DEEP_RESEARCH_AGENT_MAX_STEPS",
    option="agent_max_steps",
    ge=1,
    le=15,
)
MAX_SUPERVISOR_CALLS = _count(
    "max_supervisor_calls",
    6,
    "supervisor reviews; afterwards the agents finish unsupervised",
    env="DEEP_RESEARCH_MAX_SUPERVISOR_CALLS",
    option="max_supervisor_calls",
    ge=0,
    le=20,
)
QUEUE_TURNS = _count(
    "queue_turns",
    10,
    "queue turns during which the supervisor may still add todos",
    env="DEEP_RESEARCH_SUPERVISOR_MAX_ITERATIONS",
    option="supervisor_max_iterations",
    ge=1,
    le=30,
    former_names=("supervisor_max_iterations",),
)
MAX_ITERATIONS = _count(
    "max_iterations",
    15,
    "researcher runs per session",
    env="DEEP_RESEARCH_DEFAULT_MAX_ITERATIONS",
    option="max_iterations",
    ge=1,
    le=50,
)
RUN_DEEP_SEARCH_FIRST = Limit(
    "run_deep_search_first",
    bool,
    True,
    "run a deep search as the first phase of a deep research",
    env="DEEP_RESEARCH_RUN_DEEP_SEARCH_FIRST",
    option="run_deep_search_first",
)
ENABLE_CLARIFYING_QUESTIONS = Limit(
    "enable_clarifying_questions",
    bool,
    True,
    "ask clarifying questions when the query needs them",
    env="DEEP_RESEARCH_ENABLE_CLARIFYING_QUESTIONS",
    option="enable_clarifying_questions",
)
CLARIFICATION_TIMEOUT_MINUTES = Limit(
    "clarification_timeout_minutes",
    float,
    24 * 60,
    "minutes to wait for the answers to clarifying questions (under six days: "
    "longer durable timers cannot be cancelled)",
    env="DEEP_RESEARCH_CLARIFICATION_TIMEOUT_MINUTES",
    option="clarification_timeout_minutes",
    ge=0.05,
    le=LONGEST_WAIT_MINUTES,
)
REQUIRE_PLAN_APPROVAL = Limit(
    "require_plan_approval",
    bool,
    False,
    "stop after planning until the user approves, edits or cancels the plan",
    env="DEEP_RESEARCH_REQUIRE_PLAN_APPROVAL",
    option="require_plan_approval",
)
PLAN_APPROVAL_TIMEOUT_MINUTES = Limit(
    "plan_approval_timeout_minutes",
    float,
    CLARIFICATION_TIMEOUT_MINUTES.default,
    "minutes a plan waits for approval (under six days, like the clarification wait)",
    env="DEEP_RESEARCH_PLAN_APPROVAL_TIMEOUT_MINUTES",
    option="plan_approval_timeout_minutes",
    **CLARIFICATION_TIMEOUT_MINUTES.bounds,
)
PLAN_APPROVAL_TIMEOUT_ACTION = Limit(
    "plan_approval_timeout_action",
    PlanTimeoutAction,
    "proceed",
    "after that wait: proceed with the plan as proposed, or cancel the session",
    env="DEEP_RESEARCH_PLAN_APPROVAL_TIMEOUT_ACTION",
)
SEARCH_QUERIES = _count(
    "search_queries", 3, "query variations per search", env="DEEP_SEARCH_QUERIES", ge=1
)
SEARCH_MAX_RESULTS = _count(
    "search_max_results", 8, "results per query", env="DEEP_SEARCH_MAX_RESULTS", ge=1
)
SEARCH_ITERATIONS = _count(
    "search_iterations",
    2,
    "search iterations of the `search` mode",
    env="SPEED_MAX_ITERATIONS",
    option="search_iterations",
    ge=1,
    le=10,
)
DEEP_SEARCH_ITERATIONS = _count(
    "deep_search_iterations",
    6,
    "search iterations of `deep_search` and of a deep research's first phase",
    env="BALANCED_MAX_ITERATIONS",
    option="search_iterations",
    **SEARCH_ITERATIONS.bounds,
)
SCRAPE_TOP_N = _count(
    "scrape_top_n", 4, "pages read per search iteration", env="DEEP_SEARCH_SCRAPE_TOP_N", ge=1
)
RERANK_TOP_K = _count(
    "rerank_top_k", 6, "results kept after rerank", env="DEEP_SEARCH_RERANK_TOP_K", ge=1
)
SOURCE_POLICY = Limit(
    "source_policy",
    SourcePolicy,
    "discovery",
    "which sources count: discovery (every tier), strict (tiers 1-2), monitor (official "
    "against community sources); unset, the question's words choose it (verify: strict, "
    "trend: monitor), else discovery",
    option="source_policy",
)
MAX_TOKENS = Limit(
    "max_tokens",
    int | None,
    None,
    "token budget of a session: when reached, straight to the report",
    env="MAX_TOKENS_PER_SESSION",
    option="max_tokens",
    ge=1000,
    ceiling=True,
)
MAX_COST_USD = Limit(
    "max_cost_usd",
    float | None,
    None,
    "cost budget of a session in USD, the same",
    env="MAX_COST_PER_SESSION_USD",
    option="max_cost_usd",
    gt=0,
    ceiling=True,
)
RETRY_FIRST_INTERVAL_MS = _count(
    "retry_first_interval_ms",
    1000,
    "first wait before a failed activity is retried (transient errors only)",
    env="ACTIVITY_RETRY_FIRST_INTERVAL_MS",
    ge=100,
    le=600_000,
)
RETRY_MAX_ATTEMPTS = _count(
    "retry_max_attempts",
    3,
    "attempts of a failing activity, the first included",
    env="ACTIVITY_RETRY_MAX_ATTEMPTS",
    ge=1,
    le=10,
)

LIMITS: tuple[Limit, ...] = (
    NUM_AGENTS,
    AGENT_MAX_STEPS,
    MAX_SUPERVISOR_CALLS,
    QUEUE_TURNS,
    MAX_ITERATIONS,
    RUN_DEEP_SEARCH_FIRST,
    ENABLE_CLARIFYING_QUESTIONS,
    CLARIFICATION_TIMEOUT_MINUTES,
    REQUIRE_PLAN_APPROVAL,
    PLAN_APPROVAL_TIMEOUT_MINUTES,
    PLAN_APPROVAL_TIMEOUT_ACTION,
    SEARCH_QUERIES,
    SEARCH_MAX_RESULTS,
    SEARCH_ITERATIONS,
    DEEP_SEARCH_ITERATIONS,
    SCRAPE_TOP_N,
    RERANK_TOP_K,
    SOURCE_POLICY,
    MAX_TOKENS,
    MAX_COST_USD,
    RETRY_FIRST_INTERVAL_MS,
    RETRY_MAX_ATTEMPTS,
)

# Collections (api/collections.py, shared/usecases/collections.py): operator settings,
# not request options. Each is the default of the ``Settings`` field of the same name,
# lower-cased; a request over one is refused with 413 (size) or 422 (count) naming it.
COLLECTION_MAX_FILE_BYTES = 20 * 1024 * 1024  # one uploaded document
COLLECTION_MAX_FILES_PER_REQUEST = 20  # documents in one upload
COLLECTION_MAX_DOCUMENTS = 1000  # documents in one collection
COLLECTION_CHUNK_CHARS = 1200  # a chunk's target size: a passage a citation can point at
COLLECTION_MAX_REQUEST_BYTES = 100 * 1024 * 1024  # one upload request (Azure's own cap)
COLLECTIONS_PER_REQUEST = 10  # collections one research may name (options.collections)
# The collections' best passages the corrective judge reads for one topic (do they cover
# it? shared/usecases/research/coverage.py); not covered, the topic goes to the web.
COVERAGE_PASSAGES = 6
# A question's sub-questions judged apart, at most (the rest join the last): the judge's
# calls stay bounded (shared/adapters/reasoning/call_budget.py).
COVERAGE_SUB_QUESTIONS = 4
# The quotes the judge may give as evidence for one topic (the model is asked for at most
# this many; offline, the gate's sentences per sub-question): what a reader sees for it.
COVERAGE_MAX_QUOTES = 3
# A quote proves coverage only with at least this many words, or characters (scripts
# written without spaces): "the" is in every passage and proves nothing.
COVERAGE_MIN_QUOTE_WORDS = 5
COVERAGE_MIN_QUOTE_CHARS = 25
COLLECTION_MAX_CRAWL_PAGES = 50  # pages one URL request may fetch, all depths together
COLLECTION_MAX_CRAWL_DEPTH = 2  # links followed from the given URLs, on the same site
# Chunks (or queries) sent in one embeddings request when EMBEDDING_MODEL is set (hybrid
# search, shared/adapters/search/embeddings.py): OpenAI takes up to 2048 inputs, some older
# Azure OpenAI deployments 16, so the operator may lower it.
EMBEDDING_BATCH_SIZE = 64
# Cosmos DB's documented cap on a transactional batch (one partition, all or nothing):
# a document's chunks are swapped in batches of at most this many operations.
COSMOS_BATCH_MAX_OPERATIONS = 100
COSMOS_BATCH_MAX_BYTES = 2 * 1024 * 1024  # its documented payload cap
