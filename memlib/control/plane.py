"""The control plane of a store: task, event, approval and result repositories and a leased
dispatch queue with backpressure (seed 002), all in one SQLite file (memlib.control.db).

    plane = ControlPlane.open("data/store")
    plane.queue.enqueue("summarise", {"thread": "t1"}, session_id=sid)
    lease = plane.queue.claim("worker-1")           # None: nothing free, or 32 in flight
    plane.queue.heartbeat(lease)                    # the lease runs another 30 s
    plane.queue.ack(lease, {"summary": "..."})      # done, with its result

A task is queued, running (leased to one worker), blocked (an approval pending), or
finished: done, failed (a worker acked it as failed), dead (a dead letter: out of attempts),
rejected (its approval was refused) or cancelled. Every change of a task writes an event in
the same transaction, so the event log is the task's history and the report's source.

Guarantees: a task is leased to one worker at a time; only the lease's holder can heartbeat,
ack or nack it (its token); a lease that runs out returns the task to the queue (at the next
claim, or when its holder comes back with it: a heartbeat, ack or nack past the lease is
refused), counting as an attempt; a task may belong to a project, and a claim may take only
the tasks of some projects; a task that has used `max_attempts` attempts becomes a dead
letter. A batch enqueue is one transaction: all there or none.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Iterable

from memlib.clock import Clock
from memlib.control.db import DEFAULTS, Database, dicts, from_us, path_for, say_where, setting, to_us
from memlib.control.records import (FINISHED, NAME, Approval, Event, Lease, NewTask, Result, Task, checked,
                                    dumps)
from memlib.errors import InvalidInput, MemlibError, NotFound, whole_number
from memlib.settings import Settings

LEASE_SECONDS = 30.0
BACKOFF_SECONDS = 1.0     # a nack waits 1, 2, 4 ... seconds before the task is claimable again
BACKOFF_CAP = 300.0
POLL = 0.05               # how often a waiting claim or enqueue looks again


class QueueFull(MemlibError):
    """An enqueue beyond the queue's limit."""


class LeaseLost(MemlibError):
    """A heartbeat, ack or nack by a worker whose lease is over (another worker holds it, or
    the task finished)."""


class ControlPlane:
    """The control plane of one store (or of a SQLite file given as `path`)."""

    def __init__(self, db: Database, clock: Clock | None = None):
        self.db = db
        self.clock = clock or Clock()
        self.tasks = TaskRepository(self)
        self.events = EventRepository(self)
        self.approvals = ApprovalRepository(self)
        self.results = ResultRepository(self)
        self.queue = DispatchQueue(self)

    @classmethod
    def open(cls, store_uri: str | None = None, path: str | None = None, clock: Clock | None = None,
             create: bool = True, file_lock: bool = False, settings: Settings | None = None) -> "ControlPlane":
        """The control plane of the store at `store_uri` (default: the settings' store), or the
        file at `path`. `settings`: what the caller resolved; without them this is the edge
        (memlib.settings), with `store_uri` as the store flag."""
        if path is None:
            settings = Settings.at_edge(settings, store=store_uri)
            path = path_for(settings.store, settings)
            say_where(settings.store, settings, path)
        return cls(Database(path, create=create, file_lock=file_lock), clock)

    def now_us(self) -> int:
        return to_us(self.clock.now())

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _event(con, at_us: int, kind: str, task_id: str | None, session_id: str | None,
           attempt: int | None = None, worker: str | None = None, detail: Any = None) -> None:
    con.execute("insert into events (task_id, session_id, kind, attempt, worker, detail, at_us) "
                "values (?, ?, ?, ?, ?, ?, ?)",
                (task_id, session_id, kind, attempt, worker,
                 None if detail is None else dumps(detail, f"event {kind} detail"), at_us))


def _select(db: Database, table: str, equal: dict[str, Any], order: str, limit: int) -> list[dict]:
    """Rows of `table` whose columns equal the given values (None: any), in `order`."""
    given = {column: value for column, value in equal.items() if value is not None}
    where = " where " + " and ".join(f"{column} = ?" for column in given) if given else ""
    return db.read(f"select * from {table}{where} order by {order} limit ?", (*given.values(), int(limit)))


