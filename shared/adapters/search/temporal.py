"""Time ranges in questions ("last 3 months", "since 2024", "в этом году") as absolute dates.

The TimeRangeExtractor's first and last stages (the order is regex -> model ->
keywords; ``shared/usecases/research/time_range.py`` runs it):
``parse_time_range`` holds the rules, exact and free, so they come first;
``has_time_cue`` says whether a question no rule resolved still talks about
time, and only then is the Reasoner's ``time_range`` asked (a model call
per question would be waste); ``keyword_time_range`` is the last resort for
"latest" / "recent" / "актуальн..." questions the model left open. ``today``
is a parameter (never ``date.today()`` inside) so orchestrators can pass their
replay-safe clock and tests stay deterministic. The first rule in ``_RULES``
that matches wins, so specific phrasings ("last 3 months") sit above general
ones ("last month").

Conventions: "past/last N units" and "past year" are rolling windows ending
today; "last year" / "last month" / "за прошлый год" mean the previous
calendar period; "this year" runs from 1 January to today; a bare "latest" or
"recent" means the last ``RECENT_MONTHS`` months.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, timedelta

from shared.core.source_models import TimeRange

_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
    "двух": 2,
    "двое": 2,
    "трёх": 3,
    "трех": 3,
    "пять": 5,
}
_NUM = r"(\d{1,3}|" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + ")"
_YEAR = r"(?:19|20)\d{2}"


def parse_time_range(text: str, today: date) -> TimeRange | None:
    """The time window ``text`` asks about, or ``None`` when it names none."""
    lowered = text.lower().replace("ё", "е")
    for pattern, build in _RULES:
        match = pattern.search(lowered)
        if match is None:
            continue
        window = build(match, today)
        if window is None:
            continue
        start, end = window
        if start > today:
            return None
        end = min(end, today)
        return TimeRange(start=start.isoformat(), end=end.isoformat(), label=match.group(0).strip())
    return None


# -- date arithmetic -----------------------------------------------------------


def shift_months(day: date, months: int) -> date:
    """``day`` moved by ``months`` (negative = back), clamped to the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def _back(unit: str, n: int, today: date) -> date:
    if unit == "day":
        return today - timedelta(days=n)
    if unit == "week":
        return today - timedelta(weeks=n)
    if unit == "month":
        return shift_months(today, -n)
    return shift_months(today, -12 * n)


def _unit(word: str) -> str:
    for unit, stems in (
        ("day", ("day", "дн", "ден", "сут")),
        ("week", ("week", "недел")),
        ("month", ("month", "месяц")),
        ("year", ("year", "год", "лет")),
    ):
        if word.startswith(stems):
            return unit
    raise ValueError(word)


def _count(token: str | None) -> int:
    if not token:
        return 1
    return int(token) if token.isdigit() else _NUMBER_WORDS[token.strip()]


# -- rules ---------------------------------------------------------------------

Window = tuple[date, date] | None
Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], Window]]


def _rolling(match: re.Match[str], today: date) -> Window:
    n = _count(match.group("n"))
    return (_back(_unit(match.group("unit")), n, today), today) if n > 0 else None


def _previous_period(match: re.Match[str], today: date) -> Window:
    unit = _unit(match.group("unit"))
    if unit == "year":
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    if unit == "month":
        first = shift_months(today.replace(day=1), -1)
        return first, today.replace(day=1) - timedelta(days=1)
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        return monday - timedelta(weeks=1), monday - timedelta(days=1)
    return today - timedelta(days=1), today - timedelta(days=1)


def _current_period(match: re.Match[str], today: date) -> Window:
    unit = _unit(match.group("unit"))
    if unit == "year":
        return date(today.year, 1, 1), today
    if unit == "month":
        return today.replace(day=1), today
    if unit == "week":
        return today - timedelta(days=today.weekday()), today
    return today, today


def _since_year(match: re.Match[str], today: date) -> Window:
    return date(int(match.group("year")), 1, 1), today


def _in_year(match: re.Match[str], today: date) -> Window:
    year = int(match.group("year"))
    return date(year, 1, 1), date(year, 12, 31)


def _today(match: re.Match[str], today: date) -> Window:
    return today, today


