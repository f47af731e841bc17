"""A batch of memories made ready for one commit: validated, checked against the store
(ids, parents, unique titles), conversation turns linked to the turn before them, embedded,
and laid out as one Arrow table. Nothing is written here; a batch with one bad memory is
refused whole before anything is."""

from __future__ import annotations

import bisect
import contextlib
import gc
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pyarrow as pa

from memlib.clock import MAX_DAYS, days_until
from memlib.embeddings import SMALL_BATCH, embed_in_context
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
    spoken,
    title_key,
    to_columns,
    vector_problem,
)
from memlib.scope import sql_in

EMBED_CHUNK = 256
# The links a memory may name besides its parents, and the kinds they must name.
LINKS: dict[Kind, tuple[tuple[str, tuple[Kind, ...]], ...]] = {
    Kind.CONVERSATION: (("previous_id", (Kind.CONVERSATION,)),),
    Kind.DECISION: (("promoted_from", (Kind.INSIGHT,)),),
    Kind.PATTERN: (("promoted_from", (Kind.LEARNING,)),),
}
REFERENCES = ("project_id", "root_task_id", "previous_id", "promoted_from")
CONTEXT_CHARS = 1_000  # of the turn before a conversation turn, indexed with it
_early = None  # the thread small batches embed on while they are checked (_embed_early)


@dataclass
class Prepared:
    """A batch ready to commit: the rows that change the store (new, or different from the
    stored row), every id of the batch, and the revision each id had when it was read
    (None: not stored), the condition of the commit (store/concurrency.py)."""

    rows: pa.Table
    ids: list[str]
    read: dict[str, int | None]
    version: int  # of the table it was checked against
    embedded: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)  # what this batch embedded
    duplicates: list = field(default_factory=list)  # what the store's screen found (Store.screen)
    merged: dict[str, str] = field(default_factory=dict)  # a new id not written -> the memory it duplicates


@contextlib.contextmanager
def _collector_paused(pause: bool):
    """Python's cyclic garbage collector off while a batch that brings its vectors is checked
    and laid out: that creates no cycles, but its hundreds of thousands of new containers
    start full collections that walk every object of the process (half a second of 2.3 at
    100,000 memories in the peers bench). A batch the model embeds is left alone: the model
    takes a hundred times as long, and its work should be collected as usual."""
    enabled = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def prepare(store, memories: Iterable[Memory | dict], upsert: bool, progress: bool,
            vectors: np.ndarray | None = None, labels: Sequence[str] | None = None,
            embedded: dict[tuple[str, int], np.ndarray] | None = None, history: bool = False,
            duplicates: str = "keep") -> Prepared:
    """`embedded`: vectors already computed for some (text, lead)s (a retried batch embeds once).
    `history`: a reference to a memory neither stored nor in the batch is kept as a
    reference to history (check_parents), as an import of an export must. `duplicates`: what
    the store's screen does with a new memory that says what one stored already says
    (Store.screen: 'merge', 'link' or 'keep')."""
    with _collector_paused(pause=vectors is not None):
        return _prepare(store, memories, upsert, progress, vectors, labels, embedded, history, duplicates)


def _chose_id(item: Memory | dict) -> bool:
    """Whether the caller named the memory's id (it must then exist once written)."""
    return "id" in (item if isinstance(item, dict) else item.model_fields_set)


