"""Nothing of a person's session reaches the logs at Information level (issue 20).

Two people run web searches through devhost (the real SearXNG adapter and
fetcher against ``tests.fakes.search_site`` on 127.0.0.1) while every log
record at INFO and above is captured. Operators read those logs: they may
see session ids and counts, never a question, a search URL carrying it, or
the pages a run opened.
"""

from __future__ import annotations

import logging
from urllib.parse import quote, quote_plus

import httpx
import pytest

from devhost.host import DevHost
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.web_host import site_settings
from tests.fakes.entra import easy_auth_headers
from tests.fakes.search_site import ARTICLES, SearchSite

pytestmark = pytest.mark.e2e

QUESTIONS = {
    "alice": "How do asyncio tasks handle cancellation inside a TaskGroup?",
    "bob": "How does asyncio.Semaphore cap concurrent coroutines?",
}


@pytest.fixture
def host(start_devhost, data_dir, site: SearchSite) -> DevHost:
    return start_devhost(site_settings(data_dir, site))


def test_information_level_logs_name_sessions_but_hold_nothing_of_them(
    host: DevHost, site: SearchSite, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    sessions = {}
    for n, (name, question) in enumerate(QUESTIONS.items()):
        headers = easy_auth_headers(f"{n}0000000-0000-4000-8000-00000000000{n}")
        with httpx.Client(base_url=host.url, headers=headers, timeout=60) as client:
            body = {"query": question, "mode": "search"}
            session_id = client.post("/api/research", json=body).json()["session_id"]
            assert wait_for(client, session_id, TERMINAL)["status"] == "completed"
            assert client.delete(f"/api/research/{session_id}").status_code == 204
            sessions[name] = session_id
    opened = [path for path, hits in site.page_hits().items() if hits]
    assert opened, "the runs read pages of the site"

    logged = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    for session_id in sessions.values():  # the logs do speak at INFO: ids only
        assert f"deleted session {session_id}" in logged
    for question in QUESTIONS.values():
        for form in (question, quote_plus(question), quote(question), question.split()[-1]):
            assert form not in logged, form
    for path in opened:
        assert path not in logged, path
    for article in ARTICLES:
        assert article.title not in logged, article.title
