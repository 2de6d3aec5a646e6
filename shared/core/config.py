"""Settings from the environment, and the per-request caps derived from them.

Every variable the service reads is a field of :class:`Settings` (the field
name upper-cased is the environment variable). Nothing here is read at import
time: the composition root (``shared.bootstrap``) builds ``Settings()`` on
first use, and tests construct ``Settings(...)`` directly.

The research limits are declared once, in ``shared.core.limits``; this module
builds three models from that declaration: :class:`ResearchOptions` (what a
request may set, each field optional and bounded), the limit fields of
:class:`Settings` (what the operator sets; a blank value means the declared
default) and :class:`Caps` (what one session runs with: it travels inside the
orchestration input, so orchestrators never read the environment).
:meth:`Settings.caps_for` merges a request's options over the settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, ConfigDict, Field, SecretStr, create_model, field_validator
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.core.errors import InvalidInputError
from shared.core.limits import (
    COLLECTION_MAX_CRAWL_PAGES,
    COLLECTION_MAX_DOCUMENTS,
    COLLECTION_MAX_FILE_BYTES,
    COLLECTION_MAX_FILES_PER_REQUEST,
    COLLECTION_MAX_REQUEST_BYTES,
    EMBEDDING_BATCH_SIZE,
    LIMITS,
    Limit,
    PlanTimeoutAction,
    SourcePolicy,
)
from shared.core.source_options import SOURCE_FIELDS

__all__ = ["Caps", "PlanTimeoutAction", "ResearchOptions", "Settings", "SourcePolicy"]


def _field(limit: Limit, default: Any) -> Any:
    return Field(default, description=limit.description, **limit.bounds)


def _option_fields() -> dict[str, Any]:
    """One optional field per request option; two limits may share an option (and its bounds)."""
    fields: dict[str, Any] = {}
    for limit in LIMITS:
        if limit.option and limit.option not in fields:
            ceiling = f"; at most {limit.env} when the server sets it" if limit.ceiling else ""
            field = Field(None, description=limit.description + ceiling, **limit.bounds)
            fields[limit.option] = (limit.kind | None, field)
    return fields


ResearchOptions = create_model(
    "ResearchOptions",
    __config__=ConfigDict(extra="forbid"),
    __doc__="Per-request overrides; anything out of bounds is a 422 naming the field.",
    __module__=__name__,
    **_option_fields(),
    # Not a limit: the finished deep research a new one builds on (its findings and the
    # pages it read that are not stale); shared/usecases/research/follow_up.py.
    follow_up_of=(
        str | None,
        Field(
            None,
            pattern=r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,127}$",
            description="session id of a finished deep research of yours to build on",
        ),
    ),
    **SOURCE_FIELDS,
)


def _cap_field(limit: Limit) -> Any:
    """A field of Caps; a renamed limit still reads its former names (stored inputs)."""
    names = AliasChoices(limit.name, *limit.former_names) if limit.former_names else None
    return Field(limit.default, description=limit.description, validation_alias=names)


# No bounds on Caps: they were checked on the way in (options, settings), and a sub-run's
# share of a budget (orchestrators/budget.py) may well be under a request's minimum.
Caps = create_model(
    "Caps",
    __doc__="Effective limits for one session; part of the orchestration input.",
    __module__=__name__,
    **{lim.name: (lim.kind, _cap_field(lim)) for lim in LIMITS},
)


_LimitSettings = create_model(
    "_LimitSettings",
    __base__=BaseSettings,
    __doc__="The operator's values of the research limits (``shared.core.limits``).",
    __module__=__name__,
    **{lim.setting: (lim.kind, _field(lim, lim.default)) for lim in LIMITS if lim.env},
)


class Settings(_LimitSettings):
    """All configuration. Field name upper-cased = environment variable.

    The research limits' fields (``deep_research_num_agents``, ``max_tokens_per_session``,
    ...) come from ``shared.core.limits`` through the base class; the rest are declared here.
    """

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
    embedding_batch_size: int = Field(EMBEDDING_BATCH_SIZE, ge=1)
    # auto: json_schema, falling back to what the endpoint accepts (reasoning/structured_mode.py)
    llm_structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = "auto"
    # Answers and reports streamed from the model to the event stream (reasoning/llm_stream.py).
    llm_stream_answers: bool = True
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

    # Search providers and the query pipeline.
    tavily_api_key: SecretStr | None = None
    searxng_url: str | None = None
    brave_api_key: SecretStr | None = None
    local_corpus_path: Path | None = None
    search_blocked_domains: str = ""
    search_blocked_keywords: str = ""
    source_tiers_file: Path | None = None
    chat_history_limit: int = 10

    # Fetching pages.
    fetch_max_bytes: int = 2_000_000
    fetch_timeout_seconds: float = 15.0
    fetch_allowed_hosts: str = ""

    # Stores: Azure adapters when their settings are present, embedded otherwise.
    data_dir: Path = Path(".data")
    cosmos_endpoint: str | None = None
    cosmos_key: SecretStr | None = None
    cosmos_database: str = "deepresearch"
    cosmos_container: str = "sessions"
    cosmos_chunks_container: str = "chunks"  # the collections' full-text index (with Cosmos)
    cosmos_verify_tls: bool = True
    azure_storage_connection_string: SecretStr | None = None
    azure_storage_account_url: str | None = None
    memory_container: str = "agent-sessions"
    memory_max_file_bytes: int = Field(16 * 1024 * 1024, ge=1024)
    cosmos_read_timeout_seconds: float | None = Field(None, gt=0)
    # Collections: originals in this Blob container (data_dir/collections without Blob).
    collections_container: str = "collections"
    collection_max_file_bytes: int = Field(COLLECTION_MAX_FILE_BYTES, ge=1024)
    collection_max_files_per_request: int = Field(COLLECTION_MAX_FILES_PER_REQUEST, ge=1)
    collection_max_documents: int = Field(COLLECTION_MAX_DOCUMENTS, ge=1)
    collection_max_request_bytes: int = Field(COLLECTION_MAX_REQUEST_BYTES, ge=1024)
    collection_max_crawl_pages: int = Field(COLLECTION_MAX_CRAWL_PAGES, ge=1)

    # devhost only: require function keys on FUNCTION-level routes, as Azure does.
    devhost_require_keys: bool = False
    functions_worker_process_count: int = Field(1, ge=1, le=10)  # as Azure: 1 to 10
    # Stream /events through the FastAPI extension. Read from the environment at import
    # by api/transport.py (it decides the functions' signatures); listed here to be
    # documented and validated with the rest.
    http_streaming: bool = False

    # Who the caller is (shared/adapters/identity.py) and who may see a session
    # (shared/usecases/access.py).
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
    # A follow-up research reuses its parent's pages read within this many hours.
    follow_up_page_max_age_hours: float = Field(168.0, gt=0)
    # Two runs of a watch are never closer than this (tests set a short one).
    watch_min_interval_seconds: int = Field(3600, ge=1)

    # Delivery.
    webhook_secret: SecretStr | None = None
    webhook_allowed_hosts: str = ""
    pdf_font_path: Path | None = None
    public_base_url: str | None = None

    # Traces (shared/tools/telemetry): Azure Monitor, else OTLP/HTTP, else none.
    applicationinsights_connection_string: SecretStr | None = None
    otel_exporter_otlp_endpoint: str | None = None
    otel_capture_content: bool = False  # query text and URLs in span attributes
    # make eval (bench/eval): the judge's model on the same endpoint; unset = strategic_model
    eval_judge_model: str | None = None

    # An app setting cannot be null: Core Tools and Azure pass "unset" as an empty
    # string, which would otherwise fail int parsing or become Path("."). Each of these
    # settings takes its default (None for the optional ones) when blank.
    @field_validator(
        *(lim.setting for lim in LIMITS if lim.env),
        "search_provider",
        "reasoner",
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
        "eval_judge_model",
        "quota_concurrent_sessions_per_owner",
        "quota_sessions_per_day_per_owner",
        "quota_tokens_per_day_per_owner",
        "quota_cost_per_day_per_owner_usd",
        "quota_open_streams_per_owner",
        mode="before",
    )
    @classmethod
    def _blank_is_default(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            raise PydanticUseDefault()
        return value

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
        """The request's options over the operator's values.

        An option replaces its setting within the declared bounds, except that a
        ``ceiling`` setting (the token and cost budgets), when set, is an upper bound:
        a request may lower it, never raise it (InvalidInputError, a 422 naming it).
        """
        chosen = (options or ResearchOptions()).model_dump(exclude_none=True)
        values = {}
        for limit in LIMITS:
            configured = getattr(self, limit.setting) if limit.env else limit.default
            requested = chosen.get(limit.option) if limit.option else None
            above = limit.ceiling and None not in (requested, configured)
            if above and requested > configured:
                raise _above_ceiling(limit, requested, configured)
            values[limit.name] = configured if requested is None else requested
        return Caps(**values)

    # -- quotas per owner (shared/usecases/quotas.py); 0 = unlimited ----------------------
    # Enforced when a session starts (429 naming the quota); counted in the session store.
    quota_concurrent_sessions_per_owner: int = Field(0, ge=0)
    quota_sessions_per_day_per_owner: int = Field(0, ge=0)  # per UTC day
    quota_tokens_per_day_per_owner: int = Field(0, ge=0)  # prompt + completion, per UTC day
    quota_cost_per_day_per_owner_usd: float = Field(0.0, ge=0)  # per UTC day
    # Open /events streams (and held long polls) per owner, per app instance.
    quota_open_streams_per_owner: int = Field(10, ge=0)


def _above_ceiling(limit: Limit, requested: float, ceiling: float) -> InvalidInputError:
    message = (
        f"options.{limit.option} is {requested}, above the server's ceiling "
        f"{limit.env}={ceiling}; a request may lower it, never raise it"
    )
    detail = {
        "loc": ["options", limit.option],
        "msg": message,
        "type": "above_ceiling",
        "requested": requested,
        "ceiling": ceiling,
        "setting": limit.env,
    }
    return InvalidInputError(message, [detail])
