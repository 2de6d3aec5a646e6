"""Prose sentences of a text: paragraphs first, then pysbd within each.

pysbd (rule-based, maintained, handles abbreviations) splits paragraphs, so code blocks
and grammar rules that documentation pages interleave with prose never become
"sentences". Splitting is the slow part (a few ms per paragraph), hence the cache.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import pysbd

_CODE_HINT_RE = re.compile(r"::=|^\s*(>>>|\.\.\.|\$ )|[{};]\s*$", re.MULTILINE)
_CODE_LINE_RE = re.compile(
    r"^\s*(?:def|class|if|elif|else|for|while|try|except|finally|with|async)\b.*:\s*$"
    r"|^\s*(?:return|import|raise|pass|yield|await)\b|\w\s*=\s*\S|[{}\[\]]\s*$"
)
# a list item's number or bullet ("1. ", "(2) ", "* "): the reference's lists are written
# with "* ", and 215 of the corpus's sentences began with one
_ENUMERATOR_RE = re.compile(r"^(?:\(?\d{1,2}[.)]|[*•–-])\s+")
# a line that is a call's signature, perhaps bulleted, and the type it returns ("* bind_partial(
# *args, **kwargs) -> BoundArguments"); not "od.clear() -> None.  Remove all items from od."
# nor "D.popitem() -> (k, v), remove and return some (key, value) pair", whose sentence
# follows the arrow
_SIGNATURE_LINE_RE = re.compile(r"^(?:[*-][ \t]+)?[\w.]+\([^()]*\)(?:[ \t]*->[ \t]*[\w.\[\]]+)?$")
# a sentence that only sends the reader elsewhere ("See section Literals for details.", "For
# more information on context managers, see Context Manager Types."): 124 of the corpus's,
# and a report quoted them as findings
_POINTER_RE = re.compile(
    r"\(?See\s|For (?:more|further)? ?(?:information|details)\b[^.]*\bsee\s", re.IGNORECASE
)
# a quote's end inside its parenthesis or quotation mark, its markers after it, and a next
# quote opening on a capital or a quoted name (``segment``)
_MARKED_END_RE = re.compile(r"([.!?…][)\"”»] (?:\[\d{1,3}\])+) (?=[`\"“A-Z])")
_SEE_ALSO_RE = re.compile(r"^\s*see also:?\s*$", re.IGNORECASE)
_ENDED_LINE_RE = re.compile(r"[.:!?]\s*$")
# a line opening an item of a list of names and what they are ("last_type -- type of last
# uncaught exception"): with two or more in a block, each is an item of its own, not a
# wrapped line of one 51-word "sentence" (``sys``'s list of its attributes)
_ITEM_LINE_RE = re.compile(r"^\s*[\w.'*\[\]()]+ --\s")
# or of parameters and what they are, one a line ("wrapper is the function to be updated",
# "wrapped is the original function" in ``functools.update_wrapper``): counted only after a
# line that ends a clause, since "mu is the mean angle, … and" / "kappa is the …" is one
# sentence wrapped
_NAMED_LINE_RE = re.compile(
    r"^\s*(?!(?:it|this|that|there|which|what|here)\b)[a-z_][\w.]* is (?:the|a|an)\s"
)
_OPEN_CLAUSE_RE = re.compile(r"(?:[,;]|\b(?:and|or|the|a|an|of|to|with|where))\s*$", re.I)
_SUPPORTED_SPLIT_LANGUAGES = frozenset(pysbd.languages.LANGUAGE_CODES)

MIN_SENTENCE_WORDS = 5
MAX_SENTENCE_WORDS = 80
TERM_WORDS = 8  # a definition list's term: "PEP 563 - Postponed Evaluation of Annotations"
OPENING_WORDS = 3  # where a sentence that begins inside a parenthetical shows it


def _is_code(paragraph: str) -> bool:
    if _CODE_HINT_RE.search(paragraph):
        return True
    lines = [line for line in paragraph.splitlines() if line.strip()]
    if len(lines) >= 2 and sum(bool(_CODE_LINE_RE.search(x)) for x in lines) * 2 >= len(lines):
        return True
    visible = [c for c in paragraph if not c.isspace()]
    if not visible:
        return True
    symbols = sum(1 for c in visible if not c.isalnum() and c not in ".,;:'\"()-–—’“”!?«»")
    return symbols / len(visible) > 0.12


def paragraphs(text: str) -> list[str]:
    """Prose paragraphs of ``text`` with their line breaks joined; code-like blocks dropped,
    and signature lines, which end the prose before them and open none after them. The
    entries of a "See also:" that describe another document under its name (``_is_entry``)
    are left out: a report quoted "The specification, background, and examples for the
    Python "with" statement" from PEP 343's as if it were a finding."""
    out = []
    aside = False  # after a "See also:", until a block that is not one of its entries
    for block in re.split(r"\n\s*\n", text):
        if not block.strip():
            continue
        lines = block.strip("\n").splitlines()
        if _SEE_ALSO_RE.match(block):
            aside = True
            continue
        aside = aside and _is_entry(lines)
        if aside or _is_code(block):
            continue
        out += [" ".join(p.split()) for p in _apart(block) if p.strip()]
    return out