def _unfinished(con, task_id: str) -> dict:
    row = _task_row(con, task_id)
    if row is None:
        raise NotFound(f"no task {task_id!r}")
    if row["status"] in FINISHED:
        raise InvalidInput(f"task {task_id} is already {row['status']}")
    return row


def _task_row(con, task_id: str) -> dict | None:
    rows = dicts(con.execute("select * from tasks where task_id = ?", (task_id,)))
    return rows[0] if rows else None


class _Repository:
    def __init__(self, plane: ControlPlane):
        self.plane = plane

    def _one(self, sql: str, key: str, missing: str) -> dict:
        rows = self.plane.db.read(sql, (key,))
        if not rows:
            raise NotFound(f"{missing} {key!r}")
        return rows[0]


class TaskRepository(_Repository):
    def get(self, task_id: str) -> Task:
        return Task.from_row(self._one("select * from tasks where task_id = ?", task_id, "no task"))

    def list(self, status: str | None = None, session_id: str | None = None, kind: str | None = None,
             limit: int = 100) -> list[Task]:
        rows = _select(self.plane.db, "tasks", {"status": status, "session_id": session_id, "kind": kind},
                       "created_us, rowid", limit)
        return [Task.from_row(r) for r in rows]

    def counts(self) -> dict[str, int]:
        """Tasks by status (every status, zero included)."""
        rows = self.plane.db.read("select status, count(*) as n from tasks group by status")
        out = {s: 0 for s in ("queued", "running", "blocked", *FINISHED)}
        out.update({r["status"]: r["n"] for r in rows})
        return out

    def cancel(self, task_id: str, by: str | None = None, reason: str | None = None) -> Task:
        """Cancel a task that has not finished (a running one's lease ends with it)."""
        now = self.plane.now_us()
        with self.plane.db.writing() as con:
            row = _unfinished(con, task_id)
            con.execute("update tasks set status = 'cancelled', lease_owner = null, lease_token = null, "
                        "lease_until_us = null, updated_us = ? where task_id = ?", (now, task_id))
            con.execute("update approvals set status = 'rejected', decided_by = ?, decided_us = ?, "
                        "reason = 'task cancelled' where task_id = ? and status = 'pending'", (by, now, task_id))
            _event(con, now, "cancelled", task_id, row["session_id"], row["attempts"], by,
                   {"reason": reason} if reason else None)
        return self.get(task_id)

    def requeue(self, task_id: str, by: str | None = None) -> Task:
        """Give a dead letter (or a failed task) a fresh set of attempts."""
        now = self.plane.now_us()
        with self.plane.db.writing() as con:
            row = _task_row(con, task_id)
            if row is None:
                raise NotFound(f"no task {task_id!r}")
            if row["status"] not in ("dead", "failed"):
                raise InvalidInput(f"task {task_id} is {row['status']}; only dead or failed tasks are requeued")
            con.execute("update tasks set status = 'queued', attempts = 0, available_us = ?, updated_us = ? "
                        "where task_id = ?", (now, now, task_id))
            _event(con, now, "requeued", task_id, row["session_id"], None, by)
        return self.get(task_id)


class EventRepository(_Repository):
    """The append-only event log, per task and per session."""

    def append(self, kind: str, task_id: str | None = None, session_id: str | None = None,
               detail: Any = None, worker: str | None = None) -> None:
        if not isinstance(kind, str) or not NAME.match(kind):
            raise InvalidInput(f"event kind {kind!r} must be 1 to 100 letters, digits or _ . : / -")
        if task_id is None and session_id is None:
            raise InvalidInput("an event belongs to a task or a session: give one")
        with self.plane.db.writing() as con:
            if task_id is not None:
                row = _task_row(con, task_id)
                if row is None:
                    raise NotFound(f"no task {task_id!r}")
                session_id = session_id or row["session_id"]
            _event(con, self.plane.now_us(), kind, task_id, session_id, None, worker, detail)

    def list(self, task_id: str | None = None, session_id: str | None = None, limit: int = 1_000) -> list[Event]:
        rows = _select(self.plane.db, "events", {"task_id": task_id, "session_id": session_id}, "event_id", limit)
        return [Event.from_row(r) for r in rows]


