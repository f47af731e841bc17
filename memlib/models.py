"""Typed agent memories: the pydantic models are the schema; the Lance schema derives from them.

A memory is one of eleven kinds. Three are the task tree (project, root task, sub task); the
others are knowledge an agent writes inside a project (decisions, patterns, insights, ...).
`level` is the depth in that tree: a project is 0, what hangs off a project directly (root
tasks, project-wide knowledge) is 1, what hangs off a root task (sub tasks, task knowledge) is 2.
"""

from __future__ import annotations

import functools
import hashlib
import json
import types
import typing
import uuid
from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import Annotated, Any, ClassVar, Literal, Sequence, Union

import numpy as np
import pyarrow as pa
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from memlib.clock import EARLIEST, LATEST, MAX_DAYS, utc
from memlib.errors import InvalidInput, InvalidMemory, shown
from memlib.vocabulary import (  # noqa: F401  (what a memory is made of; read from here too)
    REVISABLE, SCHEMA_VERSION, UNTRUSTED, UNTRUSTED_SOURCES, Float, Importance, Int, Kind, Level, trusted)

MAX_TEXT = 10_000
FLOAT32_MAX = 3.4028234663852886e38  # embeddings are stored as 32-bit floats


def vector_problem(rows) -> tuple[int, str] | None:
    """The first of these vectors (one per row) unfit to store as an embedding, and why, or
    None: a value that is not a finite number, one a 32-bit float cannot hold (it would be
    stored as Infinity), or all zeros (no direction, so no cosine)."""
    matrix = np.asarray(rows)
    if matrix.dtype.kind != "f":
        matrix = matrix.astype(np.float64)
    checks = (("must be finite numbers (no NaN or Infinity)", lambda: ~np.isfinite(matrix).all(axis=1)),
              (f"must be within +-{FLOAT32_MAX:.4g} (embeddings are stored as 32-bit floats)",
               lambda: (np.abs(matrix) > FLOAT32_MAX).any(axis=1)),
              ("must not be all zeros (a zero vector has no direction)", lambda: ~matrix.any(axis=1)))
    if matrix.dtype == np.float32:  # a finite 32-bit float is within the bound: no second pass
        checks = checks[::2]
    for why, failing in checks:
        bad = failing()
        if bad.any():
            return int(np.argmax(bad)), why
    return None


def checked_vector(value: list[float] | None) -> list[float] | None:
    """A record's embedding, as given, if it is fit to store (`vector_problem`)."""
    problem = None if value is None else vector_problem([value])
    if problem:
        raise ValueError(problem[1])
    return value



def uuid4_text(value: str) -> str:
    """A memory id: a UUIDv4 string in canonical form (lower case accepted)."""
    try:
        parsed = uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        raise ValueError("must be a UUIDv4 string") from None
    if parsed.version != 4 or str(parsed) != value.lower():
        raise ValueError("must be a UUIDv4 string in canonical form")
    return str(parsed)


def _check_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    if "\x00" in value:
        raise ValueError("must not contain a NUL byte")
    if len(value) > MAX_TEXT:
        raise ValueError(f"is {len(value)} characters, at most {MAX_TEXT} allowed")
    return value


Text = Annotated[str, Field(max_length=MAX_TEXT)]
# -1: never expires; else days after created_at (bounded, so expires_at stays a date).
TTL = Annotated[Int, Field(ge=-1, le=MAX_DAYS)]




