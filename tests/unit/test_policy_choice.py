"""The source policy from the question's words (issue 30, item 4), in every language
the service answers in; the request's own choice always wins."""

from __future__ import annotations

import pytest

from shared.usecases.policy_choice import choose_source_policy


@pytest.mark.parametrize(
    ("question", "policy", "keyword"),
    [
        ("Verify that asyncio.run closes the event loop", "strict", "verify"),
        ("Fact-check: Python 3.13 removed the GIL", "strict", "fact-check"),
        ("Is it true that tuples are faster than lists?", "strict", "is it true"),
        ("Überprüfe, ob Python 3.13 den GIL entfernt hat", "strict", "überprüfe"),
        ("¿Es cierto que las tuplas son más rápidas?", "strict", "es cierto"),
        ("Vérifie si Python 3.13 supprime le GIL", "strict", "vérifie"),
        ("Проверь, убрали ли GIL в Python 3.13", "strict", "проверь"),
        ("請查證 Python 3.13 是否移除了 GIL", "strict", "查證"),
        ("验证一下这个说法", "strict", "验证"),
        ("Python web framework trends in 2025", "monitor", "trends"),
        ("What is the public sentiment about Rust?", "monitor", "sentiment"),
        ("Wie ist das Meinungsbild zu Rust?", "monitor", "meinungsbild"),
        ("Tendencias de frameworks web en Python", "monitor", "tendencias"),
        ("Les tendances des frameworks web Python", "monitor", "tendances"),
        ("Какие тренды у веб-фреймворков Python?", "monitor", "тренды"),
        ("Python 網頁框架的趨勢", "monitor", "趨勢"),
        ("社群對 Rust 的輿情如何?", "monitor", "輿情"),
        # strict is checked first, as the specification orders it
        ("Verify the trend of Python adoption", "strict", "verify"),
    ],
)
def test_a_keyword_picks_the_policy(question: str, policy: str, keyword: str) -> None:
    choice = choose_source_policy(question, None)
    assert (choice.policy, choice.chosen_by, choice.keyword) == (policy, "keyword", keyword)


@pytest.mark.parametrize(
    "question",
    ["What is a Python coroutine?", "Unverified claims about the GIL", "Extend the list"],
)
def test_no_keyword_means_discovery(question: str) -> None:
    choice = choose_source_policy(question, None)
    assert (choice.policy, choice.chosen_by, choice.keyword) == ("discovery", "default", None)


def test_the_request_wins_over_the_question() -> None:
    choice = choose_source_policy("Verify the trend", "monitor")
    assert (choice.policy, choice.chosen_by, choice.keyword) == ("monitor", "request", None)
