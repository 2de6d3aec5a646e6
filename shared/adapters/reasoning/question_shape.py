"""Reading a question's shape and subject without a language model.

The offline reasoner has no model to tell it what a question asks about, so these
patterns do: its shape (what is / how / compare / why / list) picks the plan's
decomposition, and its subject names the report and its topics. A subject that
keeps the question's verbs reads as a broken heading ("The import statement find
and load modules in"), so the frame is cut at both ends. Adding a language means a
few alternatives to these patterns (and a module in ``texts``). English and Russian
were here first; German, Spanish and French add their openers as alternatives that
cannot match an English or Russian question, and Chinese, written without spaces
and asking at either end of the sentence, has frame patterns of its own.
"""

from __future__ import annotations

import re
from typing import Final

from shared.adapters.reasoning import question_statement
from shared.adapters.reasoning.question_statement import PARTICIPLE, Asked
from shared.adapters.reasoning.texts.en import TASK_QUESTION, WAY_TO
from shared.tools import lexical

# "What is", "What's", "What were": how a what-question opens, read by the subject, the
# question's shape and the article a follow-up question gives back
_WHAT_IS = r"what(?:['’]s|\s+(?:is|are|was|were))"
# after a word that is no article: where a verb or a participle ends the subject ("… work",
# "… handled"), and not a noun after "the"/"a"/"an" ("compute the mean", "a pickled object")
_AFTER_NOUN = r"(?<=\S)(?<!\bthe)(?<!\ban)(?<!\ba)\s+"

