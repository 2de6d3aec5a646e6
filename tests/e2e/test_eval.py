"""``make eval``'s module, run as CI runs it: against the OpenAI-protocol fake, and offline.

The harness drives devhost over HTTP and the judge over the real ``openai``
client; nothing of ours is patched, only the environment is set (the same
variables a user sets for a real model and judge).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.eval import run
from tests.fakes.openai_server import FakeOpenAIServer, schema_aware_responder

pytestmark = pytest.mark.e2e


@pytest.fixture
def environment(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default corpus (Python's documentation topics), which the shipped tasks are about."""
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.setenv("SEARCH_PROVIDER", "local")
    return tmp_path / "out"


def test_the_harness_scores_reports_with_the_judge_against_the_fake(
    environment: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(schema_aware_responder) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("EVAL_JUDGE_MODEL", "judge-model")
        status = run.main(["--limit", "2", "--out", str(environment)])
        judged = [r for r in fake.requests if r.json.get("model") == "judge-model"]

    printed = capsys.readouterr().out
    assert status == 0, printed
    results = json.loads((environment / "results.json").read_text())
    assert results["reasoner"] == "llm" and results["judge"] == "judge-model"
    assert [t["id"] for t in results["tasks"]] == ["with", "exceptions"]
    for task in results["tasks"]:
        assert set(task["race"]) == {
            "comprehensiveness",
            "depth",
            "instruction_following",
            "readability",
            "overall",
        }
        assert all(0.0 <= v <= 1.0 for v in task["race"].values())
        assert task["usage"]["llm_calls"] > 0
    # the first task has a reference: the judge scored it and the reference
    names = [r.json["response_format"]["json_schema"]["name"] for r in judged]
    assert names.count("RaceScores") == 3
    # every fetched citation was put to the judge
    cited = sum(t["citations"] for t in results["tasks"])
    assert cited > 0 and names.count("Support") == cited
    # the judge's calls are billed apart from the research's
    assert sum(t["judge_usage"]["llm_calls"] for t in results["tasks"]) == len(judged)
    assert "| with | completed |" in printed and "RACE" in printed


def test_offline_the_quotes_are_checked_in_the_cited_documents(
    environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run.main(["--limit", "1", "--out", str(environment)])

    printed = capsys.readouterr().out
    assert status == 0, printed
    (task,) = json.loads((environment / "results.json").read_text())["tasks"]
    assert task["citations"] > 0
    assert "race" not in task and task["citation_accuracy"] is None
    # the offline writer quotes: its cited sentences are in the documents it cites
    assert task["quote_share"] is not None and task["quote_share"] >= 0.8
    assert task["quotes_found"] <= task["citations"]
    assert "judge: none (offline)" in printed