def _prepare(store, memories, upsert, progress, vectors, labels, embedded, history, duplicates) -> Prepared:
    items = list(memories)
    labels = list(labels) if labels is not None else [record_label(i, m) for i, m in enumerate(items)]
    batch = [_own(m) if isinstance(m, Memory) else parse_memory(m, label)
             for m, label in zip(items, labels)]
    if vectors is not None:
        try:
            with np.errstate(over="ignore"):  # past 32 bits a value becomes Infinity: refused below
                vectors = np.asarray(vectors, dtype=np.float32)  # a list of lists is fine
        except (TypeError, ValueError):
            raise InvalidInput("vectors must be a matrix of numbers, one row per memory") from None
        if vectors.shape != (len(batch), store.dims):
            raise InvalidInput(f"vectors have shape {vectors.shape}, expected ({len(batch)}, {store.dims})")
        problem = vector_problem(vectors) if len(vectors) else None
        if problem:
            raise InvalidInput(f"vector {problem[0]} {problem[1]}")
    seen: set[str] = set()
    for memory, label in zip(batch, labels):
        if memory.id in seen:
            raise InvalidMemory(label, "id", "appears twice in this batch")
        seen.add(memory.id)
    now = store.clock.now()
    stamp(batch, now)

    embedded = {} if embedded is None else embedded
    early = _embed_early(store, batch, embedded) if vectors is None else None
    try:
        ids, version, existing, relinked = _check(store, batch, labels, seen, upsert, history)
    except BaseException:
        if early is not None:  # a refused batch: its embedding thread ends before the error goes up
            early.exception()  # (left running, it met the interpreter's shutdown: "can't register atexit")
        raise
    if early is not None:
        embedded.update(early.result())
    live(batch, existing, now)
    matrix = embed(store, batch, labels, existing, progress, embedded, vectors, relinked)
    new = [i for i, memory in enumerate(batch) if memory.id not in existing]
    found = store.screen(batch, matrix, new, duplicates) if duplicates != "keep" and new else []
    referenced = {r for memory in batch for r in _references(memory)}
    merged = {batch[m.position].id: m.of for m in found if duplicates == "merge" and m.kind == "exact"
              and not _chose_id(items[m.position]) and batch[m.position].id not in referenced}

    columns = to_columns(batch)
    read = {i: (None if i not in existing else existing[i].get("revision") or 0) for i in ids}
    columns["revision"] = [0 if read[i] is None else read[i] + 1 for i in ids]
    keep = [i for i, memory_id in enumerate(ids) if memory_id not in merged and (
            memory_id not in existing
            or not same_row(existing[memory_id], {n: v[i] for n, v in columns.items()}, matrix[i]))]
    if len(keep) < len(ids):
        columns = {name: [values[i] for i in keep] for name, values in columns.items()}
        matrix = matrix[keep]
    schema = arrow_schema(store.dims)
    columns["embedding"] = pa.FixedSizeListArray.from_arrays(
        pa.array(matrix.reshape(-1), type=pa.float32()), store.dims)
    table = pa.Table.from_pydict(columns, schema=schema)
    return Prepared(table, ids, read, version, embedded, found, merged)


def _check(store, batch: list[Memory], labels: list[str], seen: set[str], upsert: bool, history: bool):
    """The batch against the store: new ids (or unchanged kinds), parents and titles, turns
    linked. Returns (ids, the version checked, the stored rows of the batch's ids, the turns
    whose links the store filled)."""
    ids = [m.id for m in batch]
    version = store.version
    parents = {p for m in batch for p in _references(m) if p not in seen}
    # one read for the batch's own ids and what they name
    columns = store.table.schema.names if upsert else ["kind", "project_id"]
    found = store.lookup(sorted(seen | parents), columns)
    existing = {i: found[i] for i in ids if i in found}
    for memory, label in zip(batch, labels):
        old = existing.get(memory.id)
        if old and not upsert:
            raise InvalidMemory(label, "id", "already exists in the store (use upsert to replace it)")
        if old and old["kind"] != memory.kind.value:
            raise InvalidMemory(label, "kind", f"cannot change an existing {old['kind']} "
                                               f"into a {memory.kind.value}")
    check_parents(batch, labels, {p: found[p] for p in parents if p in found}, existing, history)
    check_titles(store, batch, labels)
    return ids, version, existing, fill_context(store, batch, existing)


