"""`memlib maintain`: flush the recall spool, fold usage into memories, have the store's judge
read what it has not (memlib.judges.reading), make clusters made by another rule again
(memlib.consensus.store.renew), compact, index.

Which recall events a row has not folded yet is defined once, by sql/int_usage_unfolded.sql
(the view reports read too); the fold adds the flushed ones to usage_count and moves the
row's recalls_folded_until up to the last flush it folded, so a fold that dies part-way and
is run again never counts an event twice.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

import pyarrow as pa
from lancedb.index import IvfHnswSq

from memlib import analytics
from memlib.consensus.store import renew
from memlib.lifecycle.reembed import runs
from memlib.interface import StoreInterface
from memlib.models import arrow_schema
from memlib.clock import MAX_DAYS
from memlib.errors import whole_number
from memlib.search.vector_cache import vector_bytes
from memlib.settings import DEFAULT_VECTOR_CACHE_MB
from memlib.store.concurrency import retryable
from memlib.store.versions import CLEANUP_GRACE, HISTORY_DAYS

log = logging.getLogger("memlib")

# Lance's vector index serves the processes that search without the vector cache: a one-shot
# `memlib search`, and stores whose vectors outgrow the cache's default ceiling. A one-shot
# process gains nothing from it at 1M: its first query loads the index (2.2 s) where an exact
# scan takes 1.7 s (bench/README.md), while building it took most of maintain's 184.8 s after a
# 1M bulk load and 607 MB of disk. So maintain builds it once the default cache would not hold
# the vectors (vector_cache.vector_bytes above DEFAULT_VECTOR_CACHE_MB: about 2.2M rows of 384
# dimensions), or when asked (`maintain --vector-index`); once built, later rows join it at
# each maintain. Scoped queries of up to 20k rows are exact numpy scans either way.
# IVF_HNSW_SQ with a partition per ~4k rows, probed 16 at a time with a 4x exact re-rank:
# recall@10 0.973 against exact search at 100k real embeddings, 14 ms median
# (bench/vector_index.py, bench/results/vector_index.md). IVF_PQ (48 sub-vectors) builds in
# 85 s at 1M into 52 MB but finds 0.63 of the top 10 at the same probes.
ROWS_PER_PARTITION = 4_096

FOLD = """
select m.id,
       m.usage_count + u.n_unfolded_flushed as usage_count,
       greatest(m.last_accessed_at, u.last_unfolded_flushed_at) as last_accessed_at,
       u.unfolded_flushed_until as recalls_folded_until
from stg_memories m
join int_usage_unfolded u on u.memory_id = m.id
where u.n_unfolded_flushed > 0
"""
USAGE_COLUMNS = ["id", "usage_count", "last_accessed_at", "recalls_folded_until"]


def fold_usage(store: StoreInterface, actor: str = "maintain") -> int:
    """Fold the flushed recall events each memory has not folded yet into its usage_count
    and last_accessed_at. Returns how many memories changed.

    The caller holds the recall log's lock (no other fold or flush); the store's writer lock
    keeps imports out, and each row's revision condition skips a row changed meanwhile
    (its recalls stay unfolded until the next fold)."""
    if store.recall_dataset().count_rows() == 0:
        return 0
    with store.lock.held():
        store.refresh()
        con = analytics.connect(store, views=["int_usage_unfolded", "stg_memories"], time_travel=False)
        folded = con.execute(FOLD).to_arrow_table()
        con.close()
        if folded.num_rows == 0:
            return 0
        schema = arrow_schema(store.dims)
        folded = folded.cast(pa.schema([schema.field(c) for c in USAGE_COLUMNS]))
        read = store.revisions(folded.column("id").to_pylist())
        folded = folded.append_column(schema.field("revision"), pa.array(
            [None if read[i] is None else read[i] + 1 for i in folded.column("id").to_pylist()], pa.int64()))
        applied, _ = store.merge_columns(folded, "usage", actor=actor)
    return len(applied)


def vector_index_due(rows: int, dims: int) -> bool:
    """Whether a store this large needs Lance's vector index: the default cache would not
    hold its vectors."""
    return vector_bytes(rows, dims) > DEFAULT_VECTOR_CACHE_MB * 2**20


def ensure_vector_index(store: StoreInterface, force: bool = False, again: bool = False) -> bool:
    """Build the ANN index when it is due (or `force`d, at any size but an empty table);
    later rows join it on optimize. `again`: train it anew even if there is one (the vectors
    changed under it: memlib reembed)."""
    rows = store.count_rows()
    if rows == 0 or (store.has_vector_index() and not again) or not (force or vector_index_due(rows, store.dims)):
        return False
    store.create_vector_index(IvfHnswSq(distance_type="cosine",
                                        num_partitions=max(1, rows // ROWS_PER_PARTITION)))
    return True


def _vector_index_state(store: StoreInterface, built: bool, had: bool) -> str:
    """Why maintain built Lance's vector index or did not, in a line."""
    if built:
        return "built now"
    if had:
        return "built before: the new rows joined it"
    rows = store.count_rows()
    if rows == 0:
        return "not built: the store is empty"
    return (f"not needed yet: {rows:,} rows fit the vector cache (it is built once they would not, about "
            f"{int(DEFAULT_VECTOR_CACHE_MB * 2**20 / (vector_bytes(10**7, store.dims) / 10**7)):,} rows; "
            "memlib maintain --vector-index builds it now)")


