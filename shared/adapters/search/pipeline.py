"""The query pipeline's pure steps: normalise, dedupe, filter, fuse, rerank, diversify.

Several queries (and several providers) each return a ranked list; these
functions turn them into one short list worth scraping. They do no I/O, so
activities, the offline reasoner and tests call them directly. ``process``
runs them in the order the design fixes:

    per list: dedupe -> drop blocked  ->  RRF (k=60)  ->  BM25 rerank  ->  diversify

Results are identified by ``normalize_url`` everywhere, so the same page
reached with tracking parameters or a fragment counts once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from rank_bm25 import BM25Plus

from shared.core.source_models import SearchResult

RRF_K = 60
# Tavily ranks its results for an LLM's question already; SearXNG, Brave, DuckDuckGo and the
# local corpus rank by engine or keywords, which an embedding rerank improves on
RANKED_BY_PROVIDER = frozenset({"tavily"})
_TRACKING_PARAMS = frozenset(
    {
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "ref",
        "ref_src",
        "ref_url",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "spm",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_WORDS = re.compile(r"\w+", re.UNICODE)


def normalize_url(url: str) -> str:
    """Canonical form used as a result's identity (not for fetching).

    Lower-cases scheme and host, drops default ports, fragments and tracking
    parameters (``utm_*``, click ids, ``ref``), sorts the remaining query and
    strips a trailing slash except for the root path.
    """
    raw = url.strip()
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        return raw
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    query = sorted(
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)
    )
    return urlunsplit((scheme, netloc, path, urlencode(query), ""))


def domain_of(url: str) -> str:
    """The host without ``www.``; what "distinct domains" counts."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return ""
    return host.removeprefix("www.")


def dedupe(results: Iterable[SearchResult]) -> list[SearchResult]:
    """One result per normalised URL, at the first position, keeping the best score.

    When a later duplicate has a higher score its fields win but the position
    stays that of the first occurrence (rank order is the provider's verdict).
    """
    order: list[str] = []
    best: dict[str, SearchResult] = {}
    for result in results:
        key = normalize_url(result.url)
        kept = best.get(key)
        if kept is None:
            order.append(key)
            best[key] = result
        elif result.score > kept.score:
            best[key] = result.model_copy(update={"snippet": result.snippet or kept.snippet})
    return [best[key] for key in order]


def filter_blocked(
    results: Iterable[SearchResult], domains: Iterable[str], keywords: Iterable[str]
) -> list[SearchResult]:
    """Drop results on a blocked domain (or its subdomains) or mentioning a blocked keyword."""
    blocked_domains = [d.strip().lower().lstrip("*.").rstrip(".") for d in domains if d.strip()]
    blocked_words = [k.strip().lower() for k in keywords if k.strip()]
    kept = []
    for result in results:
        host = domain_of(result.url)
        if any(host == d or host.endswith("." + d) for d in blocked_domains):
            continue
        haystack = f"{result.title}\n{result.snippet}\n{result.url}".lower()
        if any(word in haystack for word in blocked_words):
            continue
        kept.append(result)
    return kept


def rrf_fuse(ranked_lists: list[list[SearchResult]], k: int = RRF_K) -> list[SearchResult]:
    """Reciprocal Rank Fusion: score = sum over lists of 1 / (k + rank), rank from 1.

    Each URL appears once, with the fields of its best-ranked occurrence, the
    fused score, and every provider that returned it (comma-separated).
    """
    scores: dict[str, float] = {}
    first: dict[str, tuple[int, SearchResult]] = {}
    providers: dict[str, list[str]] = {}
    for ranked in ranked_lists:
        seen_here: set[str] = set()
        for rank, result in enumerate(ranked, start=1):
            key = normalize_url(result.url)
            if key in seen_here:
                continue
            seen_here.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            if key not in first or rank < first[key][0]:
                first[key] = (rank, result)
            names = providers.setdefault(key, [])
            for name in result.provider.split(","):
                if name and name not in names:
                    names.append(name)
    ordered = sorted(scores, key=lambda key: (-scores[key], first[key][0]))
    return [
        first[key][1].model_copy(
            update={"score": round(scores[key], 6), "provider": ",".join(providers[key])}
        )
        for key in ordered
    ]