def stamp(batch: list[Memory], now) -> None:
    """A memory given no `created_at` (or `updated_at`) is made now by the store's clock, not
    the wall clock the model's default reads when it is built: a backfill through
    `MemoryStore.open(..., clock=Clock(t))` writes rows made at t, which reports dated after
    t then count."""
    for memory in batch:
        given = memory.model_fields_set
        for name in ("created_at", "updated_at"):
            if name not in given:
                memory.__dict__[name] = now  # already valid: skips validate_assignment's cost


def live(batch: list[Memory], existing: dict[str, dict], now) -> None:
    """A memory given no `ttl_days`: a stored one keeps the TTL it has (`existing`, the
    stored rows of an upsert; a re-run import is not rewritten for it), a new one lives its
    kind's default from when it is written (`lifetime`)."""
    for memory in batch:
        if "ttl_days" in memory.model_fields_set:
            continue
        stored = existing.get(memory.id, {}).get("ttl_days")
        memory.__dict__["ttl_days"] = stored if stored is not None else lifetime(type(memory), memory.created_at, now)


def lifetime(model: type[Memory], created_at, now) -> int:
    """The TTL of a memory of `model` made at `created_at` and written at `now` whose writer
    gave none: its kind's default days counted from `now`, in whole days after `created_at`
    (expiry stays created_at + ttl_days). A chat imported with its messages' own times, or
    a note dated last year, is then found for as long as one written today, not expired on
    arrival and left out of every search while nothing says so; a writer who gives
    `ttl_days` (an export does, and the sample's backfill) keeps exactly what it gave."""
    default = model.model_fields["ttl_days"].default
    if default < 0 or created_at >= now:
        return default
    return min(MAX_DAYS, default + days_until(created_at, now))


def _embed_early(store, batch: list[Memory], embedded: dict[tuple[str, int], np.ndarray]):
    """A small batch's texts embedding in the background while the batch is checked against
    the store (the model and the reads take about as long each, and a second core is idle):
    a future of {(text, lead): vector}, or None. Only texts the checks cannot change: not a
    turn whose context the store fills, not a memory that brings its own vector."""
    keys = sorted({(m.text, m.lead) for m in batch if m.embedding is None and (m.text, m.lead) not in embedded
                   and not (isinstance(m, Conversation) and m.previous_id is None and m.context is None)})
    if not keys or len(batch) > SMALL_BATCH:
        return None
    global _early
    if _early is None:
        from concurrent.futures import ThreadPoolExecutor

        _early = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlib-embed")
    return _early.submit(lambda: dict(zip(keys, embed_in_context(store.embedder, *zip(*keys)))))


def _own(memory: Memory) -> Memory:
    """The caller's memory, or a copy if the store may fill its links (a retried batch starts
    again from what the caller gave)."""
    if isinstance(memory, Conversation) and memory.previous_id is None and memory.context is None:
        return memory.model_copy()
    return memory


def same_row(stored: dict, row: dict, vector: np.ndarray) -> bool:
    """Whether writing `row` would change nothing of the `stored` one (its revision aside)."""
    for name, value in row.items():
        if name in ("revision", "embedding"):
            continue
        if stored.get(name) != value:
            return False
    old = stored.get("embedding")
    return old is not None and np.array_equal(np.asarray(old, dtype=np.float32), vector)


def _references(memory: Memory) -> list[str]:
    """The ids a memory names: its parents, the turn before it, what it was promoted from."""
    fields = memory.__dict__  # pydantic's getattr is slow; a project's own id is no field
    return [v for v in map(fields.get, REFERENCES) if v and v != memory.id]


