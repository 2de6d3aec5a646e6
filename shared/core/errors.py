"""One small error hierarchy for the whole service.

::

    ResearchError
    ├── TransientError        retry may help (429, 5xx, timeouts, ETag races)
    ├── PermanentError        retrying will not help (4xx from a provider, refused URL)
    │   ├── FetchRefused      the SSRF guard or a policy refused a URL
    │   ├── StructuredOutputError   the model never produced valid JSON for a schema
    │   └── MemoryFileTooLarge      a memory file would grow past its size cap
    ├── ConfigurationError    a setting is missing or contradictory
    ├── UnauthorizedError     no caller, or a caller we cannot verify   -> HTTP 401
    ├── NotFoundError         unknown session / memory file            -> HTTP 404
    ├── ConflictError         state does not allow the operation       -> HTTP 409
    │   └── ActiveSessionConflict   another deep research is active in the chat
    ├── InvalidInputError     a client sent something we cannot accept -> HTTP 422
    ├── QuotaExceeded         the caller used up a per-person quota    -> HTTP 429
    └── RateLimited           one thing asked for too often; retry later -> HTTP 429

Adapters translate their SDK's exceptions into these once, at the boundary,
with ``raise ... from exc``. Nothing matches on message text.
"""

from __future__ import annotations

from datetime import datetime


class ResearchError(Exception):
    """Base of every error this service raises on purpose."""


class TransientError(ResearchError):
    """A failure that a later attempt may not hit."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class EmbeddingsUnavailable(TransientError):
    """The embeddings endpoint failed: hybrid search falls back to words alone."""


class PermanentError(ResearchError):
    """A failure that repeating the same call will reproduce."""


class FetchRefused(PermanentError):
    """A URL was refused before any byte was sent (scheme, port, private address)."""


class StructuredOutputError(PermanentError):
    """The model's replies never validated against the requested schema."""


class ConfigurationError(ResearchError):
    """Settings are missing or inconsistent; the message names the variable."""


class UnauthorizedError(ResearchError):
    """The request names no caller we can verify (missing, malformed, expired, forged).

    Another person's session is never this: it is ``NotFoundError``, so a
    caller cannot tell it from a session that does not exist.
    """


class NotFoundError(ResearchError):
    """The thing asked for does not exist."""


class ConflictError(ResearchError):
    """The current state does not allow the operation."""


class ActiveSessionConflict(ConflictError):
    """A deep research session is already active in this chat."""

    def __init__(self, chat_id: str, active_session_id: str | None = None) -> None:
        super().__init__(f"chat {chat_id!r} already has an active deep research session")
        self.chat_id = chat_id
        self.active_session_id = active_session_id


class RateLimited(ResearchError):
    """The caller asked for something too often; ``retry_after`` seconds until it may again.

    ``details`` names the limit (``{"limit", "window_seconds", "used"}``) so a
    client can tell which one it hit.
    """

    def __init__(self, message: str, retry_after: float, details: list[dict] | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.details = details or []


class InvalidInputError(ResearchError):
    """Client input is well-formed JSON but not acceptable."""

    def __init__(self, message: str, details: list[dict] | None = None) -> None:
        super().__init__(message)
        self.details = details or []


class MemoryFileTooLarge(PermanentError):
    """A memory file write or append would take the file past the store's size cap.

    Permanent: the same write fails the same way on every retry. Raised before
    anything is written, so the file keeps its previous content.
    """

    def __init__(self, name: str, size: int, limit: int) -> None:
        super().__init__(f"memory file {name} would be {size} bytes, over the {limit}-byte cap")
        self.name, self.size, self.limit = name, size, limit


class QuotaExceeded(ResearchError):
    """The caller has used up one of their quotas (``shared/usecases/quotas.py``); nothing was
    started.

    ``quota`` is the setting that sets the limit (e.g. ``QUOTA_SESSIONS_PER_DAY_PER_OWNER``),
    so a client and an operator both know which knob said no. ``frees_at`` is when a
    daily quota starts over (next UTC midnight); ``None`` for one that frees when
    something of the caller's ends (a running session, an open stream), which ``frees``
    says in words. ``retry_after`` (seconds) is what the 429's ``Retry-After`` says.
    """

    def __init__(
        self,
        quota: str,
        limit: float,
        used: float,
        frees: str,
        retry_after: int,
        frees_at: datetime | None = None,
    ) -> None:
        super().__init__(f"quota {quota} reached: {used:g} of {limit:g} used; it frees {frees}")
        self.quota, self.limit, self.used = quota, limit, used
        self.frees, self.retry_after, self.frees_at = frees, retry_after, frees_at
