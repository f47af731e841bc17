"""Search scopes and the one helper that puts a user's value into a LanceDB `where` string."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Iterable, Mapping

from memlib.clock import parse_time
from memlib.errors import InvalidInput
from memlib.vocabulary import UNTRUSTED, UNTRUSTED_SOURCES, Kind, Level


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


@dataclass(frozen=True)
class Predicate:
    """One condition of a scope: `column` `op` `value`. The one description of a scope that
    both Lance's `where` (Scope.where) and the vector cache's masks (search/vector_cache.py)
    are derived from. Ops: eq, in (value a tuple), not_in, has_any (a list column holding any
    of the values), has_all (every one of them), has_none (none of them), in_or_null (null or
    one of the values), ge, lt, unexpired_at (expires_at null or after the value),
    any (value a tuple of predicate tuples: at least one tuple holds in full; no column)."""

    column: str
    op: str
    value: object


def _sql(p: Predicate) -> str:
    if p.op == "eq":
        return f"{p.column} = {sql_literal(p.value)}"
    if p.op == "in":
        return sql_in(p.column, p.value)
    if p.op == "has_any":
        return f"array_has_any({p.column}, {sql_list(p.value)})"
    if p.op == "has_all":
        return f"array_has_all({p.column}, {sql_list(p.value)})"
    if p.op == "not_in":
        return f"({p.column} IS NULL OR NOT {sql_in(p.column, p.value)})"
    if p.op == "in_or_null":
        return f"({p.column} IS NULL OR {sql_in(p.column, p.value)})" if p.value else f"{p.column} IS NULL"
    if p.op == "has_none":
        return f"NOT array_has_any({p.column}, {sql_list(p.value)})"
    if p.op == "ge":
        return f"{p.column} >= {sql_literal(p.value)}"
    if p.op == "lt":
        return f"{p.column} < {sql_literal(p.value)}"
    if p.op == "unexpired_at":
        return f"({p.column} IS NULL OR {p.column} > {sql_literal(p.value)})"
    if p.op == "any":
        return "(" + " OR ".join("(" + (" AND ".join(_sql(q) for q in option) or "TRUE") + ")"
                                 for option in p.value) + ")"
    raise ValueError(f"unknown predicate op {p.op!r}")


def _check(value, types: tuple[type, ...], what: str):
    if value is not None and (not isinstance(value, types) or isinstance(value, bool) and bool not in types):
        names = " or ".join(t.__name__ for t in types)
        raise InvalidInput(f"scope {what} must be a {names}, not {type(value).__name__} {value!r}")
    if isinstance(value, str) and "\x00" in value:
        raise InvalidInput(f"scope {what} must not contain a NUL character")
    return value


def _strings(value, what: str) -> tuple[str, ...]:
    """A tuple of strings from a list or tuple of them; a lone string is a mistake (it would
    otherwise become its letters)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidInput(f"scope {what} must be a list of strings, not {type(value).__name__} {value!r}")
    out = tuple(v.value if isinstance(v, Kind) else v for v in value)
    for v in out:
        if not isinstance(v, str):
            raise InvalidInput(f"scope {what} must be a list of strings, not one holding {v!r}")
        if "\x00" in v:
            raise InvalidInput(f"scope {what} must not contain a NUL character")
    return out


