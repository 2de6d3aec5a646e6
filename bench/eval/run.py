"""``python -m bench.eval``: run a task set with the configured model and search, then score it.

Each task is a deep research through devhost and its HTTP API, with the
settings of the environment (the same variables as the app: ``OPENAI_*`` /
``AZURE_OPENAI_*``, ``SEARCH_PROVIDER``, ``EVAL_JUDGE_MODEL``...). Without an LLM
endpoint the offline reasoner writes and no judge is available: the quote check
still runs for real. Prints the table and writes ``results.json`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import httpx

from bench.eval import fact, tasks
from bench.eval.judge import Judge
from bench.eval.statements import cited_statements
from bench.eval.table import render
from devhost.host import DevHost
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.errors import ResearchError
from shared.core.report_models import FinalReport
from shared.tools.llm_endpoint.usage import metered

OPTIONS = {"num_agents": 2, "agent_max_steps": 3, "enable_clarifying_questions": False}
TERMINAL = {"completed", "failed", "cancelled", "superseded"}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings()
    chosen = _tasks(args)[: args.limit or None]
    judge = Judge(settings) if settings.llm_configured else None
    fetcher = AppServices(settings).fetcher
    host = DevHost(settings=settings, port=0).start()
    rows = []
    try:
        with httpx.Client(base_url=host.url, timeout=30) as api:
            for task in chosen:
                rows.append(_evaluate(api, task, json.loads(args.options), judge, fetcher, args))
    finally:
        host.stop()
    summary = {
        "reasoner": settings.effective_reasoner,
        "judge": judge.model if judge else None,
        "tasks": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(render(summary))
    print(f"\nwritten: {args.out / 'results.json'}")
    return 0 if rows and all(r["status"] == "completed" for r in rows) else 1


def _evaluate(api: httpx.Client, task, options: dict, judge, fetcher, args) -> dict:
    started = time.monotonic()
    body = {"query": task.prompt, "mode": "deep_research", "options": options}
    response = api.post("/api/research", json=body)
    response.raise_for_status()
    session_id = response.json()["session_id"]
    view = _wait(api, session_id, args.timeout)
    row: dict = {"id": task.id, "status": view["status"], "usage": view["usage"]}
    row["seconds"] = round(time.monotonic() - started, 1)
    if view["status"] != "completed":
        return row
    path = f"/api/research/{session_id}/report"
    report = FinalReport.model_validate(api.get(path, params={"format": "json"}).json())
    markdown = api.get(path, params={"format": "md"}).text
    with metered() as judging:  # the judge's own calls, apart from the research's
        checked = fact.check(cited_statements(report), fetcher, judge)
        if judge is not None:
            try:
                row["race"] = judge.race(task.prompt, markdown, task.reference)
            except ResearchError as exc:  # one unreadable verdict costs that score, not the run
                row["race_error"] = str(exc)[:300]
    row.update(
        sections=len(report.sections),
        sources=len(report.sources),
        statements=checked.statements,
        citations=checked.citations,
        quotes_found=checked.quotes_found,
        quote_share=checked.quote_share,
        citation_accuracy=checked.accuracy,
        effective_citations=checked.supported if judge else None,
        judge_usage=judging.usage.model_dump(mode="json"),
    )
    return row


def _wait(api: httpx.Client, session_id: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        view = api.get(f"/api/research/{session_id}").json()
        if view["status"] in TERMINAL or time.monotonic() > deadline:
            return view
        time.sleep(0.5)


def _tasks(args: argparse.Namespace) -> list[tasks.Task]:
    if args.drb_queries:
        return tasks.deep_research_bench(args.drb_queries, args.drb_references)
    return tasks.shipped_tasks()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.eval", description=__doc__)
    parser.add_argument("--drb-queries", type=Path, help="DeepResearch Bench's query.jsonl")
    parser.add_argument("--drb-references", type=Path, help="its reference.jsonl (RACE)")
    parser.add_argument("--limit", type=int, default=0, help="the first N tasks only")
    parser.add_argument("--options", default=json.dumps(OPTIONS), help="research options, JSON")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per task")
    parser.add_argument("--out", type=Path, default=Path("out/eval"))
    return parser
