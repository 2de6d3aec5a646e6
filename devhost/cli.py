"""``python -m devhost``: run the host, or run one research end to end with live progress.

    python -m devhost serve [--port 7071] [--debug]
    python -m devhost research "question" [--mode deep_research] [--chat-id ID]
                                          [--answers "a" "b" | --no-clarify] [--out out]
                                          [--url http://127.0.0.1:7071/api] [--debug]
    python -m devhost ingest PATH... --collection NAME [--url ...]   (devhost/cli_ingest.py)

Without ``--url`` the research and ingest commands start a devhost in-process on a free
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

from devhost import cli_ingest
from devhost.cli_ingest import run_ingest
from devhost.cli_research import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    Api,
    CommandError,
    base_url,
    run_research,
)
from devhost.cli_view import console
from devhost.host import DevHost
from shared.bootstrap import services
from shared.core.errors import ResearchError

log = logging.getLogger("devhost")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args.port)
        if args.command == "ingest":
            return _with_host(args, run_ingest)
        return _with_host(args, run_research)
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
    cli_ingest.add_parser(sub, common)
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


def _with_host(args: argparse.Namespace, command) -> int:
    """Run ``command`` against ``--url``, or against a host of our own for its duration."""
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
            return command(Api(http, base), args)
    finally:
        if host:
            host.stop()
