"""Lance's vector index: when a store needs it, and building it.

It serves the processes that search without the vector cache: a one-shot `memlib search`, and
stores whose vectors outgrow the cache's default ceiling. A one-shot process gains little from
it while the vectors fit the cache (its first query loads the index, where an exact scan is
about as fast), and building it is most of a large maintain. So maintain builds it once the
default cache would not hold the vectors (`vector_index_due`), or when asked (`memlib maintain
--vector-index`); once built, later rows join it at each maintain. Scoped queries small enough
are exact scans either way. The choice of index and its figures: docs/decisions/vector-index.md.
"""

from __future__ import annotations

from lancedb.index import IvfHnswSq

from memlib.interface import StoreInterface
from memlib.search.vector_cache import vector_bytes
from memlib.settings import DEFAULT_VECTOR_CACHE_MB

ROWS_PER_PARTITION = 4_096  # IVF_HNSW_SQ: one partition per this many rows


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


def vector_index_state(store: StoreInterface, built: bool, had: bool) -> str:
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
