"""Which words of a question the citation gate (``relevance``) weighs, and how much.

Words are weighed by how rare they are in the corpus (idf): a word in every document
("Python" in the Python reference) weighs nothing, and the words that only frame a question
("decide", "differ", "including") weigh nothing either. A Python keyword that is an everyday
English word too counts only where the question marks it as the construct.

A word the corpus has never seen weighs the most in a question in the corpus's language (a
web page's subject may be one) and nothing in a question in another language (it is simply
not translated): such a question is judged by the words that carry over ("with",
identifiers), and is searched for them too (``carried_terms``). "Comment puis-je lire une
environment variable ?" carries "environment" and "variable"; "Как работают менеджеры
контекста и оператор with?" carries "with". The question as written finds pages by its stray
Latin letters and the embedding model's guesses (it was trained on English): the pdb and
pickle pages for an environment variable. A word of the question's own language that is an
English word too ("comment", "en", "ist") is one of its frame words (``gate_words``) and
carries nothing.
"""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Mapping
from functools import lru_cache

import snowballstemmer

from shared.adapters.reasoning.gate_words import gate_words
from shared.adapters.reasoning.question_shape import subject_of
from shared.tools import lexical

# A word the corpus hardly uses ("load", "chained") is rare because the corpus is not
# about it, not because it is the question's subject: its weight is capped.
MAX_WEIGHT = 2.0
CORPUS_LANGUAGE = "en"  # the default corpus, and the idf the gate weighs words by
# The words that weigh nothing (frame words, qualifiers), the idioms removed before weighing
# and the how-to pattern are each language's own: ``gate_words``, from ``texts/<lang>.py``.
# keywords that are everyday English words too ("work in Python", "regular expressions with
# the re module", "for each", "if so"): the construct only where the question marks it as
# one (``keywords``): followed by a noun that names one ("the with statement", "for and
# while loops"), after such a noun in another language ("оператор with", "el bloque with"),
# quoted ("`is`"), or the whole subject ("How does while work?")
CONJUNCTIONS = frozenset({"and", "or"})  # join the others ("for and while loops"): only quoted
ENGLISH_KEYWORDS = frozenset(
    {"in", "is", "and", "or", "not", "as", "from", "if", "for", "with", "while", "else"}
)
_CONSTRUCT_NOUN_TEXT = """statement statements loop loops clause clauses expression expressions
    block blocks keyword keywords operator operators"""
_CONSTRUCT_NOUNS = frozenset(_CONSTRUCT_NOUN_TEXT.split())
# nouns of the other languages, on either side ("оператор with", "die with-Anweisung"); none
# is spelled like an English word, so "instructions for use" is no construct
_FOREIGN_NOUN_TEXT = """оператор оператора операторы оператором цикл цикла циклы циклом
    конструкция конструкции выражение выражения anweisung anweisungen schleife schleifen
    ausdruck ausdrücke bloque bloques sentencia sentencias instrucción bucle bucles expresión
    bloc blocs boucle boucles 语句 循环 表达式"""
# words, and runs of Chinese or Japanese apart from the Latin ones they are written against
# ("with语句": the with statement)
_WORDS = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]+|[^\W\d_\u3040-\u30ff\u4e00-\u9fff]+")
_FOREIGN_CONSTRUCT_NOUNS = frozenset(_FOREIGN_NOUN_TEXT.split())
_NOUNS = _CONSTRUCT_NOUNS | _FOREIGN_CONSTRUCT_NOUNS
_FRAME_RE = re.compile(r"^\s*(?:compare|contrast)\s+", re.IGNORECASE)  # see ``unframed``
# keywords that are English verbs too: "yields a tuple", "returns None" and "breaks" are the
# verb, not the construct a question names ("the yield expression"), so their inflected
# forms do not count as the keyword
VERB_KEYWORDS = frozenset({"yield", "return", "raise", "break", "continue", "pass", "assert"})
Weights = dict[str, float]


def subject_weights(
    text: str, idf: Mapping[str, float], language: str = CORPUS_LANGUAGE
) -> Weights:
    """The words of ``text`` that name what it asks about, each with its (capped) idf:
    content words and the Python keywords it names ("for" loops, the "with" statement),
    less framing words. A word in every document ("Python" in the Python reference)
    weighs nothing; one the corpus never saw weighs the most."""
    words = gate_words(language, CORPUS_LANGUAGE)
    text = words.idioms.sub(" ", text) if words.idioms else text
    tokens = [*lexical.content_tokens(text), *keywords(text)]
    return _weighed(tokens, idf, MAX_WEIGHT, words.nothing)


def carried_weights(
    text: str, idf: Mapping[str, float], language: str = CORPUS_LANGUAGE
) -> Weights:
    """For text in another language than the corpus: the words the corpus knows that carry
    over (keywords, identifiers, English terms); the rest is not translated."""
    said = gate_words(language, CORPUS_LANGUAGE)
    text = said.idioms.sub(" ", text) if said.idioms else text
    latin = " ".join(lexical.latin_words(text))
    # "with-Block": the noun names the keyword's construct, it is not a subject of its own
    words = [w for w in lexical.content_tokens(latin) if w not in _NOUNS]
    return _weighed([*words, *keywords(text)], idf, 0.0, said.nothing)