_LEAD_RE = re.compile(
    rf"^\s*(?:(?:{WAY_TO}|"
    r"how\s+(?:do|does|can|could|should|to|is|are|did|would|might)(?:\s+(?:i|you|we|one))?|"
    rf"{_WHAT_IS}(?:\s+(?:the|a|an))?|"
    r"what\s+does\s+it\s+mean\s+to(?:\s+be)?|"  # "… to be pythonic": "pythonic"
    r"what\s+(?:does|do)(?!\s+it\b)|"  # "What does X do/mean?": the verb ends X (below)
    r"why\s+(?:do|does|is|are|did|would|should)?|when\s+(?:should|to|do|"
    r"does)?(?:\s+i)?|(?:explain|describe)(?:\s+how)?|define|compare|list|tell\s+me\s+about|"
    r"как(?:ой|ая|ие|ое)?(?:\s+(?:работает|работают|устроен[аоы]?|использовать))?|"
    r"что\s+(?:такое|означает)|почему|зачем|когда|объясни(?:те)?|опиши(?:те)?|сравни(?:те)?|"
    r"перечисли(?:те)?|расскажи(?:те)?(?:\s+(?:о|об|про))?|"
    # German
    r"wie\s+(?:funktionier(?:t|en)|(?:kann|können|soll|sollte|sollten|muss)\s+(?:ich|man)|"
    r"werden|wird|(?:verwende|benutze|nutze|schreibe)\s+ich)|"
    r"was\s+(?:ist|sind|bedeutet|bedeuten|macht|machen)(?:\s+(?:der|die|das|ein|eine))?|"
    r"(?:warum|wieso|weshalb)(?:\s+(?:braucht|brauchen|benötigt|verwendet|nutzt|"
    r"sollte|soll|ist|sind))?(?:\s+(?:man|ich))?|"
    r"wann(?:\s+(?:sollte|soll|sollten)(?:\s+(?:man|ich))?)?|"
    r"erkläre|erklären\s+sie|beschreibe|vergleiche|definiere|"
    # Spanish
    r"c[óo]mo(?:\s+(?:funciona|funcionan|se\s+usan?|se\s+utilizan?|(?:puedo|debo)\s+usar))?|"
    r"qu[ée]\s+(?:es|son|significa)(?:\s+(?:el|la|los|las|un|una))?|"
    r"cu[áa]l(?:es)?\s+(?:es|son)(?:\s+(?:el|la|los|las))?|"
    r"por\s*qu[ée](?:\s+(?:es|son|se\s+usan?))?|"
    r"cu[áa]ndo(?:\s+(?:debo|debería|se\s+debe|conviene))?(?:\s+(?:usar|utilizar))?|"
    r"expl[íi]ca(?:me)?|compara|"
    # French
    # "comment" is English too: only with a French verb or article after it
    r"comment\s+(?:fonctionne(?:nt)?|marche(?:nt)?|utiliser|écrire|(?:puis-je|peut-on)\s+utiliser)|"
    r"comment(?=\s+(?:les?|la|une?|des)\s)|"
    r"que\s+(?:signifie|veut\s+dire)|quel(?:le)?s?\s+(?:est|sont)(?:\s+(?:le|la|les))?|"
    r"pourquoi(?:\s+(?:utiliser|employer))?|"
    r"quand(?:\s+(?:faut-il|doit-on|dois-je))?(?:\s+(?:utiliser|employer))?|"
    r"explique[sz]?|décri(?:s|vez)|comparez|définis(?:sez)?)\s+|"
    # French elides before a vowel: "qu'est-ce qu'un", "qu'est-ce que l'opérateur"
    r"qu['’]est-ce\s+qu(?:e\s+|['’])(?:(?:un|une|le|la|les)\s+|l['’])?)",
    re.IGNORECASE,
)
# Chinese puts no spaces between words and its interrogatives at either end:
# "什么是生成器", "Python 中的 with 语句是如何工作的"
_ZH_LEAD_RE = re.compile(
    r"^(?:请)?(?:(?:为什么|为何|如何|怎样|怎么)(?:要|需要)?(?:在\s*Python\s*(?:中|里))?\s*"
    r"(?:使用|编写)?|什么是|解释一下|解释|介绍一下|比较一下|比较)\s*",
    re.IGNORECASE,
)
_ZH_TAIL_RE = re.compile(
    r"\s*(?:是什么|是如何工作的|是怎么工作的|如何工作|怎么工作|的工作原理是什么|的工作原理|"
    r"有什么区别|有什么不同|的区别是什么|的区别|怎么用|如何使用|的作用是什么)$"
)
_ZH_PLACE_RE = re.compile(r"^(?:在\s*)?Python\s*(?:中|里)的?\s*", re.IGNORECASE)
# the verb that ends the subject, and everything after it ("... work on sequences"); not a
# noun after an article ("compute the mean and median": "mean" is what is computed)
_TAIL_RE = re.compile(
    rf"{_AFTER_NOUN}(?:work|works|return|returns|do(?=$|\s+(?:at|in|on|with|when|for)\b)|"
    r"operate|happen|mean|differ|find|finds|get\s+used|are\s+used|"
    r"is\s+used|used|get\s+evaluated|evaluated|behave|interact|relate|"
    # German puts the verb last; Spanish and French name it after the subject at times
    r"funktionier(?:t|en)|verwendet|verwenden|benutzt|benutzen|nutzen|eingesetzt|einsetzen|"
    r"schreiben|unterscheide[nt]|fonctionne(?:nt)?|marche(?:nt)?|funcionan?|se\s+usan?)\b.*$",
    re.IGNORECASE,
)
# "How are exceptions handled?": a passive how-question names its subject before the
# participle, which ends it ("exceptions", not "exceptions handled"); not a participle after
# an article ("How is a pickled object restored?")
_PASSIVE_RE = re.compile(r"^\s*how\s+(?:is|are|was|were)\s", re.IGNORECASE)
# (nor after "and": "comparisons and chained comparison operators")
_PARTICIPLE_RE = re.compile(rf"(?<!\band)(?<!\bor){_AFTER_NOUN}{PARTICIPLE}.*$", re.IGNORECASE)
# "in Python", "в Python", "en Python" and "together" say where, not what
_PLACE_RE = re.compile(
    r"\s+(?:in|on|with|в|mit|en|con|dans|avec)\s+Python\b.*$|\s+together$", re.IGNORECASE
)
# ", including break and continue": a list of examples, not the subject; ", and how should I
# test …": a second question, whose subject is not the first one's
_CLAUSE_RE = re.compile(
    r",?\s+(?:including|such\s+as|включая|einschließlich|incluyendo|y\s+compris)\b.*$|"
    r",\s+and\s+(?:how|what|why|when|which|should|is|are|do|does|can)\s.*$",
    re.IGNORECASE,
)
# "Should I use pathlib or os.path to work with file paths?", "Which is better for a record,
# a dataclass or a dict?": a choice between the things named, which are the subject; what
# they are for is not ("to …", "for …")
_CHOICE = r"should\s+(?:i|we|you|one)\s+(?:use|choose|pick|prefer)"
_WHICH = (
    r"which\s+(?:one\s+)?(?:is|should\s+(?:i|we|you)\s+(?:use|choose|pick))"
    r"(?:\s+(?:better|best|faster|preferable|more\s+\w+))?(?:\s+(?:for|to|when|in)\s[^,:]+)?[,:]"
)
_CHOICE_RE = re.compile(
    rf"^\s*(?:{_CHOICE}\s+(?P<sides>.+?\sor\s.+?)(?:\s+(?:to|for|when|in)\s.*)?|"
    rf"{_WHICH}\s+(?P<named>.+\sor\s.+))$",
    re.I,
)
# "Compare lists and tuples: when should each be used?": the question after the colon asks
# about the two things named before it, which are the subject (a comparison only: in
# "asyncio: how do tasks get cancelled?" the clause names the subject)
_ASKED_AFTER_RE = re.compile(
    r"^(?P<sides>[^:]+?)\s*:\s*(?:when|which|why|how|what|where|who|should|is|are|do|does|can)\b",
    re.IGNORECASE,
)
# "How does Python decide which names ..." -> "names ..."
_DECIDES_RE = re.compile(
    r"^(?:python|it)\s+(?:decide|decides|determine|determines|know|knows|choose|chooses)\s+"
    r"(?:which|whether|what|how|when|if)\s+",
    re.IGNORECASE,
)
_COMPARE_SPLIT_RE = re.compile(
    r"\s+(?:vs\.?|versus|or|and|compared\s+(?:with|to)|и|или|против|und|oder|gegenüber|"
    r"im\s+Vergleich\s+zu|y|o|frente\s+a|comparad[oa]s?\s+con|et|ou|par\s+rapport\s+(?:à|aux?))\s+"
    r"|\s*(?:与|和|跟|还是)\s*",
    re.IGNORECASE,
)
# a clause after the second side says when the two are compared, not what: "== and is when
# comparing objects" compares "==" and "is"
_SIDE_CLAUSE_RE = re.compile(r"\s+(?:when|while|if)\s.*$")
_BETWEEN_RE = re.compile(
    r"^(?:the\s+)?differences?\s+between\s+|^разница\s+между\s+|"
    r"^(?:der\s+)?Unterschiede?\s+zwischen\s+|^(?:las?\s+)?diferencias?\s+entre\s+|"
    r"^(?:les?\s+|la\s+)?différences?\s+entre\s+",
    re.I,
)

