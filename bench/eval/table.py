"""The results as a Markdown table: one row per task, then the means."""

from __future__ import annotations

from bench.eval.judge import DIMENSIONS

COLUMNS = ("task", "status", "s", "calls", "cost $", "cited", "quotes found", "accuracy",
           "effective", *DIMENSIONS, "RACE", "judge $")  # fmt: skip


def render(summary: dict) -> str:
    rows = [_cells(r) for r in summary["tasks"]]
    rows.append(_means(summary["tasks"]))
    lines = [
        f"reasoner: {summary['reasoner']}; judge: {summary['judge'] or 'none (offline)'}",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def _cells(row: dict) -> list[str]:
    race = row.get("race") or {}
    usage = row.get("usage") or {}
    return [
        row["id"],
        row["status"],
        f"{row.get('seconds', 0):.0f}",
        str(usage.get("llm_calls", 0)),
        f"{usage.get('cost', 0.0):.4f}",
        str(row.get("citations", "—")),
        _share(row.get("quote_share")),
        _share(row.get("citation_accuracy")),
        _value(row.get("effective_citations")),
        *(_share(race.get(d)) for d in DIMENSIONS),
        _share(race.get("overall")),
        f"{(row.get('judge_usage') or {}).get('cost', 0.0):.4f}",
    ]


def _means(rows: list[dict]) -> list[str]:
    def mean(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return sum(known) / len(known) if known else None

    races = [r.get("race") or {} for r in rows]
    return [
        "**mean**",
        f"{sum(r['status'] == 'completed' for r in rows)}/{len(rows)} completed",
        "",
        "",
        f"{sum((r.get('usage') or {}).get('cost', 0.0) for r in rows):.4f}",
        "",
        _share(mean([r.get("quote_share") for r in rows])),
        _share(mean([r.get("citation_accuracy") for r in rows])),
        _value(mean([r.get("effective_citations") for r in rows])),
        *(_share(mean([x.get(d) for x in races])) for d in DIMENSIONS),
        _share(mean([x.get("overall") for x in races])),
        f"{sum((r.get('judge_usage') or {}).get('cost', 0.0) for r in rows):.4f}",
    ]


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _value(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"
