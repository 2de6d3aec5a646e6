"""Can a local embedding model tell on-topic documents from off-topic ones? (issue 32)

Not in the table: ``python -m bench.semantic`` measures, on the labelled set's **tune half
only** (the report half is never read), what all-MiniLM-L6-v2 (``local_embeddings``) would
give the offline engine, before anything is built on it. A document's score is its best
chunk's cosine to the question (``semantic_vectors``). Printed per part (``PARTS``) and in all:

a. retrieval: recall@5 and @10 of the relevant documents (capped at ``RECALL_CAP`` per
   question, as ``bench.precision`` counts them) when documents are ranked by cosine, and
   by the engine's own ranking (``BuiltinCorpus.best_documents``: BM25 per chunk, each
   document's best chunk weighed by its share of matching chunks);
b. separation: over each question's top 20 documents by either ranking, the AUC of on-topic
   (relevant or accepted) against off-topic documents, pooled over the questions (what one
   threshold for every question can do) and per question (what a ranking can do), for the
   cosine and for two lexical scores: the engine's ranking (1 / (1 + rank), 0 when it does
   not rank the document) and the citation gate's share (``relevance.question_gate``: the
   most of the question's weighed words one sentence of the document carries);
c. an embedding-only gate as a citing rule: the top ``k`` documents by cosine whose cosine
   is at least τ and at least the top document's minus δ; swept over τ, δ and k, with
   bench.precision's four measures for the settings with the most on-topic sources per
   report at a few precision floors, and each part's best applied to the other part;
d. the same rule over both rankings' top 20 together: ranked by reciprocal rank fusion
   (the gate on the cosine as in c), or by a weighted sum of cosine and gate share (the gate
   on the sum).

The engine's own figures (``python -m bench.precision --half tune``) are printed beside them
as recorded before the rule by meaning was built, on the first 74 questions (``ENGINE``);
``--engine`` measures the engine again on the whole tune half (3-4 minutes here).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.precision import PARTS, RECALL_CAP, Labelled, Score, labelled, measure
from bench.scenarios import offline_settings
from bench.semantic_vectors import VECTORS_DIR, chunk_vectors, document_cosines
from shared.adapters.reasoning.relevance import question_gate
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.tools import local_embeddings

HALF = "tune"  # never the held-out half
TOP = 20  # documents per ranking compared (b) and combined (d)
TAUS = tuple(round(0.15 + 0.025 * i, 3) for i in range(19))  # 0.15 … 0.60
DELTAS = (0.05, 0.1, 0.15, 0.2, 0.3, 2.0)  # 2.0: no bar relative to the top document
KS = (3, 4, 5, 6, 8)
RRF_K = 60  # reciprocal rank fusion's constant (as shared/adapters/documents/vectors.py)
BLENDS = (0.25, 0.5)  # the gate share's weight in the weighted sum (d)
FLOORS = (0.8, 0.85, 0.9)  # precision floors at which the best settings are printed
# bench.precision --half tune at 0dbdb0f (--engine measured the same): precision, recall@5,
# on-topic sources per report, reports citing nothing
ENGINE = {
    "first 50": (0.83, 0.77, 2.5, 1),
    "probe 24": (0.73, 0.30, 0.8, 2),
    "all": (0.81, 0.64, 1.9, 3),
}


@dataclass(frozen=True)
class Question:
    label: Labelled
    part: str
    cosine: dict[str, float]  # every document
    embedded: list[str]  # documents by cosine, best first
    lexical: list[str]  # the engine's ranking, best first
    share: dict[str, float]  # the gate's share, for the candidates (both rankings' top TOP)

    @property
    def candidates(self) -> list[str]:
        return list(dict.fromkeys(self.embedded[:TOP] + self.lexical[:TOP]))


Rule = Callable[[Question], list[str]]


def questions(corpus: BuiltinCorpus) -> list[Question]:
    vectors = chunk_vectors(corpus)
    docs = corpus.data.documents
    by_key = {k: i for i, k in enumerate(vectors.keys)}
    labels = labelled(HALF)
    asked = local_embeddings.encode([label.question for label in labels])
    out = []
    for n, (label, vector) in enumerate(zip(labels, asked, strict=True)):
        cosines = document_cosines(vectors, vector)
        cosine = {k: float(cosines[i]) for i, k in enumerate(vectors.keys)}
        embedded = sorted(cosine, key=lambda k: -cosine[k])
        lexical = [
            p.url.removeprefix("corpus://") for p in corpus.best_documents(label.question, TOP)
        ]
        gate = question_gate(label.question, corpus.idf, "en")
        pool = dict.fromkeys(embedded[:TOP] + lexical)
        share = {
            k: max((gate.share(s) for s in docs[by_key[k]].sentences), default=0.0) for k in pool
        }
        out.append(Question(label, part_of(n), cosine, embedded, lexical, share))
    return out


def part_of(n: int) -> str:
    return next(name for name, start, end in PARTS[HALF] if start <= n and (end is None or n < end))


def parts(qs: list[Question]) -> list[tuple[str, list[Question]]]:
    return [*((name, [q for q in qs if q.part == name]) for name, _, _ in PARTS[HALF]), ("all", qs)]


def recall_at(qs: Iterable[Question], ranking: Callable[[Question], list[str]], k: int) -> float:
    found = sum(min(len(q.label.relevant & set(ranking(q)[:k])), RECALL_CAP) for q in qs)
    return found / max(sum(min(len(q.label.relevant), RECALL_CAP) for q in qs), 1)


def auc(on: list[float], off: list[float]) -> float:
    """Mann-Whitney: the chance an on-topic document scores above an off-topic one."""
    if not on or not off:
        return float("nan")
    a, b = np.array(on)[:, None], np.array(off)[None, :]
    return float(((a > b).sum() + 0.5 * (a == b).sum()) / (a.size * b.size))


def separation(qs: list[Question], score: Callable[[Question, str], float]) -> tuple[float, float]:
    """Pooled AUC over every question's candidates, and the mean of per-question AUCs."""
    pooled: tuple[list[float], list[float]] = ([], [])
    each = []
    for q in qs:
        on = [score(q, k) for k in q.candidates if k in q.label.accepted]
        off = [score(q, k) for k in q.candidates if k not in q.label.accepted]
        pooled[0].extend(on)
        pooled[1].extend(off)
        if on and off:
            each.append(auc(on, off))
    return auc(*pooled), float(np.mean(each))