# "What does it mean for an object to be hashable?" asks about a hashable object
_MEANS_RE = re.compile(
    r"^what\s+does\s+it\s+mean\s+for\s+(?:(?P<article>an?|the)\s+)?(?P<thing>(?:\S+\s+){0,2}?\S+)\s+"
    r"to\s+be\s+(?P<quality>[\w-]+)",
    re.IGNORECASE,
)
_TASK_RE = re.compile(TASK_QUESTION, re.I)  # English: "How do I …", "When should I …"
# "Can you explain decorators?", "Could you show me how to …": a request, asked politely,
# not a yes/no question about what the reader can do
_POLITE_RE = re.compile(
    r"^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:show|tell|teach)\s+me\s+(?=how\s+to\b)|"
    r"^\s*(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"(?=(?:explain|describe|tell|show|list|compare|give|define|summari[sz]e)\b)",
    re.IGNORECASE,
)
_WAY_TO_RE = re.compile(rf"^\s*(?:{WAY_TO})\b", re.I)  # a how-to asked as a what or a yes/no

QUERY_TYPE_PATTERNS: Final[list[tuple[str, re.Pattern[str]]]] = [
    (
        "comparison",
        re.compile(
            r"\b(?:vs\.?|versus|compared?|comparison|differences?\s+between|"
            r"differ)\b|сравн|отлича|разниц|против|"
            r"unterschied|unterscheid|vergleich|gegenüber|diferencia|\bcompara(?:r|ción)?\b|frente\s+a|"
            r"différence|\bcompar(?:er|ez|aison)\b|par\s+rapport\s+à|区别|不同|比较|对比|相比",
            re.I,
        ),
    ),
    ("comparison", re.compile(rf"^\s*(?:{_CHOICE}\s.+|{_WHICH}.+)\sor\s", re.I)),
    (
        "list",
        re.compile(
            r"^\s*(?:list|name|enumerate)\b|\b(?:types\s+of|kinds\s+of|examples\s+of|"
            r"what\s+are\s+the\s+(?:main|different|common))\b|перечисл|"
            r"какие\s+(?:есть|бывают|существуют)|виды|типы|"
            r"^[\s¿]*(?:nenne|liste|enumera|enumère|énumère)\b|"
            r"\b(?:arten\s+von|tipos\s+de|types\s+de)\b|有哪些|列出|列举",
            re.I,
        ),
    ),
    ("how_to", _WAY_TO_RE),  # before "what is" (definition)
    (
        "fact",
        re.compile(
            r"^\s*(?:who|where|which|how\s+many|how\s+much|when\s+(?:was|did|is))\b|"
            r"^\s*(?:кто|где|сколько)\b|"
            r"^[\s¿]*(?:wer|wo|wie\s+viele?|qui[ée]n|d[óo]nde|cu[áa]nt[oa]s?|qui|où|combien)\b",
            re.I,
        ),
    ),
    (
        "definition",
        re.compile(
            rf"^\s*(?:{_WHAT_IS}|define|definition\s+of|meaning\s+of)\b|"
            r"^\s*что\s+(?:такое|означает)|определени|"
            r"^\s*was\s+(?:ist|sind|bedeutet)\b|^[\s¿]*qu[ée]\s+(?:es|son|significa)\b|"
            r"^\s*(?:qu['’]est-ce\s+qu|que\s+(?:signifie|veut\s+dire)\b)|"
            r"(?<!为)什么是|是什么",
            re.I,
        ),
    ),
    (
        "how_to",
        re.compile(
            r"^\s*how\b|^\s*как\b|^[\s¿]*(?:wie|c[óo]mo)\b|"
            r"^\s*comment\s+(?:fonctionne|marche|utiliser|écrire|puis-je|peut-on|les?|la|une?|des)\b|"
            r"如何|怎么|怎样",
            re.I,
        ),
    ),
    (
        "why",
        re.compile(
            r"^\s*why\b|^\s*(?:почему|зачем)\b|"
            r"^[\s¿]*(?:warum|wieso|weshalb|por\s*qu[ée]|pourquoi)\b|为什么|为何",
            re.I,
        ),
    ),
]


