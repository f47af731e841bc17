"""The control plane (memlib.control): tasks, events, approvals, results and the leased
dispatch queue, in one process with an injected clock and across processes killed with -9."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memlib.clock import Clock
from memlib.control import ControlPlane, LeaseLost, QueueFull
from memlib.errors import InvalidInput, NotFound

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
WORKERS = Path(__file__).parent / "queue_workers.py"


@pytest.fixture
def clock():
    return Clock(T0)


@pytest.fixture
def plane(tmp_path, clock):
    with ControlPlane.open(str(tmp_path / "store"), clock=clock) as p:
        yield p


def later(clock: Clock, seconds: float) -> None:
    clock.set(clock.now() + timedelta(seconds=seconds))


def test_claims_the_oldest_of_the_highest_priority_first(plane, clock):
    low = plane.queue.enqueue("index", {"repo": "a"})
    later(clock, 1)
    high_old = plane.queue.enqueue("index", {"repo": "b"}, priority=5)
    later(clock, 1)
    high_new = plane.queue.enqueue("index", {"repo": "c"}, priority=5)
    order = [plane.queue.claim("w").task_id for _ in range(3)]
    assert order == [high_old.task_id, high_new.task_id, low.task_id]
    assert plane.queue.claim("w") is None
    assert plane.tasks.get(low.task_id).payload == {"repo": "a"}


def test_ack_records_the_result_and_its_duration(plane, clock):
    task = plane.queue.enqueue("summarise", {"thread": "t1"}, session_id="s1", agent="planner")
    lease = plane.queue.claim("w1")
    assert lease.task.status == "running" and lease.attempt == 1 and lease.until == T0 + timedelta(seconds=30)
    later(clock, 2.5)
    plane.queue.ack(lease, {"summary": "done"})
    result = plane.results.get(task.task_id)
    assert (result.status, result.output, result.worker, result.duration_s) == ("succeeded", {"summary": "done"}, "w1", 2.5)
    assert plane.tasks.get(task.task_id).status == "done"
    assert [e.kind for e in plane.events.list(task_id=task.task_id)] == ["enqueued", "claimed", "acked"]
    assert [e.kind for e in plane.events.list(session_id="s1")] == ["enqueued", "claimed", "acked"]
    with pytest.raises(LeaseLost, match="w1 no longer holds"):
        plane.queue.ack(lease, {})  # twice is refused
    failed = plane.queue.enqueue("summarise")
    plane.queue.ack(plane.queue.claim("w1"), {"why": "no thread"}, status="failed")
    assert plane.tasks.get(failed.task_id).status == "failed"


def test_a_wrong_token_from_the_holder_is_named_as_such(plane):
    """It said '... does not hold task ... (it is leased to auditor)' to the auditor itself."""
    task = plane.queue.enqueue("audit")
    lease = plane.queue.claim("auditor")
    with pytest.raises(LeaseLost, match=f"^auditor does not hold task {task.task_id}: the lease token is not "
                                        f"the one its claim returned$"):
        plane.queue.lease_of(task.task_id, "forged", "auditor")
    with pytest.raises(LeaseLost, match=r"^intruder does not hold task .* \(it is leased to auditor\)$"):
        plane.queue.lease_of(task.task_id, "forged", "intruder")
    assert plane.queue.lease_of(task.task_id, lease.token, "auditor").attempt == 1


def test_an_expired_lease_returns_the_task_and_the_old_holder_cannot_ack(plane, clock):
    task = plane.queue.enqueue("crawl")
    first = plane.queue.claim("w1", lease=10)
    later(clock, 9)
    first = plane.queue.heartbeat(first, extend=10)  # now good until 19 s
    later(clock, 9)
    assert plane.queue.claim("w2") is None  # still held
    later(clock, 2)
    second = plane.queue.claim("w2")
    assert second.task_id == task.task_id and second.attempt == 2
    for call in (lambda: plane.queue.ack(first), lambda: plane.queue.heartbeat(first),
                 lambda: plane.queue.nack(first, "x")):
        with pytest.raises(LeaseLost, match="leased to w2"):
            call()
    plane.queue.ack(second, "ok")
    events = plane.events.list(task_id=task.task_id)
    assert [e.kind for e in events] == ["enqueued", "claimed", "lease_expired", "claimed", "acked"]
    assert events[2].at == T0 + timedelta(seconds=19) and events[2].worker == "w1"


def test_a_lease_past_its_end_is_over_even_when_nobody_claimed_the_task(plane, clock):
    """An ack 41 s after the lease ran out succeeded when no claim came between: the README
    says a lease that runs out returns the task. The holder's late call now does it."""
    for late in ("ack", "heartbeat", "nack"):
        task = plane.queue.enqueue("crawl", {"late": late})
        lease = plane.queue.claim("w1", lease=10)
        later(clock, 51)
        call = {"ack": lambda: plane.queue.ack(lease, "late"), "heartbeat": lambda: plane.queue.heartbeat(lease),
                "nack": lambda: plane.queue.nack(lease, "late")}[late]
        with pytest.raises(LeaseLost, match=r"its lease ran out 41\.0 s ago and the task went back to the queue"):
            call()
        back = plane.tasks.get(task.task_id)
        assert (back.status, back.lease_owner, back.attempts) == ("queued", None, 1)
        assert [e.kind for e in plane.events.list(task_id=task.task_id)] == ["enqueued", "claimed", "lease_expired"]
        with pytest.raises(NotFound):
            plane.results.get(task.task_id)
        again = plane.queue.claim("w2")
        assert again.task_id == task.task_id and again.attempt == 2
        plane.queue.ack(again, "ok")
    plane.queue.enqueue("crawl")
    lease = plane.queue.claim("w1", lease=1)
    later(clock, 5)
    with pytest.raises(LeaseLost, match="ran out 4.0 s ago"):  # ack_and_claim too
        plane.queue.ack_and_claim(lease, "late")