def lexical_rank(q: Question, k: str) -> float:
    return 1 / (1 + q.lexical.index(k)) if k in q.lexical else 0.0


def cosine_gate(
    tau: float, delta: float, k: int, order: str = "cosine", near: bool = False
) -> Rule:
    """Cite the top ``k`` (by cosine, or by reciprocal rank fusion of both rankings) whose
    cosine is at least ``tau`` and at least the best candidate's cosine less ``delta``.
    ``near``: when none is, cite the best one (as the engine quotes the nearest page)."""

    def rule(q: Question) -> list[str]:
        ranked = q.embedded[:TOP] if order == "cosine" else fused(q)
        top = max(q.cosine[d] for d in ranked)
        cited = [d for d in ranked[:k] if q.cosine[d] >= max(tau, top - delta)]
        return cited or (ranked[:1] if near else [])

    return rule


def fused(q: Question) -> list[str]:
    def rrf(d: str) -> float:
        return sum(1 / (RRF_K + r.index(d)) for r in (q.embedded, q.lexical) if d in r)

    return sorted(q.candidates, key=lambda d: -rrf(d))


def blend_gate(weight: float, tau: float, delta: float, k: int) -> Rule:
    """The gate on (1 - weight) · cosine + weight · gate share, over both rankings' top 20."""

    def rule(q: Question) -> list[str]:
        s = {d: (1 - weight) * q.cosine[d] + weight * q.share[d] for d in q.candidates}
        ranked = sorted(s, key=lambda d: -s[d])
        top = s[ranked[0]]
        return [d for d in ranked[:k] if s[d] >= max(tau, top - delta)]

    return rule


def scored(qs: Iterable[Question], rule: Rule) -> Score:
    score = Score()
    for q in qs:
        score.add(q.label, rule(q))
    return score


def figures(score: Score) -> str:
    n = max(score.questions, 1)
    return (f"{score.precision:.2f} / {score.recall:.2f} / {score.on_topic / n:.1f} / "
            f"{score.empty}")  # fmt: skip


def best(qs: list[Question], rules: dict[str, Rule], floor: float) -> str | None:
    """The rule with the most on-topic sources per report at precision ≥ ``floor`` (then
    recall, then fewer empty reports)."""
    ok = [(name, scored(qs, rule)) for name, rule in rules.items()]
    ok = [(name, s) for name, s in ok if s.precision >= floor]
    if not ok:
        return None
    return max(ok, key=lambda ns: (ns[1].on_topic, ns[1].recall, -ns[1].empty))[0]