class ApprovalRepository(_Repository):
    """Approval tickets. A pending one blocks its task: a queued task is not claimed, and a
    running task whose worker asks for approval gives up its lease until it is decided."""

    def request(self, task_id: str, request: str, by: str | None = None, lease: Lease | None = None) -> Approval:
        if not isinstance(request, str) or not request.strip() or len(request) > 4_000:
            raise InvalidInput("an approval request needs a text of 1 to 4,000 characters")
        now = self.plane.now_us()
        approval_id = str(uuid.uuid4())
        with self.plane.db.writing() as con:
            row = _unfinished(con, task_id)
            if row["status"] == "running" and (lease is None or lease.token != row["lease_token"]):
                raise LeaseLost(f"task {task_id} is leased to {row['lease_owner']}; only its holder can ask "
                                "for approval")
            _request(con, now, approval_id, row, request, by)
        return self.get(approval_id)

    def decide(self, approval_id: str, approve: bool, by: str, reason: str | None = None,
               settles: bool = False) -> Approval:
        """Approve (the task is queued again once nothing else is pending) or reject (the
        task is rejected). `settles`: the decision is the task's whole work (a memory held
        for review: memlib.agents.review), so an approved task is done at once, never queued
        for a worker to claim."""
        if not isinstance(by, str) or not by.strip():
            raise InvalidInput("say who decides the approval")
        now = self.plane.now_us()
        with self.plane.db.writing() as con:
            cursor = con.execute("select task_id, status from approvals where approval_id = ?", (approval_id,))
            found = cursor.fetchone()
            if found is None:
                raise NotFound(f"no approval {approval_id!r}")
            task_id, status = found
            if status != "pending":
                raise InvalidInput(f"approval {approval_id} is already {status}")
            decision = "approved" if approve else "rejected"
            con.execute("update approvals set status = ?, decided_by = ?, decided_us = ?, reason = ? "
                        "where approval_id = ?", (decision, by, now, reason, approval_id))
            row = _task_row(con, task_id)
            _event(con, now, decision, task_id, row["session_id"], None, by,
                   {"approval_id": approval_id, **({"reason": reason} if reason else {})})
            if row["status"] == "blocked":
                if not approve:
                    con.execute("update tasks set status = 'rejected', updated_us = ? where task_id = ?", (now, task_id))
                elif settles:
                    con.execute("update tasks set status = 'done', updated_us = ? where task_id = ?", (now, task_id))
                elif con.execute("select 1 from approvals where task_id = ? and status = 'pending'",
                                 (task_id,)).fetchone() is None:
                    con.execute("update tasks set status = 'queued', available_us = ?, updated_us = ? "
                                "where task_id = ?", (now, now, task_id))
        return self.get(approval_id)

    def get(self, approval_id: str) -> Approval:
        return Approval.from_row(self._one("select * from approvals where approval_id = ?", approval_id, "no approval"))

    def list(self, status: str | None = "pending", task_id: str | None = None, limit: int = 1_000) -> list[Approval]:
        rows = _select(self.plane.db, "approvals", {"status": status, "task_id": task_id},
                       "requested_us, approval_id", limit)
        return [Approval.from_row(r) for r in rows]


def _request(con, now: int, approval_id: str, row: dict, request: str, by: str | None) -> None:
    """Open an approval ticket and block its task (a running task's lease ends here)."""
    con.execute("insert into approvals (approval_id, task_id, request, requested_by, requested_us, status) "
                "values (?, ?, ?, ?, ?, 'pending')", (approval_id, row["task_id"], request, by, now))
    con.execute("update tasks set status = 'blocked', lease_owner = null, lease_token = null, "
                "lease_until_us = null, updated_us = ? where task_id = ?", (now, row["task_id"]))
    _event(con, now, "approval_requested", row["task_id"], row["session_id"], row["attempts"], by,
           {"approval_id": approval_id, "request": request})