def _yesterday(match: re.Match[str], today: date) -> Window:
    return today - timedelta(days=1), today - timedelta(days=1)


_EN_UNIT = r"(?P<unit>days?|weeks?|months?|years?)"
_RU_UNIT = r"(?P<unit>дн\w*|ден\w*|сут\w*|недел\w*|месяц\w*|год\w*|лет)"

_RULES: list[Rule] = [
    (re.compile(rf"\b(?:last|past|previous|recent)\s+(?P<n>{_NUM})\s+{_EN_UNIT}\b"), _rolling),
    (re.compile(rf"\b(?:in|over|during)\s+the\s+last\s+(?P<n>){_EN_UNIT}\b"), _rolling),
    (re.compile(rf"\b(?:the\s+)?past\s+(?P<n>){_EN_UNIT}\b"), _rolling),
    (re.compile(r"\blast\s+(?P<unit>year|month|week)\b"), _previous_period),
    (re.compile(rf"\b(?:this|current)\s+{_EN_UNIT}\b"), _current_period),
    (re.compile(rf"\b(?:since|from)\s+(?:the\s+start\s+of\s+)?(?P<year>{_YEAR})\b"), _since_year),
    (re.compile(rf"\b(?:in|during|for|throughout)\s+(?P<year>{_YEAR})\b"), _in_year),
    (re.compile(r"\byesterday\b"), _yesterday),
    (re.compile(r"\btoday\b"), _today),
    (re.compile(rf"\bпоследн\w*\s+(?P<n>{_NUM})\s+{_RU_UNIT}"), _rolling),
    (re.compile(rf"\bпоследн\w*\s+(?P<n>){_RU_UNIT}"), _rolling),
    (re.compile(rf"\bпрошл\w*\s+{_RU_UNIT}"), _previous_period),
    (re.compile(rf"\b(?:в|на|за)\s+(?:эт|текущ)\w*\s+{_RU_UNIT}"), _current_period),
    (re.compile(rf"\b(?:с|со|начиная\s+с)\s+(?P<year>{_YEAR})(?!\d)(?:\s*г\w*)?"), _since_year),
    (re.compile(rf"\b(?:в|за)\s+(?P<year>{_YEAR})(?!\d)(?:\s*г\w*)?"), _in_year),
    (re.compile(r"\bвчера\b"), _yesterday),
    (re.compile(r"\bсегодня\b"), _today),
]


# -- the model's cue and the keyword fallback ----------------------------------

RECENT_MONTHS = 12
_TIME_CUE = re.compile(
    r"\b(?:(?:19|20)\d{2}s?|ago|since|until|before|after|during|recent\w*|latest|newest|"
    r"current\w*|nowadays|lately|quarter\w*|season\w*|decade\w*|days?|weeks?|months?|years?|"
    r"january|february|march|april|may|june|july|august|september|october|november|"
    r"december|winter|spring|summer|autumn|fall|q[1-4]|h[12]|yesterday|today|tonight|"
    r"недел\w*|месяц\w*|год\w*|лет|квартал\w*|сезон\w*|зим\w*|весн\w*|осен\w*|"
    r"недавн\w*|последн\w*|свеж\w*|актуальн\w*|нынешн\w*|сейчас|вчера|сегодня)\b"
)
_RECENT = re.compile(
    r"\b(?:latest|newest|recent(?:ly)?|lately|nowadays|up[- ]to[- ]date|current(?:ly)?|"
    r"новейш\w*|недавн\w*|свеж\w*|актуальн\w*|последни[ех]\s+новост\w*)\b"
)


def has_time_cue(text: str) -> bool:
    """Whether ``text`` mentions time at all: the model is asked only then."""
    return _TIME_CUE.search(text.lower().replace("ё", "е")) is not None


def keyword_time_range(text: str, today: date) -> TimeRange | None:
    """ "Latest", "recent", "актуальные" and the like: the last ``RECENT_MONTHS`` months."""
    match = _RECENT.search(text.lower().replace("ё", "е"))
    if match is None:
        return None
    start = shift_months(today, -RECENT_MONTHS)
    return TimeRange(start=start.isoformat(), end=today.isoformat(), label=match.group(0))