def sweep(qs: list[Question], family: str, rules: dict[str, Rule]) -> None:
    split = parts(qs)
    print(f"\n{family}: precision / recall@5 / on-topic per report / citing nothing")
    for floor in FLOORS:
        name = best(qs, rules, floor)
        if name is None:
            print(f"  precision ≥ {floor}: no setting")
            continue
        row = "; ".join(f"{p} {figures(scored(pq, rules[name]))}" for p, pq in split)
        print(f"  best at precision ≥ {floor} in all: {name}: {row}")
    for (chosen, on), (other, off) in itertools.permutations(split[:2]):
        name = best(on, rules, FLOORS[-1]) or best(on, rules, FLOORS[0])
        if name:
            print(f"  chosen on {chosen} ({name}): {chosen} {figures(scored(on, rules[name]))}"
                  f"; applied to {other}: {figures(scored(off, rules[name]))}")  # fmt: skip


def report(qs: list[Question]) -> None:
    split = parts(qs)
    print("a. recall@5 / @10 of relevant documents: cosine ranking | engine's ranking")
    for name, pq in split:
        cos = [recall_at(pq, lambda q: q.embedded, k) for k in (5, 10)]
        lex = [recall_at(pq, lambda q: q.lexical, k) for k in (5, 10)]
        print(f"  {name}: {cos[0]:.2f} / {cos[1]:.2f} | {lex[0]:.2f} / {lex[1]:.2f}")
    print("\nb. AUC on-topic vs off-topic over both rankings' top 20, pooled / per question")
    scores = {
        "cosine": lambda q, k: q.cosine[k],
        "engine rank": lexical_rank,
        "gate share": lambda q, k: q.share[k],
    }
    for name, pq in split:
        cells = []
        for label, score in scores.items():
            pooled, each = separation(pq, score)
            cells.append(f"{label} {pooled:.2f} / {each:.2f}")
        print(f"  {name}: " + "; ".join(cells))
    print("\nthe engine (bench.precision --half tune): precision / recall@5 / on-topic / empty")
    print("  " + "; ".join(f"{p} {' / '.join(map(str, v))}" for p, v in ENGINE.items()))
    grid = list(itertools.product(TAUS, DELTAS, KS))
    sweep(qs, "c. cosine gate", {f"τ {t} δ {d} k {k}": cosine_gate(t, d, k) for t, d, k in grid})
    nearest = {f"τ {t} δ {d} k {k}": cosine_gate(t, d, k, near=True) for t, d, k in grid}
    sweep(qs, "c. cosine gate, else the nearest document", nearest)
    sweep(qs, "d. RRF of both rankings, cosine gate",
          {f"τ {t} δ {d} k {k}": cosine_gate(t, d, k, "rrf") for t, d, k in grid})  # fmt: skip
    fused_near = {f"τ {t} δ {d} k {k}": cosine_gate(t, d, k, "rrf", True) for t, d, k in grid}
    sweep(qs, "d. RRF of both rankings, cosine gate, else the nearest document", fused_near)
    blends = itertools.product(BLENDS, TAUS, DELTAS, KS)
    weighed = {f"w {w} τ {t} δ {d} k {k}": blend_gate(w, t, d, k) for w, t, d, k in blends}
    sweep(qs, "d. weighted sum of cosine and gate share", weighed)


def timings(corpus: BuiltinCorpus, data_dir: Path) -> None:
    """What a question costs at query time, and what a warm-up would load."""
    vectors = chunk_vectors(corpus)
    question = "How do I flatten a list of lists in Python?"
    runs = 20
    started = time.perf_counter()
    for _ in range(runs):
        asked = local_embeddings.encode([question])[0]
    encoded = (time.perf_counter() - started) / runs
    started = time.perf_counter()
    for _ in range(runs):
        document_cosines(vectors, asked)
    scanned = (time.perf_counter() - started) / runs
    started = time.perf_counter()
    _ = BuiltinCorpus(offline_settings(data_dir)).data
    loaded = time.perf_counter() - started
    print(f"\nquery time: encoding a question {encoded * 1e3:.1f} ms "
          f"({local_embeddings.token_count([question])} word pieces), best-chunk cosine of "
          f"every document {scanned * 1e3:.2f} ms; the collection with its vectors read from "
          f"its cache file {loaded:.2f} s")  # fmt: skip


def engine_figures() -> None:
    score, lines = measure(HALF)
    for line in lines[-len(PARTS[HALF]) :]:
        print(f"  measured: {line}")
    print(f"  measured: all {figures(score)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.semantic")
    parser.add_argument("--data-dir", type=Path, default=VECTORS_DIR,
                        help="the corpus and vector caches (kept between runs)")  # fmt: skip
    parser.add_argument("--engine", action="store_true", help="measure the engine's figures too")
    args = parser.parse_args(argv)
    corpus = BuiltinCorpus(offline_settings(args.data_dir))
    started = time.perf_counter()
    local_embeddings.encode(["warm-up"])
    print(f"model load (weights and tokenizer): {time.perf_counter() - started:.2f} s")
    report(questions(corpus))
    timings(corpus, args.data_dir)
    if args.engine:
        engine_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
