"""Offline citation quality on a labelled set: precision, recall, on-topic sources, empties.

``bench/labels.json`` holds questions over the default corpus, split in two halves:
``tune`` (the gate's constants may be set on it) and ``report`` (held out: never
tuned on; its numbers are the ones the targets apply to). How the labels were
chosen is written in ``bench/README.md`` ("The labelled set"). Per question:

- ``relevant``: the documents a person answering it would cite;
- ``accepted``: further documents that are on topic without being needed.

Keys are corpus paths: ``with`` is ``corpus://python-reference/with``,
``stdlib/functools`` is ``corpus://python-stdlib/functools``. Per half the bench
prints precision (cited sources that are relevant or accepted), recall (relevant
documents cited out of those labelled, at most ``RECALL_CAP`` per question), the
mean number of on-topic sources per report, the share of reports that cite
nothing although their labels list relevant documents, and the share that quote the
nearest page read, flagged as only coming near the question (their citations count
for precision and recall like any others). Beside on-topic sources it prints their
ceiling (``ceiling``): the on-topic documents among the first ``CITED`` and
``2 × CITED`` candidates of the ranking the engine chooses from, words and meaning
fused (``BuiltinCorpus.by_meaning``), i.e. what a perfect judge of those candidates
could cite. The tune half is also totalled per part
(``PARTS``: the first 50 questions, the probe set, the former held-out half), so a
change is judged on each.

``python -m bench.precision [--half tune|report]`` runs it alone (a minute per half).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.results import Row, verdict
from bench.scenarios import Bench, offline_settings, remove_temp_dirs, temp_dir
from shared.adapters.reasoning import offline_meaning
from shared.adapters.reasoning.offline_meaning import CITED
from shared.adapters.reasoning.offline_near import is_near
from shared.adapters.search.base import Corpus
from shared.bootstrap import services

LABELS = Path(__file__).with_name("labels.json")
HALVES = ("tune", "report")
HELD_OUT = "report"
RECALL_CAP = 5
TARGETS = {"precision": 0.9, "recall": 0.6, "on_topic": 4.0, "empty": 0.0}
OPTIONS = {"enable_clarifying_questions": False}
# The tune half's parts, judged apart so a change tuned on one part shows what it does on
# the others: the first 50 questions (the gate's rules were set on them), the probe set of
# 24 everyday questions, and the former held-out half of 26, appended last when a fresh
# half replaced it (see bench/README.md)
PARTS = {"tune": (("first 50", 0, 50), ("probe 24", 50, 74), ("former held-out 26", 74, None))}


@dataclass(frozen=True)
class Labelled:
    question: str
    relevant: frozenset[str]
    accepted: frozenset[str]  # relevant ones included


@dataclass
class Score:
    cited: int = 0
    on_topic: int = 0
    relevant_cited: int = 0
    relevant_available: int = 0
    empty: int = 0
    near: int = 0  # reports quoting the nearest page, flagged (``offline_near``)
    questions: int = 0
    # on-topic documents among the ranking's first CITED and 2 × CITED (None: no vectors)
    ceiling: list[int] | None = None

    def add(self, label: Labelled, keys: list[str], near: bool = False) -> None:
        """``near``: the report says its sources only come near the question; its
        citations count like any others, and it does not cite nothing."""
        self.questions += 1
        self.near += near
        self.cited += len(keys)
        self.on_topic += sum(1 for k in keys if k in label.accepted)
        self.relevant_cited += min(len(label.relevant.intersection(keys)), RECALL_CAP)
        self.relevant_available += min(len(label.relevant), RECALL_CAP)
        self.empty += not keys and bool(label.relevant)

    def add_ceiling(self, label: Labelled, ranked: list[str] | None) -> None:
        """``ranked``: the corpus keys the engine chooses cited documents from, best first."""
        if ranked is None:
            return
        found = [sum(k in label.accepted for k in ranked[:n]) for n in (CITED, 2 * CITED)]
        self.ceiling = [a + b for a, b in zip(self.ceiling or [0, 0], found, strict=True)]

    @property
    def precision(self) -> float:
        return self.on_topic / self.cited if self.cited else 0.0

    @property
    def recall(self) -> float:
        return self.relevant_cited / self.relevant_available if self.relevant_available else 0.0


def corpus_key(label: str) -> str:
    """ "with" -> "python-reference/with"; "stdlib/functools" -> "python-stdlib/functools"."""
    if label.startswith("stdlib/"):
        return "python-stdlib/" + label.removeprefix("stdlib/")
    return "python-reference/" + label


def labelled(half: str) -> list[Labelled]:
    out = []
    for item in json.loads(LABELS.read_text(encoding="utf-8"))[half]:
        relevant = frozenset(corpus_key(k) for k in item["relevant"])
        accepted = relevant | {corpus_key(k) for k in item["accepted"]}
        out.append(Labelled(item["q"], relevant, frozenset(accepted)))
    return out


def cited_keys(data_dir: Path, session_id: str) -> tuple[list[str], bool]:
    """The corpus keys a report cites, and whether it only quotes the nearest page."""
    report = json.loads((data_dir / "memory" / session_id / "report.json").read_text())
    keys = [s["url"].removeprefix("corpus://") for s in report["sources"]]
    return keys, is_near(report["executive_summary"])


def candidates(corpus: Corpus, question: str) -> list[str] | None:
    """The keys of the documents the engine's rule by meaning chooses from (``offline_meaning``),
    best first; None when the collection has no vectors."""
    ranked = offline_meaning.ranking(corpus, question)
    return None if ranked is None else [u.removeprefix("corpus://") for u, _ in ranked]


def measure(half: str) -> tuple[Score, list[str]]:
    """The half's score and one line per question, then one line per part (``PARTS``)."""
    data_dir = temp_dir()
    bench = Bench(offline_settings(data_dir))
    score = Score()
    lines = []
    parts = [(name, start, end, Score()) for name, start, end in PARTS.get(half, ())]
    try:
        for i, label in enumerate(labelled(half)):
            session_id, _, view = bench.run("deep_research", label.question, OPTIONS)
            done = view["status"] == "completed"
            keys, near = cited_keys(data_dir, session_id) if done else ([], False)
            ranked = candidates(services().corpus, label.question)
            score.add(label, keys, near)
            score.add_ceiling(label, ranked)
            for _, start, end, part in parts:
                if start <= i and (end is None or i < end):
                    part.add(label, keys, near)
                    part.add_ceiling(label, ranked)
            off = [k.split("/", 1)[1] for k in keys if k not in label.accepted]
            missed = sorted(k.split("/", 1)[1] for k in label.relevant if k not in keys)
            on = len(keys) - len(off)
            flag = " (nearest page, flagged)" if near else ""
            lines.append(
                f"{on}/{len(keys)} on topic{flag}, off: {off}, missed: {missed} — {label.question}"
            )
    finally:
        bench.close()
    return score, lines + [part_line(name, part) for name, _, _, part in parts]