def rerank(query: str, results: list[SearchResult], top_k: int) -> list[SearchResult]:
    """Best ``top_k`` by lexical relevance (BM25+ over title and snippet) blended with rank.

    Why blend: snippets are short and BM25 alone would let a keyword-stuffed
    snippet jump over the result every provider agreed on; 70 % lexical and
    30 % incoming position keeps both signals. Ties keep the incoming order.
    """
    if not results:
        return []
    docs = [_tokens(f"{r.title} {r.title} {r.snippet}") for r in results]
    query_tokens = _tokens(query)
    if not query_tokens or not any(docs):
        return results[:top_k]
    lexical = BM25Plus([d or ["_"] for d in docs]).get_scores(query_tokens)
    top = max(lexical) or 1.0
    n = len(results)
    blended = [0.7 * (lexical[i] / top) + 0.3 * (1.0 - i / n) for i in range(n)]
    order = sorted(range(n), key=lambda i: (-blended[i], i))
    return [results[i].model_copy(update={"score": round(blended[i], 6)}) for i in order[:top_k]]


def diversify(
    results: list[SearchResult], min_domains: int = 3, top_k: int | None = None
) -> list[SearchResult]:
    """The first ``top_k`` results, swapping in other domains until ``min_domains`` are present.

    A swap replaces the lowest-ranked result whose domain already appears
    higher up with the best-ranked result from a domain not yet selected.
    Order among the kept results is preserved.
    """
    top_k = len(results) if top_k is None else top_k
    selected = list(results[:top_k])
    rest = list(results[top_k:])
    while len({domain_of(r.url) for r in selected}) < min_domains:
        present = {domain_of(r.url) for r in selected}
        newcomer = next((r for r in rest if domain_of(r.url) not in present), None)
        victim = _last_duplicate_domain(selected)
        if newcomer is None or victim is None:
            break
        rest.remove(newcomer)
        selected[victim] = newcomer
    rank = {id(r): i for i, r in enumerate(results)}
    return sorted(selected, key=lambda r: rank[id(r)])


def process(
    query: str,
    ranked_lists: list[list[SearchResult]],
    *,
    blocked_domains: Iterable[str] = (),
    blocked_keywords: Iterable[str] = (),
    top_k: int = 6,
    min_domains: int = 3,
    k: int = RRF_K,
) -> list[SearchResult]:
    """Dedupe and filter each list, fuse them with RRF, rerank, then diversify to ``top_k``."""
    blocked_domains, blocked_keywords = list(blocked_domains), list(blocked_keywords)
    cleaned = [filter_blocked(dedupe(r), blocked_domains, blocked_keywords) for r in ranked_lists]
    fused = rrf_fuse(cleaned, k=k)
    reranked = rerank(query, fused, top_k=len(fused))
    return diversify(reranked, min_domains=min_domains, top_k=top_k)


def needs_semantic_rerank(results: Iterable[SearchResult]) -> bool:
    """Whether an embedding rerank can improve on the providers' order: some result was
    ranked by no provider that ranks semantically already (``RANKED_BY_PROVIDER``)."""
    return any(not set(r.provider.split(",")) & RANKED_BY_PROVIDER for r in results)


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("utm_") or lowered in _TRACKING_PARAMS


def _last_duplicate_domain(selected: list[SearchResult]) -> int | None:
    counts: dict[str, int] = {}
    for r in selected:
        counts[domain_of(r.url)] = counts.get(domain_of(r.url), 0) + 1
    for i in range(len(selected) - 1, -1, -1):
        if counts[domain_of(selected[i].url)] > 1:
            return i
    return None


def _tokens(text: str) -> list[str]:
    return [t for t in _WORDS.findall(text.lower()) if len(t) > 1 or t.isdigit()]
