"""Which documents the offline engine takes to be about the question, by meaning.

When the built-in collection carries chunk vectors (``corpus_vectors``: the embedding model
is installed), a document is about the question when it is among the first ``CITED`` of the
fused ranking (words and meaning, ``corpus_vectors.fused``) and its best passage comes near
enough in meaning: a cosine of at least ``TAU``, and at most ``DELTA`` below the best
document's. When none is, the one ranked first is (the question has a nearest page; it is
cited rather than nothing). These documents get the plan's topics (``offline_research``)
and the report cites them (``offline_quotes``), even when their sentences share few words
with the question ("flatten a list of lists" and ``itertools.chain``), where the lexical
gate (``relevance``) would pass none. Without vectors the gate decides alone, as before, and
so it does for a question in another language than the corpus's: the model was trained on
English, and such a question is judged by the words that carry over (``relevance``).

Constants measured by ``python -m bench.semantic`` on the labelled set's tune half (first
50 and probe 24 questions); the report half was never read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from shared.adapters.reasoning import question_terms
from shared.adapters.reasoning.offline_quotes import Sentences
from shared.adapters.reasoning.relevance import module_title
from shared.adapters.search.base import Corpus, FocusDocument

# a best-passage cosine below 0.45 is mostly off topic: on/off-topic AUC 0.83, and 0.45 had
# the most on-topic documents per report at precision ≥ 0.85 in both tune parts
TAU = 0.45
# within 0.2 of the best document: further down, the page answers a neighbouring question
DELTA = 0.2
CITED = 5  # as the bench counts recall (5 per question): more cost precision on the tune half


def chosen(corpus: Corpus, query: str, language: str) -> list[str] | None:
    """The URLs of the documents about ``query`` by meaning, best first; None without vectors
    or for a question in another language than the corpus's."""
    ranked = None if question_terms.foreign_to_corpus(language) else ranking(corpus, query)
    if not ranked:
        return None
    bar = max(TAU, max(cosine for _, cosine in ranked) - DELTA)
    near = [u for u, cosine in ranked[:CITED] if cosine >= bar] or [ranked[0][0]]
    return _without_other_modules(corpus, query, near)


def ranking(corpus: Corpus, query: str) -> list[tuple[str, float]] | None:
    """The fused ranking the documents are chosen from (``Corpus.by_meaning``), for the
    question less an imperative that frames it (``question_terms.unframed``)."""
    return corpus.by_meaning(question_terms.unframed(query))


def _without_other_modules(corpus: Corpus, query: str, urls: list[str]) -> list[str]:
    """``urls`` less the other modules' pages, for a question on a module's attribute
    ("When should I use functools.wraps?") when that module's page is among them: the
    library's other modules document their own API, so one stays only if the question names
    it too ("Is functools.wraps like textwrap's wrap?") or its text names the module
    (``inspect.unwrap`` follows ``functools.wraps``; ``textwrap.wrap``, near in meaning, is
    another thing)."""
    owners = {name.rsplit(".", 1)[0] for name in question_terms.dotted_names(query)}
    if not owners:  # most questions: no page read for the rule
        return urls
    pages = {u: doc for u in urls if (doc := corpus.document(u))}
    modules = {u: module_title(doc.title) for u, doc in pages.items()}
    if not owners & set(modules.values()):
        return urls
    asked = owners | set(re.findall(r"[\w.]+", query))
    named = re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, owners))})\b")
    return [
        u for u in urls if not modules.get(u) or modules[u] in asked or named.search(pages[u].text)
    ]


def about(
    corpus: Corpus, focus: Sequence[FocusDocument], query: str, language: str
) -> list[FocusDocument] | None:
    """The focus documents about the question by meaning (None: decide by words)."""
    urls = chosen(corpus, query, language)
    if urls is None:
        return None
    by_url = {d.url: d for d in focus}
    return [by_url[u] for u in urls if u in by_url]


def report_inputs(corpus: Corpus, query: str, language: str) -> tuple[Sentences, frozenset[str]]:
    """What the report judges documents by: their sentences, and those chosen by meaning."""
    return corpus_sentences(corpus), frozenset(chosen(corpus, query, language) or ())


def corpus_sentences(corpus: Corpus) -> Callable[[str], tuple[str, ...] | None]:
    """The sentences the corpus index keeps for a document's URL (None for any other page):
    the report quotes from them without splitting the documents again."""

    def sentences(url: str) -> tuple[str, ...] | None:
        cached = corpus.document_sentences(url)
        return tuple(cached[0]) if cached else None

    return sentences
