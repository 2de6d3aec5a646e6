"""Offline citation precision: how many cited sources are about the question.

Twelve questions over the default corpus (the Python language reference), each with
the documents a reader would accept as on-topic (``ON_TOPIC``, keys of
``corpus://python-reference/<key>``; written by hand from the documents' titles and
contents, generous rather than strict: ``compound`` counts for any statement). A
cited source outside its question's set is off-topic. The target (#19) is at most
one off-topic source in ten. Precision alone rewards citing nothing, so the second row
prints how many on-topic sources a report cites on average (no target: the corpus has
two to eight pages per question).
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.results import Row, verdict
from bench.scenarios import Bench, offline_settings, temp_dir

TARGET = 0.9
OPTIONS = {"enable_clarifying_questions": False}
ON_TOPIC: dict[str, set[str]] = {
    "How do context managers and the with statement work in Python?": {
        "with", "context-managers", "compound", "specialnames", "async", "try",
    },
    "How does exception handling with try, except and finally work in Python?": {
        "try", "exceptions", "raise", "compound", "with", "execmodel", "bltin-type-objects",
    },
    "How do generators and the yield expression work in Python?": {
        "yield", "return", "types", "typesfunctions", "async", "compound", "function",
    },
    "How do for loops and while loops work in Python, including break and continue?": {
        "for", "while", "break", "continue", "compound", "else",
    },
    "How are comparisons and chained comparison operators evaluated in Python?": {
        "comparisons", "booleans", "customization", "operator-summary", "specialnames", "in",
        "typesseq",
    },
    "How does Python decide which names are global, nonlocal or local in a function?": {
        "naming", "global", "nonlocal", "execmodel", "assignment", "function", "compound",
    },
    "How do lambda expressions and function definitions differ in Python?": {
        "lambda", "function", "compound", "types", "typesfunctions", "callable-types",
    },
    "How does the import statement find and load modules in Python?": {
        "import", "typesmodules", "naming", "execmodel",
    },
    "How do slicing and subscriptions work on Python sequences?": {
        "slicings", "subscriptions", "typesseq", "typesseq-mutable", "sequence-types",
        "assignment", "types",
    },
    "How are f-strings and format specifications used in Python?": {
        "formatstrings", "strings", "string-methods", "customization", "specialnames",
    },
    "How do class definitions and special methods like __init__ work in Python?": {
        "class", "customization", "specialnames", "specialattrs", "types", "compound",
        "attribute-access", "typesmethods",
    },
    "How do async functions, await and coroutines work in Python?": {
        "async", "await", "compound", "types", "typesfunctions",
    },
}  # fmt: skip


def cited_keys(data_dir: Path, session_id: str) -> list[str]:
    report = json.loads((data_dir / "memory" / session_id / "report.json").read_text())
    return [s["url"].rsplit("/", 1)[-1] for s in report["sources"]]


def measure() -> tuple[int, int, list[str]]:
    """(on-topic citations, all citations, one line per question)."""
    data_dir = temp_dir()
    bench = Bench(offline_settings(data_dir))
    on = total = 0
    lines = []
    try:
        for query, accepted in ON_TOPIC.items():
            session_id, _, view = bench.run("deep_research", query, OPTIONS)
            keys = cited_keys(data_dir, session_id) if view["status"] == "completed" else []
            off = [k for k in keys if k not in accepted]
            on, total = on + len(keys) - len(off), total + len(keys)
            lines.append(f"{len(keys) - len(off)}/{len(keys)} on topic, off: {off} — {query}")
    finally:
        bench.close()
    return on, total, lines


def bench_precision() -> list[Row]:
    on, total, lines = measure()
    for line in lines:
        print(f"    {line}", flush=True)
    precision = on / total if total else 0.0
    return [
        (
            f"offline citation precision, {len(ON_TOPIC)} questions (cited sources on topic)",
            f"{precision:.2f} ({on}/{total})",
            f"≥ {TARGET:.2f}",
            verdict(precision >= TARGET),
        ),
        (
            "offline on-topic sources cited per report (mean)",
            f"{on / len(ON_TOPIC):.1f}",
            "",
            verdict(None),
        ),
    ]