class Memory(BaseModel):
    """Fields every memory carries."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_enum_values=False)

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ()
    CONTEXT_FIELDS: ClassVar[tuple[str, ...]] = ()  # indexed with the memory, not its own words

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    kind: Kind
    embedding: list[float] | None = Field(default=None, repr=False)
    source: str = "manual"
    agent: str | None = None
    # the person the memory belongs to, across projects (design document 003's owner; Mem0's
    # user scope): Scope(user_id=...) and the reports' user_id parameter select them
    user_id: str | None = Field(default=None, min_length=1, max_length=200)
    created_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    updated_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    usage_count: Int = Field(default=0, ge=0)
    last_accessed_at: datetime | None = None
    # Bookkeeping of `maintain`: recall events flushed up to this time are in usage_count.
    recalls_folded_until: datetime | None = None
    manual_promote_flag: bool = False
    confidence: Int = Field(default=100, ge=0, le=100)
    ttl_days: TTL = -1
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

    _uuid4 = field_validator("id")(classmethod(lambda cls, value: uuid4_text(value)))

    @property
    def trusted(self) -> bool:
        return trusted(self.source, self.tags)

    @field_validator("created_at", "updated_at", "last_accessed_at", "recalls_folded_until")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        """Stored in UTC (a naive time is taken as UTC), between 1970 and 2200."""
        if value is None:
            return None
        value = utc(value)
        if not EARLIEST <= value < LATEST:
            raise ValueError(f"{value:%Y-%m-%d} is outside {EARLIEST:%Y} to {LATEST:%Y}")
        return value

    @field_validator("embedding")
    @classmethod
    def _finite(cls, value: list[float] | None) -> list[float] | None:
        return checked_vector(value)

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        if not value.strip() or len(value) > 200:
            raise ValueError("must be 1 to 200 characters")
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: list[str]) -> list[str]:
        for tag in value:
            if not tag.strip() or len(tag) > 100:
                raise ValueError(f"tag {shown(tag)} must be 1 to 100 characters")
        return list(dict.fromkeys(value))

    @field_validator("metadata")
    @classmethod
    def _json_object(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"must be a JSON object ({exc})") from None
        return value

    @property
    def level(self) -> int:
        raise NotImplementedError

    @property
    def text(self) -> str:
        """The text that is embedded and full-text indexed: the memory's own words, then its
        context (its own words first, so an embedding model that truncates keeps them)."""
        return "\n".join(part for part in (self._own_read, self._join(self.CONTEXT_FIELDS)) if part)

    @property
    def _own_read(self) -> str:
        """The memory's own words as `text` holds them (a conversation turn's open with its
        speaker's name)."""
        return self.own_text

    @property
    def own_text(self) -> str:
        """The memory's own words, as shown to a reader."""
        return self._join(self.TEXT_FIELDS)

    @property
    def lead(self) -> int:
        """How many leading characters of `text` are the memory's own words (after them, a
        newline and its context): what a model reading a turn in context pools over
        (embeddings.embed_in_context)."""
        return own_length(self.text, self._join(self.CONTEXT_FIELDS))

    def _join(self, names: tuple[str, ...]) -> str:
        parts = []
        for name in names:
            value = getattr(self, name)
            if isinstance(value, list):
                parts.extend(value)
            elif value:
                parts.append(value)
        return "\n".join(parts)

    @property
    def expires_at(self) -> datetime | None:
        """The one definition of expiry: created_at + ttl_days; never for ttl -1."""
        if self.ttl_days < 0:
            return None
        return self.created_at + timedelta(days=self.ttl_days)


def own_length(text: str, context: str) -> int:
    """How much of `text` (own words, then a newline and `context` if there is one) is own words."""
    return len(text) - len(context) - 1 if context else len(text)


def spoken(speaker: str | None, words: str) -> str:
    """A conversation turn's words as the store reads them (embedded, indexed, and as the
    context of the turn that replies): opened by the speaker's name, "Maya: see you at 8",
    whether its writer put the name in the content or only in `speaker`."""
    return words if not speaker or not words or words.startswith(f"{speaker}:") else f"{speaker}: {words}"


def unspoken(speaker: str | None, words: str) -> str:
    """`words` without the leading "Speaker:" that `spoken` gives them (what the speaker said)."""
    return words[len(speaker) + 1:] if speaker and words.startswith(f"{speaker}:") else words


def lead_of(row: dict[str, Any]) -> int:
    """A stored row's `Memory.lead`, from its kind, its text and its context columns."""
    return own_length(row["text"], "\n".join(v for name in MODELS[Kind(row["kind"])].CONTEXT_FIELDS
                                              if (v := row.get(name))))


def _text_validator(*names: str):
    return field_validator(*names)(lambda cls, v: v if v is None else _check_text(v))


class Project(Memory):
    kind: Literal[Kind.PROJECT] = Kind.PROJECT
    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("name", "description")
    name: Text
    description: Text | None = None
    ttl_days: TTL = -1
    check_text = _text_validator("name", "description")

    @property
    def level(self) -> int:
        return Level.PROJECT

    @property
    def project_id(self) -> str:
        return self.id


