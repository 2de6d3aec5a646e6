"""The LLM judge: RACE-style scores of a report, and whether a page supports a statement.

The judge is the configured LLM endpoint with its own model (``EVAL_JUDGE_MODEL``,
unset = ``STRATEGIC_MODEL``), so a strong judge can grade a cheap writer. It
answers through the app's LLM client: structured output, bounded repairs and retries.
RACE here: four dimensions scored 0-10; with a reference report both are scored
and each dimension is the report's share, target / (target + reference), as
DeepResearch Bench does; without one, the score / 10. Equal weights (the
benchmark derives weights per task; that is its judge's job, not ours).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.adapters.reasoning.llm_client import LLMClient
from shared.core.config import Settings

DIMENSIONS = ("comprehensiveness", "depth", "instruction_following", "readability")
REPORT_CHARS = 24_000  # of a report (and of a reference) the judge reads
PAGE_CHARS = 8_000  # of a cited page the judge reads for one statement

RACE_PROMPT = """You grade a research report written for the task below.
Score each dimension from 0 (useless) to 10 (excellent):
- comprehensiveness: covers the aspects the task needs;
- depth: explains causes, mechanisms and trade-offs, not just facts;
- instruction_following: answers exactly what the task asks, in its scope and language;
- readability: clear structure, plain language, well organised.
Give your reasons first, then the scores."""

SUPPORT_PROMPT = """Does the page support the statement? Answer supported=true only if the
page states it or directly implies it; a page about the topic that does not say it is not
support. Give your reason first."""


class RaceScores(BaseModel):
    reasons: str = ""
    comprehensiveness: int = Field(ge=0, le=10)
    depth: int = Field(ge=0, le=10)
    instruction_following: int = Field(ge=0, le=10)
    readability: int = Field(ge=0, le=10)


class Support(BaseModel):
    reason: str = ""
    supported: bool


class Judge:
    def __init__(self, settings: Settings) -> None:
        self.model = settings.eval_judge_model or settings.strategic_model
        self._client = LLMClient(settings)

    def race(self, task: str, report: str, reference: str | None) -> dict[str, float]:
        """Each dimension in [0, 1] and their mean, ``overall``."""
        scored = self._scores(task, report)
        if reference:
            base = self._scores(task, reference)
            shares = {d: _share(getattr(scored, d), getattr(base, d)) for d in DIMENSIONS}
        else:
            shares = {d: getattr(scored, d) / 10 for d in DIMENSIONS}
        shares["overall"] = sum(shares[d] for d in DIMENSIONS) / len(DIMENSIONS)
        return {k: round(v, 3) for k, v in shares.items()}

    def supports(self, statement: str, page_text: str) -> bool:
        messages = [
            {"role": "system", "content": SUPPORT_PROMPT},
            {
                "role": "user",
                "content": f"Statement: {statement}\n\nPage:\n{page_text[:PAGE_CHARS]}",
            },
        ]
        answer = self._client.complete_structured(
            Support, messages, model=self.model, temperature=0.0, max_tokens=300
        )
        return answer.supported

    def _scores(self, task: str, report: str) -> RaceScores:
        messages = [
            {"role": "system", "content": RACE_PROMPT},
            {"role": "user", "content": f"Task: {task}\n\nReport:\n{report[:REPORT_CHARS]}"},
        ]
        return self._client.complete_structured(
            RaceScores, messages, model=self.model, temperature=0.0, max_tokens=800
        )


def _share(target: int, reference: int) -> float:
    return target / (target + reference) if target + reference else 0.5
