"""Slow model calls are reported once they outlast the threshold, and cleared when they end."""

from __future__ import annotations

import threading
import time

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


def test_calls_share_one_watcher_thread() -> None:
    """A model call starts no thread of its own: starting one waits for the GIL, which four
    researchers' replies arriving together hold for tens of ms."""
    with slow_calls.watching(60, lambda model, started: lambda: None):
        with slow_calls.model_call("warm"):
            pass
        threads = threading.active_count()
        for _ in range(50):
            with slow_calls.model_call("fast-model"):
                assert threading.active_count() == threads


def test_finished_calls_are_dropped_once_due() -> None:
    """The watcher keeps no entry of a finished call past its deadline: bounded by the calls
    of the last ``after`` seconds, not by all calls ever made."""
    reported: list[str] = []
    before = slow_calls._watcher.pending()  # earlier tests' calls, due in a minute
    with slow_calls.watching(0.05, lambda model, started: reported.append(model) or (lambda: None)):
        for _ in range(20):
            with slow_calls.model_call("fast-model"):
                pass
        assert slow_calls._watcher.pending() >= before + 20
    deadline = time.monotonic() + 10
    while slow_calls._watcher.pending() > before and time.monotonic() < deadline:
        threading.Event().wait(0.02)
    assert slow_calls._watcher.pending() <= before
    assert reported == []  # every call ended before its deadline
