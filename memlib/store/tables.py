"""The Lance tables of a store, by name: opened when they exist, created on first use.

A table that is not there is absent (None); so is one whose creation was cut short (a
process killed while making it leaves its folder listed with no version in it: nothing was
ever committed, and the next creation completes it). One that is listed, has a version and
cannot be opened is broken, and that is an error, never mistaken for absence.
"""

from __future__ import annotations

import pyarrow as pa

from memlib.errors import StoreError
from memlib.store.concurrency import retryable

MEMORIES = "memories"
RECALL_EVENTS = "recall_events"
AUDIT_LOG = "audit_log"
ARCHIVE = "archive"
SNAPSHOTS = "knowledge_snapshots"  # iteration knowledge (memlib/agents/knowledge.py)


# Every commit adds a fragment; reads pay for each one an index does not cover yet. Once
# TIDY_FRAGMENTS small ones (fewer rows than TIDY_ROWS) are there, a write merges them into
# one (about 30 ms for 16; the large fragments are left alone); maintain does the rest.
TIDY_FRAGMENTS = 16
TIDY_ROWS = 8_192
TIDY_EVERY = 4  # a writer counts the small fragments at every 4th of its commits
# maintain merges the fragments below this many rows. Larger ones are left as they are (unless
# a tenth of their rows were deleted): a scan or an index lookup pays per fragment little
# beside what it pays per row at that size, and rewriting them is a pass over all the data
# (merging the two fragments of the 1M bench store into one took 267.6 s, bench/README.md).
COMPACT_ROWS = 65_536


def small_fragments(dataset) -> int:
    return sum(f.metadata.physical_rows < TIDY_ROWS for f in dataset.get_fragments())


def tidy(table, at: int = TIDY_FRAGMENTS, dataset=None) -> int | None:
    """Merge a table's small fragments when there are `at` or more of them (counted in
    `dataset`, the table's current one if given). Returns the small fragments left after a
    merge, None if there was none to make. A merge that keeps losing to other writers is
    left for a later write."""
    if small_fragments(dataset or table.to_lance()) < at:
        return None
    table.checkout_latest()
    dataset = table.to_lance()
    try:  # one try: a merge that lost to another writer's is left for a later write
        dataset.optimize.compact_files(target_rows_per_fragment=TIDY_ROWS)
    except Exception as exc:
        if not retryable(exc):
            raise
        return None
    table.checkout_latest()
    return small_fragments(table.to_lance())


def add_missing_columns(table, schema: pa.Schema) -> bool:
    """Give a table written by an older memlib the columns of `schema` it lacks, as nulls
    (columns are only ever added). Returns whether it committed."""
    present = set(table.schema.names)
    missing = [f for f in schema if f.name not in present]
    if missing:
        table.add_columns(pa.schema(missing))
    return bool(missing)


def table_names(db) -> set[str]:
    names, token = set(), None
    while True:
        page = db.list_tables(page_token=token)
        names.update(page.tables)
        token = page.page_token
        if not token:
            return names


def open_table(db, name: str):
    """A table of the store's database, or None if it does not exist (yet)."""
    if name not in table_names(db):
        return None
    try:
        return db.open_table(name)
    except Exception as exc:
        if isinstance(exc, ValueError) and str(exc) == f"Table {name!r} was not found":
            return None  # listed, never committed: a creation cut short
        # listed, yet unreadable: a damaged store, not an empty one
        raise StoreError(f"table {name!r} of the store cannot be opened: {exc}") from None


def open_or_create(db, name: str, schema: pa.Schema):
    """A table of the store's database, created empty with `schema` on first use."""
    table = open_table(db, name)
    if table is not None:
        return table
    try:
        return db.create_table(name, schema=schema, exist_ok=True)
    except Exception:  # another process created it first
        table = open_table(db, name)
        if table is None:
            raise
        return table