def test_a_claim_takes_only_the_tasks_of_the_projects_it_names(plane, clock):
    theirs = plane.queue.enqueue("settle", {"secret": "b"}, project_id="project-b", priority=1_000)
    anyone = plane.queue.enqueue("settle", priority=500)  # of no project: claimed by an unlimited worker
    mine = plane.queue.enqueue("settle", {"x": 1}, project_id="project-a")
    assert plane.tasks.get(theirs.task_id).project_id == "project-b"
    assert plane.queue.claim("a", projects=[]) is None
    lease = plane.queue.claim("a", projects=["project-a"])
    assert lease.task_id == mine.task_id and lease.task.project_id == "project-a"
    result, following = plane.queue.ack_and_claim(lease, "ok", projects=["project-a"])
    assert following is None
    assert plane.queue.claim("anyone").task_id == theirs.task_id
    assert plane.queue.claim("anyone").task_id == anyone.task_id


def test_a_control_plane_of_the_earlier_schema_is_brought_up_to_date(tmp_path):
    """A file written before tasks had a project: opened, it gains the column, its tasks are
    every project's, and it is claimed as before."""
    path = tmp_path / "store" / "control-plane.db"
    path.parent.mkdir()
    con = sqlite3.connect(path)
    con.executescript("""
        create table tasks (task_id text primary key, session_id text, agent text, kind text not null,
            payload text not null, status text not null, priority integer not null default 0,
            attempts integer not null default 0, max_attempts integer not null, available_us integer not null,
            lease_owner text, lease_token text, lease_until_us integer, claimed_us integer, last_error text,
            created_us integer not null, updated_us integer not null);
        create table meta (key text primary key, value text not null);
        insert into meta values ('schema_version', '1');
        insert into tasks values ('t1', null, 'planner', 'index', '{"repo": "a"}', 'queued', 0, 0, 5, 0,
            null, null, null, null, null, 0, 0);""")
    con.commit()
    con.close()
    with ControlPlane.open(str(tmp_path / "store")) as plane:
        assert plane.tasks.get("t1").project_id is None
        assert plane.queue.claim("w", projects=["p"]) is None
        assert plane.queue.claim("w").task.payload == {"repo": "a"}
        assert plane.db.read("select value from meta where key = 'schema_version'")[0]["value"] == "2"


