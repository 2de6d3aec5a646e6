"""Slow model calls are reported once they outlast the threshold, and cleared when they end."""

from __future__ import annotations

import threading

from shared.tools.llm_endpoint import slow_calls


def test_a_call_that_ends_in_time_reports_nothing() -> None:
    reported: list[str] = []

    def report(model: str, started) -> slow_calls.Clear:
        reported.append(model)
        return lambda: None

    with slow_calls.watching(60, report), slow_calls.model_call("fast-model"):
        pass
    assert reported == []


def test_a_slow_call_is_reported_then_cleared_when_it_ends() -> None:
    seen = threading.Event()
    cleared: list[str] = []

    def report(model: str, started) -> slow_calls.Clear:
        seen.set()
        return lambda: cleared.append(model)

    with slow_calls.watching(0, report), slow_calls.model_call("slow-model"):
        assert seen.wait(10)  # the call is still running when it is shown
        assert cleared == []
    assert cleared == ["slow-model"]


def test_a_failing_report_never_fails_the_call() -> None:
    seen = threading.Event()

    def report(model: str, started) -> slow_calls.Clear:
        seen.set()
        raise RuntimeError("store unavailable")

    with slow_calls.watching(0, report), slow_calls.model_call("m"):
        assert seen.wait(10)
