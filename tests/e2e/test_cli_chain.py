"""``make demo``'s command (``python -m devhost research``) prints the analyst, critic and
writer stages of a deep research, each with its iteration (issue 29 item 5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from devhost.host import DevHost
from orchestrators.deep_research import CRITIC_ROUNDS
from tests.e2e.test_cli_errors import run_cli

pytestmark = pytest.mark.e2e


def test_the_cli_prints_the_chain_stages(devhost: DevHost, tmp_path: Path) -> None:
    result = run_cli(
        "research",
        "How do Python generators work?",
        "--no-clarify",
        "--url",
        f"{devhost.url}/api",
        cwd=tmp_path,
    )

    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "analyst analyst_analyzing (iteration 1/2)" in out
    assert "writer writer_composing (iteration 1/1)" in out
    assert re.search(
        r"analyst analyst_(draft_ready|search_required) \(iteration 1/2\) (READY|SEARCH_REQUIRED)",
        out,
    )
    verdict = rf"critic critic_review_complete \(iteration 1/{CRITIC_ROUNDS}\) (PASS|WARN|REJECT)"
    assert re.search(verdict, out), out
    assert out.index("analyst_analyzing") < out.index("critic_reviewing")
