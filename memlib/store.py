"""MemoryStore: typed memories in a LanceDB table, written in batches, one commit per batch."""

from __future__ import annotations

import os
import uuid
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Sequence

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS, Bitmap, BTree, LabelList

from memlib.audit import AuditLog
from memlib.embeddings import Embedder, default_embedder, embedder_for
from memlib.errors import EmbedderMismatch, InvalidInput, InvalidMemory, NotFound, StoreError
from memlib.models import (
    SCHEMA_VERSION,
    Conversation,
    Decision,
    Kind,
    Knowledge,
    Memory,
    Pattern,
    RootTask,
    SubTask,
    arrow_schema,
    from_row,
    parse_memory,
    record_label,
    title_key,
    to_row,
)
from memlib.recall_log import RecallLog, open_table, spool_dir_for
from memlib.scope import Scope, sql_in, sql_literal
from memlib.vector_cache import CacheSlot

DEFAULT_URI = os.path.join("data", "store")
MEMORIES = "memories"
META_MODEL, META_DIMS, META_SCHEMA = "memlib.embedding_model", "memlib.embedding_dims", "memlib.schema_version"
SCALAR_INDEXES = {
    "id": BTree(), "source": Bitmap(), "created_at": BTree(), "level": Bitmap(), "kind": Bitmap(),
    "project_id": BTree(), "root_task_id": BTree(), "tags": LabelList(), "previous_id": BTree(),
}
EMBED_CHUNK = 256
LOOKUP_CHUNK = 2_000
CONTEXT_CHARS = 1_000  # of the turn before a conversation turn, indexed with it


def resolve_uri(uri: str | None) -> str:
    """`--store`, else MEMLIB_STORE, else the embedded default under data/."""
    return uri or os.environ.get("MEMLIB_STORE") or DEFAULT_URI


