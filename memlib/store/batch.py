"""A batch of memories made ready for one commit: validated, checked against the store
(ids, parents, unique titles), conversation turns linked to the turn before them, embedded,
and laid out as one Arrow table. Nothing is written here; a batch with one bad memory is
refused whole before anything is."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pyarrow as pa

from memlib.errors import InvalidInput, InvalidMemory
from memlib.models import (
    Conversation,
    Decision,
    Kind,
    Knowledge,
    Memory,
    Pattern,
    RootTask,
    SubTask,
    arrow_schema,
    parse_memory,
    record_label,
    title_key,
    to_row,
)
from memlib.scope import sql_in

EMBED_CHUNK = 256
CONTEXT_CHARS = 1_000  # of the turn before a conversation turn, indexed with it


def prepare(store, memories: Iterable[Memory | dict], upsert: bool, progress: bool,
            vectors: np.ndarray | None = None, labels: Sequence[str] | None = None) -> pa.Table:
    items = list(memories)
    labels = list(labels) if labels is not None else [record_label(i, m) for i, m in enumerate(items)]
    batch = [m if isinstance(m, Memory) else parse_memory(m, label) for m, label in zip(items, labels)]
    seen: set[str] = set()
    for memory, label in zip(batch, labels):
        if memory.id in seen:
            raise InvalidMemory(label, "id", "appears twice in this batch")
        seen.add(memory.id)

    ids = [m.id for m in batch]
    parents = {p for m in batch for p in (getattr(m, "project_id", None), getattr(m, "root_task_id", None))
               if p and p not in seen}
    # one read for the batch's own ids and its parents
    found = store.lookup(sorted(seen | parents),
                         ["kind", "project_id", "text", "embedding"] if upsert else ["kind", "project_id"])
    existing = {i: found[i] for i in ids if i in found}
    for memory, label in zip(batch, labels):
        old = existing.get(memory.id)
        if old and not upsert:
            raise InvalidMemory(label, "id", "already exists in the store (use upsert to replace it)")
        if old and old["kind"] != memory.kind.value:
            raise InvalidMemory(label, "kind", f"cannot change an existing {old['kind']} "
                                               f"into a {memory.kind.value}")
    check_parents(batch, labels, {p: found[p] for p in parents if p in found})
    check_titles(store, batch, labels)
    fill_context(store, batch)
    if vectors is None:
        vectors = embed(store, batch, labels, existing, progress)
    elif vectors.shape != (len(batch), store.dims):
        raise InvalidInput(f"vectors have shape {vectors.shape}, expected ({len(batch)}, {store.dims})")

    rows = [to_row(m) for m in batch]
    for row in rows:
        row.pop("embedding")
    schema = arrow_schema(store.dims)
    table = pa.Table.from_pylist(rows, schema=pa.schema([f for f in schema if f.name != "embedding"]))
    flat = pa.array(vectors.reshape(-1), type=pa.float32())
    return table.append_column(schema.field("embedding"),
                               pa.FixedSizeListArray.from_arrays(flat, store.dims))


def check_parents(batch: list[Memory], labels: list[str], stored: dict[str, dict]) -> None:
    """Every parent exists (in the batch or among the `stored` rows) and is of its kind."""
    in_batch = {m.id: {"kind": m.kind.value, "project_id": getattr(m, "project_id", None)}
                for m in batch}
    known = {**stored, **in_batch}

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


def check_titles(store, batch: list[Memory], labels: list[str]) -> None:
    """Decision titles and pattern names are unique per project (see models.title_key)."""
    titled = [(m, label) for m, label in zip(batch, labels) if isinstance(m, (Decision, Pattern))]
    if not titled:
        return
    taken: dict[tuple, str] = {}
    if store.table.count_rows():
        projects = sorted({m.project_id for m, _ in titled})
        rows = store.dataset().to_table(
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


def fill_context(store, batch: list[Memory]) -> None:
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
    if not first or store.table.count_rows() == 0:
        return
    iterations = sorted({m.iteration_id for m in first if m.iteration_id is not None})
    same_iteration = ["iteration_id IS NULL"] if any(m.iteration_id is None for m in first) else []
    if iterations:
        same_iteration.append(sql_in("iteration_id", iterations))
    where = (f"kind = 'conversation' AND {sql_in('project_id', sorted({m.project_id for m in first}))} "
             f"AND ({' OR '.join(same_iteration)})")
    stored = store.dataset().to_table(
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


def _follow(turn: Conversation, previous_id: str, previous_content: str) -> None:
    turn.previous_id = previous_id
    turn.context = previous_content[-CONTEXT_CHARS:]


def embed(store, batch: list[Memory], labels: list[str], existing: dict[str, dict],
          progress: bool) -> np.ndarray:
    """Each memory's vector: given with it, kept from the stored row when its text is the
    same, else embedded (in chunks, with a progress bar on a terminal)."""
    vectors = np.zeros((len(batch), store.dims), dtype=np.float32)
    todo: list[int] = []
    for i, (memory, label) in enumerate(zip(batch, labels)):
        old = existing.get(memory.id)
        if memory.embedding is not None:
            if len(memory.embedding) != store.dims:
                raise InvalidMemory(label, "embedding", f"has {len(memory.embedding)} dims, "
                                                        f"the store's model has {store.dims}")
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
        vectors[idx] = store.embedder.embed([batch[i].text for i in idx])
    return vectors
