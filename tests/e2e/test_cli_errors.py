"""``python -m devhost`` as a user runs it: a subprocess, judged by its exit code and stderr.

Every mistake a user can make is one ``error: ...`` line on stderr and a
non-zero exit code, never a traceback; ``--debug`` shows the traceback. The
happy paths use the address ``make serve`` prints (``.../api``).
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.serve_process import free_port

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
_SETTING_NAMES = {name.upper() for name in Settings.model_fields}
RUN_S = 120


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.upper() not in _SETTING_NAMES}
    env.update(PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", COLUMNS="200")
    return env


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "devhost", *args],
        cwd=cwd,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_S,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The process failed with exactly one ``error:`` line on stderr and no traceback."""
    assert result.returncode != 0, result
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# -- no host, wrong address -------------------------------------------------------------


def test_no_host_listening_is_one_line_naming_the_address(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/api"

    line = one_error_line(run_cli("research", "q", "--url", url, cwd=tmp_path))

    assert "cannot connect" in line and url in line


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/api"

    result = run_cli("research", "q", "--url", url, "--debug", cwd=tmp_path)

    assert result.returncode == 1
    assert "Traceback" in result.stderr and "ConnectError" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("error: cannot connect")


@pytest.mark.parametrize(
    "url", ["127.0.0.1:7071/api", "ftp://127.0.0.1:7071", "http://[::1", "http://h/api?x=1"]
)
def test_a_malformed_url_is_one_line_naming_the_option(tmp_path: Path, url: str) -> None:
    line = one_error_line(run_cli("research", "q", "--url", url, cwd=tmp_path))

    assert "--url" in line and url in line


def test_a_port_in_use_is_one_line_at_once(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        line = one_error_line(run_cli("serve", "--port", str(port), cwd=tmp_path))

    assert f"127.0.0.1:{port}" in line


# -- a running devhost -------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["/api", "/api/", "", "/"])
def test_the_address_make_serve_prints_works(devhost: DevHost, tmp_path: Path, suffix: str):
    result = run_cli(
        "research", "What is a Python list?", "--mode", "chat", "--url", devhost.url + suffix,
        "--out", "out", cwd=tmp_path,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert [p.name for p in (tmp_path / "out").glob("*/report.md")] == ["report.md"]


def test_a_refused_request_names_the_problem(devhost: DevHost, tmp_path: Path) -> None:
    result = run_cli("research", "x" * 4001, "--url", f"{devhost.url}/api", cwd=tmp_path)

    line = one_error_line(result)
    assert "422" in line and "query" in line


def test_no_clarify_never_stops_for_questions(devhost: DevHost, tmp_path: Path) -> None:
    result = run_cli(
        "research", "python", "--no-clarify", "--url", f"{devhost.url}/api", cwd=tmp_path
    )

    assert result.returncode == 0, result.stderr
    assert "Clarifying questions" not in result.stdout
    assert "completed" in result.stdout


def test_a_closed_terminal_at_the_clarifying_questions_is_one_line(
    devhost: DevHost, tmp_path: Path
) -> None:
    """Ctrl+D at the first answer prompt of a terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "devhost", "research", "python", "--url", f"{devhost.url}/api"],
        cwd=tmp_path, env=cli_env(), stdin=slave, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    os.close(slave)
    try:
        _read_until(proc, "answer 1:")
        os.write(master, b"\x04")  # end of input, as the terminal sends it
        _, stderr = proc.communicate(timeout=RUN_S)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    result = subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr)

    line = one_error_line(result)
    assert "--answers" in line and "--no-clarify" in line


def _read_until(proc: subprocess.Popen, marker: str) -> None:
    seen = ""
    deadline = time.monotonic() + RUN_S
    while marker not in seen:
        assert time.monotonic() < deadline, seen
        ready, _, _ = select.select([proc.stdout], [], [], 1)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096).decode(errors="replace")
            assert chunk, f"the CLI ended before {marker!r}: {seen}"
            seen += chunk


# -- servers that are not (healthy) deep research hosts ----------------------------------


class _Stub(BaseHTTPRequestHandler):
    status, body, content_type = 200, b"", "text/plain"

    def do_GET(self) -> None:
        self.send_response(self.status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def stub_server() -> Iterator[Callable[[int, bytes, str], str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(status: int, body: bytes, content_type: str) -> str:
        handler = type("Handler", (_Stub,), {"status": status, "body": body,
                                             "content_type": content_type})  # fmt: skip
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/api"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_server_error_shows_the_json_message(stub_server, tmp_path: Path) -> None:
    body = {"error": {"code": "unavailable", "message": "temporarily unavailable", "details": []}}
    url = stub_server(503, json.dumps(body).encode(), "application/json")

    line = one_error_line(run_cli("research", "q", "--url", url, cwd=tmp_path))

    assert "503" in line and "temporarily unavailable" in line


def test_something_else_at_the_address_is_one_line(stub_server, tmp_path: Path) -> None:
    url = stub_server(200, b"<html>hello</html>", "text/html")

    line = one_error_line(run_cli("research", "q", "--url", url, cwd=tmp_path))

    assert "deep research host" in line


AS_FROM_A_TERMINAL = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('devhost', run_name='__main__', alter_sys=True)"
)


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    """SIGINT while the CLI waits on a host that accepted the connection but never answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        silent.settimeout(RUN_S)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/api"
        # as from a terminal: a suite run as a background job ignores SIGINT, and a child
        # Python keeps an inherited "ignore" (the CLI then waited out its 30 s timeout)
        proc = subprocess.Popen(
            [sys.executable, "-c", AS_FROM_A_TERMINAL, "research", "q", "--url", url],
            cwd=tmp_path, env=cli_env(), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        connection, _ = silent.accept()  # the CLI is now inside its first request
        with connection:
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=RUN_S)
    result = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)

    assert one_error_line(result) == "error: interrupted"
    assert result.returncode == 130


def test_the_answer_shows_in_the_terminal_as_it_is_written(devhost: DevHost, tmp_path) -> None:
    """The panel's text comes from the event stream's answer chunks (``devhost.cli_stream``),
    not from the saved file: it is there before the report is fetched."""
    result = run_cli(
        "research", "What is a Python list?", "--mode", "chat", "--url", devhost.url,
        "--out", "out", cwd=tmp_path,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    [saved] = (tmp_path / "out").glob("*/report.json")
    answer = json.loads(saved.read_text(encoding="utf-8"))["answer"]
    last_words = " ".join(answer.split()[-6:])
    assert "answer" in result.stdout
    assert last_words in " ".join(result.stdout.replace("│", " ").split())
