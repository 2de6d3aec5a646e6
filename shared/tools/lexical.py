"""Lexical text tools: tokens, BM25, MMR, key phrases (sentences: ``sentence_split``).

Pure, deterministic functions shared by the local corpus (search), the
offline reasoner and compression; they know nothing of either.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from rank_bm25 import BM25Okapi

_STOPWORDS_TEXT = """a about above after again against all also am an and any are as at be
    because been
    before being below between both but by can could did do does doing down during each
    either else etc every few for from further had has have having he her here hers how i if
    in into is it its itself just let may me might more most must my no nor not now of off on
    once one only or other our out over own same shall she should so some such than that the
    their them then there these they this those through to too under until up upon use used
    uses using very via was we were what when where which while who whom why will with would
    you your explain describe work works working python
    и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее
    её мне было вот от меня еще ещё нет о из ему теперь когда даже ну ли если уже или ни быть
    был него до вас вам ведь там потом себя ничего ей может они тут где есть надо ней для мы
    тебя их чем была сам чтоб без чего раз тоже себе под будет ж тогда кто этот того потому
    этого какой какие какая каких совсем ним здесь этом почти мой тем чтобы нее сейчас были
    куда зачем всех можно при об другой хоть после над больше тот через эти нас про всего них
    много разве эту моя свою этой перед лучше том нельзя такой им более всегда между такое
    почему работает работают работа это"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())

_WORD_RE = re.compile(r"\w+", re.UNICODE)
# bounded by letters of Latin or Cyrillic script ("mo" in "Cómo" is no word), not by
# Chinese or Japanese, which write "Python" and "with" without spaces around them
_NOT_LATIN_EDGE = r"0-9A-Za-z_\u00C0-\u024F\u0400-\u04FF"
_LATIN_WORD_RE = re.compile(
    rf"(?<![{_NOT_LATIN_EDGE}])[A-Za-z_][A-Za-z0-9_]*(?![{_NOT_LATIN_EDGE}])"
)
_PHRASE_BREAK_RE = re.compile(r"[^\w\s]|\s{2,}", re.UNICODE)


NORMALIZED_KEPT = 1 << 16  # distinct words whose normal form is kept (the corpus has ~30k)


@lru_cache(maxsize=NORMALIZED_KEPT)
def normalize_token(token: str) -> str:
    """Lower-case, drop dunder underscores, fold simple English plurals (managers -> manager).

    Cached: a text repeats its words, and every ranking and passage choice tokenizes
    (tokenizing 50 KB of the corpus: 4.4 -> 2.9 ms)."""
    token = token.lower().strip("_")
    if len(token) > 4 and token.isascii():
        if token.endswith("ies"):
            return token[:-3] + "y"
        if token.endswith("s") and not token.endswith(("ss", "us", "is")):
            return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Every word token, normalized (stopwords kept: BM25's IDF weighs them down)."""
    return [t for t in (normalize_token(w) for w in _WORD_RE.findall(text)) if t]


def latin_words(text: str) -> list[str]:
    """Whole Latin-script words as written ("with", "__enter__"; not the "mo" of "Cómo"):
    what a question in another language shares with an English corpus."""
    return _LATIN_WORD_RE.findall(text)


def content_tokens(text: str) -> list[str]:
    """Tokens without stopwords and one-letter noise; what "topic overlap" is measured on."""
    return [t for t in tokenize(text) if len(t) > 1 and t not in STOPWORDS and not t.isdigit()]


# -- scoring and selection --------------------------------------------------------


class Bm25Scorer:
    """BM25 (Okapi) over a fixed list of documents, built once, scored for many queries.

    Building the model is most of the cost; the local corpus keeps one per
    document (its sentences) so a search does not rebuild it for every snippet.
    """

    def __init__(self, docs_tokens: Sequence[Sequence[str]]) -> None:
        self._docs = [list(tokens) or ["\x00"] for tokens in docs_tokens]
        self.token_sets = [frozenset(tokens) for tokens in docs_tokens]  # also for MMR
        self._model = BM25Okapi(self._docs) if self._docs else None

    def scores(self, query_tokens: Sequence[str]) -> list[float]:
        """Score of each document; zeros when nothing overlaps."""
        if self._model is None or not query_tokens:
            return [0.0] * len(self._docs)
        scores = self._model.get_scores(list(query_tokens))
        query_set = set(query_tokens)
        # rank_bm25 floors negative IDF with a positive epsilon, so a document that
        # shares no term with the query can still score above zero: clamp those.
        return [
            float(score) if not query_set.isdisjoint(tokens) else 0.0
            for score, tokens in zip(scores, self.token_sets, strict=True)
        ]


def bm25_scores(query_tokens: Sequence[str], docs_tokens: Sequence[Sequence[str]]) -> list[float]:
    """BM25 (Okapi) score of each document for the query; zeros when nothing overlaps."""
    if not docs_tokens or not query_tokens:
        return [0.0] * len(docs_tokens)
    return Bm25Scorer(docs_tokens).scores(query_tokens)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)  # |a ∪ b| counted, not built: MMR calls this thousands of times
    return shared / (len(a) + len(b) - shared)


