"""The period a question names ("on 7 July, 2023", "in May 2023", "before August 11, 2023"), if any.

Recall lifts the candidates whose time falls in it (`UHP_RECALL_DATE_BOOST`): on LoCoMo's development
split a question that names a date mostly asks about what was said on or near that date. Only English
month names and ISO dates are read; a question naming none is left as it is.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)
ISO_DAY = re.compile(rf"\b{_YEAR}-(\d\d)-(\d\d)\b")
MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
IN_YEAR = re.compile(rf"\b(?:in|during|of)\s+{_YEAR}\b", re.IGNORECASE)
BEFORE = re.compile(r"\b(?:before|prior to|until|by)\s*$", re.IGNORECASE)
AFTER = re.compile(r"\b(?:after|since)\s*$", re.IGNORECASE)

# A day is widened by a day each side (a date said in one time zone, kept in another); a day after
# "before" reaches two weeks back ("the weekend before August 3"), one after "after" two weeks on.
SLACK = timedelta(days=1)
REACH = timedelta(days=14)


def named_period(question: str) -> tuple[int, int] | None:
    """[start, end) in ms since the epoch (UTC) of the first date the question names; None if none."""
    day = _named_day(question)
    if day is not None:
        when, before = day
        start, end = when - SLACK, when + timedelta(days=1) + SLACK
        if BEFORE.search(before):
            start = when - REACH
        elif AFTER.search(before):
            end = when + REACH
        return _ms(start), _ms(end)
    month = MONTH_YEAR.search(question)
    if month is not None:
        year, number = int(month.group(2)), MONTHS[month.group(1).lower()]
        following = datetime(year + number // 12, number % 12 + 1, 1, tzinfo=UTC)
        return _ms(datetime(year, number, 1, tzinfo=UTC)), _ms(following)
    year_only = IN_YEAR.search(question)
    if year_only is not None:
        year = int(year_only.group(1))
        return _ms(datetime(year, 1, 1, tzinfo=UTC)), _ms(datetime(year + 1, 1, 1, tzinfo=UTC))
    return None


def _named_day(question: str) -> tuple[datetime, str] | None:
    """The first whole date named, with the words before it (to read "before"/"after")."""
    found: list[tuple[int, datetime]] = []
    for match in DAY_MONTH_YEAR.finditer(question):
        found += _day(match.start(), int(match.group(3)), MONTHS[match.group(2).lower()], int(match.group(1)))
    for match in MONTH_DAY_YEAR.finditer(question):
        found += _day(match.start(), int(match.group(3)), MONTHS[match.group(1).lower()], int(match.group(2)))
    for match in ISO_DAY.finditer(question):
        found += _day(match.start(), int(match.group(1)), int(match.group(2)), int(match.group(3)))
    if not found:
        return None
    at, when = min(found, key=lambda pair: pair[0])
    return when, question[:at]


def _day(at: int, year: int, month: int, day: int) -> list[tuple[int, datetime]]:
    try:
        return [(at, datetime(year, month, day, tzinfo=UTC))]
    except ValueError:  # "31 February": not a date, so no period
        return []


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)
