"""Whether a sentence or a document is about the question: the offline engine's
citation gate, used by planning (which documents to read) and the writers (what to quote).

An extractive writer cites what it quotes, so the gate on quotes is the gate on
sources. "Shares two of the question's words" let hub documents in (the debugger
page "lists all breaks, including for each breakpoint" for a question on loops
"including break and continue"). Words are therefore weighed by how rare they are
in the corpus (``question_terms``): a quote is about the question when it carries a set
share of the weight of the question's subject words, or every word of one of its
parts. Where no quote in the evidence reaches that share (a question worded in terms
the corpus hardly uses), the bar is the best quote's share, never below a floor.

A document is about the question when its title names the subject, or when more than
one of its sentences is about it: one passing sentence in a long page about something
else is a coincidence of words, not evidence; a long page is also about it when it has a
section on it (quotes carrying the question's share, close together). A question in
everyday words only (none as rare as a title word: "lists and tuples") is found here and
there in many pages, so only a title or a section vouches for a page. A keyword that is
an English verb too counts only as written ("yields a tuple" is not the yield
expression). A question that weighs too little to tell pages apart ("GIL" in a corpus
about the GIL) leaves nothing out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from shared.adapters.reasoning.gate_words import gate_words
from shared.adapters.reasoning.question_terms import (
    CORPUS_LANGUAGE,
    Weights,
    carried_weights,
    class_names,
    dotted,
    foreign_to_corpus,
    keywords,
    stem,
    stems,
    subject_weights,
)

QUOTE_MIN = 0.5  # share of the question's weight a quote must carry
QUOTE_FLOOR = 0.3  # ... and never less, however poorly the evidence matches
BEST_SHARE = 0.9  # when no quote reaches QUOTE_MIN: this much of the best quote's share
CONCEPT_MIN_WEIGHT = 2.0  # words weighing less together name nothing on their own
SOURCE_MIN_QUOTES = 2  # a document whose title is not about the question needs this many
# ... and this share of its sentences: a page about the subject keeps coming back to it; a
# long page on something else (unittest, the debugger) mentions it in passing. Set on the
# tune half of bench/labels.json (0.05: precision 0.78; 0.08: 0.84, same recall)
ABOUT_SHARE = 0.08
# ... or, on a long page, a section about it: this many quotes within PASSAGE sentences
# ("Compound statements" on the with statement, "Special method names" on context
# managers). Set on the tune half (3 in 4: precision 0.83; 4 in 5: 0.87, more recall)
PASSAGE_QUOTES = 4
PASSAGE = 5
# A how-to in everyday words ("How do I read an environment variable?") is answered by one
# function of a long page ("os": 488 sentences, four on environment variables), too few for
# the page share. When no page read is about it, the one page with the most sentences that
# each carry ANSWER_SHARE of the question (at least ANSWER_QUOTES, and more than any
# other page) is. Set on the tune half of bench/labels.json (0.6: 4 of 50 reports cite
# nothing; 0.55: 3, precision 0.83 both)
ANSWER_QUOTES = 2
ANSWER_SHARE = 0.55
TITLE_MIN_WEIGHT = 1.15  # a title word this distinctive says what the document is about;
# the words many titles share ("statement" 1.08, "expression" 1.12 over the reference and
# the standard library) weigh less; "special" (1.19) names "Special method names". Set on
# the tune half of bench/labels.json (1.2: recall 0.77; 1.15: 0.80, same precision)
# a sentence saying what one of the question's parts is (``Gate.defines``) is about it when
# its subject carries this share of the question's weight: one of its two or three parts
DEFINED_SHARE = 1 / 3
_DEFINITION = re.compile(
    r"^(?:(?:a|an|the)\s+)?(?P<subject>[^\s,;:]+(?:\s+[^\s,;:]+){0,2}?)\s+(?:is|are)\s", re.I
)
_CONJUNCTION = re.compile(r"\s*(?:,|;|\band\b|\bor\b|\bvs\.?|\bversus\b)\s*", re.I)


@dataclass(frozen=True)
class Gate:
    """The question's subject words with their weights, and the share a quote needs."""

    query: str
    weights: Weights
    minimum: float = QUOTE_MIN
    concepts: tuple[frozenset[str], ...] = ()
    language: str = CORPUS_LANGUAGE

    def light(self) -> bool:
        """Whether the question's words weigh too little to say much on their own."""
        return sum(self.weights.values()) < TITLE_MIN_WEIGHT

    def carries_nothing(self) -> bool:
        """A question in another language than the corpus's of which no word carries over
        ("Wie funktionieren Generatoren in Python?"): no document of the corpus can be
        matched to it (``offline_quotes``). The gate itself leaves nothing out for it, as
        for any question that cannot tell pages apart: a page in the question's language
        (the web's, a team's) is judged by the rest of the evidence."""
        return not self.weights and foreign_to_corpus(self.language)

    def judges(self) -> bool:
        """Whether the question can tell pages apart: enough weight, or a word that names a
        subject in a title. Otherwise nothing is left out for it."""
        return not self.light() or bool(self._naming_words())

    def share(self, sentence: str) -> float:
        total = sum(self.weights.values())
        present = self._present(sentence)
        carried = sum(v for w, v in self.weights.items() if w in present)
        return carried / total if total else 0.0

    def admits(self, sentence: str, named: bool = False, vouched: bool = False) -> bool:
        """About the question: enough of its weight, or every word of one of its parts
        ("class definitions" in a question on class definitions and special methods). On a
        page whose title ``names`` the subject, or one ``vouched`` for by meaning
        (``offline_meaning``), one of its distinctive words is enough (a word as rare as a
        title word): the page says what its sentences are about ("Emulating container
        types" on the collections module's containers)."""
        if not self.judges() or self.share(sentence) >= self.minimum:
            return True
        present = self._present(sentence, named)
        if (named or vouched) and any(
            self.weights[w] >= TITLE_MIN_WEIGHT for w in present & self.weights.keys()
        ):
            return True
        return any(concept <= present for concept in self.concepts) or self.defines(sentence)

    def first(self, sentence: str, named: bool = False) -> tuple[bool, bool]:
        """Sort key: sentences about the question first, and among them those saying what a
        part of it is, which a reader looks for before anything else about it."""
        return not self.admits(sentence, named), not self.defines(sentence)

    def defines(self, sentence: str) -> bool:
        """Whether ``sentence`` says what one of the question's parts is: its subject, before
        "is" or "are", is made of the question's words and carries DEFINED_SHARE of their
        weight. On the difference between a list and a tuple, "list" weighs less than
        "tuple": by the share alone "Tuples are immutable sequences, …" was about the
        question and "Lists are mutable sequences, …" was not."""
        opening = _DEFINITION.match(sentence)
        total = sum(self.weights.values())
        if opening is None or not total:
            return False
        words = stems(opening["subject"])
        carried = sum(self.weights.get(w, 0.0) for w in words)
        return bool(words) and words <= self.weights.keys() and carried >= DEFINED_SHARE * total

    def _present(self, sentence: str, named: bool = False) -> set[str]:
        """The question's words in ``sentence``; a class name the question capitalizes
        ("Counter") only as written there, not the everyday word ("the internal counter");
        the attribute of a dotted name ("functools.wraps") only beside its module, or on a
        page whose title names the subject: not "wrap" on the textwrap page, nor "used to
        wrap the execution of a block" on the compound statements' page, near in meaning."""
        present = stems(sentence)
        for name in class_names(self.query):
            if stem(name.lower()) in present and not re.search(rf"\b{name}", sentence):
                present.discard(stem(name.lower()))
        if not named:
            for owner, attribute in dotted(self.query):
                if owner in self.weights and owner not in present:
                    present.discard(attribute)
        return present

    def calibrated(self, sentences: Iterable[str]) -> Gate:
        """This gate, its bar lowered to what the best of ``sentences`` reaches (see the
        module docstring)."""
        best = max((self.share(s) for s in sentences), default=0.0)
        reachable = max(QUOTE_FLOOR, BEST_SHARE * best)
        return replace(self, minimum=min(self.minimum, reachable))

    def with_words(self, text: str, idf: Mapping[str, float]) -> Gate:
        """This gate, with ``text``'s Latin-script words added (a topic's title)."""
        added = carried_weights(text, idf, self.language)
        return replace(self, weights={**self.weights, **added})

    def names(self, title: str) -> bool:
        """Whether a document's title names the subject: a distinctive subject word, or a
        Python keyword the question uses, as a construct ("The for statement" for a question
        on loops; not "Utility functions for copying"). A module's title names the module,
        not the everyday words of its synopsis ("random — Random variable generators")."""
        title = module_title(title) or title
        distinctive = {w for w, v in self.weights.items() if v >= TITLE_MIN_WEIGHT}
        return bool(distinctive & stems(title)) or bool(
            set(keywords(self.query)) & set(keywords(title))
        )

    def is_about(self, title: str, sentences: Iterable[str], strict: bool = False) -> bool:
        """Whether a document is about the question (see the module docstring). Sentences
        vouch for it only when the question weighs enough: a Russian question whose one
        carried word is "with" finds that word in every English page. ``strict``: only
        quotes carrying the question's share count (not one word of one of its parts)."""
        if not self.judges() or self.names(title):
            return True
        if self.light():
            return False
        said = list(dict.fromkeys(sentences))
        hits = [i for i, s in enumerate(said) if self.admits(s)]
        # quotes carrying the question's share: one word of a part ("continue" all over
        # the debugger's commands) is not enough for a section, nor for a ``strict`` judge
        full = [i for i in hits if self.share(said[i]) >= self.minimum]
        enough = len(full if strict else hits) >= max(SOURCE_MIN_QUOTES, ABOUT_SHARE * len(said))
        if enough and self._naming_words():
            return True
        # a section of a long page: PASSAGE_QUOTES such quotes close together; the only way
        # for a question in everyday words ("lists and tuples"), which every page returning a
        # tuple mentions here and there
        hits = full
        k = PASSAGE_QUOTES - 1
        return any(hits[i + k] - hits[i] < PASSAGE for i in range(len(hits) - k))

    def answering(self, pages: Mapping[str, Iterable[str]]) -> str | None:
        """The page (key of ``pages``) that answers a how-to best (see ANSWER_QUOTES), or
        None: not a how-to, no page with enough such sentences, or two pages tie."""
        how_to = gate_words(self.language, CORPUS_LANGUAGE).how_to
        if how_to is None or not how_to.match(self.query):
            return None
        counts = {
            k: sum(self.share(s) >= ANSWER_SHARE for s in set(said)) for k, said in pages.items()
        }
        ranked = sorted(counts.items(), key=lambda kv: -kv[1])
        if not ranked or ranked[0][1] < ANSWER_QUOTES:
            return None
        if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
            return None
        return ranked[0][0]

    def _naming_words(self) -> set[str]:
        named = {w for w, v in self.weights.items() if v >= TITLE_MIN_WEIGHT}
        return named | ({stem(k) for k in keywords(self.query)} & set(self.weights))


def module_title(title: str) -> str:
    """The module a library page documents ("random — Random variable generators",
    "The dataclasses module"), or "" for any other title."""
    head, dash, _ = title.partition(" — ")
    if dash and re.fullmatch(r"[\w.]+", head):
        return head
    named = re.fullmatch(r"The ([\w.]+) module", title)
    return named.group(1) if named else ""


def question_gate(query: str, idf: Mapping[str, float], language: str) -> Gate:
    """The question's subject words, weighed, and its parts that name a subject alone."""
    if foreign_to_corpus(language):
        return Gate(query, carried_weights(query, idf, language), language=language)
    weights = subject_weights(query, idf, language)
    parts = [subject_weights(part, idf, language) for part in _CONJUNCTION.split(query)]
    concepts = tuple(frozenset(part) for part in parts if sum(part.values()) >= CONCEPT_MIN_WEIGHT)
    return Gate(query, weights, concepts=concepts, language=language)
