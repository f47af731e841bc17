"""The control plane's database: one SQLite file in WAL mode in the store's directory.

Why SQLite and not a Lance table: a queue with leases needs a transaction that reads the
oldest free item and marks it taken, atomically, across processes. Lance commits are
optimistic appends (two claimers would both succeed), SQLite's are serialised and
durable, and it ships with Python. WAL lets readers (reports, `memlib tasks list`) read
while one writer commits; `synchronous=NORMAL` keeps every committed transaction through a
process crash (kill -9), and loses at most the last ones on a power cut, never consistency.

Writers wait for each other in SQLite's busy handler (BEGIN IMMEDIATE, 60 s). An advisory
file lock taken before BEGIN (`file_lock=True`) was measured as the alternative and lost:
1.36x fewer claims per second with 4 workers and twice the p99 (bench/control_plane.py).

Times are integer microseconds since the epoch, UTC (`*_us`); leases compare them.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from memlib.errors import StoreError
from memlib.settings import Settings
from memlib.store.storage import is_local
from memlib.vocabulary import CONTROL_SCHEMA_VERSION as SCHEMA_VERSION

FILE = "control-plane.db"
log = logging.getLogger("memlib")
_SAID: set[str] = set()  # the object-storage stores whose default control plane was named
# the backpressure defaults (seed 002: 32 in flight); both are stored in the database, so
# every process on one store agrees on them (`memlib queue config`)
DEFAULTS = {"max_in_flight": 32, "max_queued": 100_000}

TABLES = {
    "tasks": """
        create table if not exists tasks (
            task_id text primary key,
            session_id text,
            agent text,
            project_id text,                 -- the project it works for: a token limited to projects sees its own
            kind text not null,
            payload text not null,
            status text not null,
            priority integer not null default 0,
            attempts integer not null default 0,
            max_attempts integer not null,
            available_us integer not null,   -- not claimable before (a nack's backoff)
            lease_owner text,
            lease_token text,
            lease_until_us integer,
            claimed_us integer,
            last_error text,
            created_us integer not null,
            updated_us integer not null)""",
    "events": """
        create table if not exists events (
            event_id integer primary key,
            task_id text,
            session_id text,
            kind text not null,
            attempt integer,
            worker text,
            detail text,
            at_us integer not null)""",
    "approvals": """
        create table if not exists approvals (
            approval_id text primary key,
            task_id text not null,
            request text not null,
            requested_by text,
            requested_us integer not null,
            status text not null,
            decided_by text,
            decided_us integer,
            reason text)""",
    "results": """
        create table if not exists results (
            task_id text not null,
            attempt integer not null,
            status text not null,
            output text,
            worker text,
            started_us integer,
            finished_us integer not null,
            primary key (task_id, attempt))""",
    "meta": "create table if not exists meta (key text primary key, value text not null)",
}
# the views memlib.analytics reads the tables through (view -> table)
VIEWS = {"raw_tasks": "tasks", "raw_task_events": "events", "raw_approvals": "approvals",
         "raw_task_results": "results"}
INDEXES = (
    # the claim walks this in order: highest priority first, then oldest (rowid)
    "create index if not exists tasks_ready on tasks (priority desc) where status = 'queued'",
    "create index if not exists tasks_leased on tasks (lease_until_us) where status = 'running'",
    # every index is written by every claim and ack that touches its rows: only these
    # (a status count or a session's events scan the table, which is the reports' job)
    "create index if not exists tasks_session on tasks (session_id)",
    "create index if not exists events_task on events (task_id)",
    "create index if not exists approvals_task on approvals (task_id, status)",
)


def _migrate(con: sqlite3.Connection) -> None:
    """Bring a file an older memlib wrote up to this schema (in the open's transaction)."""
    columns = {row[1] for row in con.execute("pragma table_info(tasks)")}
    if "project_id" not in columns:  # schema 1: tasks of no project (every project's)
        con.execute("alter table tasks add column project_id text")


def path_for(store_uri: str, settings: Settings) -> Path:
    """The control plane's file for a store: beside its tables in the store's directory. A
    store on object storage keeps it where the control_plane setting says ($MEMLIB_CONTROL_PLANE
    or the config's `[control_plane] path`: SQLite needs a file system with working locks, one
    machine's disk, which the queue's workers on that machine share), by default in memlib's
    cache folder on this machine, one file per store (said once per process)."""
    if is_local(store_uri):
        return Path(store_uri.removeprefix("file://")) / FILE
    if settings.control_plane:
        return Path(settings.control_plane)
    return Path(settings.cache_dir) / "control" / f"{hashlib.sha256(store_uri.encode()).hexdigest()[:16]}.db"


def say_where(store_uri: str, settings: Settings, path: Path) -> None:
    """Once per process: where the control plane of a store on object storage is kept when no
    setting said (this machine's cache folder)."""
    if not is_local(store_uri) and not settings.control_plane and store_uri not in _SAID:
        _SAID.add(store_uri)
        log.warning("memlib: %s is object storage: its control plane (queue, approvals) is kept on this machine "
                    "at %s (set MEMLIB_CONTROL_PLANE to share one between machines)", store_uri, path)


def located(store_uri: str, settings: Settings) -> Path | None:
    """The control plane's file for a store."""
    return path_for(store_uri, settings)


def dicts(cursor: sqlite3.Cursor) -> list[dict]:
    """The rest of a cursor's rows as {column: value}."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def setting(con: sqlite3.Connection, key: str) -> int:
    """A backpressure limit as stored (DEFAULTS when never set)."""
    row = con.execute("select value from meta where key = ?", (key,)).fetchone()
    return int(row[0]) if row else DEFAULTS[key]


def to_us(when: datetime) -> int:
    return int(when.timestamp() * 1_000_000)


def from_us(us: int | None) -> datetime | None:
    return None if us is None else datetime.fromtimestamp(us / 1_000_000, timezone.utc)


class Database:
    """One connection to the control-plane file, shared by the threads of a process (a lock
    serialises them); another process opens its own."""

    def __init__(self, path: str | Path, create: bool = True, file_lock: bool = False):
        self.path = Path(path)
        if not self.path.exists() and not create:
            raise StoreError(f"no control plane at {self.path}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.con = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            self.con.execute("pragma journal_mode = wal")
            self.con.execute("pragma synchronous = normal")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the control plane at {self.path}: {exc}") from None
        self._threads = threading.RLock()
        self._lock_fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644) if file_lock else None
        self._pid = os.getpid()
        with self.writing() as con:
            for ddl in (*TABLES.values(), *INDEXES):
                con.execute(ddl)
            row = con.execute("select value from meta where key = 'schema_version'").fetchone()
            if row is not None and int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"the control plane at {self.path} was written by a newer memlib "
                                 f"(schema {row[0]}, this one reads {SCHEMA_VERSION})")
            _migrate(con)
            con.execute("insert or replace into meta values ('schema_version', ?)", (str(SCHEMA_VERSION),))

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: every statement in it commits together or not at all."""
        if os.getpid() != self._pid:
            raise StoreError("a control-plane connection cannot cross a fork; open one in the child")
        with self._threads:
            if self._lock_fd is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            try:
                self.con.execute("begin immediate")
                try:
                    yield self.con
                except BaseException:
                    self.con.execute("rollback")
                    raise
                self.con.execute("commit")
            finally:
                if self._lock_fd is not None:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def read(self, sql: str, args: tuple = ()) -> list[dict]:
        with self._threads:
            return dicts(self.con.execute(sql, args))

    def setting(self, key: str) -> int:
        with self._threads:
            return setting(self.con, key)

    def close(self) -> None:
        with self._threads:
            self.con.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None