def test_nack_backs_off_then_dead_letters(plane, clock):
    task = plane.queue.enqueue("flaky", max_attempts=3)
    plane.queue.nack(plane.queue.claim("w"), "boom 1")
    assert plane.queue.claim("w") is None  # backing off 1 s
    later(clock, 1)
    plane.queue.nack(plane.queue.claim("w"), "boom 2")
    later(clock, 1.5)
    assert plane.queue.claim("w") is None  # second backoff is 2 s
    later(clock, 0.5)
    dead = plane.queue.nack(plane.queue.claim("w"), "boom 3")
    assert dead.status == "dead" and dead.last_error == "boom 3" and dead.attempts == 3
    assert [t.task_id for t in plane.queue.dead_letters()] == [task.task_id]
    later(clock, 3600)
    assert plane.queue.claim("w") is None
    requeued = plane.tasks.requeue(task.task_id, by="ops")
    assert requeued.status == "queued" and requeued.attempts == 0
    assert plane.queue.claim("w").task_id == task.task_id


def test_a_lease_that_runs_out_on_the_last_attempt_is_a_dead_letter(plane, clock):
    task = plane.queue.enqueue("poison", max_attempts=1)
    plane.queue.claim("w", lease=5)
    later(clock, 6)
    assert plane.queue.expire() == 1
    assert plane.tasks.get(task.task_id).status == "dead"
    assert [e.kind for e in plane.events.list(task_id=task.task_id)][-2:] == ["lease_expired", "dead_lettered"]


def test_pending_approvals_block_the_task(plane, clock):
    task = plane.queue.enqueue("deploy", {"env": "prod"}, approval="Deploy to production?", agent="ops-bot")
    assert task.status == "blocked" and plane.queue.claim("w") is None
    [ticket] = plane.approvals.list()
    assert ticket.request == "Deploy to production?" and ticket.requested_by == "ops-bot"
    later(clock, 120)
    decided = plane.approvals.decide(ticket.approval_id, True, by="alice", reason="window open")
    assert decided.status == "approved" and decided.decided_at - decided.requested_at == timedelta(seconds=120)
    lease = plane.queue.claim("w")
    assert lease.task_id == task.task_id
    # a worker asks mid-task: its lease ends, the task waits for the answer
    second = plane.approvals.request(task.task_id, "Also drop the old table?", by="w", lease=lease)
    assert plane.tasks.get(task.task_id).status == "blocked"
    with pytest.raises(LeaseLost):
        plane.queue.ack(lease)
    plane.approvals.decide(second.approval_id, False, by="alice", reason="keep it")
    assert plane.tasks.get(task.task_id).status == "rejected" and plane.queue.claim("w") is None
    with pytest.raises(InvalidInput, match="already rejected"):
        plane.approvals.decide(second.approval_id, True, by="bob")
    other = plane.queue.enqueue("crawl")
    held = plane.queue.claim("w")
    with pytest.raises(LeaseLost, match="only its holder"):
        plane.approvals.request(other.task_id, "may I?", by="intruder")
    plane.queue.ack(held)


def test_in_flight_limit_and_queue_limit(plane, clock):
    assert plane.queue.settings() == {"max_in_flight": 32, "max_queued": 100_000}
    plane.queue.enqueue_many([{"kind": "k", "payload": i} for i in range(40)])
    leases = [plane.queue.claim("w") for _ in range(32)]
    assert all(leases) and plane.queue.claim("w") is None  # 32 in flight
    plane.queue.ack(leases[0])
    assert plane.queue.claim("w") is not None
    plane.queue.configure(max_in_flight=40, max_queued=10)
    assert plane.queue.claim("w") is not None
    # 6 still queued: 4 more fit, 5 do not, and nothing of a refused batch is written
    assert plane.tasks.counts()["queued"] == 6
    with pytest.raises(QueueFull, match="the queue is full: 6 tasks wait and its limit is 10; 5 more"):
        plane.queue.enqueue_many([{"kind": "k"} for _ in range(5)])
    assert plane.tasks.counts()["queued"] == 6
    plane.queue.enqueue_many([{"kind": "k"} for _ in range(4)])
    with pytest.raises(InvalidInput, match="max_in_flight must be a whole number"):
        plane.queue.configure(max_in_flight=0)