class MemoryStore:
    """The write/recall half of memlib over any LanceDB URI."""

    def __init__(self, uri: str, db, table, embedder: Embedder, vector_cache: str | None = None):
        self.uri, self.db, self._table, self.embedder = uri, db, table, embedder
        self._version: int | None = None
        self.recalls = RecallLog(db, spool_dir_for(uri))
        self.audit = AuditLog(db)
        self.vectors = CacheSlot(vector_cache)
        self._indexed = False
        self._vector_index: bool | None = None
        self._dataset = None
        self._dims: int | None = None
        self.read_only = False

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, uri: str | None = None, embedder: Embedder | None = None,
             create: bool = True, vector_cache: str | None = None,
             as_of: str | int | datetime | None = None) -> "MemoryStore":
        """`vector_cache`: "auto" (default, or $MEMLIB_VECTOR_CACHE) keeps the vectors in memory
        once a version of the table is searched twice, "on" at the first search, "off" never.
        `as_of`: open the store as it was (time travel, read-only): a table version ("12" or
        "v12"), a tag (such as a retention run's), or a date or time (the last version then)."""
        if as_of is not None:
            store = cls.open(uri, embedder, create=False, vector_cache=vector_cache)
            version = store.resolve_version(as_of)
            store._table.checkout(version)
            store._version, store._dataset, store.read_only = None, None, True
            return store
        uri = resolve_uri(uri)
        local = "://" not in uri or uri.startswith("file://")
        if local and not create and not os.path.isdir(os.path.join(uri.removeprefix("file://"), f"{MEMORIES}.lance")):
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
            return cls(uri, db, table, embedder, vector_cache)
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
        return cls(uri, db, table, embedder, vector_cache)

    @property
    def table(self):
        """The LanceDB table. Whoever takes it may write to it, so the version is read again
        after; the search path reads `version` alone and never pays that round trip."""
        self._version = None
        return self._table

    @property
    def version(self) -> int:
        """The table version this handle reads. LanceDB's handle sees other processes' commits
        only when reopened, so it changes only through `table`, and asking Lance every time
        (a hop to its event loop, 0.1-0.5 ms) is needless on the hot path."""
        if self._version is None:
            self._version = self._table.version
        return self._version

    def resolve_version(self, spec: str | int | datetime) -> int:
        """A table version from a number ("12", "v12"), a tag, or a date/time."""
        from memlib.analytics import as_of_end

        versions = self._table.list_versions()
        numbers = {v["version"] for v in versions}
        text = str(spec).strip()
        if isinstance(spec, int) or (text.lstrip("v").isdigit() and not text.startswith("0")):
            number = int(text.lstrip("v"))
            if number not in numbers:
                raise InvalidInput(f"the store has no version {number} (versions {min(numbers)} "
                                   f"to {max(numbers)} are kept)")
            return number
        tags = self._table.tags.list()
        if text in tags:
            return tags[text]["version"]
        try:
            when = as_of_end(spec)
        except InvalidInput:
            raise InvalidInput(f"--as-of {text!r} is not a version number, a tag or an ISO date") from None
        then = [v["version"] for v in versions if _utc(v["timestamp"]) <= when]
        if not then:
            raise InvalidInput(f"the store has no version as old as {text} (the oldest kept is "
                               f"from {_utc(versions[0]['timestamp']):%Y-%m-%d %H:%M:%S} UTC)")
        return max(then)

    def version_time(self) -> datetime:
        """When the version this handle reads was committed (UTC)."""
        return next(_utc(v["timestamp"]) for v in self._table.list_versions() if v["version"] == self.version)

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"the store is opened as of version {self.version}: it is read-only")

    @property
    def dims(self) -> int:
        if self._dims is None:  # fixed when the table is created; a schema read costs 0.3 ms
            self._dims = self.table.schema.field("embedding").type.list_size
        return self._dims

    @property
    def model_name(self) -> str:
        return self.table.schema.metadata[META_MODEL.encode()].decode()

    # -- writing ---------------------------------------------------------------------------

    def add(self, memories: Iterable[Memory | dict], vectors: np.ndarray | None = None,
            progress: bool = False, labels: Sequence[str] | None = None,
            actor: str | None = None) -> list[str]:
        """Insert new memories in one commit; the whole batch is refused if one is invalid.

        `vectors` (n, dims) may carry precomputed embeddings, one row per memory."""
        batch = self._prepare(memories, upsert=False, progress=progress, vectors=vectors,
                              labels=labels)
        ids = batch.column("id").to_pylist()
        if batch.num_rows:
            self._migrate()
            self.table.add(batch)
            self.ensure_indexes()
            self.audit.record("write", ids, actor=actor)
        return ids

    def upsert(self, memories: Iterable[Memory | dict], vectors: np.ndarray | None = None,
               progress: bool = False, labels: Sequence[str] | None = None,
               actor: str | None = None, action: str = "upsert",
               details: dict | None = None) -> list[str]:
        """Insert or replace by id in one commit, so re-running an import adds no duplicates."""
        batch = self._prepare(memories, upsert=True, progress=progress, vectors=vectors,
                              labels=labels)
        ids = batch.column("id").to_pylist()
        if batch.num_rows:
            self._migrate()
            (self.table.merge_insert("id").when_matched_update_all()
             .when_not_matched_insert_all().execute(batch))
            self.ensure_indexes()
            self.audit.record(action, ids, actor=actor, details=details)
        return ids

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
        data["updated_at"] = datetime.now(timezone.utc)
        data.setdefault("embedding", None)
        if "embedding" not in changes:
            data["embedding"] = None
        details = {"before": before, "after": {k: v for k, v in changes.items() if k != "embedding"}}
        if reason:
            details["reason"] = reason
        self.upsert([parse_memory(data, record=f"memory {memory_id}")], actor=actor, action=action,
                    details=details)
        return self.get(memory_id)

    def delete(self, ids: Sequence[str], cascade: bool = False) -> int:
        """Delete memories (and, with cascade, what hangs off them) in one commit."""
        self._writable()
        ids = list(dict.fromkeys(ids))
        if not ids:
            return 0
        found = self._lookup(ids, ["id"])
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"no memory with id {missing[0]!r}")
        children = (f"({sql_in('root_task_id', ids)} OR {sql_in('project_id', ids)}) "
                    f"AND NOT {sql_in('id', ids)}")
        n_children = self.table.count_rows(children)
        if n_children and not cascade:
            raise InvalidInput(f"{n_children} memories hang off these; delete with cascade "
                               f"(--cascade) to remove them too")
        where = sql_in("id", ids)
        if cascade:
            where = f"{where} OR {sql_in('root_task_id', ids)} OR {sql_in('project_id', ids)}"
        removed = self.dataset().to_table(columns=["id"], filter=where).column("id").to_pylist()
        self.table.delete(where)
        self.audit.record("delete", removed, details={"cascade": cascade})
        return len(removed)

    # -- reading ---------------------------------------------------------------------------

    def get(self, memory_id: str, with_embedding: bool = False) -> Memory:
        rows = self._rows(f"id = {sql_literal(memory_id)}", limit=1, with_embedding=with_embedding)
        if not rows:
            raise NotFound(f"no memory with id {memory_id!r}")
        return from_row(rows[0])

    def count(self, scope: Scope | None = None) -> int:
        where = scope.where() if scope else None
        return self.table.count_rows(where) if where else self.table.count_rows()

    def iter_rows(self, batch_size: int = 4096) -> Iterator[dict[str, Any]]:
        """Every row, embeddings included, in stable order (for export)."""
        for batch in self.dataset().to_batches(batch_size=batch_size):
            yield from batch.to_pylist()

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
            "version": self.table.version,
        }

    # -- search and recall -----------------------------------------------------------------

    def search(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               vector: np.ndarray | None = None):
        """`vector`: the query's embedding if the caller already has it (skips embedding)."""
        from memlib.search import search

        return search(self, text, k=k, mode=mode, scope=scope or Scope(), vector=vector)

    def warm(self) -> dict[str, Any]:
        """Load the vectors into memory now, for a process about to search many times."""
        cache = self.vectors.build(self)
        return {"rows": len(cache), "megabytes": round(cache.nbytes / 2**20, 1),
                "partitions": 0 if cache.offsets is None else len(cache.offsets) - 1,
                "seconds": round(self.vectors.build_seconds, 2)}

    def recall(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               agent: str | None = None):
        """Search on an agent's behalf and log one recall event per hit."""
        self._writable()
        hits = self.search(text, k=k, mode=mode, scope=scope)
        now, query_id = datetime.now(timezone.utc), str(uuid.uuid4())
        self.recalls.append([{
            "event_id": str(uuid.uuid4()), "query_id": query_id, "query_text": text,
            "memory_id": hit.id, "rank": hit.rank, "score": hit.score, "mode": mode,
            "agent": agent, "recalled_at": now,
        } for hit in hits])
        return hits

    def maintain(self) -> dict[str, Any]:
        from memlib.maintenance import maintain

        self._writable()
        return maintain(self)

    # -- indexes ---------------------------------------------------------------------------

    def dataset(self):
        """The Lance dataset behind the memories table, kept while the table's version holds:
        a warm handle keeps its caches, a fresh one per query is several times slower."""
        version = self.version
        if self._dataset is None or self._dataset[0] != version:
            self._dataset = (version, self._table.to_lance())
        return self._dataset[1]

    def has_vector_index(self) -> bool:
        if self._vector_index is None:
            self._vector_index = any(ix.columns == ["embedding"] for ix in self.table.list_indices())
        return self._vector_index

    def ensure_indexes(self) -> list[str]:
        """Create the scalar and full-text indexes that do not exist yet (needs rows)."""
        if self._indexed:
            return []
        existing = {tuple(ix.columns) for ix in self.table.list_indices()}
        created = []
        for column, config in SCALAR_INDEXES.items():
            if (column,) not in existing:
                self.table.create_index(column, config=config)
                created.append(column)
        if ("text",) not in existing:
            self.table.create_index("text", config=FTS(with_position=False))
            created.append("text")
        self._indexed = True
        return created

    # -- internals -------------------------------------------------------------------------

    def _rows(self, where: str, limit: int, columns: list[str] | None = None,
              with_embedding: bool = False) -> list[dict]:
        if columns is None:
            columns = [n for n in self.table.schema.names if with_embedding or n != "embedding"]
        return self.table.search().where(where).select(columns).limit(limit).to_list()

    def _lookup(self, ids: Sequence[str], columns: list[str]) -> dict[str, dict]:
        """Rows of the given ids that exist, chunked so filters stay small."""
        found: dict[str, dict] = {}
        if not ids or self.table.count_rows() == 0:
            return found
        cols = list(dict.fromkeys(["id", *columns]))
        for start in range(0, len(ids), LOOKUP_CHUNK):
            chunk = ids[start:start + LOOKUP_CHUNK]
            for row in self._rows(sql_in("id", chunk), limit=len(chunk), columns=cols):
                found[row["id"]] = row
        return found

    def _migrate(self) -> None:
        """Give a table written by an older memlib the columns added since, as nulls."""
        want = arrow_schema(self.dims)
        missing = [f for f in want if f.name not in self.table.schema.names]
        if missing:
            self.table.add_columns(pa.schema(missing))

    def _prepare(self, memories: Iterable[Memory | dict], upsert: bool, progress: bool,
                 vectors: np.ndarray | None = None,
                 labels: Sequence[str] | None = None) -> pa.Table:
        self._writable()
        items = list(memories)
        labels = list(labels) if labels is not None else [record_label(i, m) for i, m in enumerate(items)]
        batch = [m if isinstance(m, Memory) else parse_memory(m, label) for m, label in zip(items, labels)]
        seen: set[str] = set()
        for memory, label in zip(batch, labels):
            if memory.id in seen:
                raise InvalidMemory(label, "id", "appears twice in this batch")
            seen.add(memory.id)

        ids = [m.id for m in batch]
        existing = self._lookup(ids, ["kind", "text", "embedding"] if upsert else ["kind"])
        for memory, label in zip(batch, labels):
            old = existing.get(memory.id)
            if old and not upsert:
                raise InvalidMemory(label, "id", "already exists in the store (use upsert to replace it)")
            if old and old["kind"] != memory.kind.value:
                raise InvalidMemory(label, "kind", f"cannot change an existing {old['kind']} "
                                                   f"into a {memory.kind.value}")
        self._check_parents(batch, labels)
        self._check_titles(batch, labels)
        self._fill_context(batch)
        if vectors is None:
            vectors = self._vectors(batch, labels, existing, progress)
        elif vectors.shape != (len(batch), self.dims):
            raise InvalidInput(f"vectors have shape {vectors.shape}, expected ({len(batch)}, {self.dims})")

        rows = [to_row(m) for m in batch]
        for row in rows:
            row.pop("embedding")
        schema = arrow_schema(self.dims)
        table = pa.Table.from_pylist(rows, schema=pa.schema([f for f in schema if f.name != "embedding"]))
        flat = pa.array(vectors.reshape(-1), type=pa.float32())
        return table.append_column(schema.field("embedding"),
                                   pa.FixedSizeListArray.from_arrays(flat, self.dims))

    def _check_parents(self, batch: list[Memory], labels: list[str]) -> None:
        in_batch = {m.id: {"kind": m.kind.value, "project_id": getattr(m, "project_id", None)}
                    for m in batch}
        wanted = set()
        for m in batch:
            wanted.update(p for p in (getattr(m, "project_id", None), getattr(m, "root_task_id", None))
                          if p and p not in in_batch)
        known = {**self._lookup(sorted(wanted), ["kind", "project_id"]), **in_batch}

        def parent(label: str, field: str, pid: str, kind: Kind) -> dict:
            row = known.get(pid)
            if row is None or row["kind"] != kind.value:
                raise InvalidMemory(label, field, f"{kind.value} {pid!r} does not exist")
            return row

        for m, label in zip(batch, labels):
            if isinstance(m, RootTask):
                parent(label, "project_id", m.project_id, Kind.PROJECT)
            elif isinstance(m, SubTask):
                root = parent(label, "root_task_id", m.root_task_id, Kind.ROOT_TASK)
                if m.project_id is not None and m.project_id != root["project_id"]:
                    raise InvalidMemory(label, "project_id",
                                        f"root task {m.root_task_id!r} belongs to another project")
                m.project_id = root["project_id"]
                in_batch[m.id]["project_id"] = m.project_id
            elif isinstance(m, Knowledge):
                parent(label, "project_id", m.project_id, Kind.PROJECT)
                if m.root_task_id:
                    root = parent(label, "root_task_id", m.root_task_id, Kind.ROOT_TASK)
                    if root["project_id"] != m.project_id:
                        raise InvalidMemory(label, "root_task_id",
                                            f"root task {m.root_task_id!r} belongs to another project")

    def _check_titles(self, batch: list[Memory], labels: list[str]) -> None:
        """Decision titles and pattern names are unique per project (see models.title_key)."""
        titled = [(m, label) for m, label in zip(batch, labels) if isinstance(m, (Decision, Pattern))]
        if not titled:
            return
        taken: dict[tuple, str] = {}
        if self._table.count_rows():
            projects = sorted({m.project_id for m, _ in titled})
            rows = self.dataset().to_table(
                columns=["id", "kind", "project_id", "title", "name"],
                filter=f"kind IN ('decision', 'pattern') AND {sql_in('project_id', projects)}").to_pylist()
            for row in rows:
                text = row["title"] if row["kind"] == "decision" else row["name"]
                taken[(row["kind"], row["project_id"], title_key(text))] = row["id"]
        ids = {m.id for m, _ in titled}
        taken = {key: owner for key, owner in taken.items() if owner not in ids}  # replaced by the batch
        for memory, label in titled:
            title = getattr(memory, memory.TITLE)
            key = (memory.kind.value, memory.project_id, title_key(title))
            owner = taken.get(key)
            if owner is not None and owner != memory.id:
                raise InvalidMemory(label, memory.TITLE,
                                    f"a {memory.kind.value} named {title!r} already exists in project "
                                    f"{memory.project_id} ({owner}); titles are unique per project")
            taken[key] = memory.id

    def _fill_context(self, batch: list[Memory]) -> None:
        """A conversation turn given neither `previous_id` nor `context` gets both from the turn
        before it in its thread (same project and iteration): the one before it in this batch,
        which is taken in thread order, else the latest stored turn of the thread created
        before it. A turn given either keeps what it was given."""
        last: dict[tuple, Conversation] = {}
        first: list[Conversation] = []  # their turn before is in the store, if anywhere
        for memory in batch:
            if not isinstance(memory, Conversation):
                continue
            thread = (memory.project_id, memory.iteration_id)
            if memory.previous_id is None and memory.context is None:
                if thread in last:
                    _follow(memory, last[thread].id, last[thread].content)
                else:
                    first.append(memory)
            last[thread] = memory
        if not first or self._table.count_rows() == 0:
            return
        iterations = sorted({m.iteration_id for m in first if m.iteration_id is not None})
        same_iteration = ["iteration_id IS NULL"] if any(m.iteration_id is None for m in first) else []
        if iterations:
            same_iteration.append(sql_in("iteration_id", iterations))
        where = (f"kind = 'conversation' AND {sql_in('project_id', sorted({m.project_id for m in first}))} "
                 f"AND ({' OR '.join(same_iteration)})")
        stored = self.dataset().to_table(
            columns=["id", "project_id", "iteration_id", "created_at", "content"], filter=where)
        threads: dict[tuple, list[dict]] = {}
        for row in stored.to_pylist():
            threads.setdefault((row["project_id"], row["iteration_id"]), []).append(row)
        for memory in first:
            earlier = [row for row in threads.get((memory.project_id, memory.iteration_id), [])
                       if row["created_at"] < memory.created_at and row["id"] != memory.id]
            if earlier:
                latest = max(earlier, key=lambda row: (row["created_at"], row["id"]))
                _follow(memory, latest["id"], latest["content"])

    def _vectors(self, batch: list[Memory], labels: list[str], existing: dict[str, dict],
                 progress: bool) -> np.ndarray:
        vectors = np.zeros((len(batch), self.dims), dtype=np.float32)
        todo: list[int] = []
        for i, (memory, label) in enumerate(zip(batch, labels)):
            old = existing.get(memory.id)
            if memory.embedding is not None:
                if len(memory.embedding) != self.dims:
                    raise InvalidMemory(label, "embedding", f"has {len(memory.embedding)} dims, "
                                                            f"the store's model has {self.dims}")
                vectors[i] = memory.embedding
            elif old is not None and old.get("embedding") is not None and old["text"] == memory.text:
                vectors[i] = old["embedding"]
            else:
                todo.append(i)
        chunks = range(0, len(todo), EMBED_CHUNK)
        if progress and len(todo) > EMBED_CHUNK:
            from tqdm import tqdm

            chunks = tqdm(chunks, desc="embedding", unit="batch", total=len(chunks), disable=None)
        for start in chunks:
            idx = todo[start:start + EMBED_CHUNK]
            vectors[idx] = self.embedder.embed([batch[i].text for i in idx])
        return vectors


def _follow(turn: Conversation, previous_id: str, previous_content: str) -> None:
    turn.previous_id = previous_id
    turn.context = previous_content[-CONTEXT_CHARS:]


def _utc(value: datetime) -> datetime:
    """Lance lists version times as naive local times."""
    return value.astimezone(timezone.utc) if value.tzinfo is None else value
