"""Store: typed memories in one LanceDB table, written in batches, one commit per batch.

It owns the tables of a store (memories, the audit log, the recall log), which version of
the memories it reads, and the writes: add, upsert, update, delete. Search, analytics and
the lifecycle build on it (memlib.MemoryStore is the store with search and maintenance).
"""

from __future__ import annotations

import logging
import os
import time
from datetime import date, datetime
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import lancedb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.index import FTS, Bitmap, BTree, LabelList

from memlib.clock import AsOf, Clock
from memlib.embeddings import Embedder, default_embedder, embedder_for
from memlib.errors import EmbedderMismatch, InvalidInput, NotFound, StoreError, text_id
from memlib.models import SCHEMA_VERSION, Memory, arrow_schema, as_memories, from_row, listed, parse_memory
from memlib.scope import Scope, sql_in
from memlib.settings import Settings
from memlib.store import batch as batches
from memlib.store import versions
from memlib.store.audit import AuditLog
from memlib.store.journal import Journal, gated
from memlib.store.doors import Doors
from memlib.store.concurrency import ATTEMPTS, Contended, WriterLock, committing, in_words, pause, writable_dir
from memlib.store.recall_log import RecallLog, spool_dir_for
from memlib.store.storage import is_local, storage_options
from memlib.store.tables import (COMPACT_ROWS, MEMORIES, TIDY_EVERY, TIDY_FRAGMENTS, add_missing_columns, open_or_create,
                                 open_table, tidy)


DUPLICATES = ("merge", "link", "keep")  # what Store.add does with a new memory that repeats one
META_MODEL, META_DIMS, META_SCHEMA = "memlib.embedding_model", "memlib.embedding_dims", "memlib.schema_version"
SCALAR_INDEXES = {
    "id": BTree(), "source": Bitmap(), "created_at": BTree(), "level": Bitmap(), "kind": Bitmap(),
    "project_id": BTree(), "root_task_id": BTree(), "tags": LabelList(), "previous_id": BTree(),
    "iteration_id": BTree(),  # the agents' iteration and smart queries filter on it
}
LOOKUP_CHUNK = 2_000
# Merge a row only if it still has the revision it was read at (its new one is one more).
CAS = "target.revision = source.revision - 1 OR (target.revision IS NULL AND source.revision = 1)"
COARSEST_MTIME_NS = 2_000_000_000  # FAT keeps modification times in 2 s steps
log = logging.getLogger("memlib")


def recorded_meta(table) -> dict[str, str]:
    """The settings a memories table records in its schema metadata, as text."""
    return {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}



def actors(actor: str | Mapping[str, str] | None, ids: Sequence[str]) -> str | list[str | None] | None:
    """Who wrote `ids`, for the audit log: one writer for all, or each id's (a mapping)."""
    return [actor.get(i) for i in ids] if isinstance(actor, Mapping) else actor

def _of(events: pa.Table, ids: Sequence[str]) -> pa.Table:
    """The events (one per subject) of these subjects."""
    if len(ids) == len(events):
        return events
    return events.filter(pc.is_in(events.column("subject_id"), pa.array(list(ids), pa.string())))