class ResultRepository(_Repository):
    def get(self, task_id: str) -> Result:
        """The task's final result (its latest attempt's)."""
        return Result.from_row(self._one("select * from results where task_id = ? order by attempt desc limit 1",
                                         task_id, "no result for task"))

    def list(self, status: str | None = None, limit: int = 100) -> list[Result]:
        return [Result.from_row(r) for r in _select(self.plane.db, "results", {"status": status}, "finished_us", limit)]


class DispatchQueue:
    """Enqueue, claim with a lease, heartbeat, ack, nack; backpressure on both ends."""

    def __init__(self, plane: ControlPlane):
        self.plane = plane
        self.db = plane.db

    # -- settings -----------------------------------------------------------------------

    def settings(self) -> dict[str, int]:
        return {key: self.db.setting(key) for key in DEFAULTS}

    def configure(self, max_in_flight: int | None = None, max_queued: int | None = None) -> dict[str, int]:
        """Set the backpressure limits for every process on this store."""
        for key, value in (("max_in_flight", max_in_flight), ("max_queued", max_queued)):
            if value is None:
                continue
            whole_number(value, key, 1, 100_000_000)
            with self.db.writing() as con:
                con.execute("insert or replace into meta values (?, ?)", (key, str(value)))
        return self.settings()

    # -- enqueue --------------------------------------------------------------------------

    def enqueue(self, kind: str, payload: Any = None, wait: float = 0, **fields: Any) -> Task:
        """One task, queued (or blocked, with `approval=` the text of its approval request)."""
        return self.enqueue_many([{"kind": kind, "payload": payload, **fields}], wait=wait)[0]

    def enqueue_many(self, items: Iterable[dict], wait: float = 0) -> list[Task]:
        """Many tasks in one transaction: all are queued or none. Beyond the queue's limit,
        wait up to `wait` seconds for room, then refuse (QueueFull)."""
        new = [checked(NewTask, f"task {i + 1}", **item) if isinstance(item, dict)
               else _not_a_task(i) for i, item in enumerate(items)]
        payloads = [dumps(t.payload, f"task {i + 1} payload") for i, t in enumerate(new)]
        ids = [t.task_id or str(uuid.uuid4()) for t in new]
        if len(set(ids)) != len(ids):
            raise InvalidInput("two tasks of the batch have the same task_id")
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            now = self.plane.now_us()
            with self.db.writing() as con:
                limit = setting(con, "max_queued")
                waiting = con.execute("select count(*) from tasks where status = 'queued'").fetchone()[0]
                room = waiting + sum(t.approval is None for t in new) <= limit
                if room:
                    return _insert(con, now, new, payloads, ids)
            if time.monotonic() >= deadline:
                raise QueueFull(f"the queue is full: {waiting} tasks wait and its limit is {limit}; "
                                f"{len(new)} more would pass it (wait for workers, or raise max_queued)")
            time.sleep(POLL)

    # -- claim ----------------------------------------------------------------------------

    def claim(self, worker: str, lease: float = LEASE_SECONDS, wait: float = 0,
              projects: Iterable[str] | None = None) -> Lease | None:
        """The oldest of the highest-priority queued tasks, leased to `worker` for `lease`
        seconds; None when nothing is free, or when `max_in_flight` tasks are leased already
        (after waiting up to `wait` seconds for one). `projects`: only tasks of these projects
        (a worker whose token is limited to them); None: any task."""
        if not isinstance(worker, str) or not worker.strip() or len(worker) > 200:
            raise InvalidInput("a claim needs a worker name of 1 to 200 characters")
        _check_lease(lease)
        only = None if projects is None else tuple(dict.fromkeys(projects))
        if only is not None and not only:
            return None
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            got = self._claim(worker, lease, only)
            if got is not None or time.monotonic() >= deadline:
                return got
            time.sleep(POLL)

    def _claim(self, worker: str, lease: float, projects: tuple[str, ...] | None = None) -> Lease | None:
        with self.db.writing() as con:
            return _claim(con, self.plane.now_us(), worker, lease, projects)

    # -- the holder's calls ---------------------------------------------------------------

    def lease_of(self, task_id: str, token: str, worker: str) -> Lease:
        """The lease a worker holds, from what it kept of it (a task id and its token: an
        agent host over MCP, a worker restarted from its own log); LeaseLost if it is over."""
        rows = self.db.read("select * from tasks where task_id = ?", (task_id,))
        if not rows:
            raise NotFound(f"no task {task_id!r}")
        row = rows[0]
        if row["status"] == "running" and row["lease_owner"] == worker and row["lease_token"] != token:
            raise LeaseLost(f"{worker} does not hold task {task_id}: the lease token is not the one its "
                            f"claim returned")
        if row["status"] != "running" or row["lease_token"] != token:
            raise LeaseLost(f"{worker} does not hold task {task_id} (it is {_holder(row)})")
        return Lease(task=Task.from_row(row), worker=worker, token=token, attempt=row["attempts"],
                     claimed_at=from_us(row["claimed_us"]), until=from_us(row["lease_until_us"]))

    def heartbeat(self, lease: Lease, extend: float = LEASE_SECONDS) -> Lease:
        """The lease runs `extend` seconds from now (if it is still the holder's and has not
        run out)."""
        _check_lease(extend)
        now = self.plane.now_us()
        until = now + int(extend * 1_000_000)
        with self.db.writing() as con:
            lapsed = _lapsed(con, lease, now)
            if lapsed is None:
                _held(con, lease, now)
                con.execute("update tasks set lease_until_us = ? where task_id = ?", (until, lease.task_id))
        if lapsed is not None:
            raise LeaseLost(lapsed)
        return lease.model_copy(update={"until": from_us(until)})

    def ack(self, lease: Lease, output: Any = None, status: str = "succeeded") -> Result:
        """The task is finished: done (or failed, when the worker says so), with its result."""
        text = _output(output, status)
        now = self.plane.now_us()
        with self.db.writing() as con:
            lapsed = _lapsed(con, lease, now)
            if lapsed is None:
                return _ack(con, now, lease, output, text, status)
        raise LeaseLost(lapsed)

    def ack_and_claim(self, lease: Lease, output: Any = None, status: str = "succeeded",
                      lease_seconds: float = LEASE_SECONDS,
                      projects: Iterable[str] | None = None) -> tuple[Result, Lease | None]:
        """ack, then claim the next task for the same worker, in one transaction (a worker's
        loop commits once per task instead of twice); `projects` as in `claim`."""
        text = _output(output, status)
        _check_lease(lease_seconds)
        only = None if projects is None else tuple(dict.fromkeys(projects))
        now = self.plane.now_us()
        with self.db.writing() as con:
            lapsed = _lapsed(con, lease, now)
            if lapsed is None:
                result = _ack(con, now, lease, output, text, status)
                return result, (None if only == () else _claim(con, now, lease.worker, lease_seconds, only))
        raise LeaseLost(lapsed)

    def nack(self, lease: Lease, error: str | None = None, retry_in: float | None = None) -> Task:
        """The attempt failed: retry after a backoff (doubling from 1 s, or `retry_in`), or
        dead-letter the task when it has used its attempts."""
        now = self.plane.now_us()
        with self.db.writing() as con:
            lapsed = _lapsed(con, lease, now)
            if lapsed is None:
                row = _held(con, lease, now)
                _retry(con, now, row, "nacked", lease.worker, error, retry_in)
        if lapsed is not None:
            raise LeaseLost(lapsed)
        return self.plane.tasks.get(lease.task_id)

    # -- the queue's state ---------------------------------------------------------------

    def depth(self) -> dict[str, int]:
        """Queued (claimable or backing off), in flight, blocked, and dead letters."""
        counts = self.plane.tasks.counts()
        return {"queued": counts["queued"], "in_flight": counts["running"], "blocked": counts["blocked"],
                "dead": counts["dead"]}

    def dead_letters(self, limit: int = 100) -> list[Task]:
        return self.plane.tasks.list(status="dead", limit=limit)

    def expire(self) -> int:
        """Return the tasks whose lease has run out to the queue now (claims do it anyway)."""
        with self.db.writing() as con:
            return _expire(con, self.plane.now_us())


