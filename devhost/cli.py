"""``python -m devhost``: run the host, or run one research end to end with live progress.

    python -m devhost serve [--port 7071] [--debug]
    python -m devhost research "question" [--mode deep_research] [--chat-id ID]
                                          [--answers "a" "b" | --no-clarify] [--out out]
                                          [--url http://127.0.0.1:7071/api] [--debug]

Without ``--url`` the research command starts a devhost in-process on a free
loopback port. Everything goes through the public HTTP API, as a client would.

Every mistake a user can make (no host at ``--url``, a malformed URL, a request
the API refuses, Ctrl+C, a closed stdin while clarifying questions wait) ends
as one ``error: ...`` line on stderr and a non-zero exit code; ``--debug``
shows the traceback instead. Exit codes: 1 error, 2 usage, 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
import time
import traceback
from pathlib import Path

import httpx
from pydantic import ValidationError
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table

from devhost.host import DevHost
from shared.bootstrap import services
from shared.errors import ResearchError

console = Console()
TERMINAL = {"completed", "failed", "cancelled", "superseded"}
DEFAULT_ANSWER = "No further preferences: cover the question as asked, at a practical depth."
EXIT_ERROR, EXIT_INTERRUPTED = 1, 130

log = logging.getLogger("devhost")


class CommandError(ResearchError):
    """A failure the user can act on; its message is the whole error line."""


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args.port)
        return _research(args)
    except KeyboardInterrupt:
        return _fail(args, "interrupted", EXIT_INTERRUPTED)
    except CommandError as exc:
        return _fail(args, str(exc))
    except (ResearchError, ValidationError) as exc:  # settings from the environment
        return _fail(args, f"configuration: {_first_line(exc)}")
    except httpx.TimeoutException:
        return _fail(args, "the host did not answer within 30 s")
    except httpx.HTTPError as exc:
        return _fail(args, f"HTTP: {_first_line(exc)}")
    except OSError as exc:
        return _fail(args, f"{type(exc).__name__}: {_first_line(exc)}")


def _fail(args: argparse.Namespace, message: str, code: int = EXIT_ERROR) -> int:
    """One line on stderr (plain print: rich would wrap it); the traceback only with --debug."""
    if args.debug and sys.exc_info()[0] is not None:
        traceback.print_exc()
    print(f"error: {message}", file=sys.stderr, flush=True)
    return code


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    parser = argparse.ArgumentParser(prog="python -m devhost")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", parents=[common], help="run the Functions app on 127.0.0.1")
    serve.add_argument("--port", type=int, default=7071)
    run = sub.add_parser(
        "research", parents=[common], help="run one research and write the report to disk"
    )
    run.add_argument("query")
    run.add_argument(
        "--mode",
        default="deep_research",
        choices=["chat", "search", "deep_search", "deep_research"],
    )
    run.add_argument("--chat-id")
    clarify = run.add_mutually_exclusive_group()
    clarify.add_argument("--answers", nargs="+", help="answers to clarifying questions")
    clarify.add_argument(
        "--no-clarify",
        action="store_true",
        help="never ask clarifying questions (options.enable_clarifying_questions=false)",
    )
    run.add_argument(
        "--review-plan",
        action="store_true",
        help="show the plan and ask before researching it (options.require_plan_approval=true)",
    )
    run.add_argument("--out", type=Path, default=Path("out"))
    run.add_argument(
        "--url", help="use a running host, e.g. http://127.0.0.1:7071/api (as `make serve` prints)"
    )
    run.add_argument("--timeout", type=float, default=900)
    return parser


def _serve(port: int) -> int:
    _require_free_port(port)
    host = DevHost(port=port).start()
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    settings = host.settings
    console.print(
        f"devhost on [bold]{host.api_url}[/] — reasoner: {settings.effective_reasoner}, "
        f"search: {', '.join(settings.effective_search_providers)} (Ctrl+C stops)"
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        host.stop()
    return 0


def _require_free_port(port: int) -> None:
    """Say "in use" at once instead of waiting for the host's start-up timeout."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise CommandError(
                f"cannot listen on 127.0.0.1:{port} ({exc.strerror}); "
                "another devhost running? pick another --port"
            ) from exc


def _warm_up() -> None:
    """Imports, corpus index and fonts load while the host waits for its first request."""
    try:
        services().warm_up()
    except Exception as exc:  # the first request will meet (and report) the same problem
        log.warning("devhost: warm-up failed: %s", exc)


def base_url(raw: str) -> str:
    """The host's root from what a user pastes: with or without ``/api``, trailing slash or not."""
    text = raw.strip()
    if "://" not in text:
        raise CommandError(f"--url {raw!r} needs a scheme, e.g. http://127.0.0.1:7071/api")
    try:
        url = httpx.URL(text)
    except httpx.InvalidURL as exc:
        raise CommandError(f"--url {raw!r} is not a URL ({exc})") from exc
    if url.scheme not in ("http", "https") or not url.host:
        raise CommandError(f"--url {raw!r} must look like http://127.0.0.1:7071/api")
    if url.query or url.fragment:
        raise CommandError(f"--url {raw!r} must not carry a query or fragment")
    path = url.path.rstrip("/")
    if path.endswith("/api"):
        path = path[: -len("/api")]
    return str(url.copy_with(path=path or "/")).rstrip("/")


def _research(args: argparse.Namespace) -> int:
    host = None
    if args.url:
        base = base_url(args.url)
    else:
        host = DevHost(port=0).start()
        base = host.url
    # Our own host may require keys (DEVHOST_REQUIRE_KEYS): the CLI holds them.
    headers = {"x-functions-key": host.keys.function} if host and host.keys else {}
    try:
        with httpx.Client(base_url=base, timeout=30, headers=headers) as http:
            return _run(_Api(http, base), args)
    finally:
        if host:
            host.stop()