def _weighed(
    words: list[str], idf: Mapping[str, float], unknown: float, nothing: frozenset[str]
) -> Weights:
    """``nothing``: the frame words and qualifiers of the question's language."""
    weights: Weights = {}
    for w in words:
        weight = min(idf.get(w, unknown), MAX_WEIGHT)
        if w not in nothing and weight > 0:
            weights[stem(w)] = max(weight, weights.get(stem(w), 0.0))
    return weights


def foreign_to_corpus(language: str) -> bool:
    """Whether the user's language is not the corpus's."""
    return (language or CORPUS_LANGUAGE).split("-")[0].lower() != CORPUS_LANGUAGE


_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """A word's stem for matching ("handling" and "handler" both read "handl"): the Snowball
    English stemmer on ASCII words (identifiers and other scripts are kept as written); the
    corpus's idf is kept per word."""
    return _STEMMER.stemWord(token) if token.isascii() and token.isalpha() else token


def stems(text: str) -> set[str]:
    """The stems of ``text``'s words; a keyword verb only where it is written as the
    keyword (VERB_KEYWORDS: "yields a tuple" does not name ``yield``)."""
    found = {stem(t) for t in lexical.tokenize(text)}
    for verb in VERB_KEYWORDS & found:
        if not re.search(rf"\b{verb}\b", text, re.I):
            found.discard(verb)
    return found


def dotted_names(query: str) -> list[str]:
    """The dotted names ``query`` writes ("functools.wraps", "os.path.join")."""
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", query)


@lru_cache(maxsize=1024)
def dotted(query: str) -> tuple[tuple[str, str], ...]:
    """The stems of each dotted name's parts, each with the one before it ("os.path.join":
    os-path, path-join): the gate counts an attribute only beside its owner."""
    pairs = []
    for name in dotted_names(query):
        parts = [stem(lexical.normalize_token(p)) for p in name.split(".")]
        pairs += itertools.pairwise(parts)
    return tuple(pairs)


@lru_cache(maxsize=1024)
def class_names(query: str) -> tuple[str, ...]:
    """The words ``query`` capitalizes inside a sentence ("the deque, Counter and
    defaultdict containers", "OrderedDict"): names of classes, not the everyday words."""
    return tuple(
        m.group(1)
        for m in re.finditer(r"(?<![.!?:]\s)(?<!^)\b([A-Z][a-z]+(?:[A-Z][a-z]*)*)\b", query)
        if m.group(1).lower() != "python"
    )


@lru_cache(maxsize=4096)
def keywords(text: str) -> tuple[str, ...]:
    """The Python keywords ``text`` names as constructs (see ENGLISH_KEYWORDS); kept per
    text: every document title is asked about again for each quote of its page."""
    words = _WORDS.findall(text.lower())
    subject = subject_of(text).lower().strip("`'\"")
    out = []
    for i, word in enumerate(words):
        if not keyword.iskeyword(word):
            continue
        if word in ENGLISH_KEYWORDS and subject != word:
            before = words[i - 1] if i else ""
            # the first word after it that is no keyword: "for and while loops"
            after = next((w for w in words[i + 1 :] if not keyword.iskeyword(w)), "")
            marked = after in _NOUNS and word not in CONJUNCTIONS  # "Identifiers and keywords"
            quoted = re.search(rf"[\"“”‘’'`«»]{word}[\"“”‘’'`«»]", text, re.I)
            if not (marked or before in _FOREIGN_CONSTRUCT_NOUNS or quoted):
                continue
        out.append(word)
    return tuple(out)


CARRIED_MIN_IDF = 1.0  # a word in most documents ("with", "list") adds nothing to a search


def carried_terms(question: str, idf: Mapping[str, float], language: str) -> list[str]:
    """The words of a question in another language that carry over, as written
    ("functools", "wraps"): those ``carried_weights`` keeps that are distinctive in the
    corpus (idf of at least ``CARRIED_MIN_IDF``), and the Python keywords it names as
    constructs, however common. What is searched for is what the pages found are judged by."""
    weights = carried_weights(question, idf, language)
    return [
        w
        for w in dict.fromkeys(lexical.latin_words(question))
        if (weight := weights.get(stem(lexical.normalize_token(w)))) is not None
        and (weight >= CARRIED_MIN_IDF or keyword.iskeyword(w.lower()))
    ]


def searched_for(question: str, idf: Mapping[str, float], language: str) -> str:
    """What to search the corpus for: the question, or for one in another language its
    carried terms ("" when none carries over)."""
    if not foreign_to_corpus(language):
        return unframed(question)
    return " ".join(carried_terms(question, idf, language))


def unframed(question: str) -> str:
    """``question`` less an imperative that frames it: "Compare Python lists and tuples" is
    about lists and tuples, and searched whole (by meaning) it came nearest the pages on
    comparisons and ``difflib`` ("compare sequences")."""
    return _FRAME_RE.sub("", question).strip() or question
