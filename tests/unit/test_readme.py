"""The README's first lines, and the reference pages it links: every variable.

The README is the front page: its first lines give the two commands. Every
setting is documented in ``docs/configuration.md``. The limits table in
``docs/limits.md`` is generated from ``shared.core.limits`` and checked by
``test_limits.py``. The commands of the README and of every ``docs/`` page are
run by ``tests/e2e/test_readme_examples.py``; their links are checked by
``test_docs.py``.
"""

from __future__ import annotations

from pathlib import Path

from shared.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def test_first_lines_give_the_two_commands():
    head = "\n".join(README.splitlines()[:8])
    assert "make demo" in head and "make test" in head


def test_the_readme_stays_a_front_page():
    """Reference text belongs in a ``docs/`` page, linked from the README."""
    assert len(README.splitlines()) <= 250


def test_every_setting_is_documented():
    """Each ``Settings`` field, upper-cased, has a row in the configuration page."""
    missing = [
        name.upper()
        for name in Settings.model_fields
        if f"| `{name.upper()}` |" not in CONFIGURATION
    ]
    assert missing == [], "add these to docs/configuration.md"


def test_test_targets_are_listed_one_per_line():
    """A line like ``make a | b`` pasted into a shell runs a pipe."""
    for page in [ROOT / "README.md", *DOCS]:
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("make "):
                assert "|" not in line.split("#", 1)[0], f"{page.name}: {line}"
