"""How a research searches its collections: each as its own search ranks it.

The built-in collection weighs whole documents (``BuiltinCorpus.search``: a page with
one passage on the subject does not outrank the pages about it, and a question in
another language is searched by the words the corpus knows); the caller's collections
rank each page by its best chunk (``ranked_hits``). The two scores are not comparable,
so a research naming both gets the two lists fused by reciprocal rank.
"""

from __future__ import annotations

from shared.adapters.documents.collection_search import PROVIDER, CollectionSearch
from shared.adapters.search.base import SearchProvider
from shared.adapters.search.pipeline import rrf_fuse
from shared.core.source_models import SearchResult, TimeRange
from shared.ports import Services


def collections_search(svc: Services, collections: tuple[str, ...]) -> SearchProvider:
    """The search over ``collections``; the built-in corpus is loaded only when named."""
    own = [c for c in collections if c != svc.builtin_collection_id]
    if len(own) == len(collections):
        return CollectionSearch(svc.index, own)
    if not own:
        return svc.builtin_search()
    return _Fused([svc.builtin_search(), CollectionSearch(svc.index, own)])


class _Fused:
    """Several collection searches as one, by reciprocal rank."""

    name = PROVIDER

    def __init__(self, searches: list[SearchProvider]) -> None:
        self._searches = searches

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        ranked = [s.search(query, max_results, time_range) for s in self._searches]
        return rrf_fuse(ranked)[:max_results]
