"""``Reasoner.answer_from``: a finished session asked again answers from its passages only.

Both reasoners cite nothing but the passages' source numbers and answer in the asked
language; the offline one, whose promises are exact, also says plainly when the
passages do not answer, and picks the sentences about the question when they do.
"""

from __future__ import annotations

import re

from shared.core.ask_models import Passage
from shared.tools import sentence_split
from tests.contract.conftest import fixture_pages


def _passages() -> list[Passage]:
    out = []
    for n, page in enumerate(fixture_pages(), start=1):
        sentences = list(sentence_split.split_sentences(page.text))
        out += [
            Passage(n=n, url=page.url, text=" ".join(sentences[i : i + 3]))
            for i in range(0, len(sentences), 3)
        ]
    return out


def _cited(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"\[(\d+)\]", text)}


def test_an_answer_cites_only_the_passages_sources(reasoner):
    passages = _passages()
    answer = reasoner.answer_from("What does __exit__ do with an exception?", passages, "en")
    assert answer.language == "en" and answer.answer.strip()
    assert _cited(answer.answer) <= {p.n for p in passages}
    assert set(answer.cited) <= _cited(answer.answer)
    assert not answer.answered or answer.cited  # an answer always says where it comes from


def test_offline_answers_with_the_sentences_about_the_question(offline_reasoner):
    answer = offline_reasoner.answer_from(
        "What does __exit__ do with an exception?", _passages(), "en"
    )
    assert answer.answered and answer.cited
    assert "__exit__" in answer.answer and "exception" in answer.answer


def test_offline_says_plainly_when_the_passages_do_not_answer(offline_reasoner):
    for question, language, opening in (
        ("What is the boiling point of mercury at sea level?", "en", "Not in the sources"),
        ("Quel est le point d'ébullition du mercure ?", "fr", "Pas dans les sources"),
        ("Какова температура кипения ртути?", "ru", "В источниках этого нет"),
    ):
        answer = offline_reasoner.answer_from(question, _passages(), language)
        assert not answer.answered and answer.cited == []
        assert answer.answer.startswith(opening) and not _cited(answer.answer)


def test_a_question_too_vague_to_weigh_quotes_nothing(offline_reasoner):
    answer = offline_reasoner.answer_from("And what about it?", _passages(), "en")
    assert not answer.answered
