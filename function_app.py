"""The Functions app: composition only. Each feature is a blueprint.

Importing this module registers functions and does nothing else: no settings
are read and no client is built until a function runs (shared.bootstrap). The
two exceptions are cheap and process-wide: the SDK's replay reads history
timestamps without dateutil (orchestrators/replay_timestamps.py), and HTTP
request lines stay out of Information-level logs (shared/tools/log_privacy.py).
"""

from __future__ import annotations

import azure.durable_functions as df
import azure.functions as func

from activities import collections as collection_activities
from activities import research as research_activities
from activities import search as search_activities
from activities import session as session_activities
from activities import watch as watch_activities
from api import (
    ask,
    collection_events,
    maintenance,
    mcp_collections,
    mcp_tools,
    meta,
    page,
    plan,
    purge,
    reports,
    watches,
    webhooks,
)
from api import collections as collections_api
from api import research as research_api
from orchestrators import chat, deep_research, ingest, notify, replay_timestamps, search, watch
from shared.tools import log_privacy

replay_timestamps.install()
log_privacy.install()
app = df.DFApp(http_auth_level=func.AuthLevel.FUNCTION)

for blueprint in (
    research_api.bp,
    reports.bp,
    ask.bp,
    watches.bp,
    plan.bp,
    meta.bp,
    maintenance.bp,
    page.bp,
    purge.bp,
    collections_api.bp,
    collection_events.bp,
    mcp_tools.bp,
    mcp_collections.bp,
    webhooks.bp,
    chat.bp,
    search.bp,
    deep_research.bp,
    notify.bp,
    watch.bp,
    ingest.bp,
    search_activities.bp,
    research_activities.bp,
    session_activities.bp,
    watch_activities.bp,
    collection_activities.bp,
):
    app.register_functions(blueprint)