def mmr_select(
    relevance: Sequence[float],
    token_sets: Sequence[frozenset[str]],
    k: int,
    *,
    diversity: float = 0.3,
    duplicate_threshold: float = 0.6,
) -> list[int]:
    """Indices chosen by Maximal Marginal Relevance, best first.

    Only candidates with positive relevance are eligible; a candidate whose
    Jaccard similarity to an already chosen one reaches ``duplicate_threshold``
    is never chosen (near-duplicates), the rest trade relevance against
    redundancy with weight ``diversity``. Ties go to the earlier index.

    Each candidate's redundancy (its highest similarity to a chosen one) is kept and
    raised by the one just chosen, so a pick costs one similarity per candidate, not
    one per candidate and chosen sentence: on a long page (100 candidates, k = 60)
    that was 100 ms a call. A near-duplicate is dropped for good (redundancy only grows).
    """
    top = max(relevance, default=0.0)
    if k <= 0 or top <= 0:
        return []
    norm = [r / top for r in relevance]
    redundancy = {i: 0.0 for i, r in enumerate(relevance) if r > 0}  # in index order
    chosen: list[int] = []
    while redundancy and len(chosen) < k:
        best_i, best_value = -1, -math.inf
        for i, seen in redundancy.items():
            value = (1 - diversity) * norm[i] - diversity * seen
            if value > best_value:
                best_i, best_value = i, value
        if best_i < 0:  # no comparable value (NaN relevance)
            break
        chosen.append(best_i)
        del redundancy[best_i]
        picked = token_sets[best_i]
        for i in list(redundancy):
            similarity = max(redundancy[i], jaccard(token_sets[i], picked))
            if similarity >= duplicate_threshold:
                del redundancy[i]
            else:
                redundancy[i] = similarity
    return chosen


@lru_cache(maxsize=32768)
def tokenized(sentence: str) -> tuple[str, ...]:
    """:func:`content_tokens` of one sentence, cached: a researcher ranks the same page's
    sentences for every query it reads the page with, and tokenizing them was most of
    the cost of choosing passages (bench.profile)."""
    return tuple(content_tokens(sentence))


def rank_sentences(
    query: str,
    sentences: Sequence[str],
    k: int,
    *,
    tokens: Sequence[Sequence[str]] | None = None,
    scorer: Bm25Scorer | None = None,
    diversity: float = 0.3,
) -> list[tuple[int, float]]:
    """Top ``k`` sentences for ``query`` as ``(index, bm25 score)``, MMR order, no duplicates.

    ``tokens`` may carry the sentences' precomputed ``content_tokens`` (the
    corpus index stores them) to skip re-tokenizing large pages; ``scorer``, their
    model already built (``page_scorers`` keeps one per page).
    """
    if scorer is None:
        scorer = Bm25Scorer(tokens if tokens is not None else [tokenized(s) for s in sentences])
    scores = scorer.scores(content_tokens(query))
    chosen = mmr_select(scores, scorer.token_sets, k, diversity=diversity)
    return [(i, scores[i]) for i in chosen]


