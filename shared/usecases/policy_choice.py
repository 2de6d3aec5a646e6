"""The source policy from the question, when the request names none.

The specification's detection order: (1) ``options.source_policy`` when the
request sets it; (2) a keyword in the question, strict checked first ("verify",
"查證", "驗證" → strict; "trend", "趨勢", "輿情" → monitor); (3) ``discovery``.
The keywords cover the languages the service answers in (en, de, es, fr, ru,
zh, simplified and traditional). A keyword in a script with spaces matches at
the start of a word and takes the rest of it ("verif" finds "verify",
"verification", "vérifier"); a Chinese one matches anywhere. The choice and
its reason are kept in the session, so its status says why the run is strict.
"""

from __future__ import annotations

import re

from shared.core.limits import SOURCE_POLICY, SourcePolicy
from shared.core.session_models import PolicyChoice

STRICT_KEYWORDS = (
    # en
    "verif",
    "fact-check",
    "fact check",
    "factcheck",
    "is it true",
    "is this true",
    "is that true",
    "true or false",
    "debunk",
    # de
    "überprüf",
    "faktencheck",
    "stimmt es",
    "ist es wahr",
    "wahr oder falsch",
    # es
    "comprob",
    "comprueb",
    "es cierto",
    "es verdad",
    "verdadero o falso",
    # fr
    "vérifi",
    "est-ce vrai",
    "est-il vrai",
    "vrai ou faux",
    # ru
    "провер",
    "правда ли",
    "верно ли",
    "фактчек",
    "факт-чек",
    # zh
    "查證",
    "查证",
    "驗證",
    "验证",
    "核實",
    "核实",
    "是真的嗎",
    "是真的吗",
    "事實查核",
    "事实核查",
    "闢謠",
    "辟谣",
)
MONITOR_KEYWORDS = (
    # en (and de: "Trend")
    "trend",
    "sentiment",
    "public opinion",
    "what people think",
    "what people say",
    # de
    "stimmungsbild",
    "meinungsbild",
    "öffentliche meinung",
    # es
    "tendencia",
    "sentimiento",
    "opinión pública",
    "opinion publica",
    # fr
    "tendance",
    "opinion publique",
    # ru
    "тренд",
    "тенденци",
    "настроени",
    "общественное мнение",
    # zh
    "趨勢",
    "趋势",
    "輿情",
    "舆情",
    "輿論",
    "舆论",
    "口碑",
    "風向",
    "风向",
)
_CJK = re.compile(r"[\u3400-\u9fff]")


def _pattern(keywords: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation: CJK keywords anywhere, the others at a word start, whole word kept."""
    parts = [
        re.escape(k) if _CJK.search(k) else rf"(?<!\w){re.escape(k)}\w*"
        for k in sorted(keywords, key=len, reverse=True)
    ]
    return re.compile("|".join(parts))


_BY_POLICY: tuple[tuple[SourcePolicy, re.Pattern[str]], ...] = (
    ("strict", _pattern(STRICT_KEYWORDS)),  # strict first, as the specification orders it
    ("monitor", _pattern(MONITOR_KEYWORDS)),
)


def choose_source_policy(query: str, requested: SourcePolicy | None) -> PolicyChoice:
    """The request's policy if it names one, else the question's keyword, else discovery."""
    if requested is not None:
        return PolicyChoice(policy=requested, chosen_by="request")
    lowered = query.lower()
    for policy, pattern in _BY_POLICY:
        found = pattern.search(lowered)
        if found:
            return PolicyChoice(policy=policy, chosen_by="keyword", keyword=found.group(0))
    return PolicyChoice(policy=SOURCE_POLICY.default, chosen_by="default")
