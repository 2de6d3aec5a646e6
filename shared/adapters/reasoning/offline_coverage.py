"""The offline reasoner's corrective judge (``Reasoner.judge_coverage``): the relevance gate.

No model reads the passages here, so a topic is covered when the relevance gate
(``relevance``, the same that decides what the offline writers may quote) admits at
least one of the passages' sentences, and the evidence is the sentences it admits.
The bar is the gate's own (``QUOTE_MIN`` of the topic's weight), never lowered to what
the passages reach: a collection that hardly mentions the topic does not cover it. A
topic asking several things ("When was the seal replaced, and how do tasks handle
cancellation?") is covered only when each of its sub-questions is: half an answer sends
the topic to the web.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from shared.adapters.reasoning import relevance
from shared.adapters.reasoning.offline_text import script_language
from shared.core.ask_models import Passage
from shared.core.coverage_models import Coverage, verified
from shared.core.limits import COVERAGE_MAX_QUOTES
from shared.tools import sentence_split
from shared.tools.sub_questions import sub_questions


def judge(topic: str, passages: list[Passage], language: str, idf: Mapping[str, float]) -> Coverage:
    sentences = [
        s for p in passages for s in sentence_split.split_sentences(p.text, script_language(p.text))
    ]
    evidence: list[str] = []
    missing: list[str] = []
    for part in sub_questions(topic) or [topic]:
        gate = relevance.question_gate(part, idf, language)
        admitted = [s for s in sentences if gate.judges() and gate.admits(s)]
        if admitted:
            evidence += [s for s in admitted[:COVERAGE_MAX_QUOTES] if s not in evidence]
        else:
            missing.append(part)
    if not sentences:
        return Coverage(reason="the collections returned no passage on it")
    if missing:
        said = "; ".join(missing)
        return Coverage(evidence=evidence, reason=f"no passage is about: {said}")
    return Coverage(
        covered=True, evidence=evidence, reason=f"{len(evidence)} passages are about it"
    )


class _HasIdf(Protocol):
    idf: Mapping[str, float]


class OfflineCoverage:
    """Mixed into ``OfflineReasoner``: the Reasoner port's ``judge_coverage``."""

    corpus: _HasIdf

    def judge_coverage(self, topic: str, passages: list[Passage], language: str) -> Coverage:
        said = judge(topic, passages, language, self.corpus.idf)
        return verified(said, [p.text for p in passages])  # a gate's short sentence proves little