# -- key phrases ------------------------------------------------------------------


def candidate_phrases(text: str, max_words: int = 3) -> list[str]:
    """RAKE-style candidates: runs of non-stopwords between punctuation and stopwords."""
    phrases: list[str] = []
    for chunk in _PHRASE_BREAK_RE.split(text):
        run: list[str] = []
        for word in _WORD_RE.findall(chunk):
            lowered = word.lower()
            if lowered in STOPWORDS or lowered.isdigit() or len(lowered.strip("_")) < 2:
                if run:
                    phrases.append(" ".join(run[:max_words]))
                run = []
            else:
                run.append(lowered)
        if run:
            phrases.append(" ".join(run[:max_words]))
    return phrases


def key_phrases(
    texts: Iterable[str],
    k: int,
    *,
    idf: Mapping[str, float] | None = None,
    exclude: Iterable[str] = (),
) -> list[str]:
    """The ``k`` most characteristic phrases of ``texts`` (frequency x rarity x length).

    Phrases whose content tokens are all in ``exclude`` (e.g. the query's own
    words) are skipped; so are phrases contained in a better one already taken.
    """
    excluded = {normalize_token(t) for e in exclude for t in _WORD_RE.findall(e)}
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for text in texts:
        for phrase in candidate_phrases(text):
            counts[phrase] += 1
            first_seen.setdefault(phrase, len(first_seen))

    def score(phrase: str) -> float:
        tokens = tokenize(phrase)
        rarity = sum((idf or {}).get(t, 1.0) for t in tokens) / max(len(tokens), 1)
        return counts[phrase] * math.sqrt(rarity) * (1 + 0.5 * (len(tokens) - 1))

    ranked = sorted(counts, key=lambda p: (-score(p), first_seen[p]))
    chosen: list[str] = []
    for phrase in ranked:
        tokens = set(tokenize(phrase))
        if not tokens or tokens <= excluded:
            continue
        if any(tokens <= set(tokenize(c)) for c in chosen):
            continue
        chosen.append(phrase)
        if len(chosen) >= k:
            break
    return chosen


def as_named(phrase: str, text: str) -> str | None:
    """``phrase`` (a :func:`key_phrases` result) as ``text`` writes it, when a reader takes
    it for a name: one word written as code there (``ArgumentParser``, ``lru_cache``,
    ``os.environ``, ``open()``: the dotted name whole), or words ``text`` uses more than
    once. None for a run that stood once between two stopwords ("the information needed
    to parse", "optional command-line"): asked about, it reads as a fragment."""
    words = phrase.split()
    if len(words) > 1:
        spaced = " ".join(text.lower().split())
        return phrase if spaced.count(phrase) > 1 else None
    pattern = rf"(?<![\w.])((?:\w+\.)*{re.escape(phrase)}(?:\.\w+)*)(?!\w|\.\w)(\()?"
    for match in re.finditer(pattern, text, re.IGNORECASE):
        name, call = match.group(1), match.group(2)
        if "." in name or "_" in name.strip("_") or call or any(c.isupper() for c in name[1:]):
            return name + "()" if call else name
    return None


def unique_texts(items: Iterable[str], skip: Iterable[str] = ()) -> list[str]:
    """Case- and space-insensitive de-duplication keeping first occurrences (spaces
    collapsed), minus ``skip``: queries, questions and URLs a model or a template repeated."""
    seen = {" ".join(s.lower().split()) for s in skip}
    out = []
    for item in items:
        key = " ".join(item.lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(" ".join(item.split()))
    return out
