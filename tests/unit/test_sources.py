"""The corrective judge (shared/usecases/research/sources.py): does a collection cover a search?"""

from __future__ import annotations

from shared.core.source_models import SearchResult
from shared.usecases.research.sources import covers

PASSAGE = SearchResult(
    url="/api/collections/c/documents/d#page=3",
    title="Coolant pump runbook, p. 3",
    snippet="The coolant pump seal was replaced in March 2021 after a leak.",
)


def test_passages_holding_the_query_words_cover_it_even_in_other_word_forms():
    assert covers("coolant pump seal replacement", [PASSAGE])


def test_a_query_half_about_something_else_is_not_covered():
    assert not covers("coolant pump seal and asyncio task cancellation", [PASSAGE])


def test_no_passage_covers_nothing():
    assert not covers("coolant pump", [])
    assert not covers("the and of", [PASSAGE])  # no content words to look for