def check_parents(batch: list[Memory], labels: list[str], stored: dict[str, dict],
                  existing: dict[str, dict] | None = None, history: bool = False) -> None:
    """Every parent exists (in the batch or among the `stored` rows) and is of its kind; so
    do the turn before a conversation turn and what a decision or pattern was promoted from,
    when they are new (a stored row keeps its link even after retention removed its target).
    With `history` (an import), a reference to a memory that is nowhere is kept as it is: it
    names a memory retention or a delete removed from the store the file came from, whose
    audit log holds it; one that exists must still be of its kind."""
    in_batch = {m.id: {"kind": m.kind.value, "project_id": getattr(m, "project_id", None)}
                for m in batch}
    known = {**stored, **in_batch}
    existing = existing or {}

    def parent(label: str, field: str, pid: str, *kinds: Kind) -> dict | None:
        """The parent's row; None for a reference to history."""
        row = known.get(pid)
        if row is None and history:
            return None
        if row is None or row["kind"] not in {k.value for k in kinds}:
            raise InvalidMemory(label, field, f"{' or '.join(k.value for k in kinds)} {pid!r} does not exist")
        return row

    for m, label in zip(batch, labels):
        for link, kinds in LINKS.get(m.kind, ()):
            value = getattr(m, link)
            if value is not None and value != (existing.get(m.id) or {}).get(link):
                if value == m.id:
                    raise InvalidMemory(label, link, "must not name the memory itself")
                parent(label, link, value, *kinds)
        if isinstance(m, RootTask):
            parent(label, "project_id", m.project_id, Kind.PROJECT)
        elif isinstance(m, SubTask):
            root = parent(label, "root_task_id", m.root_task_id, Kind.ROOT_TASK)
            if root is None:  # its root task is history: its project stays as exported
                continue
            if m.project_id is not None and m.project_id != root["project_id"]:
                raise InvalidMemory(label, "project_id",
                                    f"root task {m.root_task_id!r} belongs to another project")
            m.project_id = root["project_id"]
            in_batch[m.id]["project_id"] = m.project_id
        elif isinstance(m, Knowledge) and m.project_id is not None:  # else a person's own note
            parent(label, "project_id", m.project_id, Kind.PROJECT)
            if m.root_task_id:
                root = parent(label, "root_task_id", m.root_task_id, Kind.ROOT_TASK)
                if root is not None and root["project_id"] != m.project_id:
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


def fill_context(store, batch: list[Memory], existing: dict[str, dict]) -> set[str]:
    """A new conversation turn given neither `previous_id` nor `context` is linked to the
    turn before it in its thread (same project and iteration): the latest turn, stored or in
    this batch, created before it or at the same time and written before it (stored turns
    first, in the order the table holds them, which is the order they were written, a turn
    updated since counting as written then; then batch order). Ties are common: an import
    gives every message of a session or of a minute one time, often one add at a time.
    That turn's words, opened by its speaker's name (`spoken`), become its `context` when it
    is what the turn replies to:
    another speaker's, or either speaker unknown. A message after the same speaker's own
    keeps its words alone (in real chats it often starts another topic, and its vector would
    be pulled toward the one before); it is still linked, so search counts it as adjacent.
    A turn given either keeps what it was given, and a stored turn keeps its stored link (the
    store never rewrites a turn it holds). Returns the ids it filled."""
    turns = [m for m in batch if isinstance(m, Conversation)]
    first = [m for m in turns if m.previous_id is None and m.context is None]
    for memory in first:
        old = existing.get(memory.id)
        if old is not None:
            memory.previous_id, memory.context = old.get("previous_id"), old.get("context")
    first = [m for m in first if m.id not in existing]
    if not first:
        return set()
    threads: dict[tuple, list[tuple]] = {}  # thread -> [(order key, id, content, speaker)]
    for position, memory in enumerate(turns):
        threads.setdefault((memory.project_id, memory.iteration_id), []).append(
            ((memory.created_at, 1, position), memory.id, memory.content, memory.speaker))
    if store.table.count_rows():
        iterations = sorted({m.iteration_id for m in first if m.iteration_id is not None})
        same_iteration = ["iteration_id IS NULL"] if any(m.iteration_id is None for m in first) else []
        if iterations:
            same_iteration.append(sql_in("iteration_id", iterations))
        where = (f"kind = 'conversation' AND {sql_in('project_id', sorted({m.project_id for m in first}))} "
                 f"AND ({' OR '.join(same_iteration)})")
        in_batch = {m.id for m in turns}
        stored = store.dataset().to_table(
            columns=["id", "project_id", "iteration_id", "created_at", "content", "speaker"], filter=where)
        for k, row in enumerate(stored.to_pylist()):
            if row["id"] not in in_batch:
                threads.setdefault((row["project_id"], row["iteration_id"]), []).append(
                    ((row["created_at"], 0, k), row["id"], row["content"], row["speaker"]))
    positions = {m.id: i for i, m in enumerate(turns)}
    for thread in threads.values():
        thread.sort(key=lambda t: t[0])  # stable: equal keys keep the order they came in
    keys = {name: [t[0] for t in thread] for name, thread in threads.items()}
    filled = set()
    for memory in first:
        name = (memory.project_id, memory.iteration_id)
        before = bisect.bisect_left(keys[name], (memory.created_at, 1, positions[memory.id]))
        if before:  # the latest earlier turn (of several at one time, the last written)
            _, previous_id, content, speaker = threads[name][before - 1]
            memory.previous_id = previous_id
            if speaker is None or memory.speaker is None or speaker != memory.speaker:
                memory.context = spoken(speaker, content)[-CONTEXT_CHARS:]
            filled.add(memory.id)
    return filled


