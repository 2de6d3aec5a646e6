"""Where the text a reasoner is writing goes while it writes (the answer stream).

A use case that stores an answer or a report opens ``streaming_to(sink)`` around
the reasoner call; whatever writes the text (the LLM client relaying a streamed
reply, the offline engine sentence by sentence) calls :func:`offer` with the
*whole* text so far, never a delta. Offering the whole text keeps every writer
simple and every restart safe: a repaired reply, a retried call or a rewritten
report offers a text that no longer extends the last one, and the sink turns that
into a reset (``shared/usecases/research/answer_stream.py``). Outside
``streaming_to`` an offer is a no-op, so a reasoner streams only where a use
case asked for it. A context variable keeps concurrent activities apart, as the
usage meter does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n\s*\n")


class TextSink(Protocol):
    def offer(self, text: str, *, flush: bool = False) -> None:
        """The whole text written so far; ``flush`` sends it on now (not when it is due)."""
        ...


_sink: ContextVar[TextSink | None] = ContextVar("text_stream_sink", default=None)


@contextmanager
def streaming_to(sink: TextSink) -> Iterator[TextSink]:
    token = _sink.set(sink)
    try:
        yield sink
    finally:
        _sink.reset(token)


def active() -> bool:
    """Whether a use case is listening: a writer may skip the work of streaming otherwise."""
    return _sink.get() is not None


def offer(text: str, *, flush: bool = False) -> None:
    sink = _sink.get()
    if sink is not None:
        sink.offer(text, flush=flush)


def offer_by_sentence(text: str) -> None:
    """``text`` offered one sentence more at a time, each sent on at once: how a writer
    that has its whole text in one go (the offline engine) still streams."""
    if _sink.get() is None:
        return
    for match in _SENTENCE_END.finditer(text):
        offer(text[: match.start()], flush=True)
    offer(text, flush=True)


def offer_in_parts(parts: list[str]) -> None:
    """``parts`` offered one more at a time, each sent on at once (a report, by section)."""
    if _sink.get() is None:
        return
    for end in range(1, len(parts) + 1):
        offer("".join(parts[:end]), flush=True)
