"""Whether a sentence or a document is about the question: the offline engine's
citation gate, used by planning (which documents to read) and the writer (what to quote).

An extractive writer cites what it quotes, so the gate on quotes is the gate on
sources. "Shares two of the question's words" let hub documents in (the debugger
page "lists all breaks, including for each breakpoint" for a question on loops
"including break and continue"). Words are therefore weighed by how rare they are
in the corpus (idf), and the words that only frame a question ("decide", "differ",
"including") weigh nothing: a quote is about the question when it carries a set
share of the weight of the question's subject words. Where no quote in the evidence
reaches that share (a question worded in terms the corpus hardly uses), the bar is
the best quote's share, never below a floor.

A document is about the question when its title names the subject, or when more than
one of its sentences is about it: one passing sentence in a long page about something
else is a coincidence of words, not evidence.

A sentence is judged by the question's words that can occur in it: a sentence in Latin
script only by the question's Latin-script words. So a Russian question over the English
corpus is judged by the words that carry over ("with", identifiers), and the same
question over Russian pages by all of its words. A word the corpus has never seen
weighs the most (a web page's subject may be one).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from shared import lexical

QUOTE_MIN = 0.5  # share of the question's weight a quote must carry
QUOTE_FLOOR = 0.3  # ... and never less, however poorly the evidence matches
BEST_SHARE = 0.9  # when no quote reaches QUOTE_MIN: this much of the best quote's share
CONCEPT_MIN_WEIGHT = 2.0  # words weighing less together name nothing on their own
SOURCE_MIN_QUOTES = 2  # a document whose title is not about the question needs this many
TITLE_MIN_WEIGHT = 0.9  # a title word this distinctive says what the document is about;
# the words many titles share ("statement", "expression", "name") weigh less
# A word the corpus hardly uses ("load", "chained") is rare because the corpus is not
# about it, not because it is the question's subject: its weight is capped.
MAX_WEIGHT = 2.0
# words that frame a question rather than name its subject
_FRAME_TEXT = """decide decides determine determines differ differs difference differences
    including include includes like evaluated happen happens mean means matter matters
    handled behave behaves relate relates related compare compared best way ways possible
    together exactly actually really internally
    решает отличается отличаются различие разница включая например"""
FRAME_WORDS = frozenset(lexical.normalize_token(w) for w in _FRAME_TEXT.split())
# keywords that are everyday English ("in Python"): not a sign of what is asked
PLAIN_ENGLISH_KEYWORDS = frozenset({"in", "is", "and", "or", "not", "as", "from", "if"})
_SUFFIXES = ("ings", "ing", "ers", "er", "ions", "ion", "ed")
_LATIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NOT_LATIN = re.compile(r"[^\W\d_A-Za-z]")
_CONJUNCTION = re.compile(r"\s*(?:,|;|\band\b|\bor\b|\bvs\.?|\bversus\b|\bи\b|\bили\b)\s*", re.I)

Weights = dict[str, float]


@dataclass(frozen=True)
class Gate:
    """The question's subject words with their weights, and the share a quote needs."""

    query: str
    weights: Weights
    minimum: float = QUOTE_MIN
    concepts: tuple[frozenset[str], ...] = ()

    def judging(self, sentence: str) -> Weights:
        """The weights ``sentence`` is judged by (see the module docstring)."""
        return self.weights if NOT_LATIN.search(sentence) else self.latin()

    def latin(self) -> Weights:
        return {w: v for w, v in self.weights.items() if w.isascii()}

    def says_little_in_latin(self) -> bool:
        """Whether the question's Latin-script words are too few to tell what an English
        sentence is about (a Russian question naming only "with")."""
        return sum(self.latin().values()) < CONCEPT_MIN_WEIGHT

    def share(self, sentence: str) -> float:
        weights = self.judging(sentence)
        total = sum(weights.values())
        present = _stems(sentence)
        carried = sum(v for w, v in weights.items() if w in present)
        return carried / total if total else 0.0

    def admits(self, sentence: str) -> bool:
        """About the question: enough of its weight, or every word of one of its parts
        ("class definitions" in a question on class definitions and special methods)."""
        if self.share(sentence) >= self.minimum:
            return True
        present = _stems(sentence)
        return any(concept <= present for concept in self.concepts)

    def calibrated(self, sentences: Iterable[str]) -> Gate:
        """This gate, its bar lowered to what the best of ``sentences`` reaches (see the
        module docstring)."""
        best = max((self.share(s) for s in sentences), default=0.0)
        reachable = max(QUOTE_FLOOR, BEST_SHARE * best)
        return replace(self, minimum=min(self.minimum, reachable))

    def with_words(self, text: str, idf: Mapping[str, float]) -> Gate:
        """This gate, with ``text``'s Latin-script words added (a topic's title)."""
        return replace(self, weights={**self.weights, **carried_weights(text, idf)})

    def names(self, title: str) -> bool:
        """Whether a document's title names the subject: a distinctive subject word, or a
        Python keyword the question uses ("The for statement" for a question on loops)."""
        named = {w for w, v in self.weights.items() if v >= TITLE_MIN_WEIGHT}
        named |= {stem(k) for k in _keywords(self.query)} & set(self.weights)
        return bool(named & _stems(title))

    def is_about(self, title: str, sentences: Iterable[str]) -> bool:
        """Whether a document is about the question (see the module docstring). A sentence
        vouches for it only when the words it is judged by weigh enough to tell: a Russian
        question whose one carried word is "with" finds that word in every English page."""
        if self.names(title):
            return True
        vouching = {
            s
            for s in sentences
            if self.admits(s) and sum(self.judging(s).values()) >= CONCEPT_MIN_WEIGHT
        }
        return len(vouching) >= SOURCE_MIN_QUOTES


