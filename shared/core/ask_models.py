"""Questions asked of a finished session: the evidence handed to the reasoner and the exchange kept.

Kept apart from the report models: a report is written once by the research, an
exchange is added by its reader afterwards, any number of times, and both are
stored in the session's memory folder (``asks/``) so a purge takes them too.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from shared.core.session_models import Usage
from shared.core.source_models import Source


class Passage(BaseModel):
    """A few sentences of the session's evidence and the number of the source they come from."""

    n: int = Field(ge=1)
    url: str
    text: str


class SourcedAnswer(BaseModel):
    """What a reasoner answers from passages: ``answered`` is False when they do not say."""

    answer: str
    answered: bool
    cited: list[int] = Field(default_factory=list)  # source numbers the answer cites
    language: str = "en"


class AskExchange(BaseModel):
    """One question and its answer, as kept with the session and shown under the report.

    ``sources`` are the entries of the session's source list the answer cites, with the
    numbers they have there, so ``[n]`` in the answer reads the same as in the report.
    """

    id: str
    question: str
    answer: str
    answered: bool
    language: str
    sources: list[Source] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    asked_at: datetime