class _Api:
    """The public API as the CLI uses it: an answer over 399 becomes a CommandError."""

    def __init__(self, http: httpx.Client, base: str) -> None:
        self.http, self.base = http, base

    def call(self, method: str, path: str, ok: tuple[int, ...] = (), **kwargs) -> httpx.Response:
        try:
            response = self.http.request(method, f"/api{path}", **kwargs)
        except httpx.ConnectError as exc:
            raise CommandError(
                f"cannot connect to {self.base}/api: is the host running (`make serve`)?"
            ) from exc
        if response.status_code >= 400 and response.status_code not in ok:
            raise CommandError(f"{method} /api{path}: {_http_problem(response)}")
        return response

    def json(self, method: str, path: str, **kwargs) -> dict:
        response = self.call(method, path, **kwargs)
        try:
            return response.json()
        except ValueError as exc:
            raise CommandError(
                f"{self.base}/api{path} did not answer JSON: is this a deep research host?"
            ) from exc


def _http_problem(response: httpx.Response) -> str:
    """``422 invalid fields: query`` from the API's JSON error body, else the status line."""
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.reason_phrase or "error"
    return f"{response.status_code} {message}"


def _run(api: _Api, args: argparse.Namespace) -> int:
    health = api.json("GET", "/health")
    try:
        stores = health["stores"]
        line = (
            f"[bold]Deep research devhost[/] · reasoner: {health['reasoner']} · search: "
            f"{', '.join(health['search_providers'])} · stores: "
            f"{stores['sessions']['kind']}/{stores['memory']['kind']}"
        )
    except (KeyError, TypeError) as exc:
        raise CommandError(f"{api.base}/api/health is not a deep research host's answer") from exc
    console.print(line)
    body: dict = {"query": args.query, "mode": args.mode}
    if args.chat_id:
        body["chat_id"] = args.chat_id
    options: dict = {}
    if args.no_clarify:
        options["enable_clarifying_questions"] = False
    if args.review_plan:
        options["require_plan_approval"] = True
    if options:
        body["options"] = options
    session_id = api.json("POST", "/research", json=body)["session_id"]
    view = _follow(api, session_id, args, time.monotonic())
    return _save(api, view, args.out)


def _follow(api: _Api, session_id: str, args: argparse.Namespace, t0: float) -> dict:
    answered = reviewed = False
    with Live(console=console, refresh_per_second=4, transient=False) as live:
        while True:
            view = api.json("GET", f"/research/{session_id}")
            live.update(_render(view, time.monotonic() - t0))
            if view["status"] in TERMINAL:
                return view
            if time.monotonic() - t0 > args.timeout:
                raise CommandError(
                    f"session {session_id} is still {view['status']} after --timeout "
                    f"{args.timeout:g} s"
                )
            if view["status"] == "waiting_clarification" and not answered:
                live.stop()
                answers = _answers(view["clarification"]["questions"], args.answers)
                api.call("POST", f"/research/{session_id}/clarification", json={"answers": answers})
                answered = True
                live.start()
            if view["status"] == "waiting_plan_approval" and not reviewed:
                live.stop()
                decision = {"action": "approve" if _approve(view["plan"]) else "cancel"}
                api.call("POST", f"/research/{session_id}/plan", json=decision)
                reviewed = True
                live.start()
            time.sleep(0.4)


def _answers(questions: list[str], given: list[str] | None) -> list[str]:
    console.print("[bold]Clarifying questions[/] (skip them next time with --no-clarify):")
    for n, question in enumerate(questions, start=1):
        console.print(f"  {n}. {question}")
    if given:
        return given
    if sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
        try:
            return [
                console.input(f"  answer {n}: ") or DEFAULT_ANSWER
                for n in range(1, len(questions) + 1)
            ]
        except EOFError as exc:
            raise CommandError(
                "stdin closed while answering clarifying questions; pass --answers or --no-clarify"
            ) from exc
    console.print(f"  (no TTY: answering {DEFAULT_ANSWER!r})")
    return [DEFAULT_ANSWER]


def _approve(plan: dict) -> bool:
    """Show the plan; in a terminal the user approves (Enter, y) or cancels (n)."""
    console.print(f"[bold]Research plan[/] ({plan['num_agents']} agent(s)):")
    for topic in plan["topics"]:
        console.print(f"  {topic['id']}. {topic['title']}  [dim]{'; '.join(topic['queries'])}[/]")
    if sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
        try:
            reply = console.input("  approve this plan? [Y/n] ").strip().lower()
        except EOFError as exc:
            raise CommandError("stdin closed while reviewing the plan") from exc
        return reply not in ("n", "no")
    console.print("  (no TTY: approving the plan)")
    return True


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
    for call in view.get("model_calls", []):
        parts.append(f"[dim]{call['model']} writing for {call['running_seconds']} s[/]")
    return Panel(Group(*parts), title=view["query"][:80], subtitle=view["session_id"])


def _save(api: _Api, view: dict, out: Path) -> int:
    session_id = view["session_id"]
    folder = out / session_id
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    missing = (404, 409)  # a failed or cancelled run may have no report
    for fmt, name in (("md", "report.md"), ("json", "report.json")):
        response = api.call(
            "GET", f"/research/{session_id}/report", ok=missing, params={"format": fmt}
        )
        if response.status_code == 200:
            (folder / name).write_bytes(response.content)
            written.append(name)
    pdf = api.call("GET", f"/research/{session_id}/report.pdf", ok=missing)
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
    if view["status"] != "completed":
        print(f"error: session {session_id} ended {view['status']}", file=sys.stderr)
        return EXIT_ERROR
    return 0
