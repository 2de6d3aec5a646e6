"""Task sets: the one shipped with the project, and DeepResearch Bench's task file.

DeepResearch Bench (github.com/Ayanami0730/deep_research_bench) keeps its tasks
in ``data/prompt_data/query.jsonl`` (one ``{"id", "topic", "language", "prompt"}``
per line) and its reference reports in ``data/test_data/cleaned_data/reference.jsonl``
(``{"id", "prompt", "article"}``). The benchmark's data is not copied here: a
user who has it passes the paths.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

SHIPPED = Path(__file__).with_name("tasks.jsonl")


class Task(BaseModel):
    id: str
    prompt: str
    language: str = "en"
    reference: str | None = None  # a reference report the judge compares against


def shipped_tasks() -> list[Task]:
    return _read(SHIPPED)


def deep_research_bench(queries: Path, references: Path | None = None) -> list[Task]:
    """DeepResearch Bench's tasks, each with its reference article when ``references`` is given."""
    articles: dict[str, str] = {}
    if references is not None:
        for row in _rows(references):
            articles[str(row["id"])] = str(row.get("article") or "")
    return [
        Task(
            id=str(row["id"]),
            prompt=str(row["prompt"]),
            language=str(row.get("language") or "en"),
            reference=articles.get(str(row["id"])) or None,
        )
        for row in _rows(queries)
    ]


def _read(path: Path) -> list[Task]:
    return [Task.model_validate(row) for row in _rows(path)]


def _rows(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
