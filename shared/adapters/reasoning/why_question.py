"""English why-questions read as the statement they ask about.

"Why does my function's default list keep the items from earlier calls?" asks about a
statement, "my function's default list keeps the items from earlier calls", with its
auxiliary moved to the front. Set where a noun goes, the question without its frame reads
as broken English ("What are common mistakes with my Python program slow?"), so the
offline reasoner words the report's title and follow-up questions around the statement
(``texts.en.WHY_TEXTS``), and takes the part before the verb for the subject its topics are
about ("my function's default list").

There is no parser here: the verb is found after "I", "it" or "Python", at "not", a
participle or "… than" after "is", or among a list of verbs questions about code use. A
question whose verb is not found keeps the subject ``question_shape`` reads. English only.
"Why should I …" asks for reasons to do something, not about something that happens, and
is left out.
"""

from __future__ import annotations

import re

Parts = tuple[str, list[str], int]  # the auxiliary, the other words, where the verb is

# a participle, which ends a passive subject: "How are exceptions handled?"
PARTICIPLE = (
    r"(?:\w+ed|written|done|made|built|run|thrown|kept|"
    r"chosen|given|shown|known|found|held|sent|taken|bound|hidden|frozen)\b"
)
_WHY_RE = re.compile(
    r"^\s*why\s+(?P<aux>(?:is|are|was|were|do|does|did|has|have|can|could|will)"
    r"(?:n['’]t)?|can['’]t|cannot|won['’]t)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
# who asks: "Why can't I change …" is about what the asker does ("change …")
_ASKERS = frozenset({"i", "you", "we"})
# a subject of one word, after which the verb comes
_OPENS = _ASKERS | {"they", "it", "he", "she", "there", "this", "that", "python"}
# where the predicate of "Why is X …" starts when no participle or "… than" says so
_PREDICATE_OPENS = frozenset({"not", "never", "always", "still", "so", "too", "also", "only"})
# the verbs that end the subject of "Why does X keep …?" (base forms)
_VERB_TEXT = """accept allow become behave break call change compare contain copy crash create
    differ end evaluate exist fail find get give grow hang have hold ignore import keep leak look
    lose make matter mean modify need point print produce raise reach refer remember require
    return round run see seem share show skip stay stop take throw treat use work"""
_VERBS = frozenset(_VERB_TEXT.split())


def parts(clause: str) -> Parts | None:
    """The auxiliary of a why-question, its other words and where its verb phrase starts in
    them ("does", ["my", "list", "keep", "items"], 2); None when there is none.

    ``clause`` is the question without its question mark or a second question after it."""
    asked = _WHY_RE.match(clause)
    if not asked:
        return None
    aux, words = asked["aux"].lower().replace("’", "'"), asked["rest"].split()
    at = _predicate_at(aux, words)
    return None if at is None or not 0 < at < len(words) else (aux, words, at)


def statement(aux: str, words: list[str], at: int) -> str:
    """ "my list keeps items" ("does"), "my program is slow" ("is"), "I can't change …"."""
    verb = words[at:]
    if aux == "does":  # "my list keeps", not "my list does keep"
        aux, verb = "", [_third_person(verb[0]), *verb[1:]]
    elif aux == "do":
        aux = ""
    return " ".join([*words[:at], *([aux] if aux else []), *verb])


def subject(aux: str, words: list[str], at: int) -> str | None:
    """What the question is about: the words before the verb ("my list"), what the asker
    does ("change one character …"), or None after "it", "Python" or "there"."""
    if words[0].lower() not in _OPENS:
        return " ".join(words[:at])
    return " ".join(words[at:]) if words[0].lower() in _ASKERS else None


def _predicate_at(aux: str, words: list[str]) -> int | None:
    """Where the statement's verb phrase starts: after "I", "it", "Python"; in "Why is …",
    at "not", a participle or a comparison, else at the last word ("… program slow");
    otherwise at the first known verb."""
    if len(words) > 1 and words[0].lower() in _OPENS:
        return 1
    lower = [w.lower() for w in words]
    if aux.startswith(("is", "are", "was", "were")):
        for i, word in enumerate(lower[1:], start=1):
            than = i + 1 < len(words) and lower[i + 1] == "than"
            if word in _PREDICATE_OPENS or than or re.fullmatch(PARTICIPLE, word):
                return i
        return len(words) - 1
    # not a verb right after "I" or "you": a clause of the subject ("the functions I create")
    verbs = (i for i, w in enumerate(lower[1:], 1) if w in _VERBS and lower[i - 1] not in _OPENS)
    return next(verbs, None)


def _third_person(verb: str) -> str:
    if verb.lower() == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in tuple("aeiou"):
        return verb[:-1] + "ies"
    return verb + "s"
