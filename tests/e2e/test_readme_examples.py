"""The documentation's commands, run as written, in order, on a fresh copy of the repository.

Every ```` ```bash ```` block of README.md, infra/README.md and each page in
``docs/`` runs, ``python`` blocks are executed and ``json`` blocks parsed,
except a block whose last non-blank line before the fence is a marker with a
reason::

    <!-- readme-test: skip (needs Azure) -->

A block in any other language (a diagram, a directory map) must carry one, so
every block either runs or says why not.

The blocks run as one bash script (``set -eo pipefail``) in a copy of the
working tree, against a devhost this test starts (offline reasoner, local
corpus): ``127.0.0.1:7071`` becomes that host's address. Within a page,
variables such as ``$B`` and ``$ID`` carry from block to block, as in a
reader's shell; each page runs in a subshell of its own, so a page that
leans on another page's variables fails here as it would for a reader who
opened it first. Two shell functions make failures visible and keep the run
offline: ``curl`` fails on an HTTP error status (unless the example already
says ``-f``), and ``make`` treats the test's own virtual environment as set up
(``-o .venv/.installed``), so nothing is installed during a test.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import SecretStr

from devhost.host import DevHost
from shared.adapters.webhooks import WebhookEvent, body_of, sign, signing_keys
from shared.core.config import Settings
from tests.conftest import CORPUS_CACHE

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = (
    "README.md",
    "infra/README.md",
    *sorted(f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")),
)
RUN_S = 300
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*readme-test:\s*(?P<verb>\S+)\s*(?:\((?P<reason>[^)]*)\))?\s*-->")
SHELLS = {"bash", "sh", "shell"}
CHECKED = SHELLS | {"python", "json"}  # the languages this test runs or parses
PREAMBLE = """\
set -eo pipefail
curl() {  # an HTTP error fails the block, unless the example handles it with -f itself
  case " $* " in
    *" -f "*|*" -sf "*|*" --fail "*) command curl "$@" ;;
    *) command curl --fail-with-body "$@" ;;
  esac
}
make() { command make -o .venv/.installed "$@"; }  # the test's venv is the set-up
"""
_SETTING_NAMES = {name.upper() for name in Settings.model_fields}


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    lang: str
    text: str
    skip: str | None  # the marker's reason, or None when the block runs

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"


def blocks(document: str) -> list[Block]:
    """Fenced blocks with their language and skip marker; indented fences are dedented."""
    lines = (ROOT / document).read_text(encoding="utf-8").splitlines()
    found, n = [], 0
    while n < len(lines):
        opening = FENCE.match(lines[n])
        if not opening:
            n += 1
            continue
        indent, body, start = len(opening["indent"]), [], n
        n += 1
        while not FENCE.match(lines[n]) or lines[n].strip() != "```":
            body.append(lines[n][indent:])
            n += 1
        n += 1
        skip = _marker(lines, start)
        found.append(Block(document, start + 1, opening["lang"], "\n".join(body), skip))
    return found


def _marker(lines: list[str], fence: int) -> str | None:
    before = next((line for line in reversed(lines[:fence]) if line.strip()), "")
    match = MARKER.match(before)
    if not match:
        return None
    assert match["verb"] == "skip" and (match["reason"] or "").strip(), (
        f"a readme-test marker must read `skip (reason)`: {before.strip()}"
    )
    return match["reason"].strip()


def all_blocks() -> list[Block]:
    return [block for document in DOCUMENTS for block in blocks(document)]


# -- the convention itself ---------------------------------------------------------------


def test_the_examples_a_newcomer_follows_are_run_not_skipped() -> None:
    runnable = "\n".join(b.text for b in all_blocks() if b.lang in SHELLS and not b.skip)
    for needed in ("make demo", "devhost research", "/clarification", "/events", "report.pdf"):
        assert needed in runnable, needed


def test_every_block_runs_or_says_why_not() -> None:
    """A diagram or a snippet in another language carries a marker with its reason."""
    unchecked = [b.where for b in all_blocks() if b.lang not in CHECKED and not b.skip]
    assert unchecked == [], "add <!-- readme-test: skip (reason) --> before these blocks"


def test_the_json_examples_parse() -> None:
    """A reader copies these bodies and settings files; each is one valid JSON document."""
    for block in all_blocks():
        if block.lang == "json" and not block.skip:
            try:
                json.loads(block.text)
            except json.JSONDecodeError as exc:
                pytest.fail(f"{block.where}: {exc}")


# -- running them ------------------------------------------------------------------------


@pytest.fixture
def fresh_copy(tmp_path: Path) -> Path:
    """The working tree's files (tracked and new, not ignored), with the test's venv linked in."""
    copy = tmp_path / "repo"
    for name in _source_files():
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)  # keeps mtimes: make sees the same state
    (copy / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    (copy / ".data").mkdir()
    CORPUS_CACHE.mkdir(parents=True, exist_ok=True)
    (copy / ".data" / "corpus-cache").symlink_to(CORPUS_CACHE, target_is_directory=True)
    return copy


def _source_files() -> list[str]:
    """What a clone holds: git's list when there is a repository, else the tree minus ignores."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True,
    )  # fmt: skip
    if listed.returncode == 0:
        return [name for name in listed.stdout.decode().split("\0") if name]
    ignored = {".git", ".venv", ".venv-checkov", ".data", "out", "node_modules", "__pycache__"}
    return [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if not ignored.intersection(path.relative_to(ROOT).parts)
    ]