def _is_entry(lines: list[str]) -> bool:
    """A reference to another document, its name over a description indented under it
    ("**PEP 343** - The “with” statement" over "The specification, …"); not a sentence
    wrapped under a first line that lost its indent ("… a read-only view of a" over
    '  "dict".')."""
    return _names_below(lines, 0) and not _OPEN_CLAUSE_RE.search(lines[0])


def _apart(block: str) -> list[str]:
    """``block`` split around its signature lines, which are left out: reference pages list
    methods as a signature line with the description under it, and joined to it the
    description's first sentence opened with the signature ("bind_partial(*args, **kwargs)
    -> BoundArguments Creates a partial mapping …"). Only a line that opens the block or
    follows an ended line or another signature is one: "uses" then
    "traceback.print_exception()" on the next line is a sentence wrapped before a call.
    The items of a list of names (``_ITEM_LINE_RE``, ``_NAMED_LINE_RE``) are split apart
    too, and a definition list's terms left out (``_is_term``)."""
    lines = block.splitlines()
    items = [
        _ITEM_LINE_RE.match(line)
        or (_NAMED_LINE_RE.match(line) and not (k and _OPEN_CLAUSE_RE.search(lines[k - 1])))
        for k, line in enumerate(lines)
    ]
    listed = sum(1 for item in items if item) >= 2
    parts: list[list[str]] = [[]]
    after_end = True  # the block's first line opens it
    for k, (line, item) in enumerate(zip(lines, items, strict=True)):
        if (after_end and _SIGNATURE_LINE_RE.match(line.strip())) or _is_term(lines, k):
            parts.append([])
            continue
        if listed and item:
            parts.append([])
        parts[-1].append(line)
        after_end = bool(_ENDED_LINE_RE.search(line))
    return ["\n".join(lines) for lines in parts]


def _is_term(lines: list[str], k: int) -> bool:
    """Line ``k`` is a definition list's term, left out like a signature: a short,
    capitalized line over a capitalized description (``_names_below``: "Tuples" over "   The
    items of a tuple are …"). Joined to it, the description's first sentence opened with the
    term: a report quoted "Tuples The items of a tuple …". A parameter's lower-case name
    stays with what it is ("whence The relative position to seek from." says more than its
    description alone), and so do a description's own wrapped line and a sentence going on,
    lower-case, in a hanging indent ("… TerminateProcess()" over " is called to stop …")."""
    if not _names_below(lines, k) or len(lines[k].split()) > TERM_WORDS:
        return False
    inside = k > 0 and _indent(lines[k - 1]) < _indent(lines[k])
    return not inside and lines[k].strip()[0].isupper() and lines[k + 1].strip()[0].isupper()


def _names_below(lines: list[str], k: int) -> bool:
    """Line ``k`` names what the next line, indented under it, describes: an unended line
    that is no list item's bullet ("* an item" over "  that goes on")."""
    head = lines[k].strip()
    if not head or k + 1 >= len(lines) or not lines[k + 1].strip():
        return False
    unended = not (_ENUMERATOR_RE.match(head) or _ENDED_LINE_RE.search(head))
    return unended and _indent(lines[k + 1]) > _indent(lines[k])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_THREAD = threading.local()


