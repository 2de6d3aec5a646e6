"""BM25 models of pages' sentences, kept per worker for the pages' later uses.

A researcher ranks a page's sentences for every step that shows or cites it (what it
just read, a finding's excerpts, the writer's evidence), and building the model is most
of each ranking's cost (a long page of the built-in collection: ≈ 11 ms to build from
its tokens, ≈ 2.5 ms to rank with it). So the last ``KEPT`` pages' models are kept,
keyed by the sentences, which decide their tokens. A page read from the built-in
collection carries its sentences' stored tokens (``Page.sentence_tokens``): its model is
built without tokenizing anything; any other page's sentences are tokenized here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from shared.tools.lexical import Bm25Scorer, tokenized

KEPT = 128  # pages; a model is ≈ 50 KB for a median built-in page, ≈ 1 MB for the longest

_lock = threading.Lock()
_kept: OrderedDict[tuple[str, ...], Bm25Scorer] = OrderedDict()


def page_scorer(sentences: Sequence[str], tokens: Sequence[str] | None = None) -> Bm25Scorer:
    """The model of one page's ``sentences``, from their ``tokens`` when the page has them
    (``Page.sentence_tokens``: each sentence's tokens joined by spaces)."""
    key = tuple(sentences)
    with _lock:
        scorer = _kept.get(key)
        if scorer is not None:
            _kept.move_to_end(key)
            return scorer
    # built outside the lock: two threads may build the same model, never a wrong one
    if tokens is not None:
        scorer = Bm25Scorer([joined.split() for joined in tokens])
    else:
        scorer = Bm25Scorer([tokenized(s) for s in key])
    with _lock:
        _kept[key] = scorer
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return scorer
