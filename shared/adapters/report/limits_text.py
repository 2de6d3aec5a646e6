"""The report's own words about how it was made, in the reader's language.

Reasoners write the report's content in the user's language; the pipeline
then adds lines of its own: the Limitations (a phase, an agent or the deep
search that failed, the budget that cut the research, topics nobody
researched, how the plan was reviewed), notes (thin evidence, unanswered
clarifying questions, a critic's unresolved issues) and, when nothing else
could be written, the minimal report. Those lines were English even in a
Russian report. Every such sentence is said here, its words kept in
``shared/adapters/report/words/``, one module per language (anything else reads
English), built from
data (``shared.core.payloads.Gap``) rather than from English text, so nothing has
to be translated after the fact. The report's warnings (the citation check, a
report no source backs) are among them.

Error texts (an exception's message) are quoted as raised. The live status
warnings stay English: they are for clients and operators, not readers.
"""

from __future__ import annotations

from typing import Final

from shared.adapters.report.words import LANGUAGES as _LANGUAGES
from shared.core.payloads import Gap

_BUDGET: Final = {code: m.BUDGET for code, m in _LANGUAGES.items()}
TEXT: Final[dict[str, dict[str, str]]] = {code: m.TEXT for code, m in _LANGUAGES.items()}
# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, dict[str, str]]] = {code: m.PHASES for code, m in _LANGUAGES.items()}


def _lang(language: str) -> str:
    code = language.split("-")[0].lower()
    return code if code in TEXT else "en"


def say(language: str, key: str, **fields: object) -> str:
    """The sentence ``key`` in ``language`` (English when the language has none)."""
    return TEXT[_lang(language)][key].format(**fields)


def gap_clause(gap: Gap, language: str) -> str:
    """What the run could not do, as a clause (no capital, no full stop): the writer's brief
    and the offline writer's open questions take it inside a sentence of their own."""
    lang = _lang(language)
    phase = PHASES[lang].get(gap.phase, gap.phase)
    fields = gap.model_dump() | {"phase": phase, "topics": listed(gap.topics, lang)}
    return TEXT[lang][gap.kind].format(budget=_BUDGET[lang], **fields)


def listed(items: list[str], language: str) -> str:
    """``items`` as a list inside a sentence of ``language``."""
    return ("、" if _lang(language) == "zh" else ", ").join(items)


def sentence(clause: str, language: str) -> str:
    """``clause`` as a sentence of its own: capital first letter, a full stop unless it has one."""
    if not clause:
        return clause
    stop = "。" if _lang(language) == "zh" else "."
    text = clause[0].upper() + clause[1:]
    return text if text.endswith((".", "!", "?", "。", "！", "？")) else text + stop
