"""The append-only recall log: every hit an agent recalls becomes one event.

Recalls must not each commit a Lance version, and two processes recalling at once must lose
nothing. So a recall first writes its events to a spool segment (a small JSONL file made
visible by an atomic rename, one per recall, never shared between processes), and segments
are flushed into the `recall_events` table in batches, one commit per flush, under a file
lock. A flush that dies after its commit but before removing its segments is recognised on
the next flush by its `flush_id` and not applied twice.

A segment is in the operating system's hands when `append` returns, so a killed process
loses nothing; it reaches the disk a moment later (a background thread syncs it, off the
recall's path), so only a crash of the machine itself can lose the last moment's recalls,
and a segment cut short by one is read up to its last whole line.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import queue
import threading
import uuid
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Iterator

import pyarrow as pa

from memlib.clock import Clock
from memlib.scope import sql_literal
from memlib.store.storage import is_local
from memlib.store.tables import RECALL_EVENTS, add_missing_columns, open_or_create

TABLE = RECALL_EVENTS
AUTO_FLUSH_SEGMENTS = 256
AUTO_FLUSH_CHECK = 16  # appends between looks at the spool (listing it costs more than a recall)
log = logging.getLogger("memlib")

SCHEMA = pa.schema([
    pa.field("event_id", pa.string(), nullable=False),
    pa.field("query_id", pa.string()),
    pa.field("query_text", pa.string()),
    pa.field("memory_id", pa.string()),
    pa.field("rank", pa.int32()),
    pa.field("score", pa.float64()),
    pa.field("mode", pa.string()),
    pa.field("agent", pa.string()),
    pa.field("tool", pa.string()),  # the agent tool it recalled through (memlib.agents), if any
    pa.field("session_id", pa.string()),  # the agent session it recalled in, if any (seed 002's key)
    pa.field("recalled_at", pa.timestamp("us", tz="UTC")),
    pa.field("flush_id", pa.string()),
    pa.field("flushed_at", pa.timestamp("us", tz="UTC")),
])


def spool_dir_for(uri: str, cache_dir: str) -> Path:
    """Local stores keep their spool inside the store; remote ones in the user's cache
    (Settings.cache_dir)."""
    if is_local(uri):
        return Path(uri.removeprefix("file://")) / "_spool" / "recalls"
    digest = hashlib.sha256(uri.encode()).hexdigest()[:16]
    return Path(cache_dir) / "spool" / digest


class RecallLog:
    def __init__(self, db, spool: Path, clock: Clock | None = None):
        self.db = db
        self.spool = spool
        self.clock = clock or Clock()
        self._table = None
        self._appended = 0

    @property
    def table(self):
        if self._table is None:
            self._table = open_or_create(self.db, TABLE, SCHEMA)
            add_missing_columns(self._table, SCHEMA)  # a log written before the tool or session column
        return self._table

    def dataset(self):
        """The table as a Lance dataset at its latest version (other processes flush too)."""
        self.table.checkout_latest()
        return self.table.to_lance()

    def append(self, events: list[dict]) -> None:
        """Write one spool segment atomically; flush when enough segments wait."""
        if not events:
            return
        self.spool.mkdir(parents=True, exist_ok=True)
        name = f"{self.clock.now():%Y%m%dT%H%M%S%f}-{os.getpid()}-{uuid.uuid4().hex}"
        tmp = self.spool / f".tmp-{name}"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(event, default=_iso) + "\n" for event in events))
        os.replace(tmp, self.spool / f"{name}.jsonl")
        _sync_later(self.spool / f"{name}.jsonl")
        self._appended += 1
        if self._appended % AUTO_FLUSH_CHECK == 0 and len(self.segments()) >= AUTO_FLUSH_SEGMENTS:
            self.flush()

    def spooled(self) -> list[dict]:
        """The events still waiting in the spool (not yet in the table)."""
        return read_segments(self.segments())

    def segments(self) -> list[Path]:
        if not self.spool.is_dir():
            return []
        return sorted(self.spool.glob("*.jsonl"))

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Serialise flushes (and folds) across processes on this machine."""
        self.spool.mkdir(parents=True, exist_ok=True)
        with open(self.spool / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def flush(self) -> int:
        with self.locked():
            return self.flush_locked()

    def flush_locked(self) -> int:
        """Flush the spool; the caller holds `locked()`."""
        manifest = self.spool / "flushing.json"
        if manifest.exists():
            pending = json.loads(manifest.read_text())
            if self.table.count_rows(f"flush_id = {sql_literal(pending['flush_id'])}") > 0:
                _remove(self.spool / name for name in pending["segments"])
            manifest.unlink()
        segments = self.segments()
        if not segments:
            return 0
        flush_id, flushed_at = uuid.uuid4().hex, self.clock.now()
        rows = [event | {"flush_id": flush_id, "flushed_at": flushed_at} for event in read_segments(segments)]
        tmp = manifest.with_suffix(".tmp")
        tmp.write_text(json.dumps({"flush_id": flush_id, "segments": [p.name for p in segments]}))
        os.replace(tmp, manifest)
        self.table.add(pa.Table.from_pylist(rows, schema=SCHEMA))
        _remove(segments)
        manifest.unlink()
        return len(rows)


def read_segments(paths) -> list[dict]:
    events = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:  # flushed by another process meanwhile
            continue
        for line in text.splitlines():
            if line.strip():
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:  # cut short by a machine crash before its sync
                    log.warning("recall spool segment %s ends in a partial line; the line is skipped",
                                Path(path).name)
                    continue
                event["recalled_at"] = datetime.fromisoformat(event["recalled_at"])
                events.append(event)
    return events


def _sync_forever(paths: queue.Queue) -> None:
    while True:
        path = paths.get()
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # flushed already
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


_SYNC: queue.Queue = queue.Queue()  # spool segments written, to be synced to disk
_SYNCER: list[threading.Thread] = []


def _sync_later(path: Path) -> None:
    if not _SYNCER:  # one thread per process, started at the first recall
        _SYNCER.append(threading.Thread(target=_sync_forever, args=(_SYNC,), daemon=True,
                                        name="memlib-spool-sync"))
        _SYNCER[0].start()
    _SYNC.put(path)


def _remove(paths) -> None:
    for path in paths:
        Path(path).unlink(missing_ok=True)


def _iso(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")
