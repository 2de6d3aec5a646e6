"""The offline reasoner's answer to a question asked of a finished session: quotes, or "not in
the sources".

Extractive like the rest of the offline engine: the answer is the session's own
sentences that are about the question, each with the ``[n]`` of its source. "About"
is the offline citation gate (``relevance``), its words weighed by how rare they are
among this session's sources (not the whole corpus): a word every source uses says
nothing, a word none uses weighs the most, so a question on something the research
never read finds no sentence to quote and gets the plain "not in the sources" answer
in the question's language. A sentence must also share a word with the question
(BM25 above zero), which keeps a question too vague to weigh from quoting anything.
"""

from __future__ import annotations

import math
from collections import defaultdict

from shared.adapters.reasoning import relevance
from shared.adapters.report.citations import CITATION_RE, sentence_key
from shared.core.ask_models import Passage, SourcedAnswer
from shared.tools import lexical, sentence_split

MAX_QUOTES = 3  # sentences in an offline answer
NOT_IN_SOURCES = {
    "en": "Not in the sources: the sources of this research do not answer that question.",
    "de": "Nicht in den Quellen: Die Quellen dieser Recherche beantworten diese Frage nicht.",
    "fr": "Pas dans les sources : les sources de cette recherche ne répondent pas à cette "
    "question.",
    "es": "No está en las fuentes: las fuentes de esta investigación no responden a esa pregunta.",
    "ru": "В источниках этого нет: источники этого исследования не отвечают на этот вопрос.",
    "zh": "来源中没有：本次研究的来源没有回答这个问题。",
}


def not_in_sources(language: str) -> str:
    return NOT_IN_SOURCES.get((language or "en").split("-")[0].lower(), NOT_IN_SOURCES["en"])


class OfflineAsking:
    """``Reasoner.answer_from`` for ``OfflineReasoner``, which mixes it in (its module is full)."""

    def answer_from(self, question: str, passages: list[Passage], language: str) -> SourcedAnswer:
        return answer_from(question, passages, language)


def answer_from(question: str, passages: list[Passage], language: str) -> SourcedAnswer:
    sentences = _sentences(passages)
    gate = relevance.question_gate(question, _idf(passages), language)
    scores = lexical.bm25_scores(
        lexical.content_tokens(question), [lexical.content_tokens(s) for _, s in sentences]
    )
    ranked = sorted(
        (i for i, (_, s) in enumerate(sentences) if scores[i] > 0 and gate.admits(s)),
        key=lambda i: (-scores[i], i),
    )
    picked: list[tuple[int, str]] = []
    seen: set[str] = set()
    for i in ranked:
        n, sentence = sentences[i]
        key = sentence_key(sentence)  # the same sentence, however it was spaced or cited
        if key not in seen:
            seen.add(key)
            picked.append((n, sentence))
        if len(picked) == MAX_QUOTES:
            break
    if not picked:
        return SourcedAnswer(answer=not_in_sources(language), answered=False, language=language)
    text = " ".join(f"{s} [{n}]" for n, s in picked)
    return SourcedAnswer(
        answer=text, answered=True, cited=sorted({n for n, _ in picked}), language=language
    )


def _sentences(passages: list[Passage]) -> list[tuple[int, str]]:
    """Each passage's sentences with the source number they came from, citations removed."""
    out = []
    for passage in passages:
        for sentence in sentence_split.split_sentences(CITATION_RE.sub("", passage.text)):
            text = " ".join(sentence.split())
            if text:
                out.append((passage.n, text))
    return out


def _idf(passages: list[Passage]) -> dict[str, float]:
    """Word rarity over the session's sources, as the corpus index weighs its documents."""
    words: dict[int, set[str]] = defaultdict(set)
    for passage in passages:
        words[passage.n].update(lexical.content_tokens(passage.text))
    count: dict[str, int] = defaultdict(int)
    for tokens in words.values():
        for token in tokens:
            count[token] += 1
    n = len(words)
    return {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in count.items()}
