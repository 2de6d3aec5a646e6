"""What the end-to-end tests share about a devhost: the people who sign in to it, the
settings of an offline one that searches and reads only the local website, and waiting
for a collection's ingestion."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from shared.core.config import Settings
from tests.fakes.entra import easy_auth_headers
from tests.fakes.search_site import SearchSite

ADMIN_ROLE = "DeepResearch.Admin"
PEOPLE = {  # signed in as App Service's Easy Auth says who it is
    "alice": easy_auth_headers("a11ce000-0000-4000-8000-000000000001"),
    "bob": easy_auth_headers("b0b00000-0000-4000-8000-000000000002"),
    "admin": easy_auth_headers("ad000000-0000-4000-8000-000000000003", roles=(ADMIN_ROLE,)),
}
INGEST_S = 60.0


def site_settings(data_dir: Path, site: SearchSite, **extra: Any) -> Settings:
    """An offline devhost that searches and reads only ``site``, signed in as App Service
    does it with Easy Auth on (``extra`` adds or overrides settings)."""
    base: dict[str, Any] = {
        "data_dir": data_dir,
        "reasoner": "offline",
        "search_provider": "searxng",
        "searxng_url": site.origin,
        "fetch_allowed_hosts": site.host,
        "auth_mode": "easyauth",
        "website_auth_enabled": True,
    }
    return Settings(**(base | extra))


def wait_ingested(client: httpx.Client, url: str, timeout: float = INGEST_S) -> dict:
    """The collection at ``url`` once none of its documents is queued (polled, with a
    deadline), as a client follows an upload."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(url)
        assert response.status_code == 200, response.text
        view = response.json()
        if view["progress"]["queued"] == 0:
            return view
        assert time.monotonic() < deadline, view["progress"]
        time.sleep(0.1)