def question_gate(query: str, idf: Mapping[str, float]) -> Gate:
    """The question's subject words, weighed, and its parts that name a subject alone."""
    weights = subject_weights(query, idf)
    parts = [subject_weights(part, idf) for part in _CONJUNCTION.split(query)]
    concepts = tuple(
        frozenset(part)
        for part in parts
        if len(part) >= 2 and sum(part.values()) >= CONCEPT_MIN_WEIGHT
    )
    return Gate(query, weights, concepts=concepts)


def subject_weights(text: str, idf: Mapping[str, float]) -> Weights:
    """The words of ``text`` that name what it asks about, each with its (capped) idf:
    content words and the Python keywords it uses ("for", "with"), less framing words.
    A word in every document ("Python" in the Python reference) weighs nothing."""
    words = [*lexical.content_tokens(text), *_keywords(text)]
    weights: Weights = {}
    for w in words:
        weight = min(idf.get(w, MAX_WEIGHT), MAX_WEIGHT)
        if w not in FRAME_WORDS and weight > 0:
            weights[stem(w)] = max(weight, weights.get(stem(w), 0.0))
    return weights


def stem(token: str) -> str:
    """A word's stem for matching ("handling" and "handlers" both read "handl"): a few
    English suffixes off a long enough word; the corpus's idf is kept per word."""
    if len(token) > 5 and token.isascii():
        for suffix in _SUFFIXES:
            if token.endswith(suffix) and len(token) - len(suffix) >= 4:
                return token[: -len(suffix)]
    return token


def _stems(text: str) -> set[str]:
    return {stem(t) for t in lexical.tokenize(text)}


def carried_weights(text: str, idf: Mapping[str, float]) -> Weights:
    """For text in another language than the corpus: its Latin-script words alone."""
    return subject_weights(" ".join(_LATIN_WORD.findall(text)), idf)


def _keywords(text: str) -> list[str]:
    return [
        w
        for w in re.findall(r"[a-z]+", text.lower())
        if keyword.iskeyword(w) and w not in PLAIN_ENGLISH_KEYWORDS
    ]
