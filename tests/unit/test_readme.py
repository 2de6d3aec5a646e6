"""The README is the operator's manual: its first lines and its variable table.

The limits table lives in ``docs/limits.md``, generated from ``shared.limits``
and checked by ``tests/unit/test_limits.py``. The README's commands are run
by ``tests/e2e/test_readme_examples.py``.
"""

from __future__ import annotations

from pathlib import Path

from shared.config import Settings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_first_lines_give_the_two_commands():
    head = "\n".join(README.splitlines()[:8])
    assert "make demo" in head and "make test" in head


def test_every_setting_is_documented():
    missing = [name.upper() for name in Settings.model_fields if f"`{name.upper()}`" not in README]
    assert missing == []


def test_test_targets_are_listed_one_per_line():
    """A line like ``make a | b`` pasted into a shell runs a pipe."""
    for line in README.splitlines():
        if line.lstrip().startswith("make "):
            assert "|" not in line.split("#", 1)[0], line
