"""Sentence splitting, BM25, MMR and key phrases behave as the offline reasoner needs."""

from __future__ import annotations

import random

from shared.tools import lexical, sentence_split

DOC = """The "with" statement
********************

The "with" statement is used to wrap the execution of a block, e.g. a file
operation, with methods defined by a context manager. It guarantees cleanup.

   with_stmt ::= "with" with_item ":" suite

   >>> with open("x") as f:
   ...     data = f.read()

1. The context manager's "__enter__()" is loaded for later use.
"""


def test_split_sentences_keeps_prose_and_drops_code_and_grammar():
    sentences = sentence_split.split_sentences(DOC)
    assert sentences[0].startswith('The "with" statement is used to wrap the execution')
    assert "e.g. a file operation" in sentences[0]  # an abbreviation does not end a sentence
    assert not any("::=" in s or ">>>" in s or "f.read" in s for s in sentences)
    assert 'The context manager\'s "__enter__()" is loaded for later use.' in sentences


def test_tokens_fold_plurals_and_dunders():
    assert lexical.tokenize("Context Managers __exit__") == ["context", "manager", "exit"]
    assert "the" not in lexical.content_tokens("the context manager")


def test_bm25_prefers_the_matching_sentence_and_zeroes_unrelated_ones():
    docs = [["list", "append", "item"], ["context", "manager", "enter"], ["loop", "break"]]
    scores = lexical.bm25_scores(["context", "manager"], docs)
    assert scores[1] > 0 and scores[0] == 0 and scores[2] == 0


def test_a_reused_bm25_scorer_scores_each_query_as_a_fresh_one_would():
    docs = [["list", "append", "item"], ["context", "manager", "enter"], ["loop", "break"]]
    scorer = lexical.Bm25Scorer(docs)
    for query in (["context", "manager"], ["loop"], ["append", "break"], ["nothing"]):
        assert scorer.scores(query) == lexical.bm25_scores(query, docs)
    assert scorer.scores(["loop"])[2] > 0 and scorer.scores(["nothing"]) == [0.0, 0.0, 0.0]


def test_mmr_never_picks_near_duplicates():
    sentences = [
        "A context manager defines the runtime context of a with statement.",
        "A context manager defines the runtime context of the with statement.",
        "The exit method may suppress an exception raised inside the block.",
    ]
    picked = lexical.rank_sentences("context manager runtime exception", sentences, 3)
    indices = [i for i, _ in picked]
    assert len(indices) == 2
    assert {0, 1} & set(indices) and 2 in indices


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _mmr_by_definition(relevance, token_sets, k, diversity, threshold):
    """MMR as defined: each pick weighs every candidate against every chosen sentence."""
    top = max(relevance, default=0.0)
    if k <= 0 or top <= 0:
        return []
    remaining = [i for i, r in enumerate(relevance) if r > 0]
    chosen: list[int] = []
    while remaining and len(chosen) < k:
        best, best_value = -1, float("-inf")
        for i in remaining:
            similar = [_jaccard(token_sets[i], token_sets[j]) for j in chosen]
            redundancy = max(similar, default=0.0)
            value = (1 - diversity) * (relevance[i] / top) - diversity * redundancy
            if redundancy < threshold and value > best_value:
                best, best_value = i, value
        if best < 0:
            break
        chosen.append(best)
        remaining.remove(best)
    return chosen


def test_mmr_picks_what_the_definition_picks_in_the_same_order():
    """The selection keeps each candidate's redundancy instead of recomputing it against
    every chosen sentence (100 ms -> 3 ms on a long page): the picks must not change."""
    rng = random.Random(11)
    for _ in range(400):
        n, vocabulary = rng.randint(0, 40), rng.randint(2, 10)
        sets = [
            frozenset(rng.sample(range(vocabulary), rng.randint(0, min(4, vocabulary))))
            for _ in range(n)
        ]
        relevance = [rng.choice([0.0, 0.5, 1.0, 2.0, rng.random()]) for _ in range(n)]
        k, diversity = rng.randint(0, 45), rng.choice([0.0, 0.3, 0.8])
        threshold = rng.choice([0.3, 0.6, 1.01])
        expected = _mmr_by_definition(relevance, sets, k, diversity, threshold)
        got = lexical.mmr_select(
            relevance, sets, k, diversity=diversity, duplicate_threshold=threshold
        )
        assert got == expected


def test_key_phrases_skip_the_query_words_and_prefer_repeated_phrases():
    texts = [
        "The runtime context is entered by __enter__.",
        "The runtime context is left by __exit__.",
        "A context manager sets up the runtime context.",
    ]
    phrases = lexical.key_phrases(texts, 3, exclude=["context manager"])
    assert phrases[0] == "runtime context"
    assert "context manager" not in phrases


def test_normal_forms_are_cached_bounded_and_the_same_as_worked_out() -> None:
    words = ["Managers", "__enter__", "libraries", "class", "status", "Iterators", "yield", "é"]
    expected = [lexical.normalize_token.__wrapped__(w) for w in words]
    assert expected == ["manager", "enter", "library", "class", "status", "iterator", "yield", "é"]
    assert [lexical.normalize_token(w) for w in words] == expected
    assert [lexical.normalize_token(w) for w in words] == expected  # from the cache
    assert lexical.normalize_token.cache_info().maxsize == lexical.NORMALIZED_KEPT


def test_latin_words_are_found_against_chinese_but_not_inside_accented_words():
    assert lexical.latin_words("如何在Python中使用with语句？") == ["Python", "with"]
    assert lexical.latin_words("¿Cómo uso asyncio en Python?") == ["uso", "asyncio", "en", "Python"]


def test_a_follow_up_asks_about_names_not_fragments() -> None:
    """ "What are common pitfalls with information needed?" was asked of an argparse answer:
    a key phrase is kept when the text writes it as code or uses it more than once."""
    text = (
        "Action objects are used by an ArgumentParser to represent the information needed to "
        "parse an argument. Read os.environ, or call open(). Use functools.lru_cache. Each "
        "context manager defines __enter__; a context manager may be reused."
    )
    assert lexical.as_named("argumentparser", text) == "ArgumentParser"
    assert lexical.as_named("environ", text) == "os.environ"
    assert lexical.as_named("open", text) == "open()"
    assert lexical.as_named("lru_cache", text) == "functools.lru_cache"  # the name whole
    assert lexical.as_named("context manager", text) == "context manager"  # said twice
    assert lexical.as_named("information needed", text) is None  # once, between stopwords
    assert lexical.as_named("parse", text) is None  # an everyday word
