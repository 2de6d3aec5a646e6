"""Pages' BM25 models, kept per worker: one per page's sentences, the last ``KEPT`` pages."""

from __future__ import annotations

from shared.tools import lexical, page_scorers
from shared.tools.page_scorers import KEPT, page_scorer


def _page(n: int) -> list[str]:
    return [f"Page {n} says the context manager closes the file.", f"Page {n} ends here."]


def test_a_page_ranked_again_reuses_its_model_and_a_page_with_tokens_tokenizes_nothing():
    sentences = _page(-1)
    tokens = [lexical.content_tokens(s) for s in sentences]
    lexical.tokenized.cache_clear()
    scorer = page_scorer(sentences, [" ".join(t) for t in tokens])  # as a page carries them
    assert lexical.tokenized.cache_info().misses == 0
    assert page_scorer(list(sentences)) is scorer  # a new list of the same sentences
    query = lexical.content_tokens("context manager")
    assert scorer.scores(query) == lexical.Bm25Scorer(tokens).scores(query)


def test_only_the_last_pages_used_are_kept():
    first = page_scorer(_page(0))
    for n in range(1, KEPT):
        page_scorer(_page(n))
    assert page_scorer(_page(0)) is first  # used again: now the most recent
    for n in range(KEPT, 2 * KEPT):
        page_scorer(_page(n))
    assert len(page_scorers._kept) == KEPT
    assert page_scorer(_page(0)) is not first  # evicted, built again
