"""Windows and timeouts per role: what a local model gets, and a request that always fits."""

from __future__ import annotations

import pytest

from shared.core.config import Settings
from shared.tools.llm_endpoint.model_limits import (
    CUT_MARK,
    context_tokens,
    estimated_tokens,
    evidence_chars,
    fit_to_window,
    timeout_seconds,
)


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4o-mini", 128_000),
        ("qwen2.5:14b", 32_768),
        ("library/llama3.1:8b-instruct-q4_K_M", 131_072),
        ("gemma2:9b", 8_192),
        ("my-company-deployment", None),  # an Azure deployment name says nothing
    ],
)
def test_a_known_family_gets_its_window_and_an_unknown_name_none(model, window) -> None:
    assert context_tokens(Settings(fast_model=model), model) == window


def test_settings_win_over_the_family_and_a_shared_model_takes_the_smaller_window() -> None:
    settings = Settings(
        fast_model="qwen2.5:7b",
        strategic_model="qwen2.5:7b",
        llm_context_tokens=16_384,
        llm_context_tokens_strategic=8_192,
    )
    assert context_tokens(settings, "qwen2.5:7b") == 8_192
    assert context_tokens(Settings(llm_context_tokens=16_384), "gpt-4o") == 16_384


def test_timeouts_are_per_role_and_a_shared_model_takes_the_longer_one() -> None:
    settings = Settings(
        llm_timeout_seconds=60,
        fast_model="m",
        chat_model="m",
        llm_timeout_seconds_fast=30,
        llm_timeout_seconds_chat=90,
        long_context_model="big",
        llm_timeout_seconds_long_context=600,
    )
    assert timeout_seconds(settings, "m") == 90
    assert timeout_seconds(settings, "big") == 600
    assert timeout_seconds(settings, "gpt-4o") == 60  # strategic: no own setting


def _prompt_tokens(messages, extra="") -> int:
    return estimated_tokens(extra) + sum(estimated_tokens(m["content"]) + 8 for m in messages)


@pytest.mark.parametrize("evidence_chars", [0, 10_000, 30_000, 200_000])
@pytest.mark.parametrize("max_tokens", [200, 4_000, 16_384])
def test_a_request_always_fits_the_window(evidence_chars: int, max_tokens: int) -> None:
    messages = [
        {"role": "system", "content": "Write the report. " * 50},
        {"role": "user", "content": "Question: why?\n<sources>" + "x" * evidence_chars},
    ]
    schema = '{"type": "object"}' * 40
    fitted, output = fit_to_window(messages, max_tokens, 8_192, schema)
    assert _prompt_tokens(fitted, schema) + output <= 8_192
    assert output >= min(max_tokens, 512)
    assert fitted[0] == messages[0]  # the instructions are never cut
    if _prompt_tokens(messages, schema) + min(max_tokens, 512) <= 8_192:
        assert fitted == messages  # nothing cut when it already fits
    else:
        assert CUT_MARK in fitted[1]["content"]
        assert fitted[1]["content"].startswith("Question: why?")


def test_evidence_shrinks_only_for_a_window_smaller_than_the_character_budget() -> None:
    big = Settings(max_context_chars=20_000)
    assert evidence_chars(big, "gpt-4o", 16_384) == 20_000
    assert evidence_chars(big, "some-deployment", 16_384) == 20_000  # no window known
    small = Settings(max_context_chars=20_000, llm_context_tokens=8_192)
    chars = evidence_chars(small, "gpt-4o", 16_384)
    # four shares of evidence, the instructions and a quarter of the window for the reply fit
    assert 1_500 <= chars < 20_000
    assert 4 * chars // 3 + 1_500 + 8_192 // 4 <= 8_192
