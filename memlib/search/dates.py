"""The period a question names: "in May 2023", "on 8 May, 2023", "May 8th 2023", "in 2022",
and without a year "in June", "on 8 May": that month or day of any year. A named period is a
fact about when: turns written in it are likelier to hold the answer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
_MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + "|" + "|".join(MONTHS) + r")"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_BEFORE_YEAR = r"(?:,\s*|\s+)"  # "May 8, 2023", "May 8,2023", "May 8 2023"
_AT = r"\b(?:in|on|during|since|by|of|early|late|mid)\s+(?:the\s+)?"  # a month without a year must follow one
_PATTERNS = [
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}{_BEFORE_YEAR}{_YEAR}\b"),  # 8 May, 2023
    re.compile(rf"\b{_MONTH}\s+{_DAY}{_BEFORE_YEAR}{_YEAR}\b"),            # May 8th, 2023
    re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b"),                     # May 2023
    re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b"),                # in 2022
    re.compile(rf"{_AT}{_DAY}\s+(?:of\s+)?{_MONTH}\b"),                     # on 8 May: any year
    re.compile(rf"{_AT}{_MONTH}\s+{_DAY}\b"),                                # on May 8th: any year
    re.compile(rf"{_AT}{_MONTH}\b"),                                         # in June: any year
]
_ANY_YEAR = 2000  # a year-less period is held in a leap year, so that 29 February is a day


@dataclass(frozen=True)
class Period:
    """[start, end) in UTC; with `every_year`, the same days of every year (start and end
    then fall in 2000)."""

    start: datetime
    end: datetime
    every_year: bool = False

    def __contains__(self, when: datetime) -> bool:
        if self.every_year:
            when = when.replace(year=_ANY_YEAR)
        return self.start <= when < self.end


def named_period(text: str) -> Period | None:
    """The first day, month or year the text names (a month or day of any year when it names
    none), or None."""
    for pattern in _PATTERNS:
        match = pattern.search(text)
        if match is None:
            continue
        parts = match.groupdict()
        every_year = parts.get("year") is None
        year = _ANY_YEAR if every_year else int(parts["year"])
        if parts.get("month") is None:
            return Period(datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc))
        month = MONTHS.index(parts["month"].lower()) + 1
        if parts.get("day") is None:
            start = datetime(year, month, 1, tzinfo=timezone.utc)
            return Period(start, datetime(year + month // 12, month % 12 + 1, 1, tzinfo=timezone.utc), every_year)
        try:
            start = datetime(year, month, int(parts["day"]), tzinfo=timezone.utc)
        except ValueError:  # "31 February": not a day
            continue
        return Period(start, start + timedelta(days=1), every_year)
    return None
