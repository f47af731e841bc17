"""Between an entry of a file and a memory of the store: which fields an entry's title and
body are for each kind, the memory a new entry becomes, the entry a memory is written as,
and the fingerprints a sync compares (what a person can change in the file, and what the
store holds of it)."""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime, time, timezone
from zoneinfo import ZoneInfo

from memlib.models import Kind, Memory, parse_memory, stable_id
from memlib.workspace import markdown
from memlib.workspace.markdown import Entry

# The fields a kind's title and body are (the rest of a memory lives in the store only).
TITLE_BODY: dict[Kind, tuple[str, str]] = {Kind.DECISION: ("title", "decision"),
                                           Kind.PATTERN: ("name", "description")}
NOTE = ("title", "content")
TITLED = frozenset(TITLE_BODY)  # kinds whose title is required and unique in a project
LONG_TERM = frozenset({Kind.DECISION, Kind.PATTERN, Kind.INSIGHT, Kind.LEARNING})  # also go to MEMORY.md
SOURCE = "workspace"


def title_body(kind: Kind) -> tuple[str, str]:
    return TITLE_BODY.get(kind, NOTE)


def first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= 80 else line[:77].rstrip() + "..."


def fields_of(entry: Entry) -> dict[str, str | None]:
    """The memory fields an entry's title and body set."""
    title, body = title_body(entry.kind)
    heading = entry.title
    if entry.kind in TITLED and not heading:
        heading = first_line(entry.body) or None
    return {title: heading, body: entry.body}


def text_of(memory: Memory) -> tuple[str | None, str]:
    title, body = title_body(memory.kind)
    return getattr(memory, title), getattr(memory, body)


def file_hash(entry: Entry) -> str:
    return _hash(entry.fields)


def store_hash(memory: Memory) -> str:
    """What of a memory the file shows: a change of anything else (its usage, its vector)
    is not a change a sync writes to the file."""
    return _hash([memory.kind.value, *text_of(memory)])


def _hash(value) -> str:
    return hashlib.sha1(json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:16]


def derived_id(project_id: str, relative: str, key: str) -> str:
    """A new entry's memory id, from where it is: a sync that lost its state finds the same
    memory again instead of adding it twice. A valid UUIDv4 (its version bits are set)."""
    return stable_id(project_id, relative, key)


def created_at(entry: Entry, day: date | None, zone: ZoneInfo, now: datetime) -> datetime:
    """When an entry was written: its date (or its daily log's) and time in the workspace's
    time zone; an entry without a date (a MEMORY.md bullet) was written when first synced."""
    day = entry.day or day
    if day is None:
        return now
    return datetime.combine(day, entry.at or time(0), tzinfo=zone).astimezone(timezone.utc)


def new_memory(entry: Entry, relative: str, day: date | None, project_id: str, zone: ZoneInfo,
               now: datetime, memory_id: str) -> Memory:
    when = created_at(entry, day, zone, now)
    data = {"id": memory_id, "kind": entry.kind.value, "project_id": project_id, "source": SOURCE,
            "created_at": when, "updated_at": when,
            "metadata": {"source_file": relative, "section": entry.section},
            **{k: v for k, v in fields_of(entry).items() if v is not None}}
    return parse_memory(data, record=f"{relative} line {entry.start + 1}")


def edited(memory: Memory, entry: Entry, relative: str, now: datetime) -> Memory:
    """The stored memory with the entry's title and body (everything else kept)."""
    data = memory.model_dump()
    data.update(fields_of(entry))
    data["metadata"] = {**data.get("metadata", {}), "source_file": relative, "section": entry.section}
    data["updated_at"] = now
    data["embedding"] = None  # kept by the store if the text is the same, else embedded again
    return parse_memory(data, record=f"{relative} line {entry.start + 1}")


def same(memory: Memory, entry: Entry) -> bool:
    """Whether the memory already says what the entry says."""
    return all(getattr(memory, k) == v for k, v in fields_of(entry).items())


def entry_text(memory: Memory, language: str, form: str, zone: ZoneInfo, dated: bool) -> str:
    """A memory as an entry in a file's own language and form; `dated`: its heading carries
    the date (MEMORY.md) as well as the time."""
    title, body = text_of(memory)
    local = memory.created_at.astimezone(zone)
    return markdown.entry_text(memory.kind, body, title, language, form,
                               day=local.date() if dated else None, at=local.time())
