"""A four-document corpus for runs that must be quick: it indexes in milliseconds."""

from __future__ import annotations

from pathlib import Path

CORPUS = {
    "gil.md": "# The global interpreter lock\n\nThe global interpreter lock (GIL) lets only one "
    "thread execute Python bytecode at a time in CPython. It protects reference counts from "
    "races between threads. CPU-bound threads therefore do not run in parallel.\n",
    "threads.md": "# Threads and I/O\n\nThreads that wait for I/O release the GIL, so I/O-bound "
    "threads still overlap. The threading module offers locks, events and queues.\n",
    "asyncio.md": "# asyncio\n\nasyncio runs coroutines on one thread with an event loop. It "
    "is unaffected by the GIL for I/O waits because only one coroutine runs at a time.\n",
    "free-threading.md": "# Free-threaded CPython\n\nPEP 703 makes the GIL optional in "
    "free-threaded builds of Python 3.13, so CPU-bound threads can run in parallel.\n",
}


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in CORPUS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
