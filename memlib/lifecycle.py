"""Lifecycle actions: retention runs (plan, apply, undo, purge), promotion, flags, confidence.

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

import os
import signal
import uuid
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memlib import analytics, policy as policies
from memlib.errors import InvalidInput, NotFound
from memlib.models import Decision, Kind, Pattern
from memlib.recall_log import open_or_create, open_table
from memlib.scope import sql_in, sql_literal

ARCHIVE = "archive"
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


def plan(store, policy, as_of=None) -> Plan:
    """What `policy` would remove as of `as_of`: the retention report's candidates, read from
    the same view (sql/mart_retention_candidates.sql) with the same parameters."""
    chosen = policies.load(policy if policy is not None else "default")
    when = analytics.as_of_end(as_of)
    con = analytics.connect(store, analytics.Params(as_of=when, policies=(chosen,)))
    table = con.execute("select * from mart_retention_candidates where policy = ? order by id",
                        [chosen.name]).to_arrow_table()
    con.close()
    return Plan(chosen, when, table)


# -- runs --------------------------------------------------------------------------------------

def _open_archive(store, create: bool):
    """The archive table; created (the memories' columns, run_id, archived_at) if asked."""
    if not create:
        return open_table(store.db, ARCHIVE)
    schema = store.table.schema
    fields = [*schema, pa.field("run_id", pa.string()), pa.field("archived_at", pa.timestamp("us", tz="UTC"))]
    return open_or_create(store.db, ARCHIVE, pa.schema(fields, metadata=schema.metadata))


def _rows(dataset, ids: list[str], columns: list[str] | None = None) -> pa.Table:
    """Rows of these ids (all of them must be wanted), read in chunks through the id index."""
    parts = [dataset.to_table(columns=columns, filter=sql_in("id", ids[i:i + CHUNK]))
             for i in range(0, len(ids), CHUNK)]
    return pa.concat_tables(parts) if parts else dataset.to_table(columns=columns, limit=0)


def _present(store, ids: list[str]) -> list[str]:
    if not ids:
        return []
    return _rows(store.dataset(), ids, ["id"]).column("id").to_pylist()


def runs(store) -> list[dict[str, Any]]:
    """Every retention run with its latest status, oldest first."""
    out: dict[str, dict] = {}
    for event in store.audit.events("action = 'retention_apply'"):
        run = out.setdefault(event["run_id"], {"run_id": event["run_id"], "started_at": event["at"]})
        run.update({"status": event["status"], "at": event["at"], **(event["details"] or {})})
    for event in store.audit.events("action IN ('retention_undo', 'purge') AND subject_id IS NOT NULL"):
        if event["subject_id"] in out and event["status"] == "done":
            out[event["subject_id"]]["status"] = "undone" if event["action"] == "retention_undo" else "purged"
    return list(out.values())


def finish_unfinished(store, actor: str | None = None) -> list[str]:
    """Complete every run that started and did not end (a killed apply); returns their ids."""
    finished = []
    unfinished = [run for run in runs(store) if run["status"] == "started"]
    archive = _open_archive(store, create=False) if unfinished else None
    for run in unfinished:
        run_id = run["run_id"]
        archived = [] if archive is None else archive.to_lance().to_table(
            columns=["id"], filter=f"run_id = {sql_literal(run_id)}").column("id").to_pylist()
        if not archived:  # killed before the archive commit: nothing was changed
            store.audit.record("retention_apply", [run_id], status="abandoned", actor=actor,
                               run_id=run_id, details={"policy": run.get("policy")})
            finished.append(run_id)
            continue
        still = _present(store, archived)
        if still:
            store.table.delete(_id_filter(still))
        _record_removed(store, run_id, archived, actor)
        finished.append(run_id)
    return finished


def _id_filter(ids: list[str]) -> str:
    return " OR ".join(sql_in("id", ids[i:i + CHUNK]) for i in range(0, len(ids), CHUNK))


def _record_removed(store, run_id: str, ids: list[str], actor: str | None) -> None:
    removed = {e["subject_id"] for e in store.audit.events(
        f"action = 'retention_remove' AND run_id = {sql_literal(run_id)}")}
    store.audit.record("retention_remove", [i for i in ids if i not in removed], actor=actor, run_id=run_id)
    _checkpoint("events")
    store.audit.record("retention_apply", [run_id], status="done", actor=actor, run_id=run_id,
                       details={"removed": len(ids)})


def _checkpoint(step: str) -> None:
    """Fault injection for the crash tests: $MEMLIB_KILL_AT names a step at which the process
    kills itself with SIGKILL, as a crash there would."""
    if os.environ.get("MEMLIB_KILL_AT") == step:
        os.kill(os.getpid(), signal.SIGKILL)


def apply(store, policy, as_of=None, actor: str | None = None) -> RunOutcome:
    """Remove exactly the plan's rows, archived first and tagged, so `undo` restores them."""
    _writable(store)
    resumed = finish_unfinished(store, actor)
    chosen = plan(store, policy, as_of)
    ids = chosen.ids
    if not ids:
        store.audit.record("retention_apply", [None], status="nothing", actor=actor,
                           details=chosen.summary())
        return RunOutcome(None, 0, resumed=resumed, plan=chosen.summary())
    run_id = str(uuid.uuid4())
    before = store.version
    tag = f"retention-{run_id}"
    store.audit.record("retention_apply", [run_id], status="started", actor=actor, run_id=run_id,
                       details={**chosen.summary(), "version_before": before, "tag": tag})
    _checkpoint("started")
    store.table.tags.create(tag, before)
    _checkpoint("tagged")
    rows = _rows(store.dataset(), ids)
    now = datetime.now(timezone.utc)
    rows = rows.append_column(pa.field("run_id", pa.string()), pa.array([run_id] * len(rows), pa.string()))
    rows = rows.append_column(pa.field("archived_at", pa.timestamp("us", tz="UTC")),
                              pa.array([now] * len(rows), pa.timestamp("us", tz="UTC")))
    archive = _open_archive(store, create=True)
    archive.add(rows.select(archive.schema.names))
    _checkpoint("archived")
    store.table.delete(_id_filter(ids))  # one commit: before or after, never between
    _checkpoint("deleted")
    _record_removed(store, run_id, ids, actor)
    return RunOutcome(run_id, len(ids), tag, resumed, chosen.summary())


def undo(store, run_id: str, actor: str | None = None) -> int:
    """Put a run's archived rows back into `memories`, unchanged, in one commit; returns how
    many came back. The run's archive rows are then dropped (its tag stays)."""
    _writable(store)
    finish_unfinished(store, actor)
    known = {r["run_id"]: r for r in runs(store)}
    if run_id not in known:
        raise NotFound(f"no retention run {run_id!r} (see 'memlib retention runs')")
    if known[run_id]["status"] in ("undone", "purged"):
        raise InvalidInput(f"retention run {run_id} was already {known[run_id]['status']}")
    archive = _open_archive(store, create=False)
    rows = archive.to_lance().to_table(filter=f"run_id = {sql_literal(run_id)}") if archive else None
    restored = 0
    if rows is not None and len(rows):
        rows = rows.select(store.table.schema.names)
        present = set(_present(store, rows.column("id").to_pylist()))
        missing = rows.filter(pc.invert(pc.is_in(rows.column("id"), pa.array(sorted(present), pa.string()))))
        if len(missing):
            store.table.add(missing.cast(store.table.schema))
        restored = len(missing)
        store.audit.record("restore", missing.column("id").to_pylist(), actor=actor, run_id=run_id)
        archive.delete(f"run_id = {sql_literal(run_id)}")
    store.audit.record("retention_undo", [run_id], actor=actor, run_id=run_id, details={"restored": restored})
    return restored


def purge(store, run_id: str, actor: str | None = None) -> dict[str, Any]:
    """Delete a run's archived rows for good: the archive rows, the run's tag, and every old
    version of both tables that no tag still holds (time travel to them ends here)."""
    _writable(store)
    known = {r["run_id"]: r for r in runs(store)}
    if run_id not in known:
        raise NotFound(f"no retention run {run_id!r} (see 'memlib retention runs')")
    archive = _open_archive(store, create=False)
    n = 0
    if archive is not None:
        n = archive.count_rows(f"run_id = {sql_literal(run_id)}")
        if n:
            archive.delete(f"run_id = {sql_literal(run_id)}")
    tag = f"retention-{run_id}"
    if tag in store.table.tags.list():
        store.table.tags.delete(tag)
    held = sorted(t for t in store.table.tags.list() if t.startswith("retention-"))
    for table in (store.table, archive):
        if table is not None:
            with warnings.catch_warnings():  # that old versions go is the point of a purge
                warnings.filterwarnings("ignore", message="optimize.cleanup_older_than")
                table.optimize(cleanup_older_than=timedelta(0))
    store.audit.record("purge", [run_id], actor=actor, run_id=run_id,
                       details={"archived_rows_deleted": n, "tags_still_held": held})
    return {"run_id": run_id, "archived_rows_deleted": n, "tags_still_held": held}


def _writable(store) -> None:
    store._writable()


# -- promotion, flags, confidence ---------------------------------------------------------------

PROMOTIONS = {Kind.INSIGHT: Kind.DECISION, Kind.LEARNING: Kind.PATTERN}


def _title(memory) -> str:
    if memory.title:
        return memory.title
    first = memory.content.strip().splitlines()[0]
    return first if len(first) <= 80 else first[:77].rstrip() + "..."


def promote(store, memory_id: str, title: str | None = None, actor: str | None = None,
            reason: str = "manual"):
    """An insight becomes a project decision, a learning a reusable pattern. The new memory
    links to its source (`promoted_from`) and keeps its project, root task and iteration."""
    _writable(store)
    source = store.get(memory_id, with_embedding=False)
    if source.kind not in PROMOTIONS:
        raise InvalidInput(f"only insights and learnings can be promoted, not a {source.kind.value}")
    done = store.audit.events(f"action = 'promote' AND subject_id = {sql_literal(memory_id)}")
    if done:
        raise InvalidInput(f"{source.kind.value} {memory_id} was already promoted to "
                           f"{done[-1]['details']['to']}")
    name = title or _title(source)
    common = {"project_id": source.project_id, "root_task_id": source.root_task_id,
              "iteration_id": source.iteration_id, "promoted_from": source.id, "tags": source.tags,
              "confidence": source.confidence, "source": source.source, "agent": source.agent}
    if source.kind is Kind.INSIGHT:
        new = Decision(title=name, decision=source.content, **common)
    else:
        new = Pattern(name=name, description=source.content, **common)
    (new_id,) = store.add([new], actor=actor)
    store.audit.record("promote", [memory_id], actor=actor,
                       details={"to": new_id, "kind": new.kind.value, "reason": reason})
    store.audit.record("promoted", [new_id], actor=actor, details={"from": memory_id, "reason": reason})
    return store.get(new_id)


def finalize_iteration(store, project_id: str, iteration_id: str, actor: str | None = None) -> list:
    """Close an iteration: its critical insights not yet promoted become decisions."""
    _writable(store)
    where = (f"kind = 'insight' AND importance = 'critical' AND project_id = {sql_literal(project_id)} "
             f"AND iteration_id = {sql_literal(iteration_id)}")
    ids = store.dataset().to_table(columns=["id"], filter=where).column("id").to_pylist()
    promoted = {e["subject_id"] for e in store.audit.events("action = 'promote'")}
    out = [promote(store, i, actor=actor, reason=f"critical insight of finalized iteration {iteration_id}")
           for i in sorted(ids) if i not in promoted]
    store.audit.record("finalize", [iteration_id], actor=actor,
                       details={"project_id": project_id, "promoted": [m.id for m in out]})
    return out


def set_flag(store, memory_id: str, value: bool, actor: str | None = None):
    _writable(store)
    return store.update(memory_id, action="flag", actor=actor, manual_promote_flag=value)


def adjust_confidence(store, memory_id: str, delta: int, reason: str, actor: str | None = None):
    """Raise (delta > 0) or lower a memory's confidence, clamped to 0-100, with a reason."""
    _writable(store)
    if not reason or not reason.strip():
        raise InvalidInput("a confidence change needs a reason (--reason)")
    if delta == 0:
        raise InvalidInput("a confidence change must not be zero")
    memory = store.get(memory_id)
    value = max(0, min(100, memory.confidence + delta))
    return store.update(memory_id, action="confidence", actor=actor, reason=reason, confidence=value)
