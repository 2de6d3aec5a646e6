"""The citation bench's labelled set (bench/labels.json) is usable as measured.

A label naming no document of the built-in collection could never be cited: it would
lower recall for every engine alike and hide a typo. A question in both halves would
make the held-out half partly tuned on.
"""

from __future__ import annotations

from bench.precision import HALVES, labelled
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
