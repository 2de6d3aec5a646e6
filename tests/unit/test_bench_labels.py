"""The citation bench's labelled set (bench/labels.json) is usable as measured.

A label naming no document of the built-in collection could never be cited: it would
lower recall for every engine alike and hide a typo. A question in both halves would
make the held-out half partly tuned on.
"""

from __future__ import annotations

from bench.answers import answer_keys
from bench.precision import CITED, HALVES, Labelled, Score, ceiling, labelled
from tests.contract.conftest import shared_corpus


def test_every_label_names_a_document_of_the_built_in_collection():
    documents = {p.url.removeprefix("corpus://") for p in shared_corpus().documents()}
    for half in HALVES:
        for item in labelled(half):
            assert item.relevant, (half, item.question)
            unknown = item.accepted - documents  # accepted holds the relevant ones too
            assert not unknown, (half, item.question, sorted(unknown))


def test_the_held_out_half_shares_no_question_with_the_tuning_half():
    tune, report = ({item.question for item in labelled(half)} for half in HALVES)
    assert len(report) >= 18
    assert not tune & report


def test_the_ceiling_counts_on_topic_candidates_a_perfect_judge_could_cite():
    """The ceiling row: on-topic documents among the first CITED and 2 × CITED candidates."""
    label = Labelled("q", frozenset({"a"}), frozenset({"a", "b", "f"}))
    score = Score()
    score.add_ceiling(label, ["x", "a", "y", "z", "w", "f", "b"])
    score.add_ceiling(label, None)  # no vectors: nothing to count
    score.add(label, ["a"])
    score.add(label, [])
    assert score.ceiling == [1, 3]
    assert ceiling(score) == f"0.5 of the first {CITED}, 1.5 of {2 * CITED}"
    assert ceiling(Score()) == "n/a: no vectors"


def test_an_answer_is_scored_on_the_documents_it_quotes():
    """A search answer's sources; the documents a chat answer names in its first line."""
    titles = {"json — JSON encoder and decoder": "python-stdlib/json", "The with statement": "w"}
    search = {"answer": "…", "sources": [{"n": 1, "url": "corpus://python-stdlib/json"}]}
    assert answer_keys(search, "search", titles) == ["python-stdlib/json"]
    chat = {"answer": "From the local reference (The with statement):\n\nThe json module …"}
    assert answer_keys(chat, "chat", titles) == ["w"]  # not a title named in the quotes
