"""Offline search and chat answers on the labelled set: do they quote what a person would cite?

``bench.precision`` scores deep research reports; a newcomer's first question on the web
page is as often a chat or a search. Per half and mode this prints precision (documents
quoted that are relevant or accepted), recall@5 (relevant documents quoted, at most
``RECALL_CAP`` per question) and the answers that quote nothing although the labels list
relevant documents. A search answer's documents are its numbered sources; a chat answer
has none (it quotes, it does not number), so its documents are the titles its first line
names ("From the local reference (json — …)"), matched against the corpus's titles. The
held-out half prints its totals only, as ``bench.precision`` does.

``python -m bench.answers [--half tune|report]`` runs it alone (about a minute per mode and half).
"""

from __future__ import annotations

import json
import sys

from bench.precision import HALVES, HELD_OUT, Score, labelled, run_halves
from bench.results import Row
from bench.scenarios import Bench, offline_settings, temp_dir
from shared.bootstrap import services

MODES = ("search", "chat")


def answer_keys(answer: dict, mode: str, titles: dict[str, str]) -> list[str]:
    """The corpus keys an answer quotes: a search's sources, the documents a chat names."""
    if mode == "search":
        return [s["url"].removeprefix("corpus://") for s in answer.get("sources", [])]
    named = answer["answer"].split("\n\n")[0]
    return [key for title, key in titles.items() if title in named]


def corpus_titles() -> dict[str, str]:
    """Each built-in document's title with its key ("json — JSON …" → "python-stdlib/json")."""
    pages = services().corpus.documents()
    return {p.title: p.url.removeprefix("corpus://") for p in pages if p.title}


def measure(half: str, mode: str) -> tuple[Score, list[str]]:
    data_dir = temp_dir()
    bench = Bench(offline_settings(data_dir))
    titles = corpus_titles()
    score, lines = Score(), []
    try:
        for label in labelled(half):
            session_id, _, view = bench.run(mode, label.question)
            done = view["status"] == "completed"
            path = data_dir / "memory" / session_id / "answer.json"
            keys = answer_keys(json.loads(path.read_text()), mode, titles) if done else []
            score.add(label, keys)
            off = [k.split("/", 1)[1] for k in keys if k not in label.accepted]
            lines.append(
                f"{len(keys) - len(off)}/{len(keys)} on topic, off: {off} — {label.question}"
            )
    finally:
        bench.close()
    return score, lines


def row(half: str, mode: str, score: Score) -> Row:
    held = ", held out" if half == HELD_OUT else ", tuned on"
    return (
        f"offline {mode} answers, {half} half ({score.questions} questions{held}): "
        "precision / recall@5 / quoting nothing though relevant documents exist",
        f"{score.precision:.2f} ({score.on_topic}/{score.cited}) / {score.recall:.2f} "
        f"({score.relevant_cited}/{score.relevant_available}) / {score.empty}",
        "",
        "—",
    )


def bench_answers(halves: tuple[str, ...] = HALVES) -> list[Row]:
    out: list[Row] = []
    for half in halves:
        for mode in MODES:
            score, lines = measure(half, mode)
            for line in lines if half != HELD_OUT else ():
                print(f"    {mode}: {line}", flush=True)
            out.append(row(half, mode, score))
    return out


def main(argv: list[str] | None = None) -> int:
    return run_halves("python -m bench.answers", bench_answers, argv)


if __name__ == "__main__":
    sys.exit(main())
