"""Store: typed memories in one LanceDB table, written in batches, one commit per batch.

It owns the tables of a store (memories, the audit log, the recall log), which version of
the memories it reads, and the writes: add, upsert, update, delete. Search, analytics and
the lifecycle build on it (memlib.MemoryStore is the store with search and maintenance).
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any, Iterable, Iterator, Sequence

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS, Bitmap, BTree, LabelList

from memlib.clock import Clock
from memlib.embeddings import Embedder, default_embedder, embedder_for
from memlib.errors import EmbedderMismatch, InvalidInput, NotFound, StoreError
from memlib.models import SCHEMA_VERSION, Memory, arrow_schema, from_row, parse_memory
from memlib.scope import Scope, sql_in, sql_literal
from memlib.store import batch as batches
from memlib.store import versions
from memlib.store.audit import AuditLog
from memlib.store.recall_log import RecallLog, spool_dir_for
from memlib.store.tables import MEMORIES, add_missing_columns, is_local, open_table

DEFAULT_URI = os.path.join("data", "store")
META_MODEL, META_DIMS, META_SCHEMA = "memlib.embedding_model", "memlib.embedding_dims", "memlib.schema_version"
SCALAR_INDEXES = {
    "id": BTree(), "source": Bitmap(), "created_at": BTree(), "level": Bitmap(), "kind": Bitmap(),
    "project_id": BTree(), "root_task_id": BTree(), "tags": LabelList(), "previous_id": BTree(),
}
LOOKUP_CHUNK = 2_000


def resolve_uri(uri: str | None) -> str:
    """`--store`, else MEMLIB_STORE, else the embedded default under data/."""
    return uri or os.environ.get("MEMLIB_STORE") or DEFAULT_URI


class Store:
    """The write half of memlib over any LanceDB URI."""

    def __init__(self, uri: str, db, table, embedder: Embedder, clock: Clock | None = None):
        self.uri, self.db, self._table, self.embedder = uri, db, table, embedder
        self.clock = clock or Clock()
        self.recalls = RecallLog(db, spool_dir_for(uri), self.clock)
        self.audit = AuditLog(db, self.clock)
        self.read_only = False
        self._version: int | None = None
        self._indexed = False
        self._vector_index: bool | None = None
        self._dataset = None
        self._dims: int | None = None
        self._migrated = False

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, uri: str | None = None, embedder: Embedder | None = None, create: bool = True,
             as_of: str | int | datetime | None = None, clock: Clock | None = None, **options):
        """Open (or create) the store at `uri`. `as_of`: open it as it was (time travel,
        read-only): a table version ("12" or "v12"), a tag (such as a retention run's), or a
        date or time (the version current then; see store/versions.py)."""
        uri = resolve_uri(uri)
        if as_of is not None:
            create = False
        if is_local(uri) and not create and not os.path.isdir(
                os.path.join(uri.removeprefix("file://"), f"{MEMORIES}.lance")):
            raise StoreError(f"no memlib store at {uri!r} (run 'memlib init' first)")
        try:
            db = lancedb.connect(uri)
            table = open_table(db, MEMORIES)
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot open store {uri!r}: {exc}") from None
        if table is None:
            if not create:
                raise StoreError(f"no memlib store at {uri!r} (run 'memlib init' first)")
            embedder = embedder or default_embedder()
            meta = {META_MODEL: embedder.name, META_DIMS: str(embedder.dims),
                    META_SCHEMA: str(SCHEMA_VERSION)}
            table = db.create_table(MEMORIES, schema=arrow_schema(embedder.dims, meta), exist_ok=True)
            return cls(uri, db, table, embedder, clock, **options)
        meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
        if META_MODEL not in meta:
            raise StoreError(f"{uri!r} holds a '{MEMORIES}' table that memlib did not write")
        model, dims = meta[META_MODEL], int(meta[META_DIMS])
        if embedder is None:
            embedder = embedder_for(model, dims)
        elif embedder.name != model or embedder.dims != dims:
            raise EmbedderMismatch(
                f"store {uri!r} was written with {model} ({dims} dims), "
                f"not {embedder.name} ({embedder.dims} dims)")
        store = cls(uri, db, table, embedder, clock, **options)
        if as_of is not None:
            store.checkout(store.resolve_version(as_of))
        return store

    @property
    def table(self):
        """The LanceDB table of memories."""
        return self._table

    @property
    def version(self) -> int:
        """The table version this handle reads. It changes with this handle's own writes and
        with `refresh()`; asking Lance every time costs a hop to its event loop (0.1-0.5 ms)
        that the search path does not pay."""
        if self._version is None:
            self._version = self._table.version
        return self._version

    def refresh(self) -> int:
        """Read the latest version again (after a write through `table`, or another process's)."""
        if not self.read_only:
            self._table.checkout_latest()
        self._version = None
        return self.version

    def checkout(self, version: int) -> None:
        """Read `version` from now on; the handle becomes read-only."""
        self._table.checkout(version)
        self._version, self._dataset, self.read_only = None, None, True

    def resolve_version(self, spec: str | int | datetime) -> int:
        """A table version from a number ("12", "v12"), a tag, or a date/time."""
        return versions.resolve(self._table, self.audit, spec)

    def version_time(self, version: int | None = None) -> datetime:
        """When the memories of `version` (default: the one this handle reads) were written."""
        return versions.committed_at(versions.kept(self._table), self.audit.ledger(),
                                     self.version if version is None else version)

    def check_writable(self) -> None:
        if self.read_only:
            raise StoreError(f"the store is opened as of version {self.version}: it is read-only")

    def _committed(self, result) -> int:
        """Note a commit of this handle; returns the version it made."""
        self._version = None
        return getattr(result, "version", None) or self._table.version

    @property
    def dims(self) -> int:
        if self._dims is None:  # fixed when the table is created; a schema read costs 0.3 ms
            self._dims = self._table.schema.field("embedding").type.list_size
        return self._dims

    @property
    def model_name(self) -> str:
        return self._table.schema.metadata[META_MODEL.encode()].decode()

    # -- writing ---------------------------------------------------------------------------

    def add(self, memories: Iterable[Memory | dict], vectors: np.ndarray | None = None,
            progress: bool = False, labels: Sequence[str] | None = None,
            actor: str | None = None) -> list[str]:
        """Insert new memories in one commit; the whole batch is refused if one is invalid.

        `vectors` (n, dims) may carry precomputed embeddings, one row per memory."""
        return self._write(memories, vectors, progress, labels, actor, upsert=False, action="write")

    def upsert(self, memories: Iterable[Memory | dict], vectors: np.ndarray | None = None,
               progress: bool = False, labels: Sequence[str] | None = None,
               actor: str | None = None, action: str = "upsert",
               details: dict | None = None) -> list[str]:
        """Insert or replace by id in one commit, so re-running an import adds no duplicates."""
        return self._write(memories, vectors, progress, labels, actor, upsert=True, action=action,
                           details=details)

    def _write(self, memories, vectors, progress, labels, actor, upsert: bool, action: str,
               details: dict | None = None) -> list[str]:
        self.check_writable()
        batch = batches.prepare(self, memories, upsert=upsert, progress=progress, vectors=vectors,
                                labels=labels)
        ids = batch.column("id").to_pylist()
        if batch.num_rows:
            self.migrate()
            if upsert:
                result = (self._table.merge_insert("id").when_matched_update_all()
                          .when_not_matched_insert_all().execute(batch))
            else:
                result = self._table.add(batch)
            version = self._committed(result)
            self.ensure_indexes()
            self.audit.record(action, ids, actor=actor, details=details, version=version)
        return ids

    def merge_columns(self, rows: pa.Table, action: str, actor: str | None = None,
                      details: dict | None = None) -> int:
        """Update some columns of existing rows by id in one commit (no re-embedding: the
        columns must not change the text); audited as `action`. Returns the version."""
        self.check_writable()
        version = self._committed(self._table.merge_insert("id").when_matched_update_all().execute(rows))
        self.audit.record(action, rows.column("id").to_pylist(), actor=actor, details=details,
                          version=version)
        return version

    def update(self, memory_id: str, action: str = "update", actor: str | None = None,
               reason: str | None = None, **changes: Any) -> Memory:
        """Change fields of one memory; re-embeds if its text changed, keeps its id. The audit
        event records `action`, the changed fields' old and new values and the reason."""
        for frozen in ("id", "kind", "created_at"):
            if frozen in changes:
                raise InvalidInput(f"{frozen} of a memory cannot be changed")
        data = self.get(memory_id).model_dump()
        before = {k: data.get(k) for k in changes if k != "embedding"}
        data.update(changes)
        data["updated_at"] = self.clock.now()
        if "embedding" not in changes:
            data["embedding"] = None
        details = {"before": before, "after": {k: v for k, v in changes.items() if k != "embedding"}}
        if reason:
            details["reason"] = reason
        self.upsert([parse_memory(data, record=f"memory {memory_id}")], actor=actor, action=action,
                    details=details)
        return self.get(memory_id)

    def delete(self, ids: Sequence[str], cascade: bool = False, actor: str | None = None) -> int:
        """Delete memories (and, with cascade, what hangs off them) in one commit."""
        self.check_writable()
        ids = list(dict.fromkeys(ids))
        if not ids:
            return 0
        found = self.lookup(ids, ["id"])
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"no memory with id {missing[0]!r}")
        children = (f"({sql_in('root_task_id', ids)} OR {sql_in('project_id', ids)}) "
                    f"AND NOT {sql_in('id', ids)}")
        n_children = self._table.count_rows(children)
        if n_children and not cascade:
            raise InvalidInput(f"{n_children} memories hang off these; delete with cascade "
                               f"(--cascade) to remove them too")
        where = sql_in("id", ids)
        if cascade:
            where = f"{where} OR {sql_in('root_task_id', ids)} OR {sql_in('project_id', ids)}"
        removed = self.dataset().to_table(columns=["id"], filter=where).column("id").to_pylist()
        version = self._committed(self._table.delete(where))
        self.audit.record("delete", removed, actor=actor, details={"cascade": cascade}, version=version)
        return len(removed)

    def delete_where(self, where: str) -> int:
        """Delete the rows a filter selects in one commit; the caller audits. Returns the version."""
        self.check_writable()
        return self._committed(self._table.delete(where))

    def restore(self, rows: pa.Table) -> int:
        """Put rows back byte for byte (an undo); the caller audits. Returns the version."""
        self.check_writable()
        return self._committed(self._table.add(rows.select(self._table.schema.names)
                                               .cast(self._table.schema)))

    # -- reading ---------------------------------------------------------------------------

    def get(self, memory_id: str, with_embedding: bool = False) -> Memory:
        rows = self.rows(f"id = {sql_literal(memory_id)}", limit=1, with_embedding=with_embedding)
        if not rows:
            raise NotFound(f"no memory with id {memory_id!r}")
        return from_row(rows[0])

    def count(self, scope: Scope | None = None) -> int:
        where = scope.where(self.clock.now()) if scope else None
        return self._table.count_rows(where) if where else self._table.count_rows()

    def iter_rows(self, batch_size: int = 4096) -> Iterator[dict[str, Any]]:
        """Every row, embeddings included, in stable order (for export)."""
        for batch in self.dataset().to_batches(batch_size=batch_size):
            yield from batch.to_pylist()

    def rows(self, where: str, limit: int, columns: list[str] | None = None,
             with_embedding: bool = False) -> list[dict]:
        if columns is None:
            columns = [n for n in self._table.schema.names if with_embedding or n != "embedding"]
        return self._table.search().where(where).select(columns).limit(limit).to_list()

    def lookup(self, ids: Sequence[str], columns: list[str]) -> dict[str, dict]:
        """Rows of the given ids that exist, chunked so filters stay small."""
        found: dict[str, dict] = {}
        if not ids or (len(ids) > LOOKUP_CHUNK and self._table.count_rows() == 0):
            return found  # a bulk load into an empty table: nothing to look up
        cols = list(dict.fromkeys(["id", *columns]))
        for start in range(0, len(ids), LOOKUP_CHUNK):
            chunk = ids[start:start + LOOKUP_CHUNK]
            for row in self.rows(sql_in("id", chunk), limit=len(chunk), columns=cols):
                found[row["id"]] = row
        return found

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
            "store": self.uri, "model": self.model_name, "dims": self.dims,
            "memories": data.num_rows, "by_level": counts("level") if data.num_rows else {},
            "by_kind": counts("kind") if data.num_rows else {},
            "by_project": by_project if data.num_rows else {},
            "recall_events": self.recalls.table.count_rows(),
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

    def has_vector_index(self) -> bool:
        if self._vector_index is None:
            self._vector_index = any(ix.columns == ["embedding"] for ix in self._table.list_indices())
        return self._vector_index

    def create_vector_index(self, config) -> None:
        self._table.create_index("embedding", config=config)
        self._committed(None)
        self._vector_index = True

    def ensure_indexes(self) -> list[str]:
        """Create the scalar and full-text indexes that do not exist yet (needs rows)."""
        if self._indexed:
            return []
        existing = {tuple(ix.columns) for ix in self._table.list_indices()}
        created = []
        for column, config in SCALAR_INDEXES.items():
            if (column,) not in existing:
                self._table.create_index(column, config=config)
                created.append(column)
        if ("text",) not in existing:
            self._table.create_index("text", config=FTS(with_position=False))
            created.append("text")
        if created:
            self._committed(None)
        self._indexed = True
        return created

    def optimize(self, **kwargs) -> None:
        """Compact the memories table (and fold in new rows of its indexes)."""
        self._table.optimize(**kwargs)
        self._committed(None)

    def migrate(self) -> None:
        """Give a table written by an older memlib the columns added since, as nulls (once
        per handle: columns are only ever added)."""
        if self._migrated:
            return
        if add_missing_columns(self._table, arrow_schema(self.dims)):
            self._committed(None)
        self._migrated = True