def _segmenter(language: str) -> pysbd.Segmenter:
    """One per thread and language: a Segmenter keeps the text it is splitting on itself
    (``original_text``, read back to find each sentence), so two threads sharing one (the
    activities of a host) got each other's text, and dropped sentences, at random."""
    segmenters: dict[str, pysbd.Segmenter] = _THREAD.__dict__.setdefault("segmenters", {})
    if language not in segmenters:
        segmenters[language] = pysbd.Segmenter(language=language, clean=False)
    return segmenters[language]


def _acceptable(sentence: str) -> bool:
    words = sentence.split()
    if not MIN_SENTENCE_WORDS <= len(words) <= MAX_SENTENCE_WORDS:
        return False
    if _POINTER_RE.match(sentence):
        return False
    if _opens_inside_parentheses(" ".join(words[:OPENING_WORDS])):
        return False
    letters = sum(c.isalpha() for c in sentence)
    return letters / len(sentence) > 0.6 and sentence[-1] in '.!?…)"”»'


def _opens_inside_parentheses(opening: str) -> bool:
    """The sentence closes a parenthesis it did not open within its first words: pysbd cut
    a parenthetical at a period, and this is its tail ("(b), 0), and this is the only case
    in which ..." of ``difflib``'s "a dummy, (len(a), len(b), 0), and ..."). Further on, a
    lone ")" is an interval ("in the range [a, b)")."""
    depth = 0
    for char in opening:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return True
    return False


def _segments(segmenter: pysbd.Segmenter, paragraph: str) -> list[str]:
    """pysbd's segments, with a cut at a period that no space follows undone: pysbd ends a
    sentence at the dot of "a ``.read()``-supporting object" or "super().__setattr__",
    and a report quoted "read()``-supporting file-like object …" as a sentence. A sentence
    that really ends there is followed by a space or a capital (CJK ends on "。"). The cut
    before the parenthesis that closes a sentence written inside it is undone too ("(To
    create an empty tuple, use an empty pair of parentheses: "()".)"): a report quoted
    such a sentence unclosed."""
    out: list[str] = []
    for raw in segmenter.segment(paragraph):
        if out and raw[:1] == ")" and out[-1].count("(") > out[-1].count(")"):
            out[-1] += ")"
            raw = raw[1:].lstrip()
            if not raw:
                continue
        if out and out[-1].endswith(".") and (raw[:1].islower() or raw[:1] == "_"):
            out[-1] += raw
        else:
            out.append(raw)
    return out


def segment(text: str, language: str = "en") -> list[str]:
    """Every sentence of prose ``text`` as pysbd splits it, unfiltered: for text that is
    known to be prose with citation markers (a synthesized answer), which the
    code-block heuristics of :func:`split_sentences` would misread. A sentence that ends
    inside its closing parenthesis or quotation mark, its markers after it ("… behavior.)
    [2]"), ends there when the next opens on a capital or a quoted name ("`inspect.…`"),
    which pysbd reads as the same sentence going on."""
    lang = language if language in _SUPPORTED_SPLIT_LANGUAGES else "en"
    out = []
    for raw in _segments(_segmenter(lang), " ".join(text.split())):
        parts = _MARKED_END_RE.sub("\\1\0", raw).split("\0")
        out += [s.strip() for s in parts if s.strip()]
    return out


@lru_cache(maxsize=512)
def split_sentences(text: str, language: str = "en") -> tuple[str, ...]:
    """Prose sentences of ``text`` (cached: pages are split again and again during a run)."""
    lang = language if language in _SUPPORTED_SPLIT_LANGUAGES else "en"
    segmenter = _segmenter(lang)
    sentences: list[str] = []
    for paragraph in paragraphs(text):
        for raw in _segments(segmenter, paragraph):
            sentence = _ENUMERATOR_RE.sub("", raw.strip())
            if sentence and _acceptable(sentence):
                sentences.append(sentence)
    return tuple(sentences)
