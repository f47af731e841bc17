"""The period a question names: "in May 2023", "on 8 May, 2023", "May 8th 2023", "in 2022".
A named period is a fact about when: turns written in it are likelier to hold the answer."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
_MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + "|" + "|".join(MONTHS) + r")"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_PATTERNS = [
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),   # 8 May, 2023
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),             # May 8th, 2023
    re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b"),            # May 2023
    re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b"),       # in 2022
]


def named_period(text: str) -> tuple[datetime, datetime] | None:
    """[start, end) in UTC of the first day, month or year the text names, or None."""
    for pattern in _PATTERNS:
        match = pattern.search(text)
        if match is None:
            continue
        parts = match.groupdict()
        year = int(parts["year"])
        if parts.get("month") is None:
            return datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc)
        month = MONTHS.index(parts["month"].lower()) + 1
        if parts.get("day") is None:
            start = datetime(year, month, 1, tzinfo=timezone.utc)
            return start, datetime(year + month // 12, month % 12 + 1, 1, tzinfo=timezone.utc)
        try:
            start = datetime(year, month, int(parts["day"]), tzinfo=timezone.utc)
        except ValueError:  # "31 February": not a day
            continue
        return start, start + timedelta(days=1)
    return None
