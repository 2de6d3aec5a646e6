"""``answer_chunk`` events: the answer or report as it is written, relayed from the store.

The activity writing an answer appends chunks to the session store
(``shared/usecases/research/answer_stream.py``); the ``/events`` response reads
them after the session's view on every poll and sends each as an event before
the view's own event, so a client holds every chunk of a part before it sees
the session end.

Every event id carries both positions a client resumes from, ``{state}|{seq}``:
the progress state it has seen (``api.reports.state_id``) and the last chunk
seq. A client that reconnects with ``Last-Event-ID`` (EventSource does it by
itself) gets the chunks after that seq and the states after that state: no
gap, no repeat. A client that connects late, or sends no id, gets every chunk
from the first (what was written so far), then the rest as it comes. An id
without ``|`` (a client from before chunks existed) counts as seq 0.
"""

from __future__ import annotations

import asyncio
import json

from shared.core.stream_models import AnswerChunk
from shared.ports import Services

CHUNKS_PER_POLL = 200  # one poll's read: a long report is ~40 chunks
SEPARATOR = "|"


def parse_last(last: str | None) -> tuple[str | None, int]:
    """The state and the chunk seq a ``Last-Event-ID`` says the client has seen."""
    if not last:
        return None, 0
    state, separator, seq = last.rpartition(SEPARATOR)
    if not separator:
        return last, 0
    return state or None, int(seq) if seq.isdigit() else 0


def event_id(state: str | None, seq: int) -> str:
    return f"{state or ''}{SEPARATOR}{seq}"


async def chunks_after(svc: Services, session_id: str, seq: int) -> list[AnswerChunk]:
    return await asyncio.to_thread(svc.sessions.chunks_after, session_id, seq, CHUNKS_PER_POLL)


def chunk_event(chunk: AnswerChunk, state: str | None) -> str:
    """One ``answer_chunk`` event; its id keeps the state the client had before it."""
    data = json.dumps(chunk.model_dump(mode="json"), ensure_ascii=False)
    return f"id: {event_id(state, chunk.seq)}\nevent: answer_chunk\ndata: {data}\n\n"