class RootTask(Memory):
    kind: Literal[Kind.ROOT_TASK] = Kind.ROOT_TASK
    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("objective",)
    project_id: str
    objective: Text
    ttl_days: TTL = 90
    check_text = _text_validator("objective")

    @property
    def level(self) -> int:
        return Level.ROOT_TASK


class SubTask(Memory):
    kind: Literal[Kind.SUB_TASK] = Kind.SUB_TASK
    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("details",)
    root_task_id: str
    # Filled by the store from the root task, so every row of a project carries its project_id.
    project_id: str | None = None
    details: Text
    ttl_days: TTL = 30
    check_text = _text_validator("details")

    @property
    def level(self) -> int:
        return Level.SUB_TASK


class Knowledge(Memory):
    """Something an agent learned inside a project, optionally in a root task and iteration."""

    project_id: str
    root_task_id: str | None = None
    iteration_id: str | None = None

    @property
    def level(self) -> int:
        return Level.SUB_TASK if self.root_task_id else Level.ROOT_TASK


def title_key(title: str) -> str:
    """Decision titles and pattern names are unique per project, compared this way."""
    return " ".join(title.split()).casefold()


class Decision(Knowledge):
    """A project decision; its title is unique in its project. `promoted_from`: the insight
    it was promoted from, if any."""

    kind: Literal[Kind.DECISION] = Kind.DECISION
    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("title", "context", "decision", "consequences")
    TITLE: ClassVar[str] = "title"
    promoted_from: str | None = None
    title: Text
    context: Text | None = None
    decision: Text
    consequences: Text | None = None
    check_text = _text_validator("title", "context", "decision", "consequences")


class Pattern(Knowledge):
    """A reusable pattern; its name is unique in its project. `promoted_from`: the learning
    it was promoted from, if any."""

    kind: Literal[Kind.PATTERN] = Kind.PATTERN
    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("name", "description", "usage_examples", "code_example")
    TITLE: ClassVar[str] = "name"
    promoted_from: str | None = None
    name: Text
    description: Text
    usage_examples: list[Text] = Field(default_factory=list)
    code_example: Text | None = None
    check_text = _text_validator("name", "description", "code_example")

    @field_validator("usage_examples")
    @classmethod
    def _examples(cls, value: list[str]) -> list[str]:
        return [_check_text(v) for v in value]


class _Note(Knowledge):
    """Knowledge that is mostly free text."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("title", "content")
    title: Text | None = None
    content: Text
    check_text = _text_validator("title", "content")


class Insight(_Note):
    kind: Literal[Kind.INSIGHT] = Kind.INSIGHT
    importance: Importance = Importance.NORMAL
    ttl_days: TTL = 180


class Issue(_Note):
    kind: Literal[Kind.ISSUE] = Kind.ISSUE
    ttl_days: TTL = 90


class Learning(_Note):
    kind: Literal[Kind.LEARNING] = Kind.LEARNING
    ttl_days: TTL = 180


class Conversation(_Note):
    """One turn of a conversation. Its thread is its project and iteration. `previous_id` is
    the turn before it in that thread and `context` the words it replies to, indexed and
    embedded with it but not part of its content: a reply such as "Yes, last Tuesday!" is
    then found by what it answers. When left out, the store fills both, the context only
    when the turn before is another speaker's (see store/batch.py `fill_context`). Its text
    opens with its speaker's name (`spoken`): a question that names a person finds that
    person's turns whether the writer put "Maya: " in the content or gave `speaker` alone."""

    kind: Literal[Kind.CONVERSATION] = Kind.CONVERSATION
    CONTEXT_FIELDS: ClassVar[tuple[str, ...]] = ("context",)
    speaker: str | None = None
    previous_id: str | None = None
    context: Text | None = None
    ttl_days: TTL = 30
    check_context = _text_validator("context")

    @property
    def _own_read(self) -> str:
        return spoken(self.speaker, self.own_text)


class Summary(_Note):
    kind: Literal[Kind.SUMMARY] = Kind.SUMMARY


class Manual(_Note):
    """A note a person or an agent keeps: in a project, or a person's own (`user_id`, no
    project: a personal assistant's memory, "I prefer tea")."""

    kind: Literal[Kind.MANUAL] = Kind.MANUAL
    project_id: str | None = None

    @model_validator(mode="after")
    def _someones(self) -> "Manual":
        if self.project_id is None and self.user_id is None:
            raise ValueError("a note belongs to a project (project_id) or a person (user_id): give one")
        if self.project_id is None and self.root_task_id is not None:
            raise ValueError("a person's note without a project has no root task")
        return self


