"""A blank app setting means "unset": Core Tools and Azure cannot pass null, only "".

One case per kind of setting that has a blank-means-default rule: a research
limit (int, float, bool, choice, optional budget), an optional setting (str,
choice, int, float, path) and an owner quota (int, float).
"""

from __future__ import annotations

import pytest

from shared.core.config import Settings

BLANK_MEANS_DEFAULT = {
    "DEEP_RESEARCH_NUM_AGENTS": 4,
    "DEEP_RESEARCH_CLARIFICATION_TIMEOUT_MINUTES": 1440.0,
    "DEEP_RESEARCH_RUN_DEEP_SEARCH_FIRST": True,
    "DEEP_RESEARCH_PLAN_APPROVAL_TIMEOUT_ACTION": "proceed",
    "MAX_COST_PER_SESSION_USD": None,
    "SEARCH_PROVIDER": None,
    "REASONER": None,
    "SESSION_RETENTION_DAYS": None,
    "LLM_TIMEOUT_SECONDS_FAST": None,
    "PDF_FONT_PATH": None,
    "QUOTA_OPEN_STREAMS_PER_OWNER": 10,
    "QUOTA_COST_PER_DAY_PER_OWNER_USD": 0.0,
}


@pytest.mark.parametrize("blank", ["", "  "])
@pytest.mark.parametrize("env", sorted(BLANK_MEANS_DEFAULT))
def test_a_blank_setting_takes_its_default(
    monkeypatch: pytest.MonkeyPatch, env: str, blank: str
) -> None:
    monkeypatch.setenv(env, blank)

    value = getattr(Settings(), env.lower())

    assert value == BLANK_MEANS_DEFAULT[env]
    assert type(value) is type(BLANK_MEANS_DEFAULT[env])


def test_a_set_value_still_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_NUM_AGENTS", "2")
    monkeypatch.setenv("PDF_FONT_PATH", "/fonts/a.ttf")
    monkeypatch.setenv("QUOTA_COST_PER_DAY_PER_OWNER_USD", "1.5")

    settings = Settings()

    assert settings.deep_research_num_agents == 2
    assert str(settings.pdf_font_path) == "/fonts/a.ttf"
    assert settings.quota_cost_per_day_per_owner_usd == 1.5
