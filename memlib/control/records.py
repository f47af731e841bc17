"""What the control plane holds (seed 002): tasks, their events, approvals and results, and
the lease a worker holds on a task it claimed. Each validates what a caller gives it."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memlib.control.db import from_us
from memlib.errors import invalid
from memlib.models import Int

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}$")  # a task kind, an event kind
MAX_PAYLOAD = 1_000_000  # characters of JSON: a task carries instructions, not data sets
TaskStatus = Literal["queued", "running", "blocked", "done", "failed", "dead", "rejected", "cancelled"]
FINISHED = ("done", "failed", "dead", "rejected", "cancelled")


def checked(model: type[BaseModel], what: str, **data: Any) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(what, exc) from None


def dumps(value: Any, what: str) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise invalid_json(what, exc) from None
    if len(text) > MAX_PAYLOAD:
        raise invalid_json(what, f"{len(text)} characters of JSON, at most {MAX_PAYLOAD}")
    return text


def invalid_json(what: str, why) -> Exception:
    from memlib.errors import InvalidInput

    return InvalidInput(f"{what}: not storable as JSON ({why})")


class NewTask(BaseModel):
    """A task as a caller enqueues it."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    payload: Any = None
    session_id: str | None = Field(default=None, min_length=1, max_length=200)
    agent: str | None = Field(default=None, min_length=1, max_length=200)
    project_id: str | None = Field(default=None, min_length=1, max_length=200)  # None: every project's
    priority: Int = Field(default=0, ge=-1_000, le=1_000)
    max_attempts: Int = Field(default=5, ge=1, le=100)
    task_id: str | None = Field(default=None, min_length=1, max_length=200)
    approval: str | None = Field(default=None, min_length=1, max_length=4_000)  # held until approved

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError("must be 1 to 100 letters, digits or _ . : / - (starting with a letter or digit)")
        return value


class Task(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    session_id: str | None
    agent: str | None
    kind: str
    payload: Any
    status: TaskStatus
    project_id: str | None = None
    priority: int
    attempts: int
    max_attempts: int
    available_at: datetime
    lease_owner: str | None
    lease_until: datetime | None
    last_error: str | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: dict) -> "Task":
        """A task as the database holds it (written through NewTask: not validated again)."""
        return cls.model_construct(task_id=row["task_id"], session_id=row["session_id"], agent=row["agent"], kind=row["kind"],
                   project_id=row.get("project_id"),
                   payload=json.loads(row["payload"]), status=row["status"], priority=row["priority"],
                   attempts=row["attempts"], max_attempts=row["max_attempts"],
                   available_at=from_us(row["available_us"]), lease_owner=row["lease_owner"],
                   lease_until=from_us(row["lease_until_us"]), last_error=row["last_error"],
                   created_at=from_us(row["created_us"]), updated_at=from_us(row["updated_us"]))


class Lease(BaseModel):
    """A worker's hold on a claimed task: the token proves it in heartbeat, ack and nack."""

    model_config = ConfigDict(frozen=True)

    task: Task
    worker: str
    token: str
    attempt: int
    claimed_at: datetime
    until: datetime

    @property
    def task_id(self) -> str:
        return self.task.task_id


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    event_id: int
    task_id: str | None
    session_id: str | None
    kind: str
    attempt: int | None
    worker: str | None
    detail: Any
    at: datetime

    @classmethod
    def from_row(cls, row: dict) -> "Event":
        return cls(event_id=row["event_id"], task_id=row["task_id"], session_id=row["session_id"],
                   kind=row["kind"], attempt=row["attempt"], worker=row["worker"],
                   detail=json.loads(row["detail"]) if row["detail"] else None, at=from_us(row["at_us"]))


class Approval(BaseModel):
    model_config = ConfigDict(frozen=True)

    approval_id: str
    task_id: str
    request: str
    requested_by: str | None
    requested_at: datetime
    status: Literal["pending", "approved", "rejected"]
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None

    @classmethod
    def from_row(cls, row: dict) -> "Approval":
        return cls(**{k: v for k, v in row.items() if not k.endswith("_us")},
                   requested_at=from_us(row["requested_us"]), decided_at=from_us(row["decided_us"]))


class Result(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    attempt: int
    status: Literal["succeeded", "failed"]
    output: Any
    worker: str | None
    started_at: datetime | None
    finished_at: datetime

    @property
    def duration_s(self) -> float | None:
        return None if self.started_at is None else (self.finished_at - self.started_at).total_seconds()

    @classmethod
    def from_row(cls, row: dict) -> "Result":
        return cls(task_id=row["task_id"], attempt=row["attempt"], status=row["status"],
                   output=json.loads(row["output"]) if row["output"] is not None else None,
                   worker=row["worker"], started_at=from_us(row["started_us"]),
                   finished_at=from_us(row["finished_us"]))
