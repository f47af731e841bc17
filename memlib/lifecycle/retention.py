"""Retention runs: plan, apply, undo, purge.

A retention run never loses a row. `apply` works in steps, each one Lance commit, and every
step can be repeated:

1. an audit event `retention_apply/started` names the run, its policy and the plan's size;
2. the table version before the run is tagged `retention-<run>` (time travel by name);
3. the plan's rows, embeddings included, are appended to the `archive` table with the run id;
4. one delete removes exactly those rows from `memories`;
5. one `retention_remove` event per row, then `retention_apply/done`.

Killed after 3 and before 4, the memories are as before; after 4, as after. The next `apply`
(or `undo`) first finishes any run that started and did not end: the archived rows still in
`memories` are deleted, or, if nothing was archived, the run is marked abandoned.
"""

from __future__ import annotations

import uuid
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Callable

import pyarrow as pa
import pyarrow.compute as pc

from memlib import analytics
from memlib.clock import AsOf
from memlib.errors import InvalidInput, NotFound, whole_number
from memlib import policy as policies
from memlib.interface import StoreInterface
from memlib.scope import sql_in, sql_literal
from memlib.store.journal import audit_what_committed, gated, ungated
from memlib.store.storage import tree_bytes
from memlib.store.tables import ARCHIVE, MEMORIES, add_missing_columns
CHUNK = 5_000  # ids per filter when rows are read by id


@dataclass
class Plan:
    policy: policies.Policy
    as_of: datetime
    candidates: pa.Table  # mart_retention_candidates rows of this policy, ordered by id

    @property
    def ids(self) -> list[str]:
        return self.candidates.column("id").to_pylist()

    def summary(self) -> dict[str, Any]:
        reasons: dict[str, int] = {}
        for row in self.candidates.column("reasons").to_pylist():
            for reason in row:
                reasons[reason] = reasons.get(reason, 0) + 1
        kinds = self.candidates.column("kind").value_counts().to_pylist() if len(self.candidates) else []
        return {"policy": self.policy.name, "version": self.policy.version, "digest": self.policy.digest,
                "as_of": self.as_of.isoformat(), "candidates": len(self.candidates),
                "by_reason": dict(sorted(reasons.items())),
                "by_kind": {k["values"]: k["counts"] for k in sorted(kinds, key=lambda k: k["values"])}}


@dataclass
class RunOutcome:
    run_id: str | None
    removed: int
    tag: str | None = None
    resumed: list[str] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)


def plan(store: StoreInterface, policy, as_of: AsOf | date | datetime | str | None = None) -> Plan:
    """What `policy` would remove from the store as it is, judged as of `as_of` (default
    now): the retention report's candidates, read from the same view
    (sql/mart_retention_candidates.sql) with the same parameters. The report as of today
    shows exactly this plan; a report as of an earlier date shows the store as it was then."""
    chosen = policies.load(policy if policy is not None else "default", store.settings.policy_dir)
    when = AsOf.of(as_of, store.clock).end
    con = analytics.connect(store, analytics.Params(as_of=when, policies=(chosen,)), time_travel=False)
    table = con.execute("select * from mart_retention_candidates where policy = ? order by id",
                        [chosen.name]).to_arrow_table()
    con.close()
    return Plan(chosen, when, table)


# -- runs --------------------------------------------------------------------------------------

def _open_archive(store: StoreInterface, create: bool):
    """The archive table; created (the memories' columns, run_id, archived_at) if asked."""
    if not create:
        return store.concept_table(ARCHIVE)
    schema = store.schema
    fields = [*schema, pa.field("run_id", pa.string()), pa.field("archived_at", pa.timestamp("us", tz="UTC"))]
    return store.concept_table(ARCHIVE, pa.schema(fields, metadata=schema.metadata))


def _rows(dataset, ids: list[str], columns: list[str] | None = None) -> pa.Table:
    """Rows of these ids (all of them must be wanted), read in chunks through the id index."""
    parts = [dataset.to_table(columns=columns, filter=sql_in("id", ids[i:i + CHUNK]))
             for i in range(0, len(ids), CHUNK)]
    return pa.concat_tables(parts) if parts else dataset.to_table(columns=columns, limit=0)


def _present(store: StoreInterface, ids: list[str]) -> list[str]:
    if not ids:
        return []
    return _rows(store.dataset(), ids, ["id"]).column("id").to_pylist()