@dataclass(frozen=True)
class Scope:
    """Where a search may look. Empty fields do not filter; `tags` match if any of them is
    present, `all_tags` if every one is; `iteration_ids`: knowledge of these iterations;
    `any_of`: scopes of which a row must match at least one besides all of this scope's
    fields (their expiry and `as_of` are this scope's), so one search covers, say, a
    project's decisions and its latest iteration's insights. None among `iteration_ids`:
    knowledge saved in no iteration too."""

    project_id: str | None = None
    root_task_id: str | None = None
    level: int | None = None
    kinds: tuple[str, ...] = field(default_factory=tuple)
    tags: tuple[str, ...] = field(default_factory=tuple)
    source: str | None = None
    user_id: str | None = None  # the person the memories belong to (Memory.user_id)
    all_tags: tuple[str, ...] = field(default_factory=tuple)
    iteration_ids: tuple[str, ...] = field(default_factory=tuple)
    created_after: datetime | None = None
    created_before: datetime | None = None
    min_confidence: int | None = None
    include_expired: bool = False
    trusted_only: bool = False  # leave out untrusted memories (models.trusted)
    as_of: datetime | None = None
    any_of: tuple["Scope", ...] = field(default_factory=tuple)

    def __post_init__(self):
        for name in ("project_id", "root_task_id", "source", "user_id"):
            _check(getattr(self, name), (str,), name.replace("_", " "))
        _check(self.level, (int,), "level")
        _check(self.min_confidence, (int,), "min confidence")
        for name in ("include_expired", "trusted_only"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"scope {name.replace('_', ' ')} must be true or false, not {getattr(self, name)!r}")
        kinds = _strings(self.kinds, "kinds")
        bad = [k for k in kinds if k not in {x.value for x in Kind}]
        if bad:
            raise InvalidInput(f"unknown kind {bad[0]!r}; kinds are {', '.join(k.value for k in Kind)}")
        object.__setattr__(self, "kinds", kinds)
        for name in ("tags", "all_tags"):
            object.__setattr__(self, name, _strings(getattr(self, name), name.replace("_", " ")))
        iterations = self.iteration_ids  # None among them: knowledge of no iteration
        named = _strings([i for i in iterations if i is not None]
                         if isinstance(iterations, (list, tuple)) else iterations, "iteration ids")
        object.__setattr__(self, "iteration_ids", named + ((None,) if None in iterations else ()))
        if self.level is not None and self.level not in {lv.value for lv in Level}:
            raise InvalidInput(f"level must be 0, 1 or 2, not {self.level!r}")
        if self.min_confidence is not None and not 0 <= self.min_confidence <= 100:
            raise InvalidInput(f"min confidence must be between 0 and 100, not {self.min_confidence}")
        for name in ("created_after", "created_before", "as_of"):
            object.__setattr__(self, name, parse_time(getattr(self, name), name.replace("_", " ")))
        if isinstance(self.any_of, Scope) or not isinstance(self.any_of, (list, tuple)) or \
                not all(isinstance(s, Scope) for s in self.any_of):
            raise InvalidInput(f"scope any of must be a list of scopes, not {self.any_of!r}")
        object.__setattr__(self, "any_of", tuple(self.any_of))

    def predicates(self, now: datetime | None = None) -> list[Predicate]:
        """This scope as conditions that must all hold."""
        out = []
        for column in ("project_id", "root_task_id", "source", "user_id"):
            if getattr(self, column) is not None:
                out.append(Predicate(column, "eq", getattr(self, column)))
        if self.level is not None:
            out.append(Predicate("level", "eq", int(self.level)))
        if self.kinds:
            out.append(Predicate("kind", "in", self.kinds))
        if self.tags:
            out.append(Predicate("tags", "has_any", self.tags))
        if self.all_tags:
            out.append(Predicate("tags", "has_all", self.all_tags))
        if self.iteration_ids:
            named = tuple(i for i in self.iteration_ids if i is not None)
            out.append(Predicate("iteration_id", "in_or_null", named) if None in self.iteration_ids
                       else Predicate("iteration_id", "in", named))
        if self.created_after is not None:
            out.append(Predicate("created_at", "ge", self.created_after))
        if self.created_before is not None:
            out.append(Predicate("created_at", "lt", self.created_before))
        if self.min_confidence is not None:
            out.append(Predicate("confidence", "ge", int(self.min_confidence)))
        if self.trusted_only:
            out += [Predicate("source", "not_in", UNTRUSTED_SOURCES), Predicate("tags", "has_none", (UNTRUSTED,))]
        if self.any_of:
            out.append(Predicate("", "any", tuple(
                tuple(p for p in option.predicates(now) if p.op != "unexpired_at") for option in self.any_of)))
        if not self.include_expired:
            out.append(Predicate("expires_at", "unexpired_at", self.as_of or now or datetime.now(timezone.utc)))
        return out

    def narrows(self) -> bool:
        """Whether the scope filters anything besides expiry (a scoped search, not one over
        the whole store)."""
        return any(p.op != "unexpired_at" for p in self.predicates())

    @classmethod
    def given(cls, value: "Scope | Mapping | None") -> "Scope":
        """A scope as a caller may give one: a Scope, a dict of its fields, or None (no
        limit); anything else is refused in one line."""
        if value is None:
            return cls()
        if isinstance(value, Scope):
            return value
        if isinstance(value, Mapping):
            known = [f.name for f in fields(cls)]
            unknown = sorted(str(k) for k in value if k not in known)
            if unknown:
                raise InvalidInput(f"a scope has no field {unknown[0]!r}; its fields are {', '.join(known)}")
            return cls(**value)
        raise InvalidInput(f"a scope must be a memlib.Scope or a dict of its fields, not {type(value).__name__}")

    def where(self, now: datetime | None = None) -> str | None:
        """The Lance filter for this scope, every value passed through `sql_literal`."""
        return " AND ".join(_sql(p) for p in self.predicates(now)) or None