def test_a_full_queue_waits_for_room(tmp_path):
    plane = ControlPlane.open(str(tmp_path / "s"))
    plane.queue.configure(max_queued=2)
    plane.queue.enqueue_many([{"kind": "k"}, {"kind": "k"}])
    drained = threading.Timer(0.3, lambda: plane.queue.ack(plane.queue.claim("w")))
    drained.start()
    task = plane.queue.enqueue("k", wait=5)  # waits until the worker takes one
    drained.join()
    assert task.status == "queued" and plane.tasks.counts()["queued"] == 2


def test_bad_input_is_one_line_and_writes_nothing(plane):
    cases = [
        (lambda: plane.queue.enqueue("bad kind!"), "task 1: kind: must be 1 to 100"),
        (lambda: plane.queue.enqueue("k", priority=5000), "task 1: priority"),
        (lambda: plane.queue.enqueue("k", {1, 2}), "task 1 payload: not storable as JSON"),
        (lambda: plane.queue.enqueue_many([{"kind": "k"}, {"kind": "k", "colour": "red"}]),
         "task 2: colour: is not an argument here"),
        (lambda: plane.queue.enqueue_many([{"kind": "k", "task_id": "a"}, {"kind": "k", "task_id": "a"}]),
         "same task_id"),
        (lambda: plane.queue.claim(""), "worker name"),
        (lambda: plane.queue.claim("w", lease=0), "a lease lasts"),
        (lambda: plane.events.append("note"), "belongs to a task or a session"),
        (lambda: plane.approvals.decide("nope", True, by="a"), "no approval"),
    ]
    for call, message in cases:
        with pytest.raises((InvalidInput, NotFound), match=message) as info:
            call()
        assert "\n" not in str(info.value)
    assert plane.tasks.counts()["queued"] == 0 and plane.events.list() == []
    plane.queue.enqueue("k", task_id="a")
    with pytest.raises(InvalidInput, match="task a already exists"):
        plane.queue.enqueue("k", task_id="a")


def test_events_append_per_task_and_session(plane):
    task = plane.queue.enqueue("k", session_id="s9")
    plane.events.append("progress", task_id=task.task_id, detail={"pct": 50}, worker="w")
    plane.events.append("session_note", session_id="s9", detail="hello")
    kinds = [(e.kind, e.task_id, e.detail) for e in plane.events.list(session_id="s9")]
    assert kinds == [("enqueued", task.task_id, None), ("progress", task.task_id, {"pct": 50}),
                     ("session_note", None, "hello")]
    cancelled = plane.tasks.cancel(task.task_id, by="me", reason="no longer needed")
    assert cancelled.status == "cancelled"
    with pytest.raises(InvalidInput, match="already cancelled"):
        plane.tasks.cancel(task.task_id)


