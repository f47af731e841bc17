"""The session layers of an agent's memory (seed 002), keyed by `session_id`, in the store
beside the long-term memories:

- `sessions`: one row per session: agent, project, started/ended, status, preferences;
- `short_term`: the session's transcript, one row per turn (seq, role, content, time),
  appended and read in order, cleared when the session ends;
- `pending_loops`: snapshots of a suspended agent loop (goal, step, state, time); the latest
  is the one to resume from; cleared when the loop resumes or the session ends.

Each is its own Lance table, not a kind of memory: none is embedded or searched, none
belongs in the memory reports or under retention, and each lives exactly as long as its
session. Deleting a session removes its rows from these three tables and nothing else.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime
from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, field_validator

from memlib.errors import InvalidInput, NotFound, invalid, text_id, whole_number
from memlib.interface import MemoryInterface
from memlib.models import Int, Kind, MAX_TEXT
from memlib.scope import sql_literal
from memlib.store.concurrency import committing
from memlib.sessions.tables import PENDING_LOOPS, SCHEMAS, SESSIONS, SHORT_TERM
from memlib.store.tables import tidy

PREFERENCE_KEY = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")
MAX_PREFERENCE = 4_000


class SessionPreferences(RootModel[dict[str, str | int | float | bool]]):
    """A user's preferences for a session: lower-case keys (`persona`, `owner`, `language`,
    ...), each a string of at most 4,000 characters, a number or a flag."""

    @field_validator("root")
    @classmethod
    def _valid(cls, value: dict) -> dict:
        for key, item in value.items():
            if not PREFERENCE_KEY.match(key):
                raise ValueError(f"preference key {key!r} must be lower-case letters, digits, '_', '.' or '-'")
            if isinstance(item, str) and len(item) > MAX_PREFERENCE:
                raise ValueError(f"preference {key!r} is {len(item)} characters, at most {MAX_PREFERENCE}")
        return value


class Session(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    agent: str
    project_id: str | None = None
    status: Literal["active", "ended"] = "active"
    started_at: datetime
    ended_at: datetime | None = None
    preferences: dict[str, Any] = Field(default_factory=dict)


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    seq: int
    role: Literal["user", "assistant", "system", "tool"]
    content: str = Field(min_length=1, max_length=MAX_TEXT)
    at: datetime


class PendingLoop(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    loop_id: str
    goal: str = Field(max_length=MAX_TEXT)
    step: Int = Field(ge=0)
    state: dict[str, Any] = Field(default_factory=dict)
    saved_at: datetime


def _checked(model: type[BaseModel], data: dict, what: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(what, exc) from None


class Sessions:
    """The session layers of one store."""

    def __init__(self, store: MemoryInterface):
        self.store = store

    def _table(self, name: str, create: bool = False):
        table = self.store.concept_table(name, SCHEMAS[name] if create else None)
        if table is not None and not create:
            table.checkout_latest()  # other processes write sessions too
        return table

    def _rows(self, name: str, session_id: str) -> list[dict]:
        text_id(session_id, "session")
        table = self._table(name)
        if table is None:
            return []
        return table.to_lance().to_table(filter=f"session_id = {sql_literal(session_id)}").to_pylist()

    # -- the session ---------------------------------------------------------------------

    def start(self, agent: str, project_id: str | None = None, preferences: dict | None = None,
              session_id: str | None = None) -> Session:
        """A new active session of `agent` (in `project_id`, which must exist, if given)."""
        self.store.check_writable()
        if not isinstance(agent, str) or not agent.strip() or len(agent) > 200:
            raise InvalidInput("a session needs an agent name of 1 to 200 characters")
        if project_id is not None and self.store.get(project_id).kind is not Kind.PROJECT:
            raise InvalidInput(f"{project_id} is not a project")
        prefs = _checked(SessionPreferences, preferences or {}, "session preferences").root
        session_id = session_id or str(uuid.uuid4())
        if self._rows(SESSIONS, session_id):
            raise InvalidInput(f"session {session_id} already exists")
        session = Session(session_id=session_id, agent=agent, project_id=project_id,
                          started_at=self.store.clock.now(), preferences=prefs)
        self._put(session)
        self.store.log_event("session_start", [session_id], actor=agent,
                             details={"project_id": project_id})
        return session

    def _put(self, session: Session) -> None:
        row = session.model_dump()
        row["preferences"] = json.dumps(row["preferences"], sort_keys=True)
        data = pa.Table.from_pylist([row], schema=SCHEMAS[SESSIONS])
        table = self._table(SESSIONS, create=True)
        committing(lambda: table.merge_insert("session_id").when_matched_update_all()
                   .when_not_matched_insert_all().execute(data))

    def get(self, session_id: str) -> Session:
        rows = self._rows(SESSIONS, session_id)
        if not rows:
            raise NotFound(f"no session {session_id!r}")
        row = rows[0]
        row["preferences"] = json.loads(row["preferences"] or "{}")
        return Session.model_validate(row)

    def list(self, agent: str | None = None, status: str | None = None) -> list[Session]:
        table = self._table(SESSIONS)
        if table is None:
            return []
        where = " AND ".join(f"{c} = {sql_literal(v)}" for c, v in (("agent", agent), ("status", status)) if v)
        rows = table.to_lance().to_table(filter=where or None).to_pylist()
        out = [Session.model_validate({**r, "preferences": json.loads(r["preferences"] or "{}")}) for r in rows]
        return sorted(out, key=lambda s: (s.started_at, s.session_id))

    def set_preferences(self, session_id: str, **preferences: Any) -> Session:
        """Set (a value) or remove (None) preferences of a session."""
        session = self.get(session_id)
        merged = {**session.preferences, **preferences}
        merged = {k: v for k, v in merged.items() if v is not None}
        prefs = _checked(SessionPreferences, merged, "session preferences").root
        updated = session.model_copy(update={"preferences": prefs})
        self._put(updated)
        return updated

    def end(self, session_id: str) -> Session:
        """Mark the session ended and clear its transcript and pending loop (an agent's
        `memlib.agents.Sessions.end` first offers the transcript to its lifecycle policy)."""
        session = self.get(session_id)
        ended = session.model_copy(update={"status": "ended", "ended_at": self.store.clock.now()})
        self._put(ended)
        cleared = self._clear(SHORT_TERM, session_id) + self._clear(PENDING_LOOPS, session_id)
        self.store.log_event("session_end", [session_id], actor=session.agent,
                             details={"rows_cleared": cleared})
        return ended

    def delete(self, session_id: str) -> dict[str, int]:
        """Remove the session's rows from the three session tables, and nothing else."""
        session = self.get(session_id)
        counts = {name: self._clear(name, session_id) for name in (SHORT_TERM, PENDING_LOOPS, SESSIONS)}
        self.store.log_event("session_delete", [session_id], actor=session.agent, details=counts)
        return counts

    def _clear(self, name: str, session_id: str) -> int:
        table = self._table(name)
        if table is None:
            return 0
        where = f"session_id = {sql_literal(session_id)}"
        n = table.count_rows(where)
        if n:
            committing(lambda: table.delete(where))
        return n

    # -- short-term: the transcript ------------------------------------------------------

    def append(self, session_id: str, role: str, content: str) -> Turn:
        """One turn at the end of the session's transcript."""
        session = self.get(session_id)
        if session.status != "active":
            raise InvalidInput(f"session {session_id} has ended")
        with self.store.lock.held():  # seq numbers stay unique per session
            seq = len(self._rows(SHORT_TERM, session_id))
            turn = _checked(Turn, {"session_id": session_id, "seq": seq, "role": role, "content": content,
                                   "at": self.store.clock.now()}, "turn")
            table = self._table(SHORT_TERM, create=True)
            committing(lambda: table.add(pa.Table.from_pylist([turn.model_dump()], schema=SCHEMAS[SHORT_TERM])))
            tidy(table)  # a turn per commit: keep the transcript's reads fast
        return turn

    def transcript(self, session_id: str, last: int | None = None) -> list[Turn]:
        """The session's turns in order (only the `last` ones if given)."""
        if last is not None:
            whole_number(last, "last", 0, unit="turns")
        turns = sorted(self._rows(SHORT_TERM, session_id), key=lambda r: r["seq"])
        if last is not None:
            turns = turns[-last:] if last > 0 else []
        return [Turn.model_validate(r) for r in turns]

    # -- pending loop --------------------------------------------------------------------

    def save_loop(self, session_id: str, goal: str, step: int, state: dict[str, Any]) -> PendingLoop:
        """Snapshot a suspended loop to resume from."""
        self.get(session_id)
        try:
            json.dumps(state, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"pending loop state must be a JSON object ({exc})") from None
        loop = _checked(PendingLoop, {"session_id": session_id, "loop_id": str(uuid.uuid4()), "goal": goal,
                                      "step": step, "state": state, "saved_at": self.store.clock.now()},
                        "pending loop")
        row = {**loop.model_dump(), "state": json.dumps(loop.state, sort_keys=True)}
        table = self._table(PENDING_LOOPS, create=True)
        committing(lambda: table.add(pa.Table.from_pylist([row], schema=SCHEMAS[PENDING_LOOPS])))
        return loop

    def pending_loop(self, session_id: str) -> PendingLoop | None:
        """The latest snapshot of the session's suspended loop, if any."""
        rows = self._rows(PENDING_LOOPS, session_id)
        if not rows:
            return None
        row = max(rows, key=lambda r: (r["saved_at"], r["step"]))
        return PendingLoop.model_validate({**row, "state": json.loads(row["state"])})

    def clear_loop(self, session_id: str) -> int:
        return self._clear(PENDING_LOOPS, session_id)
