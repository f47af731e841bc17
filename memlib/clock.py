"""Time in memlib: the one clock a store reads, and the one parser of dates users give.

Every timestamp memlib writes (audit events, `updated_at`, recall events, the version ledger
that time travel reads) comes from the store's `Clock`. It is the system's UTC time unless a
test or a backfill (`memlib sample` writes its 240-day history day by day) sets it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timezone

from memlib.errors import InvalidInput

# Dates memlib accepts: anything between these (TTL arithmetic and DuckDB stay in range).
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
MAX_DAYS = 36_500  # a hundred years: any TTL, half-life or window beyond is a mistake


class Clock:
    """Now, in UTC: the system's time, or a time someone set (`set`, then `set(None)`)."""

    def __init__(self, fixed: datetime | None = None):
        self._fixed = None
        self.set(fixed)

    def set(self, when: datetime | None) -> None:
        self._fixed = None if when is None else utc(when)

    def now(self) -> datetime:
        return self._fixed or datetime.now(timezone.utc)


def days_until(start: datetime, end: datetime) -> int:
    """Whole days from `start` to `end`, a part of a day counted whole (0 or less if `end`
    is not after `start`): how TTLs are counted in days."""
    return math.ceil((end - start).total_seconds() / 86_400)


def utc(value: datetime) -> datetime:
    """An aware UTC datetime; a naive one is taken to be UTC already."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def parse_time(value: date | datetime | str | None, what: str, end_of_day: bool = False) -> datetime | None:
    """A user's date or time as an aware UTC datetime. A bare date means its start, or with
    `end_of_day` its last microsecond (an as-of date covers the whole day). One line names
    `what` when the value is not an ISO date or lies outside 1970-2200."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = datetime.fromisoformat(text) if ("T" in text or " " in text) else date.fromisoformat(text)
        except ValueError:
            raise InvalidInput(f"{what}: {text!r} is not an ISO date such as 2026-11-01") from None
    if isinstance(value, datetime):
        out = utc(value)
    elif isinstance(value, date):
        out = datetime.combine(value, time.max if end_of_day else time.min, tzinfo=timezone.utc)
    else:
        raise InvalidInput(f"{what}: {value!r} is not a date")
    if not EARLIEST <= out < LATEST:
        raise InvalidInput(f"{what}: {out:%Y-%m-%d} is outside {EARLIEST:%Y} to {LATEST:%Y}")
    return out


@dataclass(frozen=True)
class AsOf:
    """What a report, a retention plan or a time-travel read is as of, parsed once at the
    edge: a day (UTC) and the instant it stands for, that day's last microsecond. A time
    given stands for itself; nothing given is now, by the store's clock. A version number or
    a tag is not an as-of: `Store.open(version=...)` takes those."""

    day: date
    end: datetime

    @classmethod
    def of(cls, value: "AsOf | date | datetime | str | None", clock: Clock | None = None,
           what: str = "as of") -> "AsOf":
        """An ISO date or time, a date, a datetime, an AsOf, or None for now (`clock`'s);
        one line naming `what` for anything else."""
        if isinstance(value, AsOf):
            return value
        if value is None:
            now = (clock or Clock()).now()
            return cls(now.date(), now)
        end = parse_time(value, what, end_of_day=True)
        return cls(end.date(), end)

    def whole_day(self) -> "AsOf":
        """The end of this as-of's day: what a report (of whole days) reads."""
        return AsOf.of(self.day)

    def __str__(self) -> str:
        return self.day.isoformat()