def test_object_storage_stores_keep_theirs_on_this_machine(tmp_path, monkeypatch, caplog):
    """A store in a bucket keeps its control plane (SQLite, one machine's disk) in memlib's
    cache folder unless a setting says where, and says so once."""
    monkeypatch.delenv("MEMLIB_CONTROL_PLANE", raising=False)
    monkeypatch.setenv("MEMLIB_CONFIG", str(tmp_path / "memlib.toml"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "memlib.toml").write_text("")
    from memlib.control.db import path_for
    from memlib.settings import Settings

    with caplog.at_level("WARNING", logger="memlib"):
        ControlPlane.open("s3://bucket/memlib").close()
        ControlPlane.open("s3://bucket/memlib").close()
    default = path_for("s3://bucket/memlib", Settings.resolve())
    assert default.parent == tmp_path / "cache" / "memlib" / "control" and default.exists()
    assert [r.getMessage() for r in caplog.records].count(
        f"memlib: s3://bucket/memlib is object storage: its control plane (queue, approvals) is kept on this "
        f"machine at {default} (set MEMLIB_CONTROL_PLANE to share one between machines)") == 1
    assert path_for("s3://bucket/other", Settings.resolve()) != default

    monkeypatch.setenv("MEMLIB_CONTROL_PLANE", str(tmp_path / "cp.db"))
    assert path_for("s3://bucket/memlib", Settings.resolve()) == tmp_path / "cp.db"


# -- many processes --------------------------------------------------------------------------


def _spawn(*args, env=None) -> subprocess.Popen:
    import os

    return subprocess.Popen([sys.executable, str(WORKERS), *args], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def test_eight_workers_ack_ten_thousand_items_exactly_once(tmp_path):
    store = str(tmp_path / "store")
    with ControlPlane.open(store) as plane:
        tasks = plane.queue.enqueue_many([{"kind": "k", "payload": i} for i in range(10_000)])
    workers = [_spawn("work", store, f"w{i}") for i in range(8)]
    outs = [json.loads(w.communicate(timeout=300)[0].splitlines()[-1]) for w in workers]
    acked = Counter(t for out in outs for t in out["acked"])
    assert set(acked) == {t.task_id for t in tasks} and set(acked.values()) == {1}
    assert sum(1 for out in outs if out["acked"]) >= 2  # the work was shared
    with ControlPlane.open(store) as plane:
        assert plane.tasks.counts()["done"] == 10_000
        rows = plane.db.read("select task_id, count(*) as claims from events where kind = 'claimed' group by task_id")
        assert len(rows) == 10_000 and {r["claims"] for r in rows} == {1}  # no lease was ever given twice
        owners = plane.db.read("select r.task_id, r.worker from results r")
        by_worker = {t: w for out in outs for t in out["acked"] for w in [out["worker"]]}
        assert all(by_worker[r["task_id"]] == r["worker"] for r in owners)


def test_a_killed_workers_leases_return_and_the_others_finish(tmp_path):
    store = str(tmp_path / "store")
    with ControlPlane.open(store) as plane:
        plane.queue.enqueue_many([{"kind": "k", "payload": i} for i in range(20)])
    holder = _spawn("hold", store, "doomed", "5")
    held = json.loads(holder.stdout.readline())["held"]
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    # the others finish the rest now, and the held five once their 30 s leases are over
    # (the workers' clocks run 31 s ahead: no waiting in the test)
    now = _spawn("work", store, "early")
    assert set(json.loads(now.communicate(timeout=60)[0])["acked"]).isdisjoint(held)
    workers = [_spawn("work", store, f"late{i}", env={"CLOCK_AHEAD": "31"}) for i in range(2)]
    finished = [t for w in workers for t in json.loads(w.communicate(timeout=60)[0])["acked"]]
    assert sorted(finished) == sorted(held)
    with ControlPlane.open(store) as plane:
        assert plane.tasks.counts()["done"] == 20
        expired = plane.db.read("select task_id, worker from events where kind = 'lease_expired'")
        assert sorted(r["task_id"] for r in expired) == sorted(held) and {r["worker"] for r in expired} == {"doomed"}


def test_a_killed_enqueuer_leaves_its_batch_whole_or_absent(tmp_path):
    store = str(tmp_path / "store")
    with ControlPlane.open(store) as plane:
        plane.queue.enqueue("before")
    stalled = _spawn("enqueue", store, "5000", "1")
    assert stalled.stdout.readline().strip() == "inserted"  # rows written, commit not yet made
    stalled.send_signal(signal.SIGKILL)
    stalled.wait(timeout=10)
    con = sqlite3.connect(Path(store) / "control-plane.db")
    assert con.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert con.execute("select count(*) from tasks").fetchone()[0] == 1
    assert con.execute("select count(*) from events").fetchone()[0] == 1
    con.close()
    whole = _spawn("enqueue", store, "5000")
    assert json.loads(whole.communicate(timeout=60)[0]) == {"enqueued": 5000}
    with ControlPlane.open(store) as plane:
        assert plane.tasks.counts()["queued"] == 5001


# -- the control_plane report ----------------------------------------------------------------


def test_the_report_matches_a_replay_of_the_event_log_at_two_dates(store):
    import expected
    from memlib import analytics
    from memlib.analytics import report_data
    from memlib.sample.control import DAYS, build_control_sample, session_id, write_sessions
    from memlib.sample.text import AGENTS

    from memlib import Project

    anchor = T0 + timedelta(days=DAYS)
    store.clock.set(T0 - timedelta(days=1))  # the store's first version, before the queue's first task
    store.add([Project(name="payments", description="ledger", created_at=T0 - timedelta(days=1))])
    store.clock.set(None)
    write_sessions(store, {(a, (T0 + timedelta(days=d)).date()) for a in AGENTS for d in range(DAYS)})
    build_control_sample(store, AGENTS, seed=3, anchor=anchor)
    store.recall("ledger", agent="coder", session_id=session_id("coder", T0.date()))
    with ControlPlane.open(store.uri) as plane:
        for as_of in (T0 + timedelta(days=DAYS / 2, hours=9, minutes=30), anchor):
            report = report_data.control_plane(analytics.connect(store, as_of=as_of, window_days=5))
            want = expected.control_plane_headline(plane, as_of, window_days=5)
            assert report.headline.keys() == want.keys()
            for key, value in want.items():
                assert report.headline[key] == pytest.approx(value, rel=1e-6, abs=1e-6), key
        assert want["dead_letters"] > 0 and want["lease_expiries_in_window"] > 0 and want["tasks"] > 1_000
        sessions = report.tables["Sessions with the most tasks"]
        assert sessions["n_tasks"].sum() <= want["tasks"]
    recalled = analytics.connect(store).execute(
        "select n_recalls from mart_session_tasks where session_id = ?", [session_id("coder", T0.date())]).fetchone()
    assert recalled == (1,)


def test_the_tasks_and_queue_commands(tmp_path):
    from test_cli import fails, run

    store = tmp_path / "store"
    first = run("queue", "enqueue", "index", "--payload", '{"repo": "a"}', "--session", "s1", "--priority", "3",
                store=store).stdout.strip()
    (tmp_path / "tasks.jsonl").write_text('{"kind": "crawl", "payload": 1}\n\n{"kind": "crawl", "payload": 2}\n')
    assert run("queue", "enqueue", "--file", tmp_path / "tasks.jsonl", store=store).stdout.strip() == "enqueued 2 tasks"
    held = json.loads(run("queue", "claim", "--worker", "w1", "--lease", "60", store=store).stdout)
    assert held["task"]["task_id"] == first and held["task"]["payload"] == {"repo": "a"}
    run("queue", "heartbeat", first, held["token"], "--worker", "w1", store=store)
    assert "succeeded" in run("queue", "ack", first, held["token"], "--worker", "w1", "--output", '{"n": 1}',
                              store=store).stdout
    second = json.loads(run("queue", "claim", "--worker", "w2", store=store).stdout)
    assert "queued (attempt 1 of 5)" in run("queue", "nack", second["task"]["task_id"], second["token"],
                                            "--worker", "w2", "--error", "flaky", store=store).stdout
    blocked = run("queue", "enqueue", "deploy", "--approval", "Ship it?", store=store).stdout.strip()
    [ticket] = json.loads(run("tasks", "approvals", "--json", store=store).stdout)
    assert ticket["task_id"] == blocked
    assert "rejected by bob" in run("tasks", "reject", ticket["approval_id"], "--by", "bob", store=store).stdout
    shown = json.loads(run("tasks", "show", first, store=store).stdout)
    assert shown["result"]["output"] == {"n": 1} and [e["kind"] for e in shown["events"]] == ["enqueued", "claimed", "acked"]
    stats = json.loads(run("queue", "stats", "--json", store=store).stdout)
    assert stats == {"queued": 2, "in_flight": 0, "blocked": 0, "dead": 0, "max_in_flight": 32, "max_queued": 100_000}
    assert run("queue", "config", "--max-in-flight", "1", store=store).stdout.startswith("max in flight 1")
    listed = run("tasks", "list", "--status", "rejected", store=store).stdout
    assert blocked in listed and first not in listed
    assert json.loads(run("queue", "claim", "--worker", "w3", store=store).stdout)["task"]["kind"] == "crawl"
    refused = run("queue", "claim", "--worker", "w4", store=store, ok=False)  # one in flight: the limit
    assert refused.returncode == 3 and refused.stderr.strip() == "nothing to claim"
    for args, message in [
        (("queue", "enqueue", "x", "--payload", "{bad"), "--payload is not JSON"),
        (("queue", "ack", first, "forged", "--worker", "w1"), "does not hold task"),
        (("queue", "config", "--max-queued", "0"), "max_queued must be a whole number"),
        (("tasks", "show", "nope"), "no task 'nope'"),
        (("tasks", "approve", ticket["approval_id"], "--by", "a"), "already rejected"),
        (("queue", "enqueue"), "give the task's KIND"),
    ]:
        assert message in fails(*args, store=store)
    assert "no control plane" in fails("tasks", "list", store=tmp_path / "elsewhere")


def test_memories_written_per_session_match_python(tmp_path):
    """A memory counts for a session when its metadata names it, or, naming none, when the
    session's agent wrote it from the session's start to its end (both included); sessions of
    one agent may overlap, and then such a memory counts for each."""
    import random

    import pyarrow as pa

    from memlib import Insight, MemoryStore, Project, analytics
    from memlib.embeddings import HashEmbedder
    from memlib.sessions.tables import SCHEMAS, SESSIONS
    from memlib.store.tables import open_or_create

    rng = random.Random(5)
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), clock=Clock(T0 - timedelta(days=2)))
    project = Project(name="p", created_at=T0 - timedelta(days=1))
    sessions = []
    for i in range(12):
        agent = ["coder", "reviewer", None][i % 3]
        start = T0 + timedelta(hours=rng.randrange(0, 48))
        end = None if i == 5 else start + timedelta(hours=rng.randrange(1, 20))  # one still open
        sessions.append({"session_id": f"s{i}", "agent": agent, "project_id": None, "status": "ended",
                         "started_at": start, "ended_at": end, "preferences": "{}"})
    memories = []
    for j in range(400):
        at = T0 + timedelta(minutes=rng.randrange(-60, 75 * 60))
        if j < 24:  # exactly at a session's start or end
            s = sessions[j % 12]
            at = s["started_at"] if j % 2 or s["ended_at"] is None else s["ended_at"]
        named = rng.random() < 0.2
        memories.append(Insight(project_id=project.id, content=f"note {j}", created_at=at,
                                agent=rng.choice(["coder", "reviewer", None]),
                                metadata={"session_id": f"s{rng.randrange(14)}"} if named else {}))
    store.add([project, *memories])
    open_or_create(store.db, SESSIONS, SCHEMAS[SESSIONS]).add(pa.Table.from_pylist(sessions, schema=SCHEMAS[SESSIONS]))
    as_of = T0 + timedelta(days=3)

    def written(s) -> int:
        end = s["ended_at"] or as_of
        return sum(m.created_at <= as_of and (m.metadata.get("session_id") == s["session_id"] or (
            "session_id" not in m.metadata and m.agent is not None and m.agent == s["agent"]
            and s["started_at"] <= m.created_at <= end)) for m in memories)  # as of then

    got = dict(analytics.connect(store, as_of=as_of).execute(
        "select session_id, n_memories_written from mart_session_tasks").fetchall())
    want = {s["session_id"]: written(s) for s in sessions}
    assert got == want
    assert sum(want.values()) > 50 and any(a["agent"] == b["agent"] and a is not b and
                                           a["started_at"] < (b["ended_at"] or as_of) and b["started_at"] < (a["ended_at"] or as_of)
                                           for a in sessions for b in sessions)  # some overlap