def query_type_of(query: str) -> str:
    """The first matching question shape (``open`` when none matches)."""
    return next((kind for kind, pattern in QUERY_TYPE_PATTERNS if pattern.search(query)), "open")


_ARTICLES = frozenset({"the", "a", "an"})  # as concepts_of drops them


def subject_of(query: str, max_words: int = 12) -> str:
    """The question with its interrogative frame removed: "How do X work in Python?" -> "X",
    "How does the import statement find modules?" -> "the import statement"."""
    text = _POLITE_RE.sub("", " ".join(query.strip().strip("?!.¿¡？！。").split()))
    core = _ZH_PLACE_RE.sub("", _ZH_TAIL_RE.sub("", _ZH_LEAD_RE.sub("", text)))
    core = _LEAD_RE.sub("", core)
    if means := _MEANS_RE.match(core):  # "an object to be hashable": "a hashable object"
        quality = means["quality"]
        article = means["article"] and ("an" if quality[:1].lower() in "aeiou" else "a")
        core = " ".join(w for w in (article, quality, means["thing"]) if w)
    if (statement := asked_statement(text)) and (named := statement.subject()):
        core = named
    core = _DECIDES_RE.sub("", core)
    core = _CLAUSE_RE.sub("", core)
    if chosen := _CHOICE_RE.match(core):
        core = chosen["sides"] or chosen["named"]
    asked = _ASKED_AFTER_RE.match(core)
    if asked and len(_COMPARE_SPLIT_RE.split(asked["sides"], maxsplit=1)) == 2:
        core = asked["sides"]
    # a task's subject opens with its verb, and a verb after it is part of it ("hand work
    # from one thread to another", "show the lines that differ")
    for pattern in (_PLACE_RE,) if _TASK_RE.match(text) else (_PLACE_RE, _TAIL_RE, _PLACE_RE):
        core = pattern.sub("", core)
    if _PASSIVE_RE.match(text):
        core = _PARTICIPLE_RE.sub("", core)
    core = _unquoted(core.strip(" ,;:?!."))
    return _shortened((core or text).split(), max_words)


