"""The one small exception hierarchy memlib raises for users' mistakes and store problems."""

from __future__ import annotations

import re


class MemlibError(Exception):
    """Base of every error memlib raises on purpose; the CLI prints it as one line."""


class InvalidMemory(MemlibError):
    """A memory failed validation; names the record and the field."""

    def __init__(self, record: str, field: str, message: str):
        self.record, self.field, self.message = record, field, message
        super().__init__(f"{record}: {message}" if field == "(record)" else f"{record}: field '{field}': {message}")


class NotFound(MemlibError):
    """A memory id that the store does not hold."""


class StoreError(MemlibError):
    """The store cannot be opened or used as asked (wrong URI, wrong model, bad state)."""


class EmbedderMismatch(StoreError):
    """The store was written with another embedding model than the one asked for."""


class InvalidInput(MemlibError):
    """A bad argument or file from the user (not a memory's own fields)."""


class MissingExtra(MemlibError, ImportError):
    """What was asked for needs an optional part of memlib that is not installed
    (memlib.extras); an ImportError too, for code that imports an adapter if it can."""


class Refused(InvalidInput):
    """A memory server refused the request: no valid token (401), or outside what the token
    allows (403: another agent's name, a project it may not touch)."""


def invalid(what: str, exc) -> InvalidInput:
    """One line from a pydantic ValidationError: `what`, the field that failed and why (an
    unknown field is named as such)."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(value)"
    message = ("is not an argument here" if err["type"] == "extra_forbidden"
               else err["msg"].removeprefix("Value error, "))
    return InvalidInput(f"{what}: {where}: {message}")


def text_id(value, what: str) -> str:
    """`value`, an id the caller gave, which must be a string: a memory's, a session's, a
    token's (a number would reach a Lance filter as a number)."""
    if not isinstance(value, str):
        raise InvalidInput(f"a {what} id is a string, not {type(value).__name__} {value!r}")
    return value


def whole_number(value, name: str, low: int = 0, high: int | None = None, unit: str | None = None) -> int:
    """`value`, a count the caller gave, which must be a whole number (not a bool) from `low`
    to `high`, or `low` or more: "{name} must be a whole number of {unit} from 1 to 30, not 0"."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        bounds = f" from {low} to {high}" if high is not None else f", {low} or more"
        raise InvalidInput(f"{name} must be a whole number{f' of {unit}' if unit else ''}{bounds}, not {value!r}")
    return value


_SOURCE = re.compile(r",?\s*/\S+\.rs:\d+(?::\d+)?")  # where in Lance's Rust source an error was raised


def first_line(exc: BaseException, limit: int = 300) -> str:
    """An exception's first line without the source file a library raised it in, cut to
    `limit` characters (its type's name if it says nothing)."""
    text = str(exc).strip()
    line = _SOURCE.sub("", text.splitlines()[0]).strip() if text else ""
    line = line or type(exc).__name__
    return line if len(line) <= limit else line[:limit] + "…"


def shown(value: str, limit: int = 60) -> str:
    """A user's value quoted in a one-line error, cut when long (a 1 MB tag is not echoed)."""
    return repr(value) if len(value) <= limit else f"{value[:limit]!r}… ({len(value):,} characters)"
