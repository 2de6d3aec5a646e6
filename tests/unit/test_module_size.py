"""No module of the app, the local host or the benchmarks grows past 350 lines.

A newcomer reads a module of 100-350 lines, one concept each, without
scrolling through three; past that a module usually holds two concepts and
should be split by them (issue 28). Tests and vendored files (``*.min.*``)
are exempt. The files are the ones git tracks, so scratch files and
dependencies in the working tree do not count.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 350
SUFFIXES = (".py", ".js")


def _tracked_modules() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *(f"*{suffix}" for suffix in SUFFIXES)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    names = [name for name in listed.stdout.decode().split("\0") if name]
    return [n for n in names if not n.startswith("tests/") and ".min." not in Path(n).name]


def test_the_check_sees_the_apps_modules():
    """Guards the test itself: an empty listing would pass for the wrong reason."""
    names = set(_tracked_modules())
    assert {"function_app.py", "devhost/engine.py", "api/static/app.js"} <= names
    assert not any(n.startswith("tests/") for n in names)


def test_no_module_over_350_lines():
    too_long = {}
    for name in _tracked_modules():
        lines = len((ROOT / name).read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            too_long[name] = lines
    assert not too_long, (
        f"over {MAX_LINES} lines (split each by concept into sibling modules): "
        + ", ".join(f"{name} ({lines})" for name, lines in sorted(too_long.items()))
    )
