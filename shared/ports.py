"""The ports a use case works with, bundled as ``Services``.

Use cases (``shared/research/``, ``shared/sessions.py``, ...) take a
``Services`` and call its ports; they never build an adapter and never import
the composition root. ``shared/bootstrap.py`` fills the bundle in from
``Settings``, lazily; a test may hand a use case any object with these
attributes.
"""

from __future__ import annotations

from typing import Protocol

from shared.config import Settings
from shared.fetch.base import Fetcher
from shared.reasoning.base import Reasoner
from shared.search.base import Reranker, SearchProvider
from shared.search.tiers import SourceTiers
from shared.stores.base import MemoryStore, SessionStore
from shared.webhooks import WebhookSender


class Services(Protocol):
    """Every port of the app, read-only; ``reranker`` is None without an embedding model."""

    @property
    def settings(self) -> Settings: ...

    @property
    def sessions(self) -> SessionStore: ...

    @property
    def memory(self) -> MemoryStore: ...

    @property
    def search(self) -> SearchProvider: ...

    @property
    def tiers(self) -> SourceTiers: ...

    @property
    def reranker(self) -> Reranker | None: ...

    @property
    def fetcher(self) -> Fetcher: ...

    @property
    def reasoner(self) -> Reasoner: ...

    @property
    def webhooks(self) -> WebhookSender: ...
