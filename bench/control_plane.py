"""The control plane's dispatch queue against the queues a team would otherwise use: claim +
ack throughput with 1, 4 and 8 worker processes, and each claim's latency (p50, p99).

    .venv/bin/python bench/control_plane.py [--items 20000] [--workers 1,4,8] [--repeats 1]

Every queue gets the same items (a small JSON payload), pre-loaded; the workers start
together and claim then ack until the queue is empty. Throughput is items over the time
from the start to the last worker's end. Systems, from the strongest guarantees to the
weakest:

- memlib: `claim(worker, lease=30)` then `ack(lease, result)`, two transactions, each with its
  event row (and the result row); memlib's worker loop `ack_and_claim` (one commit per
  item); and memlib with writers queueing on a file lock instead of SQLite's busy handler
  (the alternative measured for the default).
- sqlite-plain: the obvious SQLite queue with leases: a table with status, lease owner and
  lease end, an index on (status, priority, id); claim is BEGIN IMMEDIATE, expired leases
  back to queued, select the first queued, update it; ack an update; SQLite's busy timeout;
  no event log, no results, no token.
- persist-queue (SQLiteAckQueue): get() marks an item unacked, ack() acks it; no lease (an
  item a dead worker held stays unacked until someone calls resume_unack_tasks). Built for
  threads: duplicates across processes are counted.
- huey (SqliteStorage): dequeue() deletes the item; no ack and no lease (a worker that dies
  after dequeue loses the item). Its "claim + ack" is one dequeue.

Nothing here is tuned on the figures it prints. Prints one table and writes
bench/results/control_plane.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "control_plane.json"


# -- the systems: each has load(path, n) and a worker(path, name) that returns the ids it acked


def memlib_load(path: str, n: int) -> None:
    from memlib.control import ControlPlane

    with ControlPlane.open(path=path) as plane:
        for i in range(0, n, 5_000):
            plane.queue.enqueue_many([{"kind": "job", "payload": {"i": j}} for j in range(i, min(n, i + 5_000))])


def memlib_worker(path: str, name: str, start: float, mode: str) -> dict:
    from memlib.control import ControlPlane

    plane = ControlPlane.open(path=path, file_lock=mode == "file-lock")
    queue, done, waits = plane.queue, [], []
    _wait_for(start)
    if mode == "ack_and_claim":
        t = time.perf_counter()
        lease = queue.claim(name)
        waits.append(time.perf_counter() - t)
        while lease is not None:
            done.append(lease.task.payload["i"])
            t = time.perf_counter()
            _, lease = queue.ack_and_claim(lease, {"ok": True})
            waits.append(time.perf_counter() - t)  # an ack and a claim: counted as the claim's
    else:
        while True:
            t = time.perf_counter()
            lease = queue.claim(name)
            waits.append(time.perf_counter() - t)
            if lease is None:
                break
            done.append(lease.task.payload["i"])
            queue.ack(lease, {"ok": True})
    return {"done": done, "waits": waits, "end": time.time()}


PLAIN = """create table if not exists jobs (id integer primary key, payload text not null,
    status text not null default 'queued', priority integer not null default 0, owner text, lease_until real);
    create index if not exists jobs_ready on jobs (status, priority desc, id);"""


def _plain(path: str) -> sqlite3.Connection:
    con = sqlite3.connect(path, timeout=60, isolation_level=None)
    con.execute("pragma journal_mode = wal")
    con.execute("pragma synchronous = normal")
    return con


def plain_load(path: str, n: int) -> None:
    con = _plain(path)
    con.executescript(PLAIN)
    con.execute("begin")
    con.executemany("insert into jobs (payload) values (?)", [(json.dumps({"i": i}),) for i in range(n)])
    con.execute("commit")


def plain_worker(path: str, name: str, start: float, mode: str) -> dict:
    con, done, waits = _plain(path), [], []
    _wait_for(start)
    while True:
        t = time.perf_counter()
        con.execute("begin immediate")
        now = time.time()
        con.execute("update jobs set status = 'queued' where status = 'running' and lease_until < ?", (now,))
        row = con.execute("select id, payload from jobs where status = 'queued' order by priority desc, id limit 1"
                          ).fetchone()
        if row is not None:
            con.execute("update jobs set status = 'running', owner = ?, lease_until = ? where id = ?",
                        (name, now + 30, row[0]))
        con.execute("commit")
        waits.append(time.perf_counter() - t)
        if row is None:
            break
        done.append(json.loads(row[1])["i"])
        con.execute("update jobs set status = 'done' where id = ? and owner = ?", (row[0], name))
    return {"done": done, "waits": waits, "end": time.time()}


def persist_load(path: str, n: int) -> None:
    from persistqueue import SQLiteAckQueue

    q = SQLiteAckQueue(path, multithreading=True, auto_commit=False)
    for i in range(n):
        q.put({"i": i})
    q.task_done()


def persist_worker(path: str, name: str, start: float, mode: str) -> dict:
    from persistqueue import SQLiteAckQueue
    from persistqueue.exceptions import Empty

    q = SQLiteAckQueue(path, multithreading=True, auto_resume=False)
    done, waits = [], []
    _wait_for(start)
    while True:
        t = time.perf_counter()
        try:
            item = q.get(block=False)
        except Empty:
            waits.append(time.perf_counter() - t)
            break
        waits.append(time.perf_counter() - t)
        done.append(item["i"])
        q.ack(item)
    return {"done": done, "waits": waits, "end": time.time()}


def huey_load(path: str, n: int) -> None:
    from huey.storage import SqliteStorage

    storage = SqliteStorage(name="bench", filename=path)
    for i in range(n):
        storage.enqueue(json.dumps({"i": i}).encode())


def huey_worker(path: str, name: str, start: float, mode: str) -> dict:
    from huey.storage import SqliteStorage

    storage = SqliteStorage(name="bench", filename=path)
    done, waits = [], []
    _wait_for(start)
    while True:
        t = time.perf_counter()
        data = storage.dequeue()
        waits.append(time.perf_counter() - t)
        if data is None:
            break
        done.append(json.loads(bytes(data))["i"])
    return {"done": done, "waits": waits, "end": time.time()}


SYSTEMS = {
    "memlib claim+ack": (memlib_load, memlib_worker, "claim+ack", "lease, token, event log, results"),
    "memlib ack_and_claim": (memlib_load, memlib_worker, "ack_and_claim", "the same, one commit per item"),
    "memlib file-lock": (memlib_load, memlib_worker, "file-lock", "claim+ack, writers queue on a file lock"),
    "sqlite-plain": (plain_load, plain_worker, "", "lease; no events, results or token"),
    "persist-queue": (persist_load, persist_worker, "", "ack; no lease (built for threads)"),
    "huey": (huey_load, huey_worker, "", "none: dequeue deletes (at most once)"),
}


def _wait_for(start: float) -> None:
    while time.time() < start:
        time.sleep(0.001)


def _run(target, args, queue):
    queue.put(target(*args))


def run(system: str, workers: int, items: int) -> dict:
    load, worker, mode, _ = SYSTEMS[system]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "queue.db") if system != "persist-queue" else tmp
        load(path, items)
        ctx = mp.get_context("spawn")
        results = ctx.Queue()
        start = time.time() + 3.0  # every worker started and imported by then
        procs = [ctx.Process(target=_run, args=(worker, (path, f"w{i}", start, mode), results))
                 for i in range(workers)]
        for p in procs:
            p.start()
        outs = [results.get(timeout=600) for _ in procs]
        for p in procs:
            p.join()
    done = [i for out in outs for i in out["done"]]
    waits = [w for out in outs for w in out["waits"]]
    seconds = max(out["end"] for out in outs) - start
    return {"system": system, "workers": workers, "items": items, "acked": len(done),
            "distinct": len(set(done)), "lost": items - len(set(done)), "duplicates": len(done) - len(set(done)),
            "seconds": seconds, "per_second": len(set(done)) / seconds,
            "claim_p50_ms": percentile(waits, 0.5) * 1000, "claim_p99_ms": percentile(waits, 0.99) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--workers", default="1,4,8")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--repeats", type=int, default=1, help="rounds; the median round is reported")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    systems = args.systems.split(",")
    rows = []
    for workers in counts:
        for system in systems:  # side by side: every system at one worker count before the next
            rounds = [run(system, workers, args.items) for _ in range(args.repeats)]
            row = sorted(rounds, key=lambda r: r["per_second"])[len(rounds) // 2]
            row["rounds_per_second"] = [round(r["per_second"]) for r in rounds]
            rows.append(row)
            print(f"{workers} workers  {system:<22} {row['per_second']:>8,.0f} items/s  claim p50 "
                  f"{row['claim_p50_ms']:.2f} ms  p99 {row['claim_p99_ms']:.2f} ms  lost {row['lost']}  "
                  f"duplicates {row['duplicates']}", flush=True)
    print()
    print("| workers | system | guarantees | claim+ack /s | vs memlib claim+ack | claim p50 ms | claim p99 ms | lost | twice |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        base = next(r for r in rows if r["workers"] == row["workers"] and r["system"] == "memlib claim+ack")
        print(f"| {row['workers']} | {row['system']} | {SYSTEMS[row['system']][3]} | {row['per_second']:,.0f} | "
              f"{row['per_second'] / base['per_second']:.2f} | {row['claim_p50_ms']:.2f} | {row['claim_p99_ms']:.2f} | "
              f"{row['lost']} | {row['duplicates']} |")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"items": args.items, "repeats": args.repeats, "rows": rows,
                                   "cpus": os.cpu_count()}, indent=1))


if __name__ == "__main__":
    main()
