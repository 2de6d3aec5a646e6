"""The documentation holds together: links resolve, every page is reachable, nothing points outside.

The README is the front page and ``docs/`` holds one page per concern, so a
reader gets around by following links. Every relative link in the
repository's Markdown must name a file that exists and, with ``#anchor``, a
heading of that file, as GitHub renders it (lower case, punctuation dropped,
spaces to hyphens, ``-1``, ``-2`` for repeated headings) or an HTML ``id``.
Links inside code (fenced blocks, inline code) are not links and are skipped.
The commands in these pages are run by ``tests/e2e/test_readme_examples.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NOT_SOURCES = {
    ".git", ".venv", ".venv-checkov", ".data", ".azure", ".azurite", "out",
    "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache", ".import_linter_cache",
}  # fmt: skip
# The notes the project was started from live outside the repository; a reader
# cannot open them, so no file may send a reader there (built here so that this
# file does not name them itself).
OUTSIDE = ("DESIGN" + ".md", "NOTES-" + "azure")

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
HTML_ID = re.compile(r"""\b(?:id|name)=["']([^"']+)["']""")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files() -> list[Path]:
    """The documentation: Markdown outside ``tests/`` (whose pages are corpus data)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        skipped = NOT_SOURCES | ({"tests"} if Path(folder) == ROOT else set())
        subfolders[:] = sorted(d for d in subfolders if d not in skipped)
        found += [Path(folder) / name for name in sorted(files) if name.endswith(".md")]
    return found


def prose(path: Path) -> list[tuple[int, str, str]]:
    """The lines outside fenced code: number, text, and text with inline code blanked out."""
    lines, fenced = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        opening = FENCE.match(line)
        if opening and (fenced is None or opening[1].startswith(fenced)):
            fenced = None if fenced else opening[1]
            continue
        if fenced is None:
            lines.append((number, line, CODE_SPAN.sub(lambda m: "x" * len(m[0]), line)))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line, _ in prose(path):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading[2])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found | set(HTML_ID.findall(path.read_text(encoding="utf-8")))


def links(path: Path) -> list[tuple[int, str]]:
    return [
        (number, m[1]) for number, _, code_free in prose(path) for m in LINK.finditer(code_free)
    ]


def broken(path: Path, target: str) -> str | None:
    """Why a link from ``path`` does not resolve, or None when it does."""
    if SCHEME.match(target) or target.startswith("//"):
        return None  # another site: not checked offline
    file_part, _, anchor = target.partition("#")
    goal = (path.parent / unquote(file_part)).resolve() if file_part else path
    if not goal.exists():
        return "no such file"
    if ROOT not in goal.parents and goal != ROOT:
        return "outside the repository"
    if anchor and goal.suffix == ".md" and unquote(anchor) not in anchors(goal):
        return f"no heading #{anchor} in {goal.relative_to(ROOT)}"
    return None


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode == 0:
        return [ROOT / name for name in listed.stdout.decode().split("\0") if name]
    files = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if d not in NOT_SOURCES]
        files += [Path(folder) / name for name in names]
    return files


def test_anchors_follow_githubs_rules() -> None:
    assert slug("Live progress: streamed or long-polled") == "live-progress-streamed-or-long-polled"
    assert slug("Which `AUTH_MODE` when") == "which-auth_mode-when"
    assert slug("host.json choices") == "hostjson-choices"
    assert slug("Azure OpenAI with managed identity (no key)") == (
        "azure-openai-with-managed-identity-no-key"
    )


def test_every_relative_link_resolves() -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{number}: {target} ({why})"
        for path in markdown_files()
        for number, target in links(path)
        if (why := broken(path, target))
    ]
    assert problems == []


def test_the_docs_have_links_to_check() -> None:
    """Guards the two tests around it: a parser that finds nothing would pass them."""
    readme = links(ROOT / "README.md")
    assert ("docs/architecture.md" in {target for _, target in readme}) and len(readme) > 10
    assert "architecture" in anchors(DOCS / "architecture.md")


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for _, target in links(ROOT / "README.md")
        if not SCHEME.match(target)
    }
    assert sorted(p.name for p in DOCS.glob("*.md") if p.resolve() not in linked) == []


def test_no_file_points_outside_the_repository() -> None:
    mentions = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in tracked_files()
        if path.is_file()
        for name in OUTSIDE
        if name.encode() in path.read_bytes()
    ]
    assert mentions == []