def runs(store: StoreInterface) -> list[dict[str, Any]]:
    """Every retention run with its latest status, oldest first."""
    out: dict[str, dict] = {}
    for event in store.audit_events("action = 'retention_apply'"):
        run = out.setdefault(event["run_id"], {"run_id": event["run_id"], "started_at": event["at"]})
        run.update({"status": event["status"], "at": event["at"], **(event["details"] or {})})
    for event in store.audit_events("action IN ('retention_undo', 'purge') AND subject_id IS NOT NULL"):
        if event["subject_id"] in out and event["status"] == "done":
            run = out[event["subject_id"]]
            run["status"] = "undone" if event["action"] == "retention_undo" else "purged"
            if event["action"] == "purge":
                run["bytes_freed"] = (event["details"] or {}).get("bytes_freed")
    return list(out.values())


def described(run: dict[str, Any]) -> str:
    """What a run was, in one line: its policy and the date it judged as of, or why it
    removed what it did (a forget, a correction, a sync of a workspace's deletions), and how
    many memories it removed."""
    if run.get("version") is not None:
        why = f"policy {run.get('policy')} v{run.get('version')} as of {str(run.get('as_of', ''))[:10]}"
    else:
        why = run.get("policy") or "removal"
        if run.get("reason"):
            why += f": {run['reason']}"
        if run.get("workspace"):
            why += f" ({run['workspace']})"
    removed = run.get("removed", run.get("candidates"))
    return f"{why}; {'?' if removed is None else f'{removed:,}'} memories removed"


def space(run: dict[str, Any]) -> str:
    """What a run's rows take, as a person should read it: nothing is freed until a purge."""
    if run["status"] == "done":
        return "archived, reclaimable by purge"
    if run["status"] == "purged" and run.get("bytes_freed") is not None:
        return f"purged, {run['bytes_freed'] / 2**20:,.1f} MB freed on disk"
    return run["status"]


Step = Callable[[str], None]


def _nothing(step: str) -> None:
    pass


def finish_unfinished(store: StoreInterface, actor: str | None = None, on_step: Step = _nothing) -> list[str]:
    """Complete every run that started and did not end (a killed apply); returns their ids.
    The caller holds the store's writer lock."""
    finished = []
    unfinished = [run for run in runs(store) if run["status"] == "started"]
    archive = _open_archive(store, create=False) if unfinished else None
    for run in unfinished:
        run_id = run["run_id"]
        archived = None if archive is None else archive.to_lance().to_table(
            columns=[c for c in ("id", "revision") if c in archive.schema.names],
            filter=f"run_id = {sql_literal(run_id)}")
        if archived is None or not len(archived):  # killed before the archive commit: nothing changed
            store.log_event("retention_apply", [run_id], status="abandoned", actor=actor,
                            run_id=run_id, details={"policy": run.get("policy")})
            finished.append(run_id)
            continue
        _remove(store, archive, run_id, archived, actor, on_step)
        finished.append(run_id)
    return finished


def _id_filter(ids: list[str]) -> str:
    return " OR ".join(sql_in("id", ids[i:i + CHUNK]) for i in range(0, len(ids), CHUNK))


def _unchanged(rows: pa.Table) -> str:
    """A filter for these rows as they were read: their ids at the revisions they had, so a
    row another process changed meanwhile is not selected (store/concurrency.py)."""
    ids = rows.column("id").to_pylist()
    if "revision" not in rows.column_names:  # archived before rows had revisions
        return _id_filter(ids)
    by_revision: dict[int | None, list[str]] = {}
    for memory_id, revision in zip(ids, rows.column("revision").to_pylist()):
        by_revision.setdefault(revision, []).append(memory_id)
    return " OR ".join(
        f"(({'revision IS NULL' if revision is None else f'revision = {int(revision)}'}) "
        f"AND ({_id_filter(chunk)}))" for revision, chunk in by_revision.items())


def _remove(store: StoreInterface, archive, run_id: str, archived: pa.Table, actor: str | None, on_step: Step) -> list[str]:
    """Delete from `memories` the archived rows still there unchanged (one commit); a row
    changed since it was planned stays, and leaves the archive. Records what was removed."""
    ids = archived.column("id").to_pylist()
    still = set(_present(store, ids))
    delete = archived.filter(pc.is_in(archived.column("id"), pa.array(sorted(still), pa.string())))
    version = store.delete_where(_unchanged(delete)) if len(delete) else None
    on_step("deleted")
    kept = _present(store, ids)
    if kept:
        archive.delete(f"run_id = {sql_literal(run_id)} AND ({_id_filter(kept)})")
    removed = [i for i in ids if i not in set(kept)]
    _record_removed(store, run_id, removed, actor, version, on_step)
    return removed


