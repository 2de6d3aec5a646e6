"""Settings from the environment, and the per-request caps derived from them.

Every variable the service reads is a field of :class:`Settings` (the field
name upper-cased is the environment variable). Nothing here is read at import
time: the composition root (``shared.bootstrap``) builds ``Settings()`` on
first use, and tests construct ``Settings(...)`` directly.

A request may tighten or loosen the research caps through ``options``;
:class:`ResearchOptions` holds the bounds, :meth:`Settings.caps_for` merges
them into the :class:`Caps` that travel inside the orchestration input (so
orchestrators never read the environment).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, SettingsConfigDict

SourcePolicy = Literal["discovery", "strict", "monitor"]
# What a deep research does when nobody approved its plan in time.
PlanTimeoutAction = Literal["proceed", "cancel"]

# Durable timers longer than ~6 days are split into several timers by the
# 1.x SDK and can then no longer be cancelled (docs/architecture.md).
MAX_CLARIFICATION_TIMEOUT_MINUTES = 6 * 24 * 60 - 60


class ResearchOptions(BaseModel):
    """Per-request overrides; anything out of bounds is a 422 naming the field."""

    model_config = ConfigDict(extra="forbid")

    num_agents: int | None = Field(None, ge=1, le=5)
    agent_max_steps: int | None = Field(None, ge=1, le=15)
    max_supervisor_calls: int | None = Field(None, ge=0, le=20)
    supervisor_max_iterations: int | None = Field(None, ge=1, le=30)
    max_iterations: int | None = Field(None, ge=1, le=50)
    run_deep_search_first: bool | None = None
    enable_clarifying_questions: bool | None = None
    clarification_timeout_minutes: float | None = Field(
        None, ge=0.05, le=MAX_CLARIFICATION_TIMEOUT_MINUTES
    )
    require_plan_approval: bool | None = None
    plan_approval_timeout_minutes: float | None = Field(
        None, ge=0.05, le=MAX_CLARIFICATION_TIMEOUT_MINUTES
    )
    search_iterations: int | None = Field(None, ge=1, le=10)
    source_policy: SourcePolicy | None = None
    max_tokens: int | None = Field(None, ge=1000)
    max_cost_usd: float | None = Field(None, gt=0)


class Caps(BaseModel):
    """Effective limits for one session; part of the orchestration input."""

    num_agents: int
    agent_max_steps: int
    max_supervisor_calls: int
    supervisor_max_iterations: int
    max_iterations: int
    run_deep_search_first: bool
    enable_clarifying_questions: bool
    clarification_timeout_minutes: float
    require_plan_approval: bool = False
    plan_approval_timeout_minutes: float = 1440
    plan_approval_timeout_action: PlanTimeoutAction = "proceed"
    search_queries: int
    search_max_results: int
    search_iterations: int
    deep_search_iterations: int
    scrape_top_n: int
    rerank_top_k: int
    source_policy: SourcePolicy = "discovery"
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    retry_first_interval_ms: int = 1000
    retry_max_attempts: int = 3


class Settings(BaseSettings):
    """All configuration. Field name upper-cased = environment variable."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False)

    # Selection of the two minds and the search back end.
    reasoner: Literal["llm", "offline"] | None = None
    search_provider: str | None = None

    # LLM endpoint (OpenAI, Azure OpenAI or any OpenAI-compatible server).
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    azure_openai_endpoint: str | None = None
    azure_openai_api_key: SecretStr | None = None
    azure_openai_api_version: str = "2024-10-21"
    fast_model: str = "gpt-4o-mini"
    strategic_model: str = "gpt-4o"
    long_context_model: str = "gpt-4o"
    chat_model: str = "gpt-4o-mini"
    embedding_model: str | None = None
    # auto: json_schema, falling back to what the endpoint accepts (reasoning/structured_mode.py)
    llm_structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = "auto"
    llm_timeout_seconds: float = 60.0
    # A model call running longer is shown in the session's status (model_calls).
    llm_slow_call_seconds: float = Field(10.0, ge=0)
    # Per role; unset = LLM_TIMEOUT_SECONDS (llm_endpoint/model_limits.py).
    llm_timeout_seconds_fast: float | None = Field(None, gt=0)
    llm_timeout_seconds_strategic: float | None = Field(None, gt=0)
    llm_timeout_seconds_long_context: float | None = Field(None, gt=0)
    llm_timeout_seconds_chat: float | None = Field(None, gt=0)
    # The model's context window in tokens, for every role or per role; unset = the
    # model family's window when known, else only MAX_CONTEXT_CHARS bounds prompts.
    llm_context_tokens: int | None = Field(None, ge=2048)
    llm_context_tokens_fast: int | None = Field(None, ge=2048)
    llm_context_tokens_strategic: int | None = Field(None, ge=2048)
    llm_context_tokens_long_context: int | None = Field(None, ge=2048)
    llm_context_tokens_chat: int | None = Field(None, ge=2048)
    llm_max_retries: int = 3
    max_structured_output_retries: int = 3
    max_context_chars: int = 20000
    max_tokens_per_session: int | None = None
    max_cost_per_session_usd: float | None = None

    # Search providers and the query pipeline.
    tavily_api_key: SecretStr | None = None
    searxng_url: str | None = None
    brave_api_key: SecretStr | None = None
    local_corpus_path: Path | None = None
    search_blocked_domains: str = ""
    search_blocked_keywords: str = ""
    source_tiers_file: Path | None = None
    deep_search_queries: int = 3
    deep_search_max_results: int = 8
    speed_max_iterations: int = 2
    balanced_max_iterations: int = 6
    deep_search_scrape_top_n: int = 4
    deep_search_rerank_top_k: int = 6
    chat_history_limit: int = 10

    # Fetching pages.
    fetch_max_bytes: int = 2_000_000
    fetch_timeout_seconds: float = 15.0
    fetch_allowed_hosts: str = ""

    # Deep research caps (defaults from the specification).
    deep_research_num_agents: int = Field(4, ge=1, le=5)
    deep_research_agent_max_steps: int = Field(5, ge=1, le=15)
    deep_research_max_supervisor_calls: int = Field(6, ge=0, le=20)
    deep_research_supervisor_max_iterations: int = Field(10, ge=1, le=30)
    deep_research_default_max_iterations: int = Field(15, ge=1, le=50)
    deep_research_run_deep_search_first: bool = True
    deep_research_enable_clarifying_questions: bool = True
    deep_research_clarification_timeout_minutes: float = Field(
        1440, ge=0.05, le=MAX_CLARIFICATION_TIMEOUT_MINUTES
    )
    # Plan approval (human in the loop): off unless asked for, here or per request.
    deep_research_require_plan_approval: bool = False
    deep_research_plan_approval_timeout_minutes: float = Field(
        1440, ge=0.05, le=MAX_CLARIFICATION_TIMEOUT_MINUTES
    )
    deep_research_plan_approval_timeout_action: PlanTimeoutAction = "proceed"

    # Stores: Azure adapters when their settings are present, embedded otherwise.
    data_dir: Path = Path(".data")
    cosmos_endpoint: str | None = None
    cosmos_key: SecretStr | None = None
    cosmos_database: str = "deepresearch"
    cosmos_container: str = "sessions"
    cosmos_verify_tls: bool = True
    azure_storage_connection_string: SecretStr | None = None
    azure_storage_account_url: str | None = None
    memory_container: str = "agent-sessions"
    memory_max_file_bytes: int = Field(16 * 1024 * 1024, ge=1024)
    cosmos_read_timeout_seconds: float | None = Field(None, gt=0)

    # Durable retries of a failed activity (transient errors only; see activities/common.py).
    activity_retry_first_interval_ms: int = Field(1000, ge=100, le=600_000)
    activity_retry_max_attempts: int = Field(3, ge=1, le=10)

    # devhost only: require function keys on FUNCTION-level routes, as Azure does.
    devhost_require_keys: bool = False
    # Stream /events through the FastAPI extension. Read from the environment at import
    # by api/transport.py (it decides the functions' signatures); listed here to be
    # documented and validated with the rest.
    http_streaming: bool = False

    # Who the caller is (shared/identity.py) and who may see a session (shared/access.py).
    auth_mode: Literal["none", "easyauth", "jwt"] = "none"
    # easyauth trusts X-MS-CLIENT-PRINCIPAL only where something strips a client's copy:
    # App Service sets WEBSITE_AUTH_ENABLED=True when its authentication is on; another
    # proxy that does the same is vouched for by AUTH_TRUST_PRINCIPAL_HEADER=true.
    website_auth_enabled: bool = False
    auth_trust_principal_header: bool = False
    auth_tenant_id: str = ""
    auth_client_id: str = ""
    auth_jwt_issuer: str = ""
    auth_jwks_url: str = ""
    auth_admin_role: str = ""
    # Finished sessions idle this many days are deleted with their files and history.
    session_retention_days: int | None = Field(None, ge=1)

    # Delivery.
    webhook_secret: SecretStr | None = None
    webhook_allowed_hosts: str = ""
    pdf_font_path: Path | None = None
    public_base_url: str | None = None

    # An app setting cannot be null: Core Tools and Azure pass "unset" as an empty
    # string, which would otherwise fail int parsing or become Path(".").
    @field_validator(
        "search_provider",
        "reasoner",
        "max_tokens_per_session",
        "max_cost_per_session_usd",
        "cosmos_read_timeout_seconds",
        "session_retention_days",
        "llm_timeout_seconds_fast",
        "llm_timeout_seconds_strategic",
        "llm_timeout_seconds_long_context",
        "llm_timeout_seconds_chat",
        "llm_context_tokens",
        "llm_context_tokens_fast",
        "llm_context_tokens_strategic",
        "llm_context_tokens_long_context",
        "llm_context_tokens_chat",
        "local_corpus_path",
        "source_tiers_file",
        "pdf_font_path",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    # -- derived -------------------------------------------------------------

    @property
    def llm_configured(self) -> bool:
        return bool(self.openai_api_key or self.openai_base_url or self.azure_openai_endpoint)

    @property
    def effective_reasoner(self) -> Literal["llm", "offline"]:
        """``REASONER`` if set, else ``llm`` exactly when an endpoint is configured."""
        if self.reasoner:
            return self.reasoner
        return "llm" if self.llm_configured else "offline"

    @property
    def effective_search_providers(self) -> list[str]:
        """``SEARCH_PROVIDER`` (comma list) if set, else the configured ones, else ``local``."""
        if self.search_provider:
            return [p.strip().lower() for p in self.search_provider.split(",") if p.strip()]
        configured = [
            name
            for name, present in (
                ("tavily", self.tavily_api_key),
                ("searxng", self.searxng_url),
                ("brave", self.brave_api_key),
            )
            if present
        ]
        return configured or ["local"]

    @property
    def use_cosmos(self) -> bool:
        return bool(self.cosmos_endpoint)

    @property
    def use_blob(self) -> bool:
        return bool(self.azure_storage_connection_string or self.azure_storage_account_url)

    @staticmethod
    def split_list(raw: str) -> list[str]:
        return [item.strip().lower() for item in raw.split(",") if item.strip()]

    def caps_for(self, options: ResearchOptions | None = None) -> Caps:
        """Merge request options over the configured defaults."""
        o = options or ResearchOptions()

        def pick(value, default):
            return default if value is None else value

        return Caps(
            num_agents=pick(o.num_agents, self.deep_research_num_agents),
            agent_max_steps=pick(o.agent_max_steps, self.deep_research_agent_max_steps),
            max_supervisor_calls=pick(
                o.max_supervisor_calls, self.deep_research_max_supervisor_calls
            ),
            supervisor_max_iterations=pick(
                o.supervisor_max_iterations, self.deep_research_supervisor_max_iterations
            ),
            max_iterations=pick(o.max_iterations, self.deep_research_default_max_iterations),
            run_deep_search_first=pick(
                o.run_deep_search_first, self.deep_research_run_deep_search_first
            ),
            enable_clarifying_questions=pick(
                o.enable_clarifying_questions, self.deep_research_enable_clarifying_questions
            ),
            clarification_timeout_minutes=pick(
                o.clarification_timeout_minutes,
                self.deep_research_clarification_timeout_minutes,
            ),
            require_plan_approval=pick(
                o.require_plan_approval, self.deep_research_require_plan_approval
            ),
            plan_approval_timeout_minutes=pick(
                o.plan_approval_timeout_minutes,
                self.deep_research_plan_approval_timeout_minutes,
            ),
            plan_approval_timeout_action=self.deep_research_plan_approval_timeout_action,
            search_queries=self.deep_search_queries,
            search_max_results=self.deep_search_max_results,
            search_iterations=pick(o.search_iterations, self.speed_max_iterations),
            deep_search_iterations=pick(o.search_iterations, self.balanced_max_iterations),
            scrape_top_n=self.deep_search_scrape_top_n,
            rerank_top_k=self.deep_search_rerank_top_k,
            source_policy=pick(o.source_policy, "discovery"),
            max_tokens=pick(o.max_tokens, self.max_tokens_per_session),
            max_cost_usd=pick(o.max_cost_usd, self.max_cost_per_session_usd),
            retry_first_interval_ms=self.activity_retry_first_interval_ms,
            retry_max_attempts=self.activity_retry_max_attempts,
        )

    # -- quotas per owner (shared/quotas.py); 0 = unlimited ----------------------
    # Enforced when a session starts (429 naming the quota); counted in the session store.
    quota_concurrent_sessions_per_owner: int = Field(0, ge=0)
    quota_sessions_per_day_per_owner: int = Field(0, ge=0)  # per UTC day
    quota_tokens_per_day_per_owner: int = Field(0, ge=0)  # prompt + completion, per UTC day
    quota_cost_per_day_per_owner_usd: float = Field(0.0, ge=0)  # per UTC day
    # Open /events streams (and held long polls) per owner, per app instance.
    quota_open_streams_per_owner: int = Field(10, ge=0)

    @field_validator(
        "quota_concurrent_sessions_per_owner",
        "quota_sessions_per_day_per_owner",
        "quota_tokens_per_day_per_owner",
        "quota_cost_per_day_per_owner_usd",
        "quota_open_streams_per_owner",
        mode="before",
    )
    @classmethod
    def _blank_quota_is_default(cls, value: object) -> object:
        """An empty app setting (how Azure passes "unset") keeps the quota's default."""
        if isinstance(value, str) and not value.strip():
            raise PydanticUseDefault()
        return value
