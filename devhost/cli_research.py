"""The ``research`` command's client: the public API, the follow loop, the answers, the files.

Split from ``devhost.cli`` (argument parsing, ``serve`` and error lines) so
this module reads as one research seen from a client: check the host, start a
session, poll it while the panel (``devhost.cli_view``) shows progress and the
text as it is written (``devhost.cli_stream``), answer
clarifying questions and review the plan when the session waits for a person,
then save the report in every format the API gives. Everything goes through
the public HTTP API; a refusal becomes a ``CommandError``, one line for the user.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import closing
from pathlib import Path

import httpx
from rich.live import Live
from rich.panel import Panel

from devhost.cli_stream import StreamedText
from devhost.cli_view import console, render
from shared.core.errors import ResearchError

TERMINAL = {"completed", "failed", "cancelled", "superseded"}
DEFAULT_ANSWER = "No further preferences: cover the question as asked, at a practical depth."
EXIT_ERROR, EXIT_INTERRUPTED = 1, 130


class CommandError(ResearchError):
    """A failure the user can act on; its message is the whole error line."""


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


class Api:
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


def run_research(api: Api, args: argparse.Namespace) -> int:
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


def _follow(api: Api, session_id: str, args: argparse.Namespace, t0: float) -> dict:
    answered = reviewed = False
    text = StreamedText(api.http, session_id)
    with Live(console=console, refresh_per_second=4, transient=False) as live, closing(text):
        while True:
            view = api.json("GET", f"/research/{session_id}")
            if view["status"] in TERMINAL:
                text.settled(timeout=5)  # the last chunks come before the final event
            live.update(render(view, time.monotonic() - t0, text.writing()))
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


def _save(api: Api, view: dict, out: Path) -> int:
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
