"""An answer or report sent while it is written: chunks appended to the session store.

An activity cannot reach the client, and the host running it may die, so what
the reasoner writes goes to the store as small numbered chunks
(``shared.core.stream_models``) and the event stream relays them
(``api/answer_events.py``). The stored answer stays the source of truth; the
chunks are how a client sees it grow.

How a client's text stays equal to the stored one, whatever happens:
- a writer starts every part with a ``reset`` chunk: a retried activity (after a
  failure or a host restart) replaces what an earlier attempt wrote instead of
  interleaving with it;
- the reasoner offers the whole text so far (``shared.tools.text_stream``); an
  offer that does not extend what was sent (a repaired or rewritten reply) is sent
  as a reset and the new text;
- ``settle`` offers the text as it was stored (citations renumbered, a report
  rendered) and closes the part with ``done``: when the stored text extends what
  was streamed only the rest is sent, else a reset and the stored text.

Chunks stay small (``CHUNK_CHARS``) and are written at most every
``FLUSH_SECONDS`` while the model writes, so a long answer costs tens of store
writes, not one per token. Streaming is best effort: a store that fails a write
stops this part's stream (logged) and never fails the answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from shared.adapters.stores.base import SessionStore
from shared.core.errors import ConflictError, NotFoundError, PermanentError, TransientError
from shared.core.session_models import SessionRecord
from shared.core.stream_models import AnswerChunk, ChunkPart
from shared.tools import text_stream

log = logging.getLogger(__name__)
CHUNK_CHARS = 800  # one chunk's text: a small store item and a small SSE event
FLUSH_SECONDS = 0.25  # at most four writes a second while the model writes


class ChunkWriter:
    """The sink of one part of one session (see the module docstring)."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        part: ChunkPart,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._session_id = session_id
        self._part: ChunkPart = part
        self._clock = clock
        self._next_seq = 0  # read from the store at the first write
        self._sent: str | None = None  # the client's text after our chunks; None: no reset yet
        self._latest = ""
        self._last_write = float("-inf")
        self._broken = False

    def offer(self, text: str, *, flush: bool = False) -> None:
        self._latest = text
        due = self._clock() - self._last_write >= FLUSH_SECONDS
        if flush or due or len(text) - len(self._sent or "") >= CHUNK_CHARS:
            self._write(done=False)

    def settle(self, stored: str) -> None:
        """The part is final: the stored text, then ``done``."""
        self._latest = stored
        self._write(done=True)

    def _write(self, done: bool) -> None:
        """Store what the client lacks; a taken seq (another writer) restarts the part once."""
        for _attempt in range(2):
            if self._broken:
                return
            chunks = self._chunks(done)
            if not chunks:
                return
            try:
                if not self._next_seq:
                    self._next_seq = self._store.last_chunk_seq(self._session_id) + 1
                numbered = [
                    c.model_copy(update={"seq": self._next_seq + i}) for i, c in enumerate(chunks)
                ]
                self._store.append_chunks(self._session_id, numbered)
            except ConflictError:
                self._next_seq, self._sent = 0, None
                continue
            except (TransientError, PermanentError) as exc:
                log.warning("answer stream of %s stopped: %s", self._session_id, exc)
                break
            self._next_seq += len(numbered)
            self._sent, self._last_write = self._latest, self._clock()
            self._mark(numbered[-1].seq)
            return
        self._broken = True

    def _mark(self, seq: int) -> None:
        """Say in the session record that chunks up to ``seq`` are stored, after storing them:
        an event poll reads the record anyway, and reads chunks only when it lacks some."""

        def mark(record: SessionRecord) -> None:
            record.last_chunk_seq = max(record.last_chunk_seq or 0, seq)

        try:
            self._store.update(self._session_id, mark)
        except (TransientError, PermanentError, NotFoundError, ConflictError) as exc:
            log.warning("answer stream of %s: chunk %d not marked: %s", self._session_id, seq, exc)

    def _chunks(self, done: bool) -> list[AnswerChunk]:
        """A reset when the text does not extend what was sent, the new text, ``done``."""
        sent, latest, part = self._sent, self._latest, self._part
        chunks: list[AnswerChunk] = []
        if sent is None or not latest.startswith(sent):
            chunks.append(AnswerChunk(seq=1, part=part, kind="reset"))
            sent = ""
        rest = latest[len(sent) :]
        for start in range(0, len(rest), CHUNK_CHARS):
            chunks.append(AnswerChunk(seq=1, part=part, text=rest[start : start + CHUNK_CHARS]))
        if done:
            chunks.append(AnswerChunk(seq=1, part=part, kind="done"))
        return chunks


@contextmanager
def streamed(store: SessionStore, session_id: str, part: ChunkPart) -> Iterator[ChunkWriter]:
    """Within: what the reasoner writes streams to ``part``; call ``settle`` once stored."""
    writer = ChunkWriter(store, session_id, part)
    with text_stream.streaming_to(writer):
        yield writer
