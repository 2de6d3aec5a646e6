"""The CLI's terminal: the console it prints to and the live progress panel.

Split from ``devhost.cli`` so the research client (``devhost.cli_research``)
holds the HTTP conversation and this module only what the user sees while a
session runs: one panel per poll with status, phase, counters, one row per
researcher agent, the model calls still writing, a deep research's analyst, critic
and writer stages ("critic_review_complete (iteration 1/3) PASS: ...") and the end of
the answer or report text as it arrives (``devhost.cli_stream``).
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

console = Console()


WRITING_TAIL_CHARS = 1200  # the end of a long report: what a terminal shows of it
PART_TITLES = {"answer": "answer", "deep_search": "deep search answer", "report": "report"}


def render(view: dict, elapsed: float, writing: tuple[str, str] | None = None) -> Panel:
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
        f"{progress['findings']} · sources read {progress['source_count']}{_cited(view)}"
        f" · supervisor calls "
        f"{progress['supervisor_calls']} · {elapsed:5.1f}s"
    )
    parts = [line] + ([table] if progress["agents"] else [])
    if progress.get("message"):
        parts.append(f"[dim]{progress['message']}[/]")
    parts += [chain_line(stage) for stage in progress.get("chain", [])]
    for call in view.get("model_calls", []):
        parts.append(f"[dim]{call['model']} writing for {call['running_seconds']} s[/]")
    if writing and writing[1].strip():
        part, text = writing
        tail = text if len(text) <= WRITING_TAIL_CHARS else "…" + text[-WRITING_TAIL_CHARS:]
        parts += [f"[bold]{PART_TITLES.get(part, part)}[/]", Text(tail.strip())]
    return Panel(Group(*parts), title=view["query"][:80], subtitle=view["session_id"])


def _cited(view: dict) -> str:
    """How many of the sources read the report cites, once there is a report."""
    report = (view.get("result") or {}).get("report") or {}
    return f" · cited {report['source_count']}" if "source_count" in report else ""


def chain_line(stage: dict) -> str:
    """One stage of the analyst -> critic -> writer chain; its preview quotes a model."""
    line = (
        f"[bold]{stage['role']}[/] {stage['stage']} (iteration {stage['iteration']}/{stage['of']})"
    )
    if stage.get("status"):
        line += f" {escape(stage['status'])}"
    preview = stage.get("preview")
    return f"{line}: [dim]{escape(preview)}[/]" if preview else line
