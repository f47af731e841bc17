"""`memlib maintain`: flush the recall spool, fold usage into memories, compact, index."""

from __future__ import annotations

import time
from typing import Any

import duckdb
import pyarrow as pa
from lancedb.index import IvfHnswSq

from memlib.models import arrow_schema

# Below this many rows an exact (flat) scan is fast enough and needs no vector index.
VECTOR_INDEX_MIN_ROWS = 50_000
# IVF_HNSW_SQ with a partition per ~4k rows, probed 16 at a time with a 4x exact re-rank:
# recall@10 0.973 against exact search at 100k real embeddings, 14 ms median
# (bench/vector_index.py, bench/results/vector_index.md).
ROWS_PER_PARTITION = 4_096

FOLD_SQL = """
select c.id,
       c.usage_count + count(*) as usage_count,
       greatest(c.last_accessed_at, max(e.recalled_at)) as last_accessed_at,
       max(e.flushed_at) as recalls_folded_until
from current_usage c
join events e
  on e.memory_id = c.id
 and (c.recalls_folded_until is null or e.flushed_at > c.recalls_folded_until)
group by c.id, c.usage_count, c.last_accessed_at
"""

USAGE_COLUMNS = ["id", "usage_count", "last_accessed_at", "recalls_folded_until"]


def fold_usage(store) -> int:
    """Add recall events not yet folded into each memory's usage_count and last_accessed_at.

    Each row carries the flush time it has folded up to, so a fold that dies part-way and is
    run again never counts an event twice. Returns how many memories changed."""
    events = store.recalls.table.to_lance().to_table(columns=["memory_id", "recalled_at", "flushed_at"])
    if events.num_rows == 0:
        return 0
    current = store.dataset().to_table(columns=USAGE_COLUMNS)
    con = duckdb.connect()
    con.execute("set TimeZone = 'UTC'")
    con.register("events", events)
    con.register("current_usage", current)
    folded = con.execute(FOLD_SQL).to_arrow_table()
    con.close()
    if folded.num_rows == 0:
        return 0
    schema = arrow_schema(store.dims)
    folded = folded.cast(pa.schema([schema.field(c) for c in USAGE_COLUMNS]))
    store.table.merge_insert("id").when_matched_update_all().execute(folded)
    store.audit.record("usage", folded.column("id").to_pylist(), actor="maintain")
    return folded.num_rows


def ensure_vector_index(store, min_rows: int = VECTOR_INDEX_MIN_ROWS) -> bool:
    """Build the ANN index once the table is large enough; later rows join it on optimize."""
    rows = store.table.count_rows()
    if rows < min_rows or store.has_vector_index():
        return False
    store.table.create_index(
        "embedding", config=IvfHnswSq(distance_type="cosine",
                                      num_partitions=max(1, rows // ROWS_PER_PARTITION)))
    store._vector_index = True
    return True


def maintain(store) -> dict[str, Any]:
    started = time.perf_counter()
    with store.recalls.locked():
        flushed = store.recalls._flush_locked()
        folded = fold_usage(store)
    created = store.ensure_indexes() if store.table.count_rows() else []
    store.table.optimize()  # compact first: an index built before would be remapped at once
    vector = ensure_vector_index(store)
    store.recalls.table.optimize()
    return {"events_flushed": flushed, "memories_folded": folded, "indexes_created": created,
            "vector_index_built": vector, "seconds": round(time.perf_counter() - started, 2)}
