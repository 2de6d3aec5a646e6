"""A reasoning model's thoughts never reach what the service parses or stores."""

from __future__ import annotations

import pytest

from shared.adapters.reasoning.reasoning_text import without_reasoning


@pytest.mark.parametrize(
    ("content", "answer"),
    [
        ('<think>\nweigh it\n</think>\n\n{"a": 1}', '{"a": 1}'),
        # the chat template carried the opening tag: only the closing one shows
        ('weigh it first\n</think>\n{"a": 1}', '{"a": 1}'),
        # two blocks, one between parts of the answer
        ("<think>x</think>Heat pumps <think>y</think>work.", "Heat pumps work."),
        ("<THINKING>x</THINKING>Answer", "Answer"),
        # cut at the output cap while still thinking: nothing of it is an answer
        ("Answer so far <think>and then I", "Answer so far "),
        ("<think>only thoughts, cut", ""),
    ],
)
def test_thoughts_are_removed_however_the_server_wrote_them(content: str, answer: str) -> None:
    assert without_reasoning(content) == answer


def test_a_reply_without_thoughts_keeps_its_white_space() -> None:
    # continuations are joined part by part; trimming would glue words together
    assert without_reasoning("the first half ") == "the first half "
    assert without_reasoning("") == ""