class Store(Doors):
    """The write half of memlib over any LanceDB URI (its named doors: store/doors.py)."""

    tokenizer = "simple"  # the full-text index's (a MemoryStore reads the one its store records)

    def __init__(self, uri: str, db, table, embedder: Embedder, clock: Clock | None, settings: Settings):
        """`settings.max_staleness`: seconds this handle may go on reading a version after
        another process committed a newer one (0 checks before every read)."""
        self.uri, self.db, self._table, self.embedder = uri, db, table, embedder
        self.clock = clock or Clock()
        self.settings = settings
        self.max_staleness = settings.max_staleness
        self.lock = WriterLock(uri)
        self._checked_at = time.monotonic()
        self._stamp: int | None = None  # _versions_stamp() when the version was last read from Lance
        self._versions_dir = (os.path.join(uri.removeprefix("file://"), f"{MEMORIES}.lance", "_versions")
                              if is_local(uri) else None)
        self._unwritable: str | None = None
        self.recalls = RecallLog(db, spool_dir_for(uri, settings.cache_dir), self.clock)
        self.audit = AuditLog(db, self.clock, actor=settings.actor)
        self.journal = Journal(uri, settings)  # a change's promised events, until they are logged
        self.read_only = False
        self._version: int | None = None
        self._seen = table.version  # the last version read (its model chose `embedder`): a new one may record another
        self._indexed = False
        self._tidy_at = TIDY_FRAGMENTS  # small fragments that start a tidy
        self._writes = 0  # commits of this handle, of which every TIDY_EVERY-th looks for a tidy
        self._vector_index: bool | None = None
        self._tidy_said = False  # a tidy after a write that failed was said
        self._dataset = None
        self._dims: int | None = None
        self._migrated = False
        self._holder: Callable[[bool], Any] | None = None  # answers `cached`
        self._listeners: list[Callable[[pa.Table, int], None]] = []  # told of each append
        self.last_merged: dict[str, str] = {}  # of the latest write: a repeat's id -> the memory it repeats

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, uri: str | None = None, embedder: Embedder | None = None, create: bool = True,
             as_of: AsOf | date | datetime | str | None = None, clock: Clock | None = None,
             recorded: dict[str, str] | None = None, settings: Settings | None = None,
             max_staleness: float | None = None, version: int | str | None = None):
        """Open (or create) the store at `uri` (default: the settings' store). `as_of`: open it
        as it was at a date or time (time travel, read-only: the version current then, see
        store/versions.py); `version`: open it at a table version (12, "v12") or a tag (such
        as a retention run's), read-only too. `recorded`: more settings a new store records
        beside its model (`meta()` reads them back). `settings`: what the caller resolved
        (memlib.settings); without them, this is the edge and resolves them from the
        environment and the config file, with `uri` and `max_staleness` as flags."""
        settings = Settings.at_edge(settings, store=uri, max_staleness=max_staleness)
        uri = settings.store
        if as_of is not None and version is not None:
            raise InvalidInput("open a store as of a date or at a version, not both")
        if as_of is not None or version is not None:
            create = False
        if is_local(uri) and not create and not os.path.isdir(
                os.path.join(uri.removeprefix("file://"), f"{MEMORIES}.lance")):
            raise StoreError(f"no memlib store at {uri!r} (run 'memlib init' first)")
        try:
            db = lancedb.connect(uri, storage_options=storage_options(uri, settings) or None)
            table = open_table(db, MEMORIES)
        except (OSError, ValueError, RuntimeError) as exc:  # Lance reports object-store errors as RuntimeError
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise StoreError(f"cannot open store {uri!r}: {first}") from None
        if table is None:
            if not create:
                raise StoreError(f"no memlib store at {uri!r} (run 'memlib init' first)")
            embedder = embedder or default_embedder(settings)
            meta = {META_MODEL: embedder.name, META_DIMS: str(embedder.dims),
                    META_SCHEMA: str(SCHEMA_VERSION), **(recorded or {})}
            table = open_or_create(db, MEMORIES, arrow_schema(embedder.dims, meta))
            if table.schema.metadata.get(META_MODEL.encode(), b"").decode() == embedder.name:
                return cls(uri, db, table, embedder, clock, settings)
        meta = recorded_meta(table)
        if META_MODEL not in meta:
            raise StoreError(f"{uri!r} holds a '{MEMORIES}' table that memlib did not write")
        if int(meta.get(META_SCHEMA, SCHEMA_VERSION)) > SCHEMA_VERSION:
            raise StoreError(f"store {uri!r} has schema version {meta[META_SCHEMA]}, newer than this memlib's "
                             f"({SCHEMA_VERSION}): upgrade memlib to open it")
        model, dims = meta[META_MODEL], int(meta[META_DIMS])
        if embedder is None:
            embedder = embedder_for(model, dims, settings)
        elif embedder.name != model or embedder.dims != dims:
            raise EmbedderMismatch(
                f"store {uri!r} was written with {model} ({dims} dims), "
                f"not {embedder.name} ({embedder.dims} dims)"
                + ("; 'memlib reembed --embedder NAME' moves it to another model" if embedder.dims == dims else ""))
        store = cls(uri, db, table, embedder, clock, settings)
        if as_of is not None:
            store.checkout(store.version_at(as_of))
        elif version is not None:
            store.checkout(versions.named(store._table, version))
        return store

    @property
    def table(self):
        """The LanceDB table of memories."""
        return self._table

    @property
    def version(self) -> int:
        """The table version this handle reads: its own last commit, or another process's
        once `max_staleness` seconds have passed since it last looked. Every read goes
        through here. Asking Lance on every read would cost a hop to its event loop
        (0.1-0.5 ms) that the search path does not pay."""
        now = time.monotonic()
        if self._version is not None and not self.read_only and now - self._checked_at >= self.max_staleness:
            stamp = self._versions_stamp()
            if stamp is not None and stamp == self._stamp:  # no commit since: nothing to read
                self._checked_at = now
            else:
                self._table.checkout_latest()
                self._version, self._stamp = None, stamp
        if self._version is None:
            version = self._table.version
            if version != self._seen:
                self._follow_model()
            self._version, self._seen, self._checked_at = version, version, now
        return self._version

    def _follow_model(self) -> None:
        """Embed as the store now records (a `memlib reembed` run moved it to another model
        while this handle was open); a schema read, once per version another process made."""
        recorded = (self._table.schema.metadata or {}).get(META_MODEL.encode(), b"").decode()
        if recorded and recorded != self.embedder.name:
            log.info("the store now embeds with %s (was %s)", recorded, self.embedder.name)
            self.embedder = embedder_for(recorded, self.dims, self.settings)

    def record_model(self, embedder: Embedder) -> None:
        """Record `embedder` as the model the store's vectors are made with, in one commit
        (memlib.lifecycle.reembed); every handle follows within max_staleness."""
        self.record_setting(META_MODEL, embedder.name)
        self.embedder = embedder

    def record_setting(self, key: str, value: str) -> None:
        """Record one of the store's settings (`meta`) in one commit; every handle follows
        within max_staleness."""
        self.check_writable()

        def update() -> None:
            self._table.checkout_latest()
            self._table.to_lance().update_schema_metadata({key: value})

        committing(update)
        self._table.checkout_latest()
        self._committed(None)

    def _versions_stamp(self) -> int | None:
        """For a local store, the modification time of the table's `_versions` directory,
        where every commit writes its manifest: while it stays the same, no process has
        committed, and the version check needs no hop into Lance (a stat takes 5 us, the
        hop 0.4-1.2 ms, which a search paid whenever a second had passed since the last).
        None (ask Lance) for other stores, and while the time is too recent to trust on a
        file system that keeps times in coarse steps (2 s on the coarsest)."""
        if self._versions_dir is None:
            return None
        try:
            stamp = os.stat(self._versions_dir).st_mtime_ns
        except OSError:
            return None
        return stamp if time.time_ns() - stamp > COARSEST_MTIME_NS else None

    def refresh(self) -> int:
        """Read the latest version now (after a write through `table`, or another process's)."""
        if not self.read_only:
            self._table.checkout_latest()
        self._version = None
        return self.version

    def checkout(self, version: int) -> None:
        """Read `version` from now on; the handle becomes read-only."""
        self._table.checkout(version)
        self._version, self._dataset, self.read_only = None, None, True

    def version_at(self, as_of: AsOf | date | datetime | str) -> int:
        """The table version that was current at `as_of` (a date means its end)."""
        return versions.at(self._table, self.audit, AsOf.of(as_of, self.clock))

    def version_time(self, version: int | None = None) -> datetime:
        """When the memories of `version` (default: the one this handle reads) were written."""
        return versions.committed_at(versions.kept(self._table), self.audit.ledger(),
                                     self.version if version is None else version)

    def finish_unfinished(self) -> int:
        """Keep the promises of writers that stopped between a change's commits (a change
        committed without its audit events, a correction half made): store/journal.py.
        Returns how many; a handle that cannot write leaves them for one that can."""
        if self.read_only or not self.journal.names():
            return 0
        try:
            self.check_writable()
        except StoreError:
            return 0
        return self.journal.finish(self)

    def check_writable(self) -> None:
        """Refuse in one line, before anything is done, a write this handle cannot make."""
        if self.read_only:
            raise StoreError(f"the store is opened as of version {self.version}: it is read-only")
        if self._unwritable is None:
            self._unwritable = writable_dir(self.uri) or ""
        if self._unwritable:
            raise StoreError(self._unwritable)

    def _committed(self, result) -> int:
        """Note a commit of this handle; returns the version it made (a write's own version
        records no other model; after a maintenance step, `result` None, the next read looks)."""
        self._version = None
        version = getattr(result, "version", None)
        if version is not None:  # this handle's own write: a version it has seen
            self._seen = version
        return version or self._table.version

    @property
    def dims(self) -> int:
        if self._dims is None:  # fixed when the table is created; a schema read costs 0.3 ms
            self._dims = self._table.schema.field("embedding").type.list_size
        return self._dims

    @property
    def model_name(self) -> str:
        return self.meta()[META_MODEL]

    def meta(self) -> dict[str, str]:
        """What the store recorded when it was created: its model, dims, schema version and
        the settings given in `recorded`."""
        return recorded_meta(self._table)

    # -- writing ---------------------------------------------------------------------------
    # How these stay right with many processes on one store: store/concurrency.py.

    def add(self, memories: Iterable[Memory | dict] | str, vectors: np.ndarray | None = None,
            progress: bool = False, labels: Sequence[str] | None = None,
            actor: str | Mapping[str, str] | None = None, duplicates: str = "merge",
            user_id: str | None = None, project_id: str | None = None) -> list[str]:
        """Insert new memories in one commit; the whole batch is refused if one is invalid.
        `actor`: who writes them, or who writes each (by memory id: a group commit of several
        agents' writes, memlib.server), for the audit log. A text is one note to remember,
        a person's (`user_id`, no project needed) or a project's (models.as_memories).

        `vectors` (n, dims) may carry precomputed embeddings, one row per memory.
        `duplicates`: what becomes of a new memory that says what a stored one (or one before
        it in the batch) already says (`screen`): 'merge' (the default) writes an exact
        duplicate whose id the caller did not choose not at all, returns the id of the memory
        it repeats and records the writer as corroborating it; a near duplicate, or one with a
        chosen id, is written and linked to it. 'link' links every one; 'keep' looks for none."""
        if duplicates not in DUPLICATES:
            raise InvalidInput(f"duplicates must be one of {', '.join(DUPLICATES)}, not {duplicates!r}")
        return self._write(as_memories(memories, user_id, project_id), vectors, progress, labels, actor,
                           upsert=False, action="write", duplicates=duplicates)

    def upsert(self, memories: Iterable[Memory | dict], vectors: np.ndarray | None = None,
               progress: bool = False, labels: Sequence[str] | None = None,
               actor: str | None = None, action: str = "upsert",
               details: dict | None = None, history: bool = False) -> list[str]:
        """Insert or replace by id in one commit, so re-running an import adds no duplicates;
        a memory equal to the stored one is left as it is (and not audited). `history`: a
        memory may name one that is nowhere (an export's reference to a removed memory,
        batch.check_parents)."""
        return self._write(memories, vectors, progress, labels, actor, upsert=True, action=action,
                           details=details, history=history, duplicates="link")

    def screen(self, batch: list[Memory], vectors: np.ndarray, positions: list[int], policy: str) -> list:
        """The new memories of `batch` (at `positions`) that repeat a stored memory or one
        before them in the batch: a list of consensus.duplicates.Match. The store alone
        finds none; MemoryStore judges them."""
        return []

    def _write(self, memories, vectors, progress, labels, actor, upsert: bool, action: str,
               details: dict | None = None, history: bool = False, duplicates: str = "keep") -> list[str]:
        self.check_writable()
        self.migrate()
        items, embedded = listed(memories), {}
        for attempt in range(ATTEMPTS):
            batch = batches.prepare(self, items, upsert=upsert, progress=progress and attempt == 0,
                                    vectors=vectors, labels=labels, embedded=embedded, history=history,
                                    duplicates=duplicates)
            if batch.rows.num_rows == 0:
                return self._written(batch, actor)
            with self.lock.held():
                # unchanged since it was checked: no commit since, or none to these ids
                if self.refresh() == batch.version or self.revisions(batch.ids) == batch.read:
                    ids = batch.rows.column("id").to_pylist()
                    events = self.audit.rows(action, ids, actor=actors(actor, ids), details=details)
                    with self.journal.promise(events=gated(events, ids, batch.rows.column("revision").to_pylist())):
                        applied, version = self._commit(batch.rows, upsert)
                        self.audit.append(_of(events, applied), version)
                else:
                    applied = []
            if applied:
                self.index_quietly()
            if len(applied) == batch.rows.num_rows:
                return self._written(batch, actor)
            pause(attempt)
        raise Contended(f"{action} of {len(items)} memories lost to other writers {ATTEMPTS} times")

    def _written(self, batch, actor: str | Mapping[str, str] | None) -> list[str]:
        """The ids a write returns: a merged repeat's is the id of the memory it repeats
        (`last_merged` maps the one to the other, for the caller who asks)."""
        self._record_duplicates(batch, actor)
        self.last_merged = dict(batch.merged)
        return [batch.merged.get(i, i) for i in batch.ids]

    def _record_duplicates(self, batch, actor: str | Mapping[str, str] | None) -> None:
        """What the screen found, in the audit log, one commit per action: a merged repeat as
        a 'corroborate' event of the memory it repeats (who wrote it again, the id it would
        have had); a linked one as a 'duplicate' event of the new memory naming the one it
        repeats. (What contradicts or updates what is read after the write: memlib.judges.)"""
        events: dict[str, tuple[list, list, list]] = {a: ([], [], []) for a in ("corroborate", "duplicate")}

        def add(action: str, subject: str, details: dict) -> None:  # written by new_id's writer
            events[action][0].append(subject)
            events[action][1].append(details)
            events[action][2].append(writer)

        for found in batch.duplicates:
            new_id = batch.ids[found.position]
            writer = actor.get(new_id) if isinstance(actor, Mapping) else actor
            details = {"kind": found.kind, "cosine": round(found.cosine, 4), "project_id": found.project_id}
            if new_id in batch.merged:
                add("corroborate", found.of, {**details, "duplicate": new_id})
            else:
                add("duplicate", new_id, {**details, "of": found.of})
        for action, (subjects, details, writers) in events.items():
            self.audit.record(action, subjects, actor=writers, details=details)

    def revisions(self, ids: Sequence[str]) -> dict[str, int | None]:
        """The stored revision of each id (None: not stored), read from this handle's version."""
        found = self.lookup(ids, ["revision"])
        return {i: (found[i]["revision"] or 0) if i in found else None for i in ids}

    def _commit(self, rows: pa.Table, upsert: bool) -> tuple[list[str], int]:
        """Write prepared rows: appended, or merged by id on the condition that each stored
        row still has the revision it was read at. Returns the ids that took effect."""
        ids = rows.column("id").to_pylist()
        if not upsert:
            version = self._committed(committing(lambda: self._table.add(rows)))
            for on_append in self._listeners:
                on_append(rows, version)
            return ids, version
        result = committing(lambda: self._table.merge_insert("id").when_matched_update_all(where=CAS)
                            .when_not_matched_insert_all().execute(rows))
        version = self._committed(result)
        if result.num_updated_rows + result.num_inserted_rows == len(ids):
            return ids, version
        return self._took_effect(rows), version

    def _took_effect(self, rows: pa.Table) -> list[str]:
        """The ids of `rows` the store now holds as written (a conditional merge skips rows
        another process changed first): the same revision and the same values in every
        column written but the vector (a partial merge, such as the usage fold, writes
        neither `updated_at` nor the text)."""
        self.refresh()
        columns = [c for c in rows.column_names if c != "embedding"]
        wanted = {r["id"]: r for r in rows.select(columns).to_pylist()}
        found = self.lookup(list(wanted), columns)
        return [i for i, r in wanted.items() if i in found and all(found[i][c] == r[c] for c in columns)]

    def merge_columns(self, rows: pa.Table, action: str, actor: str | None = None,
                      details: dict | None = None) -> tuple[list[str], int | None]:
        """Update some columns of existing rows by id in one commit (no re-embedding: the
        columns must not change the text). `rows` carry the revision each row will have, one
        more than the one read: a row changed meanwhile is skipped. Audited as `action`;
        returns the ids that took effect and the version."""
        self.check_writable()
        # Lance 0.40 panics on a conditional merge of some columns through the id index
        # (tests/test_store.py::test_partial_conditional_merge); such a merge scans instead.
        partial = set(rows.column_names) != set(self._table.schema.names)
        ids = rows.column("id").to_pylist()
        events = self.audit.rows(action, ids, actor=actor, details=details)
        with self.journal.promise(events=gated(events, ids, rows.column("revision").to_pylist())):
            result = committing(lambda: self._table.merge_insert("id").use_index(not partial)
                                .when_matched_update_all(where=CAS).execute(rows))
            version = self._committed(result)
            applied = (ids if result.num_updated_rows == rows.num_rows
                       else self._took_effect(rows) if result.num_updated_rows else [])
            self.audit.append(_of(events, applied), version)
        return applied, version

    def update(self, memory_id: str, action: str = "update", actor: str | None = None,
               reason: str | None = None, **changes: Any) -> Memory:
        """Change fields of one memory; re-embeds if its text changed, keeps its id. The audit
        event records `action`, the changed fields' old and new values and the reason."""
        return self.modify(memory_id, lambda memory: changes, action=action, actor=actor, reason=reason)

    def modify(self, memory_id: str, change: Callable[[Memory], dict[str, Any]], action: str = "update",
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Change one memory by what `change` computes from its current state: a
        compare-and-set, recomputed from a fresh read whenever another process changed the
        memory first, so no change is lost."""
        self.check_writable()
        self.migrate()
        for attempt in range(ATTEMPTS):
            self.refresh()
            stored = self.require([memory_id], self._table.schema.names)[memory_id]
            memory = from_row(stored)
            changes = change(memory)
            for frozen in ("id", "kind", "created_at"):
                if frozen in changes:
                    raise InvalidInput(f"{frozen} of a memory cannot be changed")
            data = memory.model_dump()
            before = {k: data.get(k) for k in changes if k != "embedding"}
            if "embedding" not in changes and all(before[k] == v for k, v in changes.items()):
                return memory  # already so: nothing to write, nothing to audit
            data.update(changes)
            data["updated_at"] = self.clock.now()
            if "embedding" not in changes:
                data["embedding"] = None  # kept if the text stays, else embedded again
            batch = batches.prepare(self, [parse_memory(data, record=f"memory {memory_id}")],
                                    upsert=True, progress=False)
            if batch.read[memory_id] != (stored["revision"] or 0) or not batch.rows.num_rows:
                pause(attempt)  # changed between the two reads: compute again
                continue
            applied, version = self.merge_columns(
                batch.rows, action, actor=actor,
                details={"before": before, "after": {k: v for k, v in changes.items() if k != "embedding"},
                         **({"reason": reason} if reason else {})})
            if applied:
                self.index_quietly()
                return self.get(memory_id)
            pause(attempt)
        raise Contended(f"{action} of memory {memory_id} lost to other writers {ATTEMPTS} times")

    def delete(self, ids: Sequence[str], cascade: bool = False, actor: str | None = None) -> int:
        """Delete memories (and, with cascade, what hangs off them) in one commit."""
        self.check_writable()
        ids = list(dict.fromkeys([ids] if isinstance(ids, str) else ids))  # one id, or many
        if not ids:
            return 0
        with self.lock.held():  # no child is added to what is being deleted
            self.refresh()
            self.require(ids, ["id"])
            n_children = self.children(ids)
            if n_children and not cascade:
                raise InvalidInput(f"{n_children} memories hang off these; delete with cascade "
                                   f"(--cascade) to remove them too")
            where = sql_in("id", ids)
            if cascade:
                where = f"{where} OR {sql_in('root_task_id', ids)} OR {sql_in('project_id', ids)}"
            removed = self.dataset().to_table(columns=["id"], filter=where).column("id").to_pylist()
            events = self.audit.rows("delete", removed, actor=actor, details={"cascade": cascade})
            with self.journal.promise(events=gated(events, removed, [None] * len(removed))):
                version = self.delete_where(where)
                self.audit.append(events, version)
        return len(removed)

    def children(self, ids: Sequence[str]) -> int:
        """How many memories hang off these (their root task or project) and are not among them."""
        return self._table.count_rows(f"({sql_in('root_task_id', ids)} OR {sql_in('project_id', ids)}) "
                                      f"AND NOT {sql_in('id', ids)}")

    def delete_where(self, where: str) -> int:
        """Delete the rows a filter selects in one commit; the caller audits. Returns the version."""
        self.check_writable()
        return self._committed(committing(lambda: self._table.delete(where)))

    def restore(self, rows: pa.Table) -> tuple[list[str], int | None]:
        """Put back byte for byte the rows whose ids the store does not hold (an undo), in one
        commit; the caller audits. Returns the ids restored and the version."""
        self.check_writable()
        with self.lock.held():
            self.refresh()
            present = self.lookup(rows.column("id").to_pylist(), ["id"])
            rows = rows.filter(pc.invert(pc.is_in(rows.column("id"), pa.array(sorted(present), pa.string()))))
            if not len(rows):
                return [], None
            for name in self._table.schema.names:
                if name not in rows.column_names:  # archived before the column existed
                    rows = rows.append_column(name, pa.nulls(len(rows), self._table.schema.field(name).type))
            rows = rows.select(self._table.schema.names).cast(self._table.schema)
            return rows.column("id").to_pylist(), self._committed(committing(lambda: self._table.add(rows)))

    # -- reading ---------------------------------------------------------------------------

    def get(self, memory_id: str, with_embedding: bool = False) -> Memory:
        columns = self.columns(with_embedding)
        return from_row(self.require([text_id(memory_id, "memory")], columns)[memory_id])  # from memory when it can

    def require(self, ids: Sequence[str], columns: list[str]) -> dict[str, dict]:
        """`lookup` of ids that must all exist: the first missing one is refused in one line."""
        found = self.lookup(ids, columns)
        missing = next((i for i in ids if i not in found), None)
        if missing is not None:
            raise NotFound(f"no memory with id {missing!r}")
        return found

    def count(self, scope: Scope | None = None) -> int:
        """Memories in `scope` (a Scope or a dict of its fields); every row, expired ones too,
        without one."""
        where = Scope.given(scope).where(self.clock.now()) if scope else None
        self.version  # noqa: B018 (fresh within max_staleness)
        return self._table.count_rows(where) if where else self._table.count_rows()

    def iter_rows(self, batch_size: int = 4096) -> Iterator[dict[str, Any]]:
        """Every row, embeddings included, in stable order (for export)."""
        for batch in self.dataset().to_batches(batch_size=batch_size):
            yield from batch.to_pylist()

    def rows(self, where: str, limit: int, columns: list[str] | None = None,
             with_embedding: bool = False) -> list[dict]:
        if columns is None:
            columns = self.columns(with_embedding)
        self.version  # noqa: B018 (fresh within max_staleness)
        return self._table.search().where(where).select(columns).limit(limit).to_list()

    def cached(self, searching: bool = False):
        """The rows of the version this handle reads held in memory (`take(ids, columns)`:
        whoever `hold`s them for this handle, such as a MemoryStore's vector cache), or None.
        `searching`: a search asks (the holder may start loading them for the next one)."""
        return None if self._holder is None else self._holder(searching)

    def hold(self, holder: Callable[[bool], Any]) -> None:
        """Let `holder(searching)` answer `cached` for this handle."""
        self._holder = holder

    def listen(self, on_append: Callable[[pa.Table, int], None]) -> None:
        """Call `on_append(rows, version)` after each append this handle commits (a cache
        takes the rows from there rather than reading them back)."""
        self._listeners.append(on_append)

    def lookup(self, ids: Sequence[str], columns: list[str]) -> dict[str, dict]:
        """Rows of the given ids that exist, chunked so filters stay small. A filter reads
        the rows the id index does not cover yet, once per chunk; when the chunks would read
        more than the table holds (a bulk load's adds before `maintain`), one pass over the id
        column finds them instead."""
        found: dict[str, dict] = {}
        rows = self._table.count_rows() if len(ids) > LOOKUP_CHUNK else None
        if not ids or rows == 0:
            return found  # a bulk load into an empty table: nothing to look up
        cols = list(dict.fromkeys(["id", *columns]))
        if "embedding" not in cols and (cache := self.cached()) is not None:
            return {row["id"]: row for row in cache.take(list(ids), cols)}
        if rows is not None and -(-len(ids) // LOOKUP_CHUNK) * self.unindexed("id") >= rows:
            dataset = self.dataset()
            wanted = pa.array(list(ids), pa.string())
            held = pc.is_in(dataset.to_table(columns=["id"]).column("id"), value_set=wanted)
            at = np.flatnonzero(held.to_numpy(zero_copy_only=False))
            return {row["id"]: row for row in dataset.take(at, columns=cols).to_pylist()} if len(at) else found
        for start in range(0, len(ids), LOOKUP_CHUNK):
            chunk = ids[start:start + LOOKUP_CHUNK]
            for row in self.rows(sql_in("id", chunk), limit=len(chunk), columns=cols):
                found[row["id"]] = row
        return found

    def unindexed(self, column: str) -> int:
        """Rows the scalar index on `column` does not cover yet: all of them without one."""
        name = self._indexes().get(column)
        stats = None if name is None else self._table.index_stats(name)
        return self._table.count_rows() if stats is None else stats.num_unindexed_rows

    def stats(self) -> dict[str, Any]:
        data = self.dataset().to_table(columns=["level", "kind", "project_id"])
        projects = self.dataset().to_table(columns=["id", "name"], filter="kind = 'project'")
        names = dict(zip(projects.column("id").to_pylist(), projects.column("name").to_pylist()))

        def counts(column: str) -> dict:
            grouped = data.group_by(column).aggregate([(column, "count")]).to_pylist()
            return {str(r[column]): r[f"{column}_count"] for r in
                    sorted(grouped, key=lambda r: (r[column] is None, str(r[column])))}

        by_project = {f"{names.get(k, '?')} ({k})": v for k, v in counts("project_id").items()}
        return {
            "store": self.uri, "model": self.model_name, "dims": self.dims, "tokenizer": self.tokenizer,
            "memories": data.num_rows, "by_level": counts("level") if data.num_rows else {},
            "by_kind": counts("kind") if data.num_rows else {},
            "by_project": by_project if data.num_rows else {},
            "recall_events": self.recalls.dataset().count_rows(),
            "recall_segments_pending": len(self.recalls.segments()),
            "version": self.version,
        }

    def dataset(self):
        """The Lance dataset behind the memories table, kept while the table's version holds:
        a warm handle keeps its caches, a fresh one per query is several times slower."""
        version = self.version
        if self._dataset is None or self._dataset[0] != version:
            self._dataset = (version, self._table.to_lance())
        return self._dataset[1]

    # -- indexes ---------------------------------------------------------------------------

    def _indexes(self) -> dict[str, str]:
        """{column: index name} of the table's one-column indexes, at the handle's version
        (found by column: an index may have any name)."""
        return {ix.columns[0]: ix.name for ix in self._table.list_indices() if len(ix.columns) == 1}

    def has_vector_index(self) -> bool:
        if self._vector_index is None:
            self._vector_index = "embedding" in self._indexes()
        return self._vector_index

    def create_vector_index(self, config) -> None:
        self._table.create_index("embedding", config=config)
        self._committed(None)
        self._vector_index = True

    def ensure_indexes(self) -> list[str]:
        """Create the scalar and full-text indexes that do not exist yet (needs rows: an index
        made empty would score every row it does not cover as if each word were rare, until
        maintain folds them in). Another process building one at the same time is no error:
        its index serves. A search that meets a table without its full-text index (the first
        write stopped before it) builds them (build_missing_indexes)."""
        if self._indexed:
            return []
        created = []
        wanted = {**SCALAR_INDEXES, "text": FTS(with_position=False, base_tokenizer=self.tokenizer)}

        def indexed() -> set[str]:
            self._table.checkout_latest()  # another process may have built some meanwhile
            return set(self._indexes())

        existing = indexed()
        for column, config in wanted.items():
            if column in existing:
                continue

            def build(column=column, config=config) -> bool:
                if column in indexed():
                    return False
                self._table.create_index(column, config=config, replace=False)
                return True
            try:
                if committing(build):
                    created.append(column)
            except Exception as exc:
                if "already exists" not in str(exc):
                    raise
        self._committed(None)  # the handle moved to the latest version
        self._indexed = True
        return created

    def build_missing_indexes(self) -> bool:
        """Build now the indexes the table lacks (a store whose creation stopped before them);
        False if this handle may not write or the build failed."""
        try:
            self.check_writable()
            self.refresh()
            if not self._table.count_rows():
                return False
            self._indexed = False
            self.ensure_indexes()
            return True
        except Exception as exc:
            log.warning("indexes not built now: %s", in_words(exc))
            return False

    def index_quietly(self) -> None:
        """Index and tidy after a write: best effort, never failing the write it follows
        (maintain builds and compacts what is left)."""
        try:
            if not self._indexed:
                self.ensure_indexes()
            self.tidy()
        except Exception as exc:  # said once per handle: a busy store would say it at every write
            if not self._tidy_said:
                self._tidy_said = True
                log.warning("memlib: left indexing and compaction after a write to the next memlib maintain (%s)",
                            in_words(exc))

    def tidy(self) -> bool:
        """Merge the small fragments single writes leave behind, once there are enough of
        them (tables.tidy), in the memories table and the audit log that grows with it;
        returns whether the memories merged. Counting fragments costs a millisecond, so a
        handle looks at every TIDY_EVERY-th of its writes. Small fragments a merge leaves (it
        cannot always merge them all) do not count towards starting the next one."""
        self._writes += 1
        if self._writes % TIDY_EVERY:
            return False
        with self.lock.tried() as free:
            if not free:  # another process is writing: it (or a later write) tidies, not two at once
                return False
            if self.audit.exists():
                tidy(self.audit.table)
            left = tidy(self._table, self._tidy_at, self.dataset())
        if left is None:
            return False
        self._committed(None)
        self._tidy_at = left + TIDY_FRAGMENTS
        return True

    def optimize(self) -> None:
        """Merge the memories table's fragments of fewer than COMPACT_ROWS rows (and rewrite
        those with a tenth of their rows deleted), then fold the rows no index covers yet into
        the indexes. Old versions are not cleaned up here (Lance's `optimize` would drop the
        as-of window's after 7 days, and fails on a tagged one): maintain keeps the window and
        cleans up the rest."""
        def compact() -> None:
            self._table.checkout_latest()
            self._table.to_lance().optimize.compact_files(target_rows_per_fragment=COMPACT_ROWS)

        def index() -> None:
            self._table.checkout_latest()
            self._table.to_lance().optimize.optimize_indices()

        committing(compact)
        committing(index)
        self._table.checkout_latest()  # the commits were the Lance dataset's, not this handle's
        self._committed(None)

    def migrate(self) -> None:
        """Give a table written by an older memlib the columns added since, as nulls (once
        per handle: columns are only ever added)."""
        if self._migrated:
            return
        def add() -> bool:
            self.refresh()  # another process may have added them meanwhile
            return add_missing_columns(self._table, arrow_schema(self.dims))
        if committing(add):
            self._committed(None)
        self._migrated = True
