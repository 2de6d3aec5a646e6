"""Memory against finished sessions: waves of the load scenario on one devhost.

The issue asks that memory "must not grow with the number of finished sessions".
One wave cannot show that: its end RSS is the working set's high-water mark, kept
by the allocators. Waves of the same size, one after another on the same devhost,
can: after each (every session finished and checked, a garbage collection) the
resident memory of devhost and its worker processes is read again, and the growth
between the last two waves, spread over the sessions that finished in between, is
what a finished session leaves behind. Early waves still fill caches sized by the
corpus, not by the sessions (pages, passages, the SQLite page cache), so the last
waves are the ones that say whether it is flat.

``--trace`` (one worker process only: everything runs in this process) traces the
allocations of the last wave alone (``tracemalloc`` started after the wave before it)
and prints, by traceback, what it allocated that is still alive once it has finished:
where to look if memory does grow. Tracing slows that wave several times.
"""

from __future__ import annotations

import gc
import statistics
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from bench.worker_usage import rss_mb

TRACE_FRAMES = 6


class Wave(Protocol):
    """What a wave reports (``bench.load.LoadResult``)."""

    sessions: int
    seconds: float
    problems: list[str]
    rss_peak_mb: float

    def quantile_ms(self, q: int) -> float: ...


@dataclass
class Waves:
    sessions: int  # per wave
    results: list[Wave] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)  # after each wave, checked and collected
    grew: list[str] = field(default_factory=list)  # tracemalloc: the largest growths, last waves

    @property
    def kb_per_session(self) -> float:
        """RSS growth between the last two waves per session finished in between."""
        if len(self.rss_mb) < 2:
            return 0.0
        return (self.rss_mb[-1] - self.rss_mb[-2]) * 1024 / self.sessions

    @property
    def kb_per_session_fit(self) -> float | None:
        """The slope of RSS against sessions finished over every wave but the first (which
        fills the caches the corpus sizes), least squares: one wave's allocator noise (a few
        MB either way) weighs less than in the last two alone. None under three waves."""
        if len(self.rss_mb) < 3:
            return None
        finished = [k * self.sessions for k in range(2, len(self.rss_mb) + 1)]
        slope, _ = statistics.linear_regression(finished, self.rss_mb[1:])
        return slope * 1024

    def lines(self) -> list[str]:
        out = []
        for k, (r, mb) in enumerate(zip(self.results, self.rss_mb, strict=True), 1):
            out.append(
                f"wave {k}: {r.sessions} sessions, {len(r.problems)} problems, {r.seconds:.1f} s, "
                f"status p95 {r.quantile_ms(95):.0f} ms, peak {r.rss_peak_mb:.0f} MB, "
                f"after {mb:.0f} MB ({k * r.sessions} finished)"
            )
        out.append(f"growth between the last two waves: {self.kb_per_session:.1f} KB per session")
        if self.kb_per_session_fit is not None:
            out.append(
                f"growth over waves 2-{len(self.rss_mb)} (least squares): "
                f"{self.kb_per_session_fit:.1f} KB per session"
            )
        return out + self.grew


def run_waves(
    wave: Callable[[], Wave], waves: int, sessions: int, pids: list[int], trace: bool
) -> Waves:
    """``waves`` runs of ``wave`` (``sessions`` sessions on one devhost whose worker
    processes are ``pids``), one after another."""
    assert not (trace and pids), "--trace sees this process only: use one worker process"
    out, snapshots = Waves(sessions), []
    try:
        for k in range(waves):
            if trace and k == waves - 1:
                tracemalloc.start(TRACE_FRAMES)
                snapshots.append(tracemalloc.take_snapshot())
            out.results.append(wave())
            gc.collect()
            out.rss_mb.append(rss_mb(pids))
        if snapshots:
            snapshots.append(tracemalloc.take_snapshot())
    finally:
        tracemalloc.stop()
    if len(snapshots) == 2:
        out.grew = _largest_growth(*snapshots)
    return out


def _largest_growth(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot) -> list[str]:
    """The ten tracebacks that grew most between two snapshots, newest frame last."""
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
    diff = after.filter_traces(ignore).compare_to(before.filter_traces(ignore), "traceback")
    lines = ["allocated in the last wave and still alive (tracemalloc, by traceback):"]
    for stat in sorted(diff, key=lambda s: -s.size_diff)[:10]:
        lines.append(f"  {stat.size_diff / 1024:+.1f} KB in {stat.count_diff:+d} blocks")
        lines += [f"    {frame.filename}:{frame.lineno}" for frame in stat.traceback]
    return lines