MODELS: dict[Kind, type[Memory]] = {
    model.model_fields["kind"].default: model
    for model in (Project, RootTask, SubTask, Decision, Pattern, Insight, Issue, Learning,
                  Conversation, Summary, Manual)
}

AnyMemory = Annotated[
    Union[Project, RootTask, SubTask, Decision, Pattern, Insight, Issue, Learning, Conversation,
          Summary, Manual],
    Field(discriminator="kind"),
]
_ADAPTER: TypeAdapter = TypeAdapter(AnyMemory)


def stable_id(*parts: str) -> str:
    """A memory id made from `parts`: the same parts always give the same id, so a retry, a
    sync that lost its state or an adapter's key finds its memory again instead of adding it
    twice. A valid UUIDv4 (its version bits are set)."""
    digest = hashlib.sha256("\n".join(parts).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def parse_memory(data: dict[str, Any], record: str = "record") -> Memory:
    """Validate one memory from plain data; errors name the record and the field."""
    if not isinstance(data, dict):
        raise InvalidMemory(record, "(record)", "must be a JSON object")
    kind = data.get("kind")
    if isinstance(kind, Kind):
        kind = kind.value
    if not isinstance(kind, str) or kind not in {k.value for k in Kind}:
        raise InvalidMemory(record, "kind", f"{kind!r} is not one of {', '.join(k.value for k in Kind)}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise _invalid(record, exc) from None


def _invalid(record: str, exc: ValidationError) -> InvalidMemory:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    if loc and loc[0] in {k.value for k in Kind}:  # the union's tag, not a field ("decision" is both)
        loc = loc[1:]
    field = loc[0] if loc else "(record)"
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        message = "is not a field of this kind"
    return InvalidMemory(record, field, message)


DERIVED = ("level", "expires_at")  # what a memory shows besides its fields: derived, never given


def as_json(memory: Memory, embedding: bool = False) -> dict[str, Any]:
    """A memory as memlib shows it (`memlib get --json`, the REST API): its fields, and its
    level and expiry, which are derived from them."""
    data = memory.model_dump(mode="json", exclude=None if embedding else {"embedding"})
    expires = memory.expires_at
    return data | {"level": int(memory.level), "expires_at": None if expires is None else expires.isoformat()}


def as_memories(memories: Any, user_id: str | None = None, project_id: str | None = None) -> Any:
    """What `add` is given: memories, or one text to remember, a note (`Manual`) of a person
    (`user_id`) or a project (`project_id`). The two ids go with a text only."""
    if isinstance(memories, str):
        note = {"kind": Kind.MANUAL.value, "content": memories}
        return [note | {k: v for k, v in (("user_id", user_id), ("project_id", project_id)) if v is not None}]
    if user_id is not None or project_id is not None:
        raise InvalidInput("user_id and project_id go with a text to remember (add('I prefer tea', user_id=...)); "
                           "a memory given whole names its own")
    return memories


def listed(items: Any, what: str = "memories") -> list:
    """What a write is given, as a list; refused in one line when it is none, not iterable,
    or one item where a list was meant (a dict, a model or a text: its keys or letters would
    be read as the items)."""
    if items is None or isinstance(items, (str, bytes, dict, BaseModel)):
        raise InvalidInput(f"{what} are given as a list, not a {type(items).__name__}: put one in a list")
    try:
        return list(items)
    except TypeError:
        raise InvalidInput(f"{what} are given as a list, not a {type(items).__name__}") from None


def record_label(index: int, data: Any) -> str:
    ident = data.get("id") if isinstance(data, dict) else getattr(data, "id", None)
    return f"record {index}" + (f" (id {ident})" if ident else "")


# ---------------------------------------------------------------------------------------------
# Lance rows: one flat table holds every kind; columns a kind lacks are null.

DERIVED_COLUMNS = {"level": pa.int64(), "text": pa.string(), "expires_at": pa.timestamp("us", tz="UTC")}
# Kept by the store, not part of a memory: bumped by every change of the row, the condition of
# the next one (store/concurrency.py). Null in rows written before it existed, read as 0.
STORE_COLUMNS = {"revision": pa.int64()}
JSON_COLUMNS = {"metadata"}
_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False)  # json.dumps would make one per call


def _arrow_type(annotation: Any) -> pa.DataType:
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _arrow_type(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _arrow_type(inner[0])
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, Enum)):
        return pa.string()
    if origin is list:
        return pa.list_(_arrow_type(typing.get_args(annotation)[0]))
    if origin is dict or annotation is dict:
        return pa.string()
    return {str: pa.string(), int: pa.int64(), bool: pa.bool_(), float: pa.float64(),
            datetime: pa.timestamp("us", tz="UTC")}[annotation]


