"""The append-only audit log: every write, update, delete, promotion, retention run, undo and
purge appends events to the `audit_log` table, one commit per call (a batch of memories is
one commit, never one per row). A change makes its events before it commits and promises them
(store/journal.py), so a process killed between the two commits loses none. Events are never updated or deleted; a run's progress is a
sequence of events with the same run_id (started, then done or abandoned).

    subject_id  the memory, or the run (a retention run, a purge) the event is about
    action      write, upsert, update, delete, usage (recalls folded in by maintain),
                promote, promoted, flag, confidence, finalize, retention_apply,
                retention_remove, retention_undo, restore, purge, duplicate (a new memory
                that repeats another, details.of), corroborate (a repeat not written: the
                memory it repeats, details.duplicate), fragment_add (a consensus fragment)
    status      done, started, abandoned, nothing
    version     the `memories` table version the event's change committed (null for events
                that changed no memory): the ledger time travel reads (store/versions.py)
"""

from __future__ import annotations

import getpass
import json
import os
from datetime import datetime
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from memlib.clock import Clock
from memlib.scope import sql_in
from memlib.store.concurrency import committing
from memlib.store.tables import AUDIT_LOG, add_missing_columns, open_or_create, open_table

TABLE = AUDIT_LOG
SCHEMA = pa.schema([
    pa.field("event_id", pa.string(), nullable=False),
    pa.field("subject_id", pa.string()),
    pa.field("action", pa.string()),
    pa.field("status", pa.string()),
    pa.field("actor", pa.string()),
    pa.field("at", pa.timestamp("us", tz="UTC")),
    pa.field("run_id", pa.string()),
    pa.field("details", pa.string()),  # a JSON object, or null
    pa.field("version", pa.int64()),
])


def default_actor() -> str:
    """Who acts when neither the call nor the settings say: the user running memlib."""
    try:
        return getpass.getuser()
    except Exception:  # no user name (some containers): still an event, with a plain actor
        return "unknown"