# where a long subject may end: before a clause ("keep a list sorted | while I insert …")
_CLAUSE_OPEN_TEXT = (
    "while where when whenever without that which so because if after before until like"
)
_CLAUSE_OPENS = frozenset(_CLAUSE_OPEN_TEXT.split())
_DANGLING_TEXT = "of by in with for to from on at and or than"  # nor on an article
_DANGLING = _ARTICLES | frozenset(_DANGLING_TEXT.split())


def _unquoted(text: str) -> str:
    """``text`` without the quotation marks around it, but not half of a quoted name
    ('if __name__ == "__main__"')."""
    stripped = text.strip("\"'«»“”„")
    return text if stripped.count('"') % 2 != text.count('"') % 2 else stripped


def _shortened(words: list[str], most: int) -> str:
    """At most ``most`` words: up to the first clause that opens in the second half of them,
    else the first ``most``, never ending on an article or a preposition ("… raises an
    error for")."""
    if len(words) > most:
        opens = [i for i in range(most // 2, most + 1) if words[i].lower() in _CLAUSE_OPENS]
        words = words[: opens[0]] if opens else words[:most]
        while len(words) > 1 and words[-1].lower() in _DANGLING:
            words.pop()
    return " ".join(words).rstrip(",;:")


# "What is a generator?": the article the question set before its subject, which the subject
# leaves out (a heading reads "Generator") and a follow-up question needs back
_ASKED_ARTICLE_RE = re.compile(rf"^\s*{_WHAT_IS}\s+(the|an?)\s", re.I)


def with_article(query: str, subject: str) -> str:
    """``subject`` with the article ``query`` set right before it: "a generator", "the GIL"
    (not "the read a file …" of "What is the best way to read a file …?")."""
    asked = _ASKED_ARTICLE_RE.match(query)
    if not asked or not subject or not query[asked.end() :].lstrip().startswith(subject):
        return subject
    return f"{asked[1].lower()} {subject}"


def asked_statement(query: str) -> Asked | None:
    """An English question about a statement (why, yes/no, what happens when, how does X
    …), read by ``question_statement`` without a second question or "in Python" after it;
    not "Is there a way to …?", which asks how to do something."""
    if _WAY_TO_RE.match(query) or _POLITE_RE.match(query):
        return None
    clause = query.strip().rstrip("?!. ")
    for pattern in (_CLAUSE_RE, _PLACE_RE):
        clause = pattern.sub("", clause)
    return question_statement.parts(clause)


NO_SIDE = "…"  # the second side of a comparison that names one


def split_comparison(subject: str, fallback: list[str]) -> tuple[str, str]:
    """The two sides of "A vs B" (the second from ``fallback`` when the query names one)."""
    parts = _COMPARE_SPLIT_RE.split(_BETWEEN_RE.sub("", subject), maxsplit=1)
    if len(parts) == 2 and all(p.strip() for p in parts):
        return parts[0].strip(), _SIDE_CLAUSE_RE.sub("", parts[1]).strip() or parts[1].strip()
    return subject, fallback[0] if fallback else NO_SIDE


def concepts_of(subject: str) -> list[str]:
    """The subject's noun phrases: "context managers and the with statement" ->
    ["context managers", "with statement"] (split at conjunctions, articles dropped)."""
    parts = re.split(r"\s*(?:,|;|\band\b|\bor\b|\bvs\.?|\bversus\b|\bи\b|\bили\b)\s*", subject)
    parts = [re.sub(r"^(?:the|a|an)\s+", "", p.strip(), flags=re.I) for p in parts]
    return [p for p in parts if len(lexical.content_tokens(p)) >= 1]


def lower_first(title: str) -> str:
    """ "Compound statements" -> "compound statements" (keeps "PEP 8", "pdb"); a module's
    synopsis is left out ("functools — Tools for working with functions" -> "functools")."""
    title = title.split(" — ", 1)[0]
    head = title.split(" ", 1)[0]
    return title if head.isupper() or not head[:1].isupper() else title[:1].lower() + title[1:]
