"""The corrective judge's verdicts: quotes are verified, and offline the relevance gate judges.

``verified`` is what both reasoners' verdicts go through (a quote the passages do not
hold is dropped; "covered" needs one left); the offline judge is the relevance gate over
the passages' sentences, a compound topic covered only when each part is.
"""

from __future__ import annotations

from shared.adapters.reasoning.offline_coverage import judge
from shared.core.ask_models import Passage
from shared.core.coverage_models import Coverage, verified
from shared.core.limits import COVERAGE_SUB_QUESTIONS
from shared.tools.sub_questions import sub_questions
from tests.contract.conftest import shared_corpus

SENTENCE = "The coolant pump seal was replaced in March 2021 after a leak in the primary loop."
PASSAGES = [
    Passage(n=1, url="/api/collections/c/documents/d#page=3", text=f"Maintenance log. {SENTENCE}"),
    Passage(
        n=2,
        url="/api/collections/c/documents/e",
        text="Seal inspections happen every quarter. The shift lead filed a work order.",
    ),
]


def offline(topic: str, passages: list[Passage] = PASSAGES) -> Coverage:
    return judge(topic, passages, "en", shared_corpus().idf)


def test_a_quote_the_passages_hold_is_kept_however_it_is_spaced():
    said = Coverage(covered=True, evidence=[SENTENCE.replace(" in March", "\n  in March")])
    assert verified(said, [p.text for p in PASSAGES]).evidence == [
        SENTENCE.replace(" in March", "\n  in March")
    ]
    assert verified(said, [p.text for p in PASSAGES]).covered


def test_a_quote_no_passage_holds_is_dropped_and_covered_needs_one_left():
    made_up = "The seal was replaced in 2019."
    said = Coverage(covered=True, evidence=[made_up, " "], reason="it says so")
    checked = verified(said, [p.text for p in PASSAGES])
    assert (checked.covered, checked.evidence, checked.reason) == (False, [], "it says so")
    both = verified(Coverage(covered=True, evidence=[made_up, SENTENCE]), [PASSAGES[0].text])
    assert (both.covered, both.evidence) == (True, [SENTENCE])


def test_not_covered_stays_not_covered_whatever_it_quotes():
    checked = verified(Coverage(covered=False, evidence=[SENTENCE]), [PASSAGES[0].text])
    assert (checked.covered, checked.evidence) == (False, [SENTENCE])


def test_offline_a_topic_the_gate_admits_a_sentence_for_is_covered_with_it_as_evidence():
    verdict = offline("When was the coolant pump seal replaced?")
    assert verdict.covered and verdict.evidence == [SENTENCE]
    assert verified(verdict, [p.text for p in PASSAGES]) == verdict  # verbatim by construction


def test_offline_a_topic_the_passages_only_touch_is_not_covered():
    verdict = offline("How do asyncio tasks handle cancellation?")
    assert not verdict.covered and verdict.evidence == []
    assert "no passage is about" in verdict.reason


def test_offline_half_a_compound_topic_is_not_covered_but_keeps_its_evidence():
    verdict = offline(
        "When was the coolant pump seal replaced, and how do asyncio tasks handle cancellation?"
    )
    assert not verdict.covered
    assert verdict.evidence == [SENTENCE]
    assert "How do asyncio tasks handle cancellation?" in verdict.reason


def test_offline_no_passage_covers_nothing():
    verdict = offline("When was the coolant pump seal replaced?", [])
    assert (verdict.covered, verdict.evidence) == (False, [])
    assert "no passage" in verdict.reason


def test_a_question_of_many_parts_is_judged_in_at_most_the_capped_number_of_parts():
    parts = [f"what does pump number {n} need" for n in range(1, 8)]
    split = sub_questions(", and ".join(parts) + "?")
    assert len(split) == COVERAGE_SUB_QUESTIONS  # one judge call each: a bounded number
    assert split[:-1] == [f"{p[0].upper()}{p[1:]}?" for p in parts[: COVERAGE_SUB_QUESTIONS - 1]]
    assert all(p in split[-1].lower() for p in parts[COVERAGE_SUB_QUESTIONS - 1 :])  # none lost


def test_a_compound_question_splits_into_its_sub_questions_and_a_simple_one_does_not():
    assert sub_questions(
        "When was the coolant pump seal replaced, and how do asyncio tasks handle cancellation?"
    ) == ["When was the coolant pump seal replaced?", "How do asyncio tasks handle cancellation?"]
    assert sub_questions("What is a coroutine? How does the event loop run it?") == [
        "What is a coroutine?",
        "How does the event loop run it?",
    ]
    assert sub_questions("How do lists and tuples differ?") == ["How do lists and tuples differ?"]
    assert sub_questions("Compare A, B, and C") == ["Compare A, B, and C"]  # parts too short
    assert sub_questions("Когда заменили уплотнение насоса, и как работает отмена задач?") == [
        "Когда заменили уплотнение насоса?",
        "Как работает отмена задач?",
    ]


def test_a_quote_too_short_to_prove_anything_is_dropped_however_verbatim():
    said = Coverage(covered=True, evidence=["the", "coolant pump seal", " Maintenance log. "])
    checked = verified(said, [p.text for p in PASSAGES])
    assert (checked.covered, checked.evidence) == (False, [])
    five_words = "The coolant pump seal was"
    assert verified(Coverage(covered=True, evidence=[five_words]), [SENTENCE]).covered


def test_a_long_quote_of_few_words_counts_for_scripts_without_spaces():
    quote = "冷却剤ポンプのシールは二〇二一年三月に一次系の漏れの後で交換された"
    assert len(quote) >= 25 and len(quote.split()) == 1
    checked = verified(Coverage(covered=True, evidence=[quote]), [f"保守記録。{quote}。"])
    assert checked.covered and checked.evidence == [quote]
