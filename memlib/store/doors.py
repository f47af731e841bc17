"""The store's named doors: what the concepts built on a store (search, lifecycle, agents,
workspace, consensus, analytics, sample) may ask of it besides its memories' rows.

The audit log, the recall log, the memories table's versions and tags, and the tables a
concept keeps beside the memories are reached through these methods, never through the
store's attributes (`tests/test_layout.py` checks that no module outside `store/` touches
`.audit`, `.recalls`, `.table`, `.db` or a private member of a store). `StoreInterface`
(memlib/interface.py) names every door a concept uses, the rows included.
"""

from __future__ import annotations

import logging
import uuid
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator, Sequence

import pyarrow as pa

from memlib.errors import StoreError
from memlib.store import versions
from memlib.store.audit import event_ids
from memlib.store.concurrency import committing
from memlib.store.journal import AUDIT
from memlib.store.tables import open_or_create, open_table

log = logging.getLogger("memlib")


class Doors:
    """Mixed into `Store`, whose `audit`, `recalls`, `_table` and `db` these read."""

    # -- the audit log --------------------------------------------------------------------

    def log_event(self, action: str, subjects: Sequence[str | None], status: str = "done",
                  actor: str | None = None, run_id: str | None = None,
                  details: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
                  version: int | None = None) -> None:
        """Record one audit event per subject, in one commit (store/audit.py)."""
        self.audit.record(action, subjects, status=status, actor=actor, run_id=run_id,
                          details=details, version=version)

    def event_rows(self, action: str, subjects: Sequence[str | None], status: str = "done",
                   actor: str | Sequence[str | None] | None = None, run_id: str | None = None,
                   details: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None) -> pa.Table:
        """The audit events `log_event` would log, made now and not logged: a change
        promises them before it commits (`promising`), logs them after (`append_events`)."""
        return self.audit.rows(action, subjects, status, actor, run_id, details)

    def promising(self, finish: str = AUDIT, details: dict[str, Any] | None = None,
                  events: pa.Table | None = None):
        """A promise kept by the next open or maintain if this process stops before the body
        ends (store/journal.py): with `events` gated by journal.gated, and `finish` the
        memlib function that keeps it."""
        return self.journal.promise(finish, details, events)

    def logged_events(self, event_ids: Sequence[str]) -> set[str]:
        """Which of these audit events the log holds (a promise kept twice logs once)."""
        return self.audit.logged(list(event_ids))

    def append_events(self, rows: pa.Table, version: int | None = None) -> None:
        """Log audit events made before (`event_rows`), in one commit; `version`: the
        memories table version their change made."""
        self.audit.append(rows, version)

    def audit_events(self, where: str | None = None) -> list[dict[str, Any]]:
        """Audit events (oldest first) matching a SQL filter over the log's columns."""
        return self.audit.events(where)

    def audit_dataset(self):
        """The audit log as a Lance dataset to read, or None if nothing was logged yet."""
        return self.audit.dataset()

    # -- the recall log -------------------------------------------------------------------

    def log_recall(self, text: str, hits: list[tuple[str, int, float | None]], mode: str,
                   agent: str | None = None, tool: str | None = None, session_id: str | None = None) -> None:
        """Log what an agent was given: one event per (memory id, rank, score), spooled (a
        store that cannot write here still answers its recall, with a warning)."""
        now, query_id = self.clock.now(), str(uuid.uuid4())
        try:
            self.check_writable()
            self.recalls.append([{
                "event_id": event_id, "query_id": query_id, "query_text": text,
                "memory_id": memory_id, "rank": rank, "score": score, "mode": mode,
                "agent": agent, "tool": tool, "session_id": session_id, "recalled_at": now,
            } for event_id, (memory_id, rank, score) in zip(event_ids(len(hits), now), hits)])
        except (StoreError, OSError) as exc:
            log.warning("recall not logged: %s", exc)

    def recall_dataset(self):
        """The flushed recall events as a Lance dataset (its latest version)."""
        return self.recalls.dataset()

    def spooled_recalls(self) -> list[dict]:
        """Recall events written but not yet flushed into the table."""
        return self.recalls.spooled()

    def recall_segments(self) -> list[Path]:
        """The spool's segment files (what a flush would read)."""
        return self.recalls.segments()

    def add_recall_events(self, events: pa.Table) -> None:
        """Append recall events straight to the table, in one commit: a backfill's (memlib
        sample writes a history), never an agent's (those go through the spool)."""
        committing(lambda: self.recalls.table.add(events))

    @contextmanager
    def flushing_recalls(self) -> Iterator[int]:
        """Flush the spool and hold the recall log's lock until the block ends (no other flush
        or usage fold meanwhile); yields the number of events flushed."""
        with self.recalls.locked():
            yield self.recalls.flush_locked()

    def compact_recall_log(self) -> None:
        """Compact the recall log's fragments (its versions are cleaned up separately)."""
        committing(lambda: self.recalls.table.optimize(cleanup_older_than=versions.NO_CLEANUP))

    def clean_up_recall_log(self, grace: timedelta = versions.CLEANUP_GRACE) -> dict[str, int]:
        """Remove the recall log's versions older than `grace`: it keeps no history anyone
        reads (reports filter its events by time)."""
        return versions.clean_up(self.recalls.table, grace)

    # -- the memories table's shape, versions and tags -------------------------------------

    @property
    def schema(self) -> pa.Schema:
        """The memories table's Arrow schema."""
        return self._table.schema

    def columns(self, embedding: bool = False) -> list[str]:
        """The memories table's column names (without the embedding unless asked)."""
        return [n for n in self._table.schema.names if embedding or n != "embedding"]

    def count_rows(self, where: str | None = None) -> int:
        """Rows of the memories table (matching a Lance filter, if given)."""
        return self._table.count_rows(where) if where else self._table.count_rows()

    def vector_query(self, vector):
        """Lance's nearest-neighbour query on the memories' embeddings, by cosine distance,
        for search to narrow and run."""
        return self._table.search(vector, vector_column_name="embedding").distance_type("cosine")

    def versions_kept(self) -> dict[int, Any]:
        """Every version of the memories table Lance still keeps, with its commit time."""
        return versions.kept(self._table)

    def tags(self) -> dict[str, int]:
        """The memories table's tags: {name: version}."""
        return {name: info["version"] for name, info in self._table.tags.list().items()}

    def tag(self, name: str, version: int) -> None:
        self._table.tags.create(name, version)

    def untag(self, name: str) -> None:
        self._table.tags.delete(name)

    def dataset_at(self, version: int):
        """The memories table as a Lance dataset checked out at `version` (to read, not write)."""
        return self._table.to_lance().checkout_version(version)

    def keep_window(self, days: int = versions.HISTORY_DAYS) -> dict[str, int]:
        """Tag the version current at the end of each of the last `days` days (store/versions.py)."""
        return versions.keep_window(self._table, self.audit, self.clock.now(), days)

    def clean_up(self, grace: timedelta = versions.CLEANUP_GRACE) -> dict[str, int]:
        """Remove the memories' versions older than `grace` that no tag keeps."""
        return versions.clean_up(self._table, grace)

    # -- the tables concepts keep beside the memories --------------------------------------

    def concept_table(self, name: str, schema: pa.Schema | None = None):
        """The table `name` of this store (consensus, sessions, snapshots ...): made with
        `schema` when given and it is not there yet; None when it is not there and no schema
        is given."""
        return open_or_create(self.db, name, schema) if schema is not None else open_table(self.db, name)
