"""``python -m devhost``: run the host, or run one research end to end with live progress.

    python -m devhost serve [--port 7071]
    python -m devhost research "question" [--mode deep_research] [--chat-id ID]
                                          [--answers "a" "b" | --no-clarify] [--out out]
                                          [--url http://127.0.0.1:7071]

Without ``--url`` the research command starts a devhost in-process on a free
loopback port. Everything goes through the public HTTP API, as a client would.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path

import httpx
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table

from devhost.host import DevHost
from shared.bootstrap import services

console = Console()
TERMINAL = {"completed", "failed", "cancelled", "superseded"}
DEFAULT_ANSWER = "No further preferences: cover the question as asked, at a practical depth."

log = logging.getLogger("devhost")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args.port)
    return _research(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m devhost")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the Functions app on 127.0.0.1")
    serve.add_argument("--port", type=int, default=7071)
    run = sub.add_parser("research", help="run one research and write the report to disk")
    run.add_argument("query")
    run.add_argument(
        "--mode",
        default="deep_research",
        choices=["chat", "search", "deep_search", "deep_research"],
    )
    run.add_argument("--chat-id")
    run.add_argument("--answers", nargs="+", help="answers to clarifying questions")
    run.add_argument("--no-clarify", action="store_true", help="skip clarifying questions")
    run.add_argument("--out", type=Path, default=Path("out"))
    run.add_argument("--url", help="use a running host instead of starting one")
    run.add_argument("--timeout", type=float, default=900)
    return parser


def _serve(port: int) -> int:
    host = DevHost(port=port).start()
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    settings = host.settings
    console.print(
        f"devhost on [bold]{host.url}/api[/] — reasoner: {settings.effective_reasoner}, "
        f"search: {', '.join(settings.effective_search_providers)} (Ctrl+C stops)"
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        host.stop()
    return 0


def _warm_up() -> None:
    """Imports, corpus index and fonts load while the host waits for its first request."""
    try:
        services().warm_up()
    except Exception as exc:  # the first request will meet (and report) the same problem
        log.warning("devhost: warm-up failed: %s", exc)


def _research(args: argparse.Namespace) -> int:
    host = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        host = DevHost(port=0).start()
        base = host.url
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            return _run(http, args)
    finally:
        if host:
            host.stop()


def _run(http: httpx.Client, args: argparse.Namespace) -> int:
    health = http.get("/api/health").json()
    console.print(
        f"[bold]Deep research devhost[/] · reasoner: {health['reasoner']} · search: "
        f"{', '.join(health['search_providers'])} · stores: "
        f"{health['stores']['sessions']['kind']}/{health['stores']['memory']['kind']}"
    )
    body = {"query": args.query, "mode": args.mode}
    if args.chat_id:
        body["chat_id"] = args.chat_id
    if args.no_clarify:
        body["options"] = {"enable_clarifying_questions": False}
    started = http.post("/api/research", json=body)
    if started.status_code >= 400:
        console.print(f"[red]{started.status_code}[/] {started.text}")
        return 1
    session_id = started.json()["session_id"]
    view = _follow(http, session_id, args, time.monotonic())
    return _save(http, view, args.out)


def _follow(http: httpx.Client, session_id: str, args, t0: float) -> dict:
    answered = False
    with Live(console=console, refresh_per_second=4, transient=False) as live:
        while True:
            view = http.get(f"/api/research/{session_id}").json()
            live.update(_render(view, time.monotonic() - t0))
            if view["status"] in TERMINAL or time.monotonic() - t0 > args.timeout:
                return view
            if view["status"] == "waiting_clarification" and not answered:
                live.stop()
                answers = _answers(view["clarification"]["questions"], args.answers)
                http.post(f"/api/research/{session_id}/clarification", json={"answers": answers})
                answered = True
                live.start()
            time.sleep(0.4)


def _answers(questions: list[str], given: list[str] | None) -> list[str]:
    console.print("[bold]Clarifying questions:[/]")
    for n, question in enumerate(questions, start=1):
        console.print(f"  {n}. {question}")
    if given:
        return given
    if sys.stdin.isatty():
        return [
            console.input(f"  answer {n}: ") or DEFAULT_ANSWER for n in range(1, len(questions) + 1)
        ]
    console.print(f"  (no TTY: answering {DEFAULT_ANSWER!r})")
    return [DEFAULT_ANSWER]


def _render(view: dict, elapsed: float) -> Panel:
    progress = view["progress"]
    table = Table(show_header=True, header_style="bold", expand=True)
    table.add_column("agent", width=6)
    table.add_column("profile")
    table.add_column("current todo")
    table.add_column("done", justify="right", width=5)
    for agent in progress["agents"]:
        table.add_row(
            str(agent["id"]),
            agent.get("profile", ""),
            agent.get("todo") or "—",
            str(agent.get("done", 0)),
        )
    line = (
        f"status [bold]{view['status']}[/] · phase [bold]{view['phase']}[/] · findings "
        f"{progress['findings']} · sources {progress['sources']} · supervisor calls "
        f"{progress['supervisor_calls']} · {elapsed:5.1f}s"
    )
    parts = [line] + ([table] if progress["agents"] else [])
    if progress.get("message"):
        parts.append(f"[dim]{progress['message']}[/]")
    return Panel(Group(*parts), title=view["query"][:80], subtitle=view["session_id"])


def _save(http: httpx.Client, view: dict, out: Path) -> int:
    session_id = view["session_id"]
    folder = out / session_id
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt, name in (("md", "report.md"), ("json", "report.json")):
        response = http.get(f"/api/research/{session_id}/report", params={"format": fmt})
        if response.status_code == 200:
            (folder / name).write_bytes(response.content)
            written.append(name)
    pdf = http.get(f"/api/research/{session_id}/report.pdf")
    if pdf.status_code == 200:
        (folder / "report.pdf").write_bytes(pdf.content)
        written.append("report.pdf")
    usage = view.get("usage", {})
    console.print(
        f"[bold]{view['status']}[/] — wrote {', '.join(written) or 'nothing'} to "
        f"{folder} · LLM calls {usage.get('llm_calls', 0)}"
    )
    if view.get("error"):
        console.print(f"[red]error:[/] {view['error']}")
    if "report.md" in written:
        console.print(
            Panel(
                (folder / "report.md").read_text(encoding="utf-8")[:1500],
                title="report.md (first lines)",
            )
        )
    return 0 if view["status"] == "completed" else 1