def _not_a_task(i: int):
    raise InvalidInput(f"task {i + 1}: a task is an object with a kind (and payload, priority, ...)")


def _check_lease(seconds: float) -> None:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0.001 <= seconds <= 86_400:
        raise InvalidInput(f"a lease lasts from 0.001 to 86400 seconds, not {seconds!r}")


def _claim(con, now: int, worker: str, lease: float, projects: tuple[str, ...] | None = None) -> Lease | None:
    """Return expired leases to the queue, then lease the first free task (of `projects`,
    when given), if fewer than max_in_flight are leased."""
    _expire(con, now)
    if con.execute("select count(*) from tasks indexed by tasks_leased where status = 'running'").fetchone()[0] \
            >= setting(con, "max_in_flight"):
        return None
    until = now + int(lease * 1_000_000)
    token = uuid.uuid4().hex
    of_projects = "" if projects is None else f" and project_id in ({','.join('?' * len(projects))})"
    cursor = con.execute(
        "update tasks set status = 'running', attempts = attempts + 1, lease_owner = ?, lease_token = ?, "
        "lease_until_us = ?, claimed_us = ?, updated_us = ? where rowid = ("
        "  select rowid from tasks indexed by tasks_ready where status = 'queued' and available_us <= ?"
        f"{of_projects} order by priority desc, rowid limit 1) returning *",
        (worker, token, until, now, now, now, *(projects or ())))
    rows = dicts(cursor)
    if not rows:
        return None
    row = rows[0]
    _event(con, now, "claimed", row["task_id"], row["session_id"], row["attempts"], worker)
    return Lease.model_construct(task=Task.from_row(row), worker=worker, token=token, attempt=row["attempts"],
                                 claimed_at=from_us(now), until=from_us(until))