def part_line(name: str, score: Score) -> str:
    """One part's totals, in the order of ``rows``."""
    n = score.questions or 1
    return (
        f"{name}: precision {score.precision:.2f} ({score.on_topic}/{score.cited}), "
        f"recall {score.recall:.2f} ({score.relevant_cited}/{score.relevant_available}), "
        f"on-topic {score.on_topic / n:.1f} (ceiling {ceiling(score)}), "
        f"citing nothing {score.empty}/{score.questions}, "
        f"nearest page {score.near}/{score.questions}"
    )


def ceiling(score: Score) -> str:
    """The on-topic documents a perfect judge could cite from the ranking's first CITED and
    2 × CITED candidates, per report."""
    if score.ceiling is None:
        return "n/a: no vectors"
    n = score.questions or 1
    first, second = (found / n for found in score.ceiling)
    return f"{first:.1f} of the first {CITED}, {second:.1f} of {2 * CITED}"


def rows(half: str, score: Score) -> list[Row]:
    held_out = half == HELD_OUT
    name = f"offline citations, {half} half ({score.questions} questions"
    name += ", held out)" if held_out else ", tuned on)"

    def met(ok: bool) -> str:
        return verdict(ok if held_out else None)

    def target(text: str) -> str:
        return text if held_out else ""

    on_topic = score.on_topic / score.questions if score.questions else 0.0
    empty = score.empty / score.questions if score.questions else 0.0
    near = score.near / score.questions if score.questions else 0.0
    return [
        (
            f"{name}: precision (cited sources on topic)",
            f"{score.precision:.2f} ({score.on_topic}/{score.cited})",
            target(f"≥ {TARGETS['precision']:.2f}"),
            met(score.precision >= TARGETS["precision"]),
        ),
        (
            f"{name}: recall@{RECALL_CAP} (relevant documents cited)",
            f"{score.recall:.2f} ({score.relevant_cited}/{score.relevant_available})",
            target(f"≥ {TARGETS['recall']:.2f}"),
            met(score.recall >= TARGETS["recall"]),
        ),
        (
            f"{name}: on-topic sources per report (mean)",
            f"{on_topic:.1f}",
            target(f"≥ {TARGETS['on_topic']:.0f}"),
            met(on_topic >= TARGETS["on_topic"]),
        ),
        (
            f"{name}:   ceiling: on-topic candidates a perfect judge could cite (mean)",
            ceiling(score),
            "",
            "—",
        ),
        (
            f"{name}: reports citing nothing though relevant documents exist",
            f"{empty:.2f} ({score.empty}/{score.questions})",
            target("0"),
            met(score.empty == 0),
        ),
        (
            f"{name}: reports quoting the nearest page, flagged (counted above)",
            f"{near:.2f} ({score.near}/{score.questions})",
            "",
            "—",
        ),
    ]


def bench_precision(halves: tuple[str, ...] = HALVES) -> list[Row]:
    out: list[Row] = []
    for half in halves:
        score, lines = measure(half)
        # the held-out half's questions one by one would tell whoever reads the log what
        # to tune next: only its totals are printed
        for line in lines if half != HELD_OUT else ():
            print(f"    {line}", flush=True)
        out += rows(half, score)
    return out


def run_halves(
    prog: str, bench: Callable[[tuple[str, ...]], list[Row]], argv: list[str] | None
) -> int:
    """``prog [--half tune|report]``: ``bench``'s rows over the halves asked for (both)."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--half", choices=HALVES, action="append", help="default: both")
    args = parser.parse_args(argv)
    try:
        for row in bench(tuple(args.half or HALVES)):
            print(" | ".join(row))
    finally:
        remove_temp_dirs()
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_halves("python -m bench.precision", bench_precision, argv)


if __name__ == "__main__":
    sys.exit(main())
