"""``python -m bench.profile`` (``make profile``): where the researcher's CPU time goes.

One deep research against the OpenAI-protocol fake (``LATENCY`` per reply)
on a fresh devhost, with cProfile in every thread the run starts (the
activities run in devhost's thread pool), timing each thread's CPU time: what
the researchers spend besides waiting for the model (waits for the LLM or
for the GIL are not counted). It prints the functions of this repository by
own time, then what ``run_researcher`` spends its time in, and the seconds in
sentence splitting and passage selection (issue 36: split once per page), and
the CPU the garbage collector took during the run (its full passes stop every thread).

``--save FILE`` keeps the merged stats for ``python -m pstats FILE`` or snakeviz.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import threading
import time
from pathlib import Path

from bench.fake_llm import LatencyLLM
from bench.scenarios import FAST_CAPS, Bench, llm_settings, remove_temp_dirs, temp_dir

LATENCY = 0.05
# this repository's modules, not the virtualenv inside it (a pstats restriction is a regex)
OWN_CODE = rf"^{Path(__file__).resolve().parent.parent}/(?!\.venv/)"
WATCHED = ("split_sentences", "relevant_passages", "rank_sentences", "run_researcher")


class ThreadProfiles:
    """A cProfile per thread started while installed (threads end before the stats are read)."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()

    def install(self) -> None:
        threading.setprofile(self._start)

    def _start(self, *_: object) -> None:
        profile = cProfile.Profile(time.thread_time)  # CPU: no LLM or GIL waits counted
        with self._lock:
            self.profiles.append(profile)
        profile.enable()  # replaces this hook in the calling thread

    def stats(self) -> pstats.Stats:
        threading.setprofile(None)  # type: ignore[arg-type]
        stats = pstats.Stats(self.profiles[0])
        for profile in self.profiles[1:]:
            stats.add(profile)
        return stats


class CollectorTime:
    """CPU time the cyclic garbage collector takes, by generation, while installed: a full
    pass holds the GIL, so it stalls every activity of the worker at once."""

    def __init__(self) -> None:
        self.passes = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._started: dict[int, float] = {}

    def __enter__(self) -> CollectorTime:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        thread = threading.get_ident()
        if phase == "start":
            self._started[thread] = time.thread_time()
        elif thread in self._started:
            generation = info["generation"]
            self.passes[generation] += 1
            self.seconds[generation] += time.thread_time() - self._started.pop(thread)

    def summary(self) -> str:
        return "garbage collector: " + ", ".join(
            f"generation {g} {n} passes {s:.3f} CPU s"
            for g, (n, s) in enumerate(zip(self.passes, self.seconds, strict=True))
        )


def seconds_in(stats: pstats.Stats, name: str) -> tuple[int, float]:
    """(calls, cumulative seconds) of the functions called ``name``."""
    calls, total = 0, 0.0
    for (_, _, func), (_, ncalls, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        if func == name:
            calls, total = calls + ncalls, total + cumulative
    return calls, total


def profile_run() -> pstats.Stats:
    llm = LatencyLLM(LATENCY, topics=4).start()
    profiles = ThreadProfiles()
    try:
        profiles.install()
        bench = Bench(llm_settings(temp_dir(), llm.base_url))
        try:
            with CollectorTime() as collector:  # the run, not the warm-up before it
                _, seconds, view = bench.run("deep_research", options=FAST_CAPS)
        finally:
            bench.close()
    finally:
        llm.stop()
    print(f"deep research: {view['status']} in {seconds:.1f} s ({LATENCY * 1000:.0f} ms replies)")
    print(collector.summary())
    return profiles.stats()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile")
    parser.add_argument("--top", type=int, default=25, help="rows of each listing")
    parser.add_argument("--save", type=Path, help="write the merged stats to this file")
    args = parser.parse_args(argv)
    try:
        stats = profile_run()
    finally:
        remove_temp_dirs()
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(OWN_CODE, args.top)
    stats.sort_stats("cumulative").print_callees("run_researcher")
    print(out.getvalue())
    for name in WATCHED:
        calls, cumulative = seconds_in(stats, name)
        print(f"{name}: {calls} calls, {cumulative:.3f} CPU s cumulative")
    if args.save:
        stats.dump_stats(args.save)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