def _holds_enum(annotation: Any) -> bool:
    if isinstance(annotation, type):
        return issubclass(annotation, Enum)
    return any(_holds_enum(a) or isinstance(a, Enum) for a in typing.get_args(annotation))


def _column_types() -> dict[str, pa.DataType]:
    columns: dict[str, pa.DataType] = {}
    for model in MODELS.values():
        for name, info in model.model_fields.items():
            if name not in columns and name != "embedding":
                columns[name] = pa.string() if name in JSON_COLUMNS else _arrow_type(info.annotation)
    columns.update(DERIVED_COLUMNS)
    columns.update(STORE_COLUMNS)
    return columns


COLUMN_TYPES = _column_types()
# Columns whose values are enum members in a memory and plain strings in a row.
ENUM_COLUMNS = frozenset(name for model in MODELS.values() for name, info in model.model_fields.items()
                         if _holds_enum(info.annotation))


def arrow_schema(dims: int, metadata: dict[str, str] | None = None) -> pa.Schema:
    fields = [pa.field(name, typ, nullable=name != "id") for name, typ in COLUMN_TYPES.items()]
    fields.append(pa.field("embedding", pa.list_(pa.float32(), dims)))
    return pa.schema(fields, metadata=metadata)


@functools.cache
def _derived(cls: type) -> frozenset[str]:
    """Columns a kind fills from a property (text, expires_at, a project's own project_id)."""
    return frozenset(name for name in COLUMN_TYPES if name not in cls.model_fields and hasattr(cls, name))


def to_columns(memories: Sequence[Memory]) -> dict[str, list[Any]]:
    """Flatten memories into the Lance table's columns, one value per memory in each (a
    column a kind lacks is null); the embedding is not among them. Column by column, not row
    by row: a batch of 100,000 memories is flattened in about a tenth of the time."""
    fields = [m.__dict__ for m in memories]  # pydantic's getattr is slow
    owned = [_derived(type(m)) for m in memories]  # the columns each fills from a property
    derived = set().union(*map(_derived, {type(m) for m in memories}))
    columns: dict[str, list[Any]] = {}
    for name in COLUMN_TYPES:
        if name == "level":
            values = [int(m.level) for m in memories]
        elif name in derived:
            values = [getattr(m, name) if name in own else f.get(name)
                      for m, f, own in zip(memories, fields, owned)]
        else:
            values = [f.get(name) for f in fields]
        if name in ENUM_COLUMNS:
            values = [v.value if isinstance(v, Enum) else v for v in values]
        elif name in JSON_COLUMNS:
            values = [_JSON.encode(v) if v else "{}" for v in values]
        columns[name] = values
    return columns


def to_row(memory: Memory) -> dict[str, Any]:
    """One memory as one Lance row with every column of the table."""
    row = {name: values[0] for name, values in to_columns([memory]).items()}
    row["embedding"] = memory.embedding
    return row


def from_row(row: dict[str, Any], trusted: bool = False) -> Memory:
    """Rebuild a typed memory from a Lance row; columns missing from older stores take defaults.

    `trusted`: the row was validated when it was written and is read back from this table
    version unchanged (search hits), so it is constructed without validating it again, about
    ten times faster; tests/test_store.py checks both ways build equal memories."""
    model = MODELS[Kind(row["kind"])]
    data = {}
    for name in model.model_fields:
        value = row.get(name)
        if value is None:
            continue
        if name in JSON_COLUMNS and isinstance(value, str):
            value = json.loads(value)
        elif name == "embedding":
            value = [float(x) for x in value]
        data[name] = value
    if not trusted:
        return model.model_validate(data)
    data["kind"] = Kind(data["kind"])
    if "importance" in data:
        data["importance"] = Importance(data["importance"])
    return model.model_construct(**data)
