"""AppServices.warm_up: the once-per-worker costs are paid up front, and nothing is spent."""

from __future__ import annotations

import gc
from pathlib import Path

from pydantic import SecretStr

from shared.bootstrap import AppServices
from shared.core.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer

BUILT_ONCE = ("search", "fetcher", "reasoner", "corpus")


def test_warm_up_builds_the_adapters_a_session_needs(
    data_dir: Path, offline_settings: Settings
) -> None:
    gc.unfreeze()  # as in a fresh worker, whatever this test process froze before
    svc = AppServices(offline_settings)
    svc.warm_up()

    assert set(BUILT_ONCE) <= set(vars(svc))  # cached: the first session reuses them
    assert list((data_dir / "corpus-cache").glob("*.sqlite3"))  # the index is on disk too
    assert svc.search.search("with statement", 1)
    # what it loaded is out of the collector's full passes (they stalled every activity)
    assert gc.get_freeze_count() > 50_000


def test_warm_up_of_the_llm_reasoner_sends_nothing_to_the_model(
    data_dir: Path, fake_openai: FakeOpenAIServer
) -> None:
    settings = Settings(
        data_dir=data_dir,
        reasoner="llm",
        search_provider="local",
        openai_base_url=fake_openai.base_url,
        openai_api_key=SecretStr("test-key"),
    )
    svc = AppServices(settings)
    svc.warm_up()

    assert "reasoner" in vars(svc)
    assert fake_openai.requests == []  # warming up costs no tokens