def _output(output: Any, status: str) -> str:
    if status not in ("succeeded", "failed"):
        raise InvalidInput(f"a result's status is succeeded or failed, not {status!r}")
    return dumps(output, "result output")


def _ack(con, now: int, lease: Lease, output: Any, text: str, status: str) -> Result:
    row = _held(con, lease, now)
    final = "done" if status == "succeeded" else "failed"
    con.execute("update tasks set status = ?, lease_owner = null, lease_token = null, lease_until_us = null, "
                "updated_us = ? where task_id = ?", (final, now, lease.task_id))
    con.execute("insert into results values (?, ?, ?, ?, ?, ?, ?)",
                (lease.task_id, row["attempts"], status, text, lease.worker, row["claimed_us"], now))
    _event(con, now, "acked" if final == "done" else "failed", lease.task_id, row["session_id"],
           row["attempts"], lease.worker)
    return Result(task_id=lease.task_id, attempt=row["attempts"], status=status, output=output,
                  worker=lease.worker, started_at=from_us(row["claimed_us"]), finished_at=from_us(now))


def _insert(con, now: int, new: list[NewTask], payloads: list[str], ids: list[str]) -> list[Task]:
    clash = con.execute(f"select task_id from tasks where task_id in ({','.join('?' * len(ids))})", ids).fetchone() \
        if len(ids) <= 900 else None
    if clash:
        raise InvalidInput(f"task {clash[0]} already exists")
    try:
        con.executemany(
            "insert into tasks (task_id, session_id, agent, project_id, kind, payload, status, priority, "
            "max_attempts, available_us, created_us, updated_us) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(i, t.session_id, t.agent, t.project_id, t.kind, p, "queued", t.priority, t.max_attempts, now, now, now)
             for t, p, i in zip(new, payloads, ids)])
    except Exception as exc:
        if "UNIQUE" in str(exc):
            raise InvalidInput("a task of the batch already exists (task_id)") from None
        raise
    con.executemany("insert into events (task_id, session_id, kind, attempt, worker, detail, at_us) "
                    "values (?, ?, 'enqueued', 0, ?, null, ?)",
                    [(i, t.session_id, t.agent, now) for t, i in zip(new, ids)])
    for t, i in zip(new, ids):
        if t.approval is not None:
            _request(con, now, str(uuid.uuid4()), {"task_id": i, "session_id": t.session_id, "attempts": 0},
                     t.approval, t.agent)
    at = from_us(now)
    return [Task(task_id=i, session_id=t.session_id, agent=t.agent, project_id=t.project_id, kind=t.kind,
                 payload=t.payload,
                 status="queued" if t.approval is None else "blocked", priority=t.priority, attempts=0,
                 max_attempts=t.max_attempts, available_at=at, lease_owner=None, lease_until=None,
                 last_error=None, created_at=at, updated_at=at) for t, i in zip(new, ids)]


