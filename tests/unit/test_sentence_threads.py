"""Splitting sentences from several threads at once (the activities of one host do).

pysbd's Segmenter keeps the text it is splitting on itself and reads it back to find
each sentence, so one Segmenter shared by threads returned another thread's sentences,
or none: the corrective judge, run beside a researcher, then missed the one sentence
that covered its topic. Each thread has its own now.
"""

from __future__ import annotations

import threading

from shared.tools import sentence_split

THREADS = 4
ROUNDS = 150


def _text(thread: int, i: int) -> str:
    return (
        f"Thread {thread} writes paragraph number {i} about pumps and seals today. "
        f"The second sentence of paragraph {i} names thread {thread} again clearly. "
        f"A third sentence closes paragraph {i} for thread {thread} as expected."
    )


def test_every_thread_gets_the_sentences_of_its_own_text():
    start = threading.Barrier(THREADS)
    wrong: list[tuple[int, int]] = []

    def split(thread: int) -> None:
        start.wait()
        for i in range(ROUNDS):
            sentences = sentence_split.split_sentences(_text(thread, i))
            if len(sentences) != 3 or any(f"thread {thread}" not in s.lower() for s in sentences):
                wrong.append((thread, i))

    workers = [threading.Thread(target=split, args=(t,)) for t in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert wrong == []
