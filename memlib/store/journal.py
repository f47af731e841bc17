"""What a writer promised before its change commits, kept until the change is whole.

A change and its audit events are two commits (the memories table, then the audit log), and
some changes take several (a correction archives the old memory, writes the new one, then
logs the event naming both). A process killed between them leaves its promise here, and the
next open of the store, or its `maintain`, keeps it: the events of what did commit are
written, what did not commit is dropped or rolled back (each promise names how).

A promise is one Arrow IPC file in the store's `_pending/` folder, on the disk or in the
bucket beside the tables, written before the first commit and removed after the last. Its
schema metadata names the function that finishes it (`finish`, a function of memlib) and
what that needs; its rows, if any, are the audit events promised, each gated on the state of
one memory (`expect_id` at `expect_revision` or later; a null revision: the memory gone) or,
without one, on any gated event's change having committed.

Who may finish a promise: anyone, once the process that made it is gone (on this host: its
pid no longer runs that process; in this process: the promise's body has ended) or, made on
another host, once it is ten minutes old. Finishing runs under the writer lock, one finisher
at a time.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import socket
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from memlib.errors import first_line
from memlib.settings import Settings
from memlib.store.storage import filesystem, is_local

log = logging.getLogger("memlib")

FOLDER = "_pending"
AUDIT = "memlib.store.journal:audit_what_committed"  # the finisher of a change's own events
STALE_SECONDS = 600.0  # a promise this old on object storage is a dead writer's
GATES = [pa.field("expect_id", pa.string()), pa.field("expect_revision", pa.int64())]
_IN_FLIGHT: set[str] = set()  # this process's promises whose body is running


@dataclass
class Promise:
    """A promise as read back: what finishes it, what it needs, the events it holds."""

    name: str
    finish: str
    details: dict[str, Any]
    events: pa.Table | None
    owner: dict[str, Any]


def gated(events: pa.Table, ids: list[str | None], revisions: list[int | None]) -> pa.Table:
    """`events` (audit rows) each gated on a memory: present at `revision` or later, or gone
    (a None revision); a None id gates on the promise as a whole."""
    return events.append_column(GATES[0], pa.array(ids, pa.string())).append_column(
        GATES[1], pa.array(revisions, pa.int64()))


def ungated(events: pa.Table) -> pa.Table:
    return events.drop_columns([f.name for f in GATES if f.name in events.column_names])


class Journal:
    """The promises of one store."""

    def __init__(self, uri: str, settings: Settings):
        self.uri, self.settings = uri, settings
        self._fs = None
        self.local = is_local(uri)

    @property
    def fs(self):
        if self._fs is None:
            fs, base = filesystem(self.uri, self.settings)
            self._fs, self.folder = fs, f"{base.rstrip('/')}/{FOLDER}"
        return self._fs

    @contextmanager
    def promise(self, finish: str = AUDIT, details: dict[str, Any] | None = None,
                events: pa.Table | None = None) -> Iterator[str]:
        """Write the promise, run the body (its commits), remove the promise. If the body
        raises, the promise stays: the next open or maintain finishes it by what committed."""
        name = f"{time.time_ns():020d}-{uuid.uuid4().hex[:12]}.arrow"
        meta = {"finish": finish, "details": details or {}, "owner": _owner()}
        table = events if events is not None else pa.table({"none": pa.array([], pa.int8())})
        table = table.replace_schema_metadata({b"memlib_promise": json.dumps(meta, default=str).encode()})
        fs = self.fs
        fs.create_dir(self.folder, recursive=True)
        # whole or absent: written aside, then renamed (an object store's put is whole anyway)
        partial = f"{self.folder}/{name}.partial" if self.local else f"{self.folder}/{name}"
        with fs.open_output_stream(partial) as out:
            with pa.ipc.new_file(out, table.schema) as writer:
                writer.write_table(table)
        if self.local:
            fs.move(partial, f"{self.folder}/{name}")
        _IN_FLIGHT.add(name)
        try:
            yield name
        finally:
            _IN_FLIGHT.discard(name)
        self._delete(name)  # or a process that took this one for dead kept it: the same events

    def _delete(self, name: str) -> None:
        """Remove a promise that was kept; one removed meanwhile by another process is fine."""
        try:
            self.fs.delete_file(f"{self.folder}/{name}")
        except Exception as exc:
            if not _missing(exc):
                raise

    def names(self) -> list[str]:
        """The promises waiting, oldest first (a local store's folder is read without pyarrow)."""
        if self.local:
            folder = os.path.join(self.uri.removeprefix("file://"), FOLDER)
            try:
                return sorted(n for n in os.listdir(folder) if n.endswith(".arrow"))
            except FileNotFoundError:
                return []
        from pyarrow.fs import FileSelector

        infos = self.fs.get_file_info(FileSelector(self.folder, allow_not_found=True))
        return sorted(i.base_name for i in infos if i.base_name.endswith(".arrow"))

    def read(self, name: str) -> Promise:
        with self.fs.open_input_file(f"{self.folder}/{name}") as source:
            table = pa.ipc.open_file(source).read_all()
        meta = json.loads(table.schema.metadata[b"memlib_promise"])
        events = None if "none" in table.column_names else table.replace_schema_metadata(None)
        return Promise(name, meta["finish"], meta.get("details") or {}, events, meta.get("owner") or {})

    def finish(self, store) -> int:
        """Keep the promises of writers that stopped; returns how many were kept. A promise
        that cannot be kept now (an error) stays for the next time, with a warning."""
        dead = []
        for name in self.names():  # a live writer's promise is its own: not waited for
            try:
                if not _alive(name, self.read(name).owner):
                    dead.append(name)
            except Exception as exc:
                if not _missing(exc):  # removed meanwhile by its writer: nothing to keep
                    log.warning("memlib: %s/%s is not a promise memlib can read (%s): left as it is",
                                self.folder, name, first_line(exc))
        if not dead:
            return 0
        kept = 0
        with store.lock.held():
            for name in dead:
                try:
                    promise = self.read(name)
                except Exception as exc:
                    if _missing(exc):
                        continue  # kept by another process meanwhile
                    raise
                try:
                    _resolve(promise.finish)(store, promise)
                except Exception as exc:  # stays for the next open or maintain
                    log.warning("memlib: a change a stopped process left unfinished could not be finished now "
                                "(%s: %s); the next open or maintain tries again", type(exc).__name__, exc)
                    continue
                self._delete(name)
                kept += 1
        if kept:
            log.warning("memlib: finished %d change%s a stopped process committed without its audit events",
                        kept, "" if kept == 1 else "s")
        return kept


def _missing(exc: Exception) -> bool:
    """Whether reading a promise failed because it is gone (a file, or an object's key)."""
    return isinstance(exc, FileNotFoundError) or "NO_SUCH_KEY" in str(exc) or "does not exist" in str(exc)


def _owner() -> dict[str, Any]:
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": _started(os.getpid()), "at": time.time()}


def _started(pid: int) -> str | None:
    """When process `pid` started (so a reused pid is another process), where the OS says."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(name: str, owner: dict[str, Any]) -> bool:
    """Whether the process that made a promise may still be keeping it: this process while
    the promise's body runs, another process on this host while it lives, one elsewhere for
    STALE_SECONDS."""
    if owner.get("host") != socket.gethostname():
        return time.time() - float(owner.get("at") or 0) < STALE_SECONDS
    pid = int(owner.get("pid") or 0)
    if pid == os.getpid():
        return name in _IN_FLIGHT
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return owner.get("started") is None or owner.get("started") == _started(pid)


def _resolve(path: str):
    """The finisher a promise names: a function of memlib, nothing else."""
    module, _, name = path.partition(":")
    if module != "memlib" and not module.startswith("memlib."):
        raise ValueError(f"a promise names {path!r}, which is not memlib's")
    return getattr(importlib.import_module(module), name)


def committed(store, events: pa.Table) -> pa.Table:
    """The promised events whose change committed: each gated one whose memory is there at
    its revision or later (or gone, for a removal); the ungated ones if any gated one is
    (or if none is gated)."""
    ids = events.column("expect_id").to_pylist()
    wanted = sorted({i for i in ids if i is not None})
    store.refresh()
    found = store.lookup(wanted, ["revision"]) if wanted else {}
    keep = []
    for memory_id, revision in zip(ids, events.column("expect_revision").to_pylist()):
        if memory_id is None:
            keep.append(None)
        elif revision is None:
            keep.append(memory_id not in found)
        else:
            keep.append(memory_id in found and (found[memory_id]["revision"] or 0) >= revision)
    any_took = any(k for k in keep if k is not None) or all(k is None for k in keep)
    return events.filter(pa.array([any_took if k is None else k for k in keep], pa.bool_()))


def audit_what_committed(store, promise: Promise) -> None:
    """A change's own events: those of what committed and is not logged yet."""
    if promise.events is None or not len(promise.events):
        return
    events = committed(store, promise.events)
    logged = store.logged_events(events.column("event_id").to_pylist())
    fresh = events.filter(pc.invert(pc.is_in(events.column("event_id"), pa.array(sorted(logged), pa.string()))))
    store.append_events(ungated(fresh))