def _unless_contended(what: str, step) -> bool:
    """Run a maintenance step; one that keeps losing to other writers' commits (after the
    retries) is left for the next run, with a warning, rather than failing maintain."""
    try:
        step()
        return True
    except Exception as exc:
        if not retryable(exc):
            raise
        log.warning("did not %s now (other writers kept committing); the next maintain will", what)
        return False


def maintain(store: StoreInterface, progress: bool = False, history_days: int = HISTORY_DAYS,
             grace: timedelta = CLEANUP_GRACE, vector_index: bool = False, read: bool = True) -> dict[str, Any]:
    """Flush, fold, have the judge read what it has not (`read`: a memory server's reader or
    `memlib screen` may do it instead), make clusters again that were made otherwise
    (`renew`), index and compact; keep the versions an as-of report of the last
    `history_days` days reads (and retention runs' tagged ones), and clean up the others
    older than `grace`. `vector_index`: build Lance's vector index now whatever the size."""
    whole_number(history_days, "history_days", 0, MAX_DAYS, "days")
    store.check_writable()
    store.finish_unfinished()
    started = time.perf_counter()
    steps = ["flush recalls", "fold usage", "read", "clusters", "indexes", "compact", "vector index", "as-of window", "clean up"]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(steps), desc="maintain", unit="step", disable=None)

    def done(step: str) -> None:
        if bar is not None:
            bar.set_postfix_str(step)
            bar.update(1)

    with store.flushing_recalls() as flushed:
        done("flush recalls")
        folded = fold_usage(store)
        done("fold usage")
    reader = getattr(store, "read_unread", None)  # a plain Store has no judge
    reading = reader(progress=progress) if reader is not None and read else None
    done("read")
    clusters = renew(store, actor="maintain", progress=progress, reembedded=lambda: bool(runs(store)))
    done("clusters")
    created = store.ensure_indexes() if store.count_rows() else []
    done("indexes")
    # compact first: an index built before would be remapped at once. Compaction loses to
    # writers that keep changing the same fragments; then it waits for the next maintain.
    compacted = _unless_contended("compact the memories", store.optimize)
    done("compact")
    had = store.has_vector_index()
    vector = ensure_vector_index(store, force=vector_index)
    done("vector index")
    # tagged after compaction: today's tag holds the compacted version, not the fragments it
    # replaced (a tag on the version before kept the 1M bench store at twice its size)
    window = store.keep_window(history_days)
    done("as-of window")
    cleaned = store.clean_up(grace)
    done("clean up")
    # the recall log keeps no history anyone reads (reports filter its events by time)
    if _unless_contended("compact the recall log", store.compact_recall_log):
        store.clean_up_recall_log(grace)
    if bar is not None:
        bar.close()
    return {"events_flushed": flushed, "memories_folded": folded, "read": reading, "clusters_made_again": clusters,
            "indexes_created": created,
            "vector_index_built": vector, "vector_index": _vector_index_state(store, vector, had),
            "compacted": compacted, "as_of_versions_kept": len(set(window.values())),
            **cleaned, "seconds": round(time.perf_counter() - started, 2)}
