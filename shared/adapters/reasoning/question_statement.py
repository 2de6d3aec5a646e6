"""English why-, yes/no and what-happens questions read as the statement they ask about.

"Why does my function's default list keep the items from earlier calls?" and "Does Python
have tail call optimization?" ask about a statement with its auxiliary moved to the front:
"my function's default list keeps the items from earlier calls", "Python has tail call
optimization". Set where a noun goes, such a question without its frame reads as broken
English ("What are common mistakes with my Python program slow?"), so the offline reasoner
words the report's title and follow-up questions around the statement (the language's
``STATEMENT_TEXTS``: "What can I do when my Python program is slow?", "When does it matter
whether a tuple is faster than a list?", "What can go wrong when an exception is raised
inside a finally block?"), and its topics are about the statement or its subject. "How does
X memoize …?" is about X the same way.

There is no parser: the verb is found after "I", "it" or "Python", at "not", a participle,
an article or "… than" after "is", or among a list of verbs questions about code use. A
question whose verb is not found keeps the subject ``question_shape`` reads. English only.
"Why should I …" asks for reasons to do something and "Should I …" for advice, not about
something that happens: both are left out.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# a participle, which ends a passive subject: "How are exceptions handled?"
PARTICIPLE = (
    r"(?:\w+ed|written|done|made|built|run|thrown|kept|"
    r"chosen|given|shown|known|found|held|sent|taken|bound|hidden|frozen)\b"
)
_AUX = r"is|are|do|does|did|has|have|can|could|will"
# "was" opens a German question ("Was ist …?"): after "why" only
_ASKED_RE = re.compile(
    rf"^\s*(?:(?P<why>why)\s+(?P<because>(?:{_AUX}|was|were)(?:n['’]t)?|can['’]t|cannot|"
    rf"won['’]t)|(?P<how>how)\s+(?P<manner>does|do)|(?P<whether>{_AUX}))\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_HAPPENS_RE = re.compile(r"^\s*what\s+happens\s+(?:when|if)\s+(?P<rest>.+)$", re.IGNORECASE)
# who asks: "Why can't I change …" is about what the asker does ("change …")
_ASKERS = frozenset({"i", "you", "we"})
# a subject of one word, after which the verb comes
_OPENS = _ASKERS | {"they", "it", "he", "she", "there", "this", "that", "python"}
# where the predicate of "Why is X …" starts when nothing else says so
_PREDICATE_OPENS = frozenset({"not", "never", "always", "still", "so", "too", "also", "only"})
_ARTICLES = frozenset({"a", "an", "the"})
_PLURAL = frozenset({"are", "were", "do", "have", "aren't", "weren't", "don't", "haven't"})
# an article after these belongs to the subject: "the result of a division"
_PREPOSITIONS = frozenset(
    {"of", "in", "on", "at", "to", "for", "from", "with", "by", "inside", "into", "over"}
)
# the verbs that end the subject of "Why does X keep …?" (base forms)
_VERB_TEXT = """accept allow become behave break call change compare compute contain convert copy
    crash create decide differ end evaluate exist fail find generate get give grow handle hang
    have hold ignore implement import keep leak load look lose make manage matter mean memoize
    modify need parse point print produce raise reach read refer remember remove require resolve
    return round run search see seem send share show skip stay stop store support take throw
    track treat update use work write"""
_VERBS = frozenset(_VERB_TEXT.split())


class Asked(NamedTuple):
    """A question about a statement: why it holds, whether it does, what follows from it."""

    # "why", "whether", "happens" ("What happens when …?"), or "how" (its subject only: "How
    # does X handle …?")
    kind: str
    aux: str  # "does", "is", "can't"
    words: list[str]  # the question's other words, in order
    at: int  # where the verb phrase starts in them

    def statement(self) -> str:
        """ "my list keeps items" ("does"), "my program is slow" ("is"), "I can't change …"."""
        if self.kind == "happens":  # said as it is: "an exception is raised in …"
            return " ".join(self.words)
        aux, verb = self.aux, self.words[self.at :]
        if aux == "does":  # "my list keeps", not "my list does keep"
            aux, verb = "", [_third_person(verb[0]), *verb[1:]]
        elif aux == "do":
            aux = ""
        return " ".join([*self.words[: self.at], *([aux] if aux else []), *verb])

    def subject(self) -> str | None:
        """What the question is about: the words before the verb ("my list"); what comes
        after "I", "there" or "Python" ("change one character …", "a GIL", "tail call
        optimization" of "Does Python have …"); None after "it" or "this"."""
        one = self.words[0].lower() if self.at == 1 else ""  # a subject of one word: "I"
        after = self.words[self.at :]
        if one not in _OPENS:  # "a tuple is faster than a list" is asked about as a whole
            whole = self.kind in ("happens", "whether")
            return self.statement() if whole else " ".join(self.words[: self.at])
        if self.kind == "how":  # "How do I …" is a task, read as one in question_shape
            return None
        if one in _ASKERS or one == "there":
            return " ".join(after)
        if one == "python" and len(after) > 1:
            return " ".join(after[1:] if after[0].lower() in _VERBS else after)
        return None


def parts(clause: str) -> Asked | None:
    """``clause`` read as a question about a statement (why, yes/no, what happens when, how
    does X …); None when it is no such question or its verb is not found. ``clause`` is the
    question without its question mark or a second question after it."""
    if happens := _HAPPENS_RE.match(clause):
        return Asked("happens", "", happens["rest"].split(), 0)
    asked = _ASKED_RE.match(clause)
    if not asked:
        return None
    kind = "why" if asked["why"] else "how" if asked["how"] else "whether"
    aux = (asked["because"] or asked["manner"] or asked["whether"]).lower().replace("’", "'")
    words = asked["rest"].split()
    at = _predicate_at(aux, words)
    return None if at is None or not 0 < at < len(words) else Asked(kind, aux, words, at)


def _predicate_at(aux: str, words: list[str]) -> int | None:
    """Where the statement's verb phrase starts: after "I", "it", "Python"; in "Why is …",
    at "not", a participle, a comparison or an article, else at the last word ("… program
    slow"); otherwise at the first known verb."""
    lower = [w.lower() for w in words]
    # "Python" alone is the subject of "Is Python …", not of "Are Python strings …"
    alone = lower[0] != "python" or aux not in _PLURAL
    if len(words) > 1 and lower[0] in _OPENS and alone:
        return 1
    if aux.startswith(("is", "are", "was", "were")):
        for i, word in enumerate(lower[1:], start=1):
            than = i + 1 < len(words) and lower[i + 1] == "than"
            # "… a …" after a preposition or a gerund names part of the subject ("the result
            # of a division", "building a string")
            before = lower[i - 1]
            named = word in _ARTICLES and before not in _PREPOSITIONS and not before.endswith("ing")
            if word in _PREDICATE_OPENS or than or named or re.fullmatch(PARTICIPLE, word):
                return i
        return len(words) - 1
    # not a verb right after "I" or "you" (a clause of the subject: "the functions I
    # create"), nor after an article ("the import statement")
    after = _OPENS | _ARTICLES
    verbs = (i for i, w in enumerate(lower[1:], 1) if w in _VERBS and lower[i - 1] not in after)
    return next(verbs, None)


def _third_person(verb: str) -> str:
    if verb.lower() == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in tuple("aeiou"):
        return verb[:-1] + "ies"
    return verb + "s"