def _record_removed(store: StoreInterface, run_id: str, ids: list[str], actor: str | None, version: int | None,
                    on_step: Step) -> None:
    removed = {e["subject_id"] for e in store.audit_events(
        f"action = 'retention_remove' AND run_id = {sql_literal(run_id)}")}
    store.log_event("retention_remove", [i for i in ids if i not in removed], actor=actor,
                    run_id=run_id, version=version)
    on_step("events")
    store.log_event("retention_apply", [run_id], status="done", actor=actor, run_id=run_id,
                    details={"removed": len(ids)})


def apply(store: StoreInterface, policy, as_of=None, actor: str | None = None, on_step: Step = _nothing) -> RunOutcome:
    """Remove exactly the plan's rows, archived first and tagged, so `undo` restores them.
    A row another process changes between the plan and the delete stays. `on_step` is
    called after each step (started, tagged, archived, deleted, events)."""
    store.check_writable()
    with store.lock.held():
        store.refresh()
        resumed = finish_unfinished(store, actor, on_step)
        chosen = plan(store, policy, as_of)
        if not chosen.ids:
            store.log_event("retention_apply", [None], status="nothing", actor=actor,
                            details=chosen.summary())
            return RunOutcome(None, 0, resumed=resumed, plan=chosen.summary())
        return remove(store, chosen.ids, chosen.summary(), actor, on_step, resumed)


def finish_runs(store: StoreInterface, promise) -> None:
    """Keep a killed run's promise (store/journal.py): finish it as the next apply would."""
    finish_unfinished(store)


def remove(store: StoreInterface, ids: list[str], details: dict[str, Any], actor: str | None = None,
           on_step: Step = _nothing, resumed: list[str] | None = None, run_id: str | None = None) -> RunOutcome:
    """Remove these memories as a retention run: archived and tagged first, one delete,
    reversible by `undo`. `details` describe why (a policy's plan, or another caller's);
    `run_id`: the run's id, when the caller has made it (else a new one)."""
    store.check_writable()
    with store.lock.held(), store.promising("memlib.lifecycle.retention:finish_runs"):
        store.refresh()
        run_id = run_id or str(uuid.uuid4())
        before = store.version
        tag = f"retention-{run_id}"
        store.log_event("retention_apply", [run_id], status="started", actor=actor, run_id=run_id,
                        details={**details, "version_before": before, "tag": tag})
        on_step("started")
        store.tag(tag, before)
        on_step("tagged")
        rows = _rows(store.dataset(), ids)
        now = store.clock.now()
        rows = rows.append_column(pa.field("run_id", pa.string()), pa.array([run_id] * len(rows), pa.string()))
        rows = rows.append_column(pa.field("archived_at", pa.timestamp("us", tz="UTC")),
                                  pa.array([now] * len(rows), pa.timestamp("us", tz="UTC")))
        archive = _open_archive(store, create=True)
        add_missing_columns(archive, rows.schema)  # an archive made before rows had revisions
        archive.add(rows.select(archive.schema.names))
        on_step("archived")
        removed = _remove(store, archive, run_id, rows.select(["id", "revision"]), actor, on_step)
    return RunOutcome(run_id, len(removed), tag, resumed or [], details)


def undo(store: StoreInterface, run_id: str, actor: str | None = None) -> int:
    """Put a run's archived rows back into `memories`, unchanged, in one commit; returns how
    many came back (a row whose id the store holds again is not). The run's archive rows are
    then dropped (its tag stays)."""
    store.check_writable()
    with store.lock.held():
        store.refresh()
        finish_unfinished(store, actor)
        known = {r["run_id"]: r for r in runs(store)}
        if run_id not in known:
            raise NotFound(f"no retention run {run_id!r} (see 'memlib retention runs')")
        if known[run_id]["status"] in ("undone", "purged"):
            raise InvalidInput(f"retention run {run_id} was already {known[run_id]['status']}")
        archive = _open_archive(store, create=False)
        rows = archive.to_lance().to_table(filter=f"run_id = {sql_literal(run_id)}") if archive else None
        archived = [] if rows is None else rows.column("id").to_pylist()
        held = set(_present(store, archived))
        back = [i for i in archived if i not in held]  # what the undo puts back
        revisions = {} if rows is None or "revision" not in rows.column_names else dict(
            zip(rows.column("id").to_pylist(), rows.column("revision").to_pylist()))
        events = pa.concat_tables([
            gated(store.event_rows("restore", back, actor=actor, run_id=run_id), back,
                  [revisions.get(i) or 0 for i in back]),
            gated(store.event_rows("retention_undo", [run_id], actor=actor, run_id=run_id,
                                   details={"restored": len(back)}), [None], [None])])
        with store.promising("memlib.lifecycle.retention:finish_undo", {"run_id": run_id}, events):
            restored: list[str] = []
            version = None
            if rows is not None and len(rows):
                restored, version = store.restore(rows)
            store.append_events(ungated(events.slice(0, len(back))), version)
            store.append_events(ungated(events.slice(len(back))))
            if rows is not None and len(rows):
                archive.delete(f"run_id = {sql_literal(run_id)}")
    return len(restored)