def embed(store, batch: list[Memory], labels: list[str], existing: dict[str, dict],
          progress: bool, embedded: dict[tuple[str, int], np.ndarray], given: np.ndarray | None = None,
          relinked: set[str] = frozenset()) -> np.ndarray:
    """Each memory's vector: given with it (or as a row of `given`), kept from the stored row
    when its text is the same, else embedded (in chunks, with a progress bar on a terminal).
    A turn whose context the store just filled (`relinked`) has a new text, so a vector given
    for it is not its own and it is embedded. What is embedded is added to `embedded`."""
    if given is not None:  # the caller's array itself unless a vector must be replaced
        todo = [i for i, memory in enumerate(batch) if memory.id in relinked]
        vectors = np.array(given, dtype=np.float32, copy=True if todo else None)
    else:
        vectors = np.zeros((len(batch), store.dims), dtype=np.float32)
        todo = []
    for i, (memory, label) in enumerate(zip(batch, labels) if given is None else ()):
        old = existing.get(memory.id)
        if memory.id in relinked:
            todo.append(i)
        elif memory.embedding is not None:
            if len(memory.embedding) != store.dims:
                raise InvalidMemory(label, "embedding", f"has {len(memory.embedding)} dims, "
                                                        f"the store's model has {store.dims}")
            vectors[i] = memory.embedding
        elif old is not None and old.get("embedding") is not None and old["text"] == memory.text:
            vectors[i] = old["embedding"]
        elif (key := (memory.text, memory.lead)) in embedded:
            vectors[i] = embedded[key]
        else:
            todo.append(i)
    keys = {i: (batch[i].text, batch[i].lead) for i in todo}  # what each vector is made of, read once
    # Longest first, as sentence-transformers orders one call's texts: chunked in that order,
    # each chunk's batches pad as little as one call over the whole batch would.
    todo.sort(key=lambda i: -len(keys[i][0]))
    chunks = range(0, len(todo), EMBED_CHUNK)
    if progress and len(todo) > EMBED_CHUNK:
        from tqdm import tqdm

        chunks = tqdm(chunks, desc="embedding", unit="batch", total=len(chunks), disable=None)
    for start in chunks:
        idx = todo[start:start + EMBED_CHUNK]
        vectors[idx] = embed_in_context(store.embedder, *zip(*(keys[i] for i in idx)))
        for i in idx:
            embedded[keys[i]] = vectors[i]
    return vectors
