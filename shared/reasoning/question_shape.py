"""Reading a question's shape and subject without a language model.

The offline reasoner has no model to tell it what a question asks about, so these
patterns do: its shape (what is / how / compare / why / list) picks the plan's
decomposition, and its subject names the report and its topics. A subject that
keeps the question's verbs reads as a broken heading ("The import statement find
and load modules in"), so the frame is cut at both ends. Adding a language means a
few alternatives to these patterns (and a dictionary in ``templates``).
"""

from __future__ import annotations

import re
from typing import Final

_LEAD_RE = re.compile(
    r"^\s*(?:how\s+(?:do|does|can|should|to|is|are|did|would)(?:\s+i)?|what\s+(?:is|are|was|were)"
    r"(?:\s+(?:the|a|an))?|why\s+(?:do|does|is|are|did|would|should)?|when\s+(?:should|to|do|"
    r"does)?(?:\s+i)?|explain|describe|define|compare|list|tell\s+me\s+about|"
    r"как(?:ой|ая|ие|ое)?(?:\s+(?:работает|работают|устроен[аоы]?|использовать))?|"
    r"что\s+(?:такое|означает)|почему|зачем|когда|объясни(?:те)?|опиши(?:те)?|сравни(?:те)?|"
    r"перечисли(?:те)?|расскажи(?:те)?(?:\s+(?:о|об|про))?)\s+",
    re.IGNORECASE,
)
# the verb that ends the subject, and everything after it ("... work on sequences")
_TAIL_RE = re.compile(
    r"(?<=\w)\s+(?:work|works|operate|happen|mean|differ|find|finds|get\s+used|are\s+used|"
    r"is\s+used|used|get\s+evaluated|evaluated|behave|interact|relate)\b.*$",
    re.IGNORECASE,
)
# "in Python", "в Python" and "together" say where, not what
_PLACE_RE = re.compile(r"\s+(?:in|on|with|в)\s+Python\b.*$|\s+together$", re.IGNORECASE)
# ", including break and continue": a list of examples, not the subject
_CLAUSE_RE = re.compile(r",?\s+(?:including|such\s+as|включая)\b.*$", re.IGNORECASE)
# "How does Python decide which names ..." -> "names ..."
_DECIDES_RE = re.compile(
    r"^(?:python|it)\s+(?:decide|decides|determine|determines|know|knows|choose|chooses)\s+"
    r"(?:which|whether|what|how|when|if)\s+",
    re.IGNORECASE,
)
_COMPARE_SPLIT_RE = re.compile(
    r"\s+(?:vs\.?|versus|or|and|compared\s+(?:with|to)|и|или|против)\s+", re.IGNORECASE
)
_BETWEEN_RE = re.compile(r"^(?:the\s+)?differences?\s+between\s+|^разница\s+между\s+", re.I)

QUERY_TYPE_PATTERNS: Final[list[tuple[str, re.Pattern[str]]]] = [
    (
        "comparison",
        re.compile(
            r"\b(?:vs\.?|versus|compared?|comparison|differences?\s+between|"
            r"differ)\b|сравн|отлича|разниц|против",
            re.I,
        ),
    ),
    (
        "list",
        re.compile(
            r"^\s*(?:list|name|enumerate)\b|\b(?:types\s+of|kinds\s+of|examples\s+of|"
            r"what\s+are\s+the\s+(?:main|different|common))\b|перечисл|"
            r"какие\s+(?:есть|бывают|существуют)|виды|типы",
            re.I,
        ),
    ),
    (
        "fact",
        re.compile(
            r"^\s*(?:who|where|which|how\s+many|how\s+much|when\s+(?:was|did|is))\b|"
            r"^\s*(?:кто|где|сколько)\b",
            re.I,
        ),
    ),
    (
        "definition",
        re.compile(
            r"^\s*(?:what\s+(?:is|are)|define|definition\s+of|meaning\s+of)\b|"
            r"^\s*что\s+(?:такое|означает)|определени",
            re.I,
        ),
    ),
    ("how_to", re.compile(r"^\s*how\b|^\s*как\b", re.I)),
    ("why", re.compile(r"^\s*why\b|^\s*(?:почему|зачем)\b", re.I)),
]


def query_type_of(query: str) -> str:
    """The first matching question shape (``open`` when none matches)."""
    return next((kind for kind, pattern in QUERY_TYPE_PATTERNS if pattern.search(query)), "open")


def subject_of(query: str, max_words: int = 10) -> str:
    """The question with its interrogative frame removed: "How do X work in Python?" -> "X",
    "How does the import statement find modules?" -> "the import statement"."""
    text = " ".join(query.strip().strip("?!.").split())
    core = _LEAD_RE.sub("", text)
    core = _DECIDES_RE.sub("", core)
    core = _CLAUSE_RE.sub("", core)
    for pattern in (_PLACE_RE, _TAIL_RE, _PLACE_RE):
        core = pattern.sub("", core)
    core = core.strip(" ,;:?!.\"'«»“”")
    words = (core or text).split()[:max_words]
    return " ".join(words).rstrip(",;:")


def split_comparison(subject: str, fallback: list[str]) -> tuple[str, str]:
    """The two sides of "A vs B" (the second from ``fallback`` when the query names one)."""
    parts = _COMPARE_SPLIT_RE.split(_BETWEEN_RE.sub("", subject), maxsplit=1)
    if len(parts) == 2 and all(p.strip() for p in parts):
        return parts[0].strip(), parts[1].strip()
    return subject, fallback[0] if fallback else "…"
