"""The LLM's answer to a question about a report is checked, not trusted (``llm_ask.checked``)."""

from __future__ import annotations

from shared.adapters.reasoning.llm_ask import AskReply, checked, messages
from shared.core.ask_models import Passage

PASSAGES = [
    Passage(n=2, url="https://docs.example/with", text="The with statement calls __exit__."),
    Passage(n=5, url="https://docs.example/try", text="finally clauses always run."),
]


def test_a_citation_outside_the_passages_is_removed():
    reply = AskReply(answered=True, answer="It calls __exit__ [2][9]. Always [9].")
    answer = checked(reply, PASSAGES, "en")
    assert answer.answered and answer.cited == [2]
    assert "[9]" not in answer.answer and "[2]" in answer.answer


def test_an_answer_that_cites_nothing_is_not_an_answer():
    answer = checked(AskReply(answered=True, answer="It just works."), PASSAGES, "en")
    assert not answer.answered and answer.cited == []


def test_the_prompt_numbers_the_passages_as_the_report_does_and_stops_at_the_budget():
    prompt = messages("What runs __exit__?", PASSAGES, "de", max_chars=120)
    user = prompt[1]["content"]
    assert '<source n="2" url="https://docs.example/with"' in user
    assert '<source n="5"' not in user  # over the budget: the best passage alone
    assert "<query>\nWhat runs __exit__?\n</query>" in user
    assert "German" in prompt[0]["content"]