class AuditLog:
    def __init__(self, db, clock: Clock | None = None, actor: str | None = None):
        """`actor`: who acts when a call does not say (the actor setting; default: the user
        running memlib)."""
        self.db = db
        self.clock = clock or Clock()
        self.actor = actor or default_actor()
        self._table = None

    @property
    def table(self):
        if self._table is None:
            self._table = open_or_create(self.db, TABLE, SCHEMA)
            add_missing_columns(self._table, SCHEMA)  # a log written before the version ledger
        return self._table

    def exists(self) -> bool:
        return self._table is not None or open_table(self.db, TABLE) is not None

    def dataset(self):
        """The log as a Lance dataset to read (its latest version: other processes log too),
        or None if nothing was logged yet."""
        table = self._table or open_table(self.db, TABLE)
        if table is None:
            return None
        table.checkout_latest()
        return table.to_lance()

    def ledger(self) -> list[tuple[int, datetime]]:
        """(memories version, when it was committed by the store's clock), oldest first."""
        data = self.dataset()
        if data is None or "version" not in data.schema.names:
            return []
        rows = data.to_table(columns=["version", "at"], filter="version IS NOT NULL")
        # one row per version, in Arrow: a change records an event per memory it touched
        first = rows.group_by("version").aggregate([("at", "min")])
        return sorted(zip(first.column("version").to_pylist(), first.column("at_min").to_pylist()))

    def record(self, action: str, subjects: Sequence[str | None], status: str = "done",
               actor: str | Sequence[str | None] | None = None, run_id: str | None = None,
               details: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
               version: int | None = None) -> None:
        """One event per subject, all in one commit. `actor` and `details` are shared, or one
        per subject (a group commit writes for several agents); `version` is the memories
        table version this change committed, if it changed any."""
        if len(subjects):
            self.append(self.rows(action, subjects, status, actor, run_id, details, version))

    def append(self, rows: pa.Table, version: int | None = None) -> None:
        """Log events made by `rows` (a change promised them before it committed: the
        journal), in one commit; `version`: the memories table version the change made."""
        if version is not None:
            rows = rows.set_column(rows.schema.get_field_index("version"), "version",
                                   pa.array([version] * len(rows), pa.int64()))
        if len(rows):
            committing(lambda: self.table.add(rows.select(SCHEMA.names).cast(SCHEMA)))

    def logged(self, event_ids: Sequence[str]) -> set[str]:
        """Which of these events the log holds."""
        data = self.dataset()
        if data is None or not event_ids:
            return set()
        found: set[str] = set()
        for start in range(0, len(event_ids), 1_000):
            found.update(data.to_table(columns=["event_id"], filter=sql_in("event_id", event_ids[start:start + 1_000]))
                         .column("event_id").to_pylist())
        return found

    def rows(self, action: str, subjects: Sequence[str | None], status: str = "done",
             actor: str | Sequence[str | None] | None = None, run_id: str | None = None,
             details: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
             version: int | None = None) -> pa.Table:
        """The events `record` would log, made now (their ids and times fixed), unlogged."""
        n = len(subjects)
        if details is None or isinstance(details, dict):
            shared = None if details is None else json.dumps(details, sort_keys=True, default=str)
            texts = [shared] * n
        else:
            texts = [None if d is None else json.dumps(d, sort_keys=True, default=str) for d in details]
        now = self.clock.now()
        batch = pa.table({
            "event_id": pa.array(event_ids(n, now), pa.string()),
            "subject_id": pa.array(list(subjects), pa.string()),
            "action": pa.array([action] * n, pa.string()),
            "status": pa.array([status] * n, pa.string()),
            "actor": pa.array([a or self.actor for a in ([actor] * n if actor is None or isinstance(actor, str)
                                                         else actor)], pa.string()),
            "at": pa.array([now] * n, pa.timestamp("us", tz="UTC")),
            "run_id": pa.array([run_id] * n, pa.string()),
            "details": pa.array(texts, pa.string()),
            "version": pa.array([version] * n, pa.int64()),
        }, schema=SCHEMA)
        return batch

    def events(self, where: str | None = None) -> list[dict[str, Any]]:
        """Events (oldest first) matching a SQL filter over the columns above."""
        data = self.dataset()
        if data is None:
            return []
        rows = data.to_table(filter=where).to_pylist()
        for row in rows:
            row.setdefault("version", None)
            row["details"] = json.loads(row["details"]) if row["details"] else None
        return sorted(rows, key=lambda r: (r["at"], r["event_id"]))


def event_ids(n: int, at: datetime) -> list[str]:
    """n time-ordered (version 7, RFC 9562) UUIDs for events made at `at`, as strings, made
    together. Each holds `at`'s millisecond, then a 42-bit counter that starts at a random
    value for the batch (the RFC's method 1), then 32 random bits: a batch's ids sort in the
    order its events were given, and the log's ids share their leading digits, which Lance
    compresses. A write of 100,000 memories logs as many events, so they are made together,
    not by uuid.uuid4() one by one (sizes and times: bench/README.md, "Against the peers")."""
    counter = (int.from_bytes(os.urandom(6), "big") >> 6) + np.arange(n, dtype=np.uint64)
    counter &= np.uint64((1 << 42) - 1)
    raw = np.empty((n, 16), np.uint8)
    raw[:, :6] = np.frombuffer(int(at.timestamp() * 1000).to_bytes(6, "big"), np.uint8)
    high, low = counter >> np.uint64(30), counter & np.uint64((1 << 30) - 1)  # 12 + 30 bits
    raw[:, 6] = 0x70 | (high >> np.uint64(8))  # version 7
    raw[:, 7] = high & np.uint64(0xFF)
    raw[:, 8] = 0x80 | (low >> np.uint64(24))  # the RFC 4122 variant
    for byte, shift in ((9, 16), (10, 8), (11, 0)):
        raw[:, byte] = (low >> np.uint64(shift)) & np.uint64(0xFF)
    raw[:, 12:] = np.frombuffer(os.urandom(4 * n), np.uint8).reshape(n, 4)
    h = raw.tobytes().hex()
    return [f"{h[i:i + 8]}-{h[i + 8:i + 12]}-{h[i + 12:i + 16]}-{h[i + 16:i + 20]}-{h[i + 20:i + 32]}"
            for i in range(0, 32 * n, 32)]
