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

from memlib import analytics
from memlib.consensus.store import renew
from memlib.lifecycle.reembed import runs
from memlib.lifecycle.vector_index import ensure_vector_index, vector_index_state
from memlib.interface import StoreInterface
from memlib.models import arrow_schema
from memlib.clock import MAX_DAYS
from memlib.errors import whole_number
from memlib.store.concurrency import retryable
from memlib.store.versions import CLEANUP_GRACE, HISTORY_DAYS

log = logging.getLogger("memlib")

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
            "vector_index_built": vector, "vector_index": vector_index_state(store, vector, had),
            "compacted": compacted, "as_of_versions_kept": len(set(window.values())),
            **cleaned, "seconds": round(time.perf_counter() - started, 2)}
