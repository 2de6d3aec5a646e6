"""The terminal's progress panel tells the sources read from the sources the report cites."""

from __future__ import annotations

from rich.console import Console

from devhost.cli_view import render


def _text(view: dict) -> str:
    console = Console(width=160, record=True)
    console.print(render(view, 1.0))
    return console.export_text()


def test_the_panel_says_sources_read_and_after_the_report_sources_cited():
    progress = {"findings": 4, "source_count": 11, "supervisor_calls": 1, "agents": []}
    view = {"query": "q", "session_id": "s", "status": "researching", "phase": "researching"}
    running = _text({**view, "progress": progress})
    assert "sources read 11" in running and "cited" not in running
    report = {"report": {"title": "t", "sections": 3, "source_count": 0}}
    done = _text({**view, "status": "completed", "progress": progress, "result": report})
    assert "sources read 11 · cited 0" in done
