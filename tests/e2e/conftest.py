"""Fixtures the end-to-end tests share: the local website with its own SearXNG, and
the clients of ``tests.e2e.web_host.PEOPLE`` (the settings of a devhost that searches
the site are ``tests.e2e.web_host.site_settings``).

A module that needs something else defines its own fixture of the same name
(``test_ownership`` signs in more people); pytest prefers the module's.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from devhost.host import DevHost
from tests.e2e.web_host import PEOPLE
from tests.fakes.search_site import SearchSite, running_search_site


@pytest.fixture
def site() -> Iterator[SearchSite]:
    yield from running_search_site()


@pytest.fixture
def people(host: DevHost) -> Iterator[dict[str, httpx.Client]]:
    """Alice's, Bob's and the admin's clients against the module's ``host``."""
    clients = {
        name: httpx.Client(base_url=host.url, headers=headers, timeout=60)
        for name, headers in PEOPLE.items()
    }
    yield clients
    for client in clients.values():
        client.close()
