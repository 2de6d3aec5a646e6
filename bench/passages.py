"""Passage selection per page use: splitting on every use against sentences cached with the page.

A researcher shows each page it reads (observation passages) and later cites
it (finding excerpts); the writer's evidence is drawn from the same pages
again. Before issue 36 every use split the page anew, unless this process's
small splitter cache still held it (a new worker, another activity process or
an evicted entry did not); now ``fetch_cached`` splits once and the page
carries its sentences. Over the local corpus's pages this times one use both
ways and sets the cost against one model reply (``bench.latency.LATENCY``).
"""

from __future__ import annotations

import time

from bench.latency import LATENCY
from bench.results import Row, verdict
from bench.scenarios import QUERY, offline_settings, temp_dir
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.tools import sentence_split
from shared.usecases.research.evidence import OBSERVATION_CHARS, relevant_passages
from shared.usecases.research.page_cache import with_sentences

PAGES = 40
SHARE_TARGET = 0.05  # of a model reply: passage selection must be a small fraction


def per_use_ms() -> tuple[float, float, int]:
    """(ms per use splitting anew, ms per use from cached sentences, pages timed)."""
    pages = BuiltinCorpus(offline_settings(temp_dir())).documents()[:PAGES]
    split = cached = 0.0
    for page in pages:
        sentence_split.split_sentences.cache_clear()  # a worker that never split this page
        begun = time.perf_counter()
        relevant_passages(page.text, QUERY, OBSERVATION_CHARS)
        split += time.perf_counter() - begun
        kept = with_sentences(page)  # done once, when the page is fetched
        begun = time.perf_counter()
        relevant_passages(kept.text, QUERY, OBSERVATION_CHARS, kept.sentences, kept.sentence_tokens)
        cached += time.perf_counter() - begun
    return split * 1000 / len(pages), cached * 1000 / len(pages), len(pages)


def bench_passages() -> list[Row]:
    split, cached, pages = per_use_ms()
    share = cached / (LATENCY * 1000)
    return [
        (
            f"passage selection per page use ({pages} corpus pages): split anew → cached sentences",
            f"{split:.1f} → {cached:.1f} ms ({split / cached:.1f}× less); "
            f"{share:.1%} of a {LATENCY * 1000:.0f} ms reply",
            f"≤ {SHARE_TARGET:.0%} of a reply",
            verdict(share <= SHARE_TARGET),
        )
    ]


if __name__ == "__main__":
    for row in bench_passages():
        print(" | ".join(row))