def finish_undo(store: StoreInterface, promise) -> None:
    """Keep a killed undo's promise: the events of what it restored, and its archive rows
    dropped once they are back."""
    audit_what_committed(store, promise)
    run_id = promise.details["run_id"]
    if store.audit_events(f"action = 'retention_undo' AND run_id = {sql_literal(run_id)}"):
        archive = _open_archive(store, create=False)
        if archive is not None:
            archive.delete(f"run_id = {sql_literal(run_id)}")


def purge(store: StoreInterface, run_id: str, actor: str | None = None) -> dict[str, Any]:
    """Delete a run's archived rows for good: its rows of the archive table, the archive's old
    versions that still held them (only the archive's: the memories table keeps its history
    for time travel; `cleanup_versions` is the store-wide command) and the run's tag. Returns
    the bytes the archive freed on disk, measured."""
    store.check_writable()
    known = {r["run_id"]: r for r in runs(store)}
    if run_id not in known:
        raise NotFound(f"no retention run {run_id!r} (see 'memlib retention runs')")
    archive = _open_archive(store, create=False)
    n, freed = 0, 0
    if archive is not None:
        n = archive.count_rows(f"run_id = {sql_literal(run_id)}")

        def drop_run() -> None:
            if n:
                archive.delete(f"run_id = {sql_literal(run_id)}")
            archive.optimize(cleanup_older_than=timedelta(0))

        freed = _freed(store, ARCHIVE, drop_run)
    tag = f"retention-{run_id}"
    if tag in store.tags():
        store.untag(tag)
    store.log_event("purge", [run_id], actor=actor, run_id=run_id,
                    details={"archived_rows_deleted": n, "bytes_freed": freed})
    return {"run_id": run_id, "archived_rows_deleted": n, "bytes_freed": freed}


def cleanup_versions(store: StoreInterface, older_than_days: int, actor: str | None = None) -> dict[str, Any]:
    """Delete the versions of the memories table older than `older_than_days` that no tag
    holds (maintain's as-of tags of days before then are dropped first): the store-wide
    cleanup. Time travel (and as-of reports) to dates before then ends here. Returns the
    versions removed and the bytes freed on disk, measured."""
    from memlib.store.versions import AS_OF_TAG

    store.check_writable()
    whole_number(older_than_days, "--older-than", 0, unit="days")
    before_versions = set(store.versions_kept())
    first_day = (store.clock.now() - timedelta(days=older_than_days)).date().isoformat()
    for name in store.tags():
        if name.startswith(AS_OF_TAG) and name.removeprefix(AS_OF_TAG) < first_day:
            store.untag(name)
    freed = _freed(store, MEMORIES, lambda: store.clean_up(timedelta(days=older_than_days)))
    removed = sorted(before_versions - set(store.versions_kept()))
    store.log_event("cleanup", [None], actor=actor,
                    details={"versions_removed": len(removed), "bytes_freed": freed,
                             "older_than_days": older_than_days})
    return {"versions_removed": removed, "bytes_freed": freed}


def _freed(store: StoreInterface, table: str, cleanup: Callable[[], None]) -> int:
    """Run a cleanup of `table` that removes old versions, and return the bytes it freed
    where the store lives (disk or bucket), measured."""
    before = _disk_bytes(store, table)
    with warnings.catch_warnings():  # that old versions go is the point of the cleanup
        warnings.filterwarnings("ignore", message="optimize.cleanup_older_than")
        cleanup()
    after = _disk_bytes(store, table)
    return max(before - after, 0)


def _disk_bytes(store: StoreInterface, table: str) -> int:
    """What a table takes where the store lives: on this machine's disk or in its bucket."""
    return tree_bytes(f"{store.uri.rstrip('/')}/{table}.lance", store.settings)