def _lapsed(con, lease: Lease, now: int) -> str | None:
    """If `lease` ran out before `now` and nobody claimed the task since, the task goes back
    to the queue (or becomes a dead letter) here, as a claim would have done, and this says
    why the holder lost it; else None. The caller commits, then raises LeaseLost."""
    row = _task_row(con, lease.task_id)
    if row is None or row["status"] != "running" or row["lease_token"] != lease.token \
            or row["lease_until_us"] >= now:
        return None
    _retry(con, row["lease_until_us"], row, "lease_expired", row["lease_owner"], "lease expired", 0)
    return (f"{lease.worker} no longer holds task {lease.task_id}: its lease ran out "
            f"{(now - row['lease_until_us']) / 1e6:.1f} s ago and the task went back to the queue")


def _held(con, lease: Lease, now: int) -> dict:
    """The task row, if `lease` still holds it; else LeaseLost naming why."""
    row = _task_row(con, lease.task_id)
    if row is None:
        raise NotFound(f"no task {lease.task_id!r}")
    if row["status"] != "running" or row["lease_token"] != lease.token:
        raise LeaseLost(f"{lease.worker} no longer holds task {lease.task_id} (it is {_holder(row)})")
    return row


def _holder(row: dict) -> str:
    """Who or what has a task a worker no longer holds: another lease, or its status."""
    return f"leased to {row['lease_owner']}" if row["status"] == "running" else row["status"]


def _retry(con, now: int, row: dict, why: str, worker: str | None, error: str | None,
           retry_in: float | None) -> None:
    """An attempt that ended without a result: back to the queue after a backoff, or dead."""
    attempt = row["attempts"]
    detail = {"error": error[:2_000]} if error else None
    if attempt >= row["max_attempts"]:
        con.execute("update tasks set status = 'dead', lease_owner = null, lease_token = null, lease_until_us = null, "
                    "last_error = ?, updated_us = ? where task_id = ?", (error, now, row["task_id"]))
        _event(con, now, why, row["task_id"], row["session_id"], attempt, worker, detail)
        _event(con, now, "dead_lettered", row["task_id"], row["session_id"], attempt, worker)
        return
    wait = retry_in if retry_in is not None else min(BACKOFF_CAP, BACKOFF_SECONDS * 2 ** (attempt - 1))
    if not 0 <= wait <= 86_400:
        raise InvalidInput(f"retry_in is from 0 to 86400 seconds, not {wait!r}")
    con.execute("update tasks set status = 'queued', lease_owner = null, lease_token = null, lease_until_us = null, "
                "available_us = ?, last_error = ?, updated_us = ? where task_id = ?",
                (now + int(wait * 1_000_000), error, now, row["task_id"]))
    _event(con, now, why, row["task_id"], row["session_id"], attempt, worker, detail)


def _expire(con, now: int) -> int:
    """Tasks whose lease ran out: each attempt ends as `lease_expired` (at the moment the
    lease ended), then retries at once or becomes a dead letter."""
    rows = dicts(con.execute("select * from tasks indexed by tasks_leased where status = 'running' "
                             "and lease_until_us < ?", (now,)))
    for row in rows:
        _retry(con, row["lease_until_us"], row, "lease_expired", row["lease_owner"], "lease expired", 0)
    return len(rows)
