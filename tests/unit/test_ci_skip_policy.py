"""The CI skip policy, run as CI runs it: a real pytest process on a small test file.

The file lives in a temporary folder with its own empty ``pytest.ini``, so only
the policy plugin (``-p tests.ci_skip_policy``) is loaded, not the suite's conftest.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = """
import pytest

def test_runs():
    assert True

def test_needs_a_tool():
    pytest.skip("frobnicator not installed")

@pytest.mark.xfail(reason="known bug", strict=True)
def test_known_bug():
    assert False
"""


def run_pytest(
    folder: Path, source: str, ci: str | None, extra: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run pytest on ``source`` (as test_sample.py) beside a test file that passes."""
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "test_passing.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    (folder / "test_sample.py").write_text(source, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(ROOT)
    if ci is not None:
        env["CI"] = ci
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.ci_skip_policy", str(folder)]
    command += extra or []
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_skip_fails_a_ci_run_and_names_the_test_and_its_reason(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, SAMPLE, ci="true")

    assert result.returncode == 1, result.stdout
    assert "skips not allowed in CI" in result.stdout
    assert "test_sample.py::test_needs_a_tool: frobnicator not installed" in result.stdout
    assert "test_known_bug" not in result.stdout.split("skips not allowed in CI")[1]


def test_outside_ci_a_skip_is_only_reported(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, SAMPLE, ci=None)

    assert result.returncode == 0, result.stdout
    assert "skips not allowed in CI" not in result.stdout


def test_a_whole_module_skipped_at_collection_counts_too(tmp_path: Path) -> None:
    source = 'import pytest\npytest.skip("no node", allow_module_level=True)\n'
    result = run_pytest(tmp_path, source + "def test_x():\n    pass\n", ci="1")

    assert result.returncode == 1, result.stdout
    assert "test_sample.py: no node" in result.stdout


def test_a_ci_run_where_nothing_runs_does_not_pass(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, "X = 1\n", ci="true")
    selected_nothing = run_pytest(tmp_path, "X = 1\n", ci="true", extra=["-k", "no_such_test"])

    assert result.returncode == 0, result.stdout  # the passing file ran
    assert selected_nothing.returncode == 5, selected_nothing.stdout  # "no tests ran": non-zero
