"""Search scopes and the one helper that puts a user's value into a LanceDB `where` string."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Iterable

from memlib.errors import InvalidInput
from memlib.models import Kind, Level


def sql_literal(value: object) -> str:
    """Render a value as a SQL literal for LanceDB filters; strings are quoted and escaped.

    Lance's SQL (DataFusion) ends a string only at a single quote and has no backslash
    escapes, so doubling single quotes is a complete escape. NUL is refused outright."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(float(value))
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        text = value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return f"arrow_cast('{text}', 'Timestamp(Microsecond, Some(\"UTC\"))')"
    if isinstance(value, str):
        if "\x00" in value:
            raise InvalidInput("filter values must not contain NUL characters")
        return "'" + value.replace("'", "''") + "'"
    raise InvalidInput(f"cannot use {type(value).__name__} value {value!r} in a filter")


def sql_list(values: Iterable[object]) -> str:
    return "[" + ", ".join(sql_literal(v) for v in values) + "]"


def sql_in(column: str, values: Iterable[object]) -> str:
    return f"{column} IN (" + ", ".join(sql_literal(v) for v in values) + ")"


def _as_datetime(value: datetime | date | str | None, what: str) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{what}: {value!r} is not an ISO date or datetime") from None


@dataclass(frozen=True)
class Scope:
    """Where a search may look. Empty fields do not filter; tags match if any tag is present."""

    project_id: str | None = None
    root_task_id: str | None = None
    level: int | None = None
    kinds: tuple[str, ...] = field(default_factory=tuple)
    tags: tuple[str, ...] = field(default_factory=tuple)
    source: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    min_confidence: int | None = None
    include_expired: bool = False
    as_of: datetime | None = None

    def __post_init__(self):
        kinds = tuple(k.value if isinstance(k, Kind) else str(k) for k in self.kinds)
        bad = [k for k in kinds if k not in {x.value for x in Kind}]
        if bad:
            raise InvalidInput(f"unknown kind {bad[0]!r}; kinds are {', '.join(k.value for k in Kind)}")
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "tags", tuple(self.tags))
        if self.level is not None and self.level not in {lv.value for lv in Level}:
            raise InvalidInput(f"level must be 0, 1 or 2, not {self.level!r}")
        if self.min_confidence is not None and not 0 <= self.min_confidence <= 100:
            raise InvalidInput(f"min confidence must be between 0 and 100, not {self.min_confidence}")
        for name in ("created_after", "created_before", "as_of"):
            object.__setattr__(self, name, _as_datetime(getattr(self, name), name.replace("_", " ")))

    def where(self, now: datetime | None = None) -> str | None:
        """The Lance filter for this scope, every value passed through `sql_literal`."""
        clauses = []
        if self.project_id is not None:
            clauses.append(f"project_id = {sql_literal(self.project_id)}")
        if self.root_task_id is not None:
            clauses.append(f"root_task_id = {sql_literal(self.root_task_id)}")
        if self.level is not None:
            clauses.append(f"level = {sql_literal(int(self.level))}")
        if self.kinds:
            clauses.append(sql_in("kind", self.kinds))
        if self.tags:
            clauses.append(f"array_has_any(tags, {sql_list(self.tags)})")
        if self.source is not None:
            clauses.append(f"source = {sql_literal(self.source)}")
        if self.created_after is not None:
            clauses.append(f"created_at >= {sql_literal(self.created_after)}")
        if self.created_before is not None:
            clauses.append(f"created_at < {sql_literal(self.created_before)}")
        if self.min_confidence is not None:
            clauses.append(f"confidence >= {sql_literal(int(self.min_confidence))}")
        if not self.include_expired:
            as_of = self.as_of or now or datetime.now(timezone.utc)
            clauses.append(f"(expires_at IS NULL OR expires_at > {sql_literal(as_of)})")
        return " AND ".join(f"({c})" if " OR " in c else c for c in clauses) or None
