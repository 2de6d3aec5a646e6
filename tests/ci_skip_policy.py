"""In CI, a skipped test fails the run unless ``tests/skip_allowlist.py`` allows it.

A pytest plugin (``tests/conftest.py`` loads it). It records every skip, from
set-up, call or collection (a module that skips as a whole is a collect
report), and at session finish, when ``CI`` is set to a true value, turns an
otherwise passing status into ``TESTS_FAILED`` if any skip matched no
allow-list entry, printing each such test and its reason. Outside CI it changes
nothing (``-ra`` lists skips anyway). Pytest's exit code 5 (no tests collected)
is left as it is: non-zero, so an empty run cannot pass CI either.
"""

from __future__ import annotations

import fnmatch
import os

import pytest

from tests.skip_allowlist import ALLOWED_SKIPS

_TRUE = {"1", "true", "yes", "on"}


def in_ci() -> bool:
    """CI services set ``CI=true``; ``.ci/run`` sets it too."""
    return os.environ.get("CI", "").strip().lower() in _TRUE


def unexpected(skips: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (node id, reason) skips that no allow-list pattern covers."""
    return [
        (node, reason)
        for node, reason in skips
        if not any(fnmatch.fnmatchcase(node, allowed.pattern) for allowed in ALLOWED_SKIPS)
    ]


class SkipPolicy:
    """Collects skips during the run; judges them at the end when in CI."""

    def __init__(self) -> None:
        self.skips: list[tuple[str, str]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._record(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._record(report)

    def _record(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if not report.skipped or hasattr(report, "wasxfail"):
            return  # an expected failure is reported as skipped; it is not a skip
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        self.skips.append((report.nodeid, reason.removeprefix("Skipped: ")))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if in_ci() and exitstatus == pytest.ExitCode.OK and unexpected(self.skips):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        found = unexpected(self.skips)
        if not (in_ci() and found):
            return
        terminalreporter.section("skips not allowed in CI", sep="=", red=True, bold=True)
        for node, reason in found:
            terminalreporter.line(f"SKIPPED {node}: {reason}")
        terminalreporter.line(
            f"{len(found)} skipped test(s) fail this CI run: make them run, or add an entry "
            "with its reason to tests/skip_allowlist.py"
        )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SkipPolicy(), "ci-skip-policy")
