"""The settings of an offline devhost that searches and reads only the local website."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shared.core.config import Settings
from tests.fakes.search_site import SearchSite


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
