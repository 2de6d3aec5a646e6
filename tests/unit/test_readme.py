"""The README is the operator's manual: its first lines and its variable table."""

from __future__ import annotations

from pathlib import Path

from shared.config import Settings

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_first_lines_give_the_two_commands():
    head = "\n".join(README.splitlines()[:8])
    assert "make demo" in head and "make test" in head


def test_every_setting_is_documented():
    missing = [name.upper() for name in Settings.model_fields if f"`{name.upper()}`" not in README]
    assert missing == []
