"""The pieces of an answer or report sent while it is written (``answer_chunk`` events).

An activity cannot talk to a client, so what the model writes is appended to the
session store as small numbered chunks and the event stream relays them. A
*part* is one text of the session: ``answer`` (chat, search), ``deep_search``
(a deep search's answer, also a deep research's first phase) or ``report``.
The text of a part is the concatenation of its ``text`` chunks after its last
``reset``; ``done`` closes it, and from then on it equals the stored answer
(or ``report.md``). ``seq`` numbers every chunk of a session, from 1 and
without gaps, so a client resumes after the last one it saw.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ChunkKind = Literal["text", "reset", "done"]
ChunkPart = Literal["answer", "deep_search", "report"]


class AnswerChunk(BaseModel):
    seq: int = Field(ge=1)
    part: ChunkPart
    kind: ChunkKind = "text"
    text: str = ""