def script(port: int) -> str:
    """One bash script: each document's shell blocks in a subshell of their own."""
    parts = [PREAMBLE]
    for document in DOCUMENTS:
        runnable = [b for b in blocks(document) if b.lang in SHELLS and not b.skip]
        if not runnable:
            continue
        parts.append(f"(  # {document}")
        for block in runnable:
            text = block.text.replace("127.0.0.1:7071", f"127.0.0.1:{port}")
            parts.append(f'echo "@@ {block.where}" >&2\n{text}\n')
        parts.append(")")
    return "\n".join(parts)


def test_every_shell_block_runs_as_written(devhost: DevHost, fresh_copy: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k.upper() not in _SETTING_NAMES}
    env.update(PYTHONUNBUFFERED="1", COLUMNS="120")
    started = time.monotonic()

    result = subprocess.run(
        ["bash", "-c", script(devhost.port)],
        cwd=fresh_copy, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=RUN_S,
    )  # fmt: skip

    ran = re.findall(r"^@@ (\S+)$", result.stderr, re.MULTILINE)
    assert result.returncode == 0, (
        f"the block at {ran[-1] if ran else '?'} failed (exit {result.returncode}):\n"
        f"--- stdout (end)\n{result.stdout[-4000:]}\n--- stderr (end)\n{result.stderr[-4000:]}"
    )
    # What a reader would see: the demos' reports, the stream's end, the PDF.
    assert len(list((fresh_copy / "out").glob("*/report.pdf"))) >= 2, result.stdout[-2000:]
    assert re.search(r"^completed ", result.stdout, re.MULTILINE), result.stdout[-2000:]
    pdfs = [p.read_bytes()[:4] for p in fresh_copy.glob("research-*.pdf")]
    assert pdfs and set(pdfs) == {b"%PDF"}, pdfs
    print(f"{len(ran)} documentation blocks ran in {time.monotonic() - started:.1f} s")


def test_the_python_examples_run() -> None:
    """The receiver's check accepts what the service signs and refuses a tampered body."""
    namespace: dict = {}
    for block in all_blocks():
        if block.lang == "python" and not block.skip:
            exec(compile(block.text, block.where, "exec"), namespace)  # our own docs
    verified_event = namespace["verified_event"]
    secret = "whsec_" + base64.b64encode(b"r" * 32).decode()
    event = WebhookEvent(
        id="s1:completed",
        event="completed",
        session_id="s1",
        chat_id="c1",
        status="completed",
        occurred_at="2026-01-01T00:00:00+00:00",
    )
    body, timestamp = body_of(event), str(int(time.time()))
    headers = {
        "webhook-id": event.id,
        "webhook-timestamp": timestamp,
        "webhook-signature": sign(signing_keys(SecretStr(secret)), event.id, timestamp, body),
    }
    assert verified_event(secret, headers, body)["type"] == "research.completed"
    assert verified_event(secret, headers, body + b" ") is None


if __name__ == "__main__":  # print the script, to run the docs by hand against a host
    sys.stdout.write(script(int(sys.argv[1]) if len(sys.argv) > 1 else 7071))
