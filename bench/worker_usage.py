"""CPU and memory of devhost together with its worker processes.

With ``FUNCTIONS_WORKER_PROCESS_COUNT`` > 1 the activities' CPU and memory are
spent in the worker processes, which ``getrusage(RUSAGE_SELF)`` does not see
and ``RUSAGE_CHILDREN`` sees only once they have exited. The bench reads them
from ``/proc`` while they run, so a session costs the same figure whichever
way devhost runs its activities.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterable
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pids: Iterable[int] = ()) -> float:
    """CPU seconds of this process plus the live processes ``pids``."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime + sum(_cpu_of(pid) for pid in pids)


def rss_mb(pids: Iterable[int] = ()) -> float:
    """Resident memory of this process plus the live processes ``pids``, in MB."""
    return _rss_of("self") + sum(_rss_of(str(pid)) for pid in pids)


def _cpu_of(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return 0.0  # exited (killed and replaced): its CPU is lost to the figure
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime


def _rss_of(pid: str) -> float:
    try:
        lines = Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines()
    except OSError:
        return 0.0
    for line in lines:
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0
