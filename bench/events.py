"""The usage and decay marts over 100 million recall events: DuckDB on this machine (memlib's
views, as a report reads them) against Daft on a local Ray cluster of two workers, same data,
same rows.

    .venv/bin/python bench/events.py [--events 100000000] [--memory-limit 8GB]

Builds once, under data/bench/events-N: the peers' 100,000 sample memories (real vectors)
and N synthetic recall events appended straight to the store's recall_events table in
memlib's schema (1M rows a commit): memories drawn with a Zipf-like skew, three events per
query, twelve agents, 90 days before 2026-11-01. Then, each in a new process:

- DuckDB: `analytics.connect(store, as_of=...)` building mart_usage_daily alone (the
  distributed path's question), then, in another process, mart_usage_daily,
  mart_usage_by_memory and mart_decay (what the reports build: int_recall_events_as_of and
  int_memory_as_of are materialized once for the three), with [duckdb] memory_limit =
  --memory-limit so that it spills past it; wall time and the process's peak RSS.
- Daft on Ray: a head with no CPUs and two one-CPU workers (ray.cluster_utils.Cluster), the
  same mart by memlib.analytics.distributed; wall time, cluster start excluded and stated,
  and the peak of the memory every process of the cluster holds together (sampled).
- Daft in one process (its native runner), for reference.

The rows of mart_usage_daily from DuckDB and from Daft are compared whole.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, save_results  # noqa: E402

AS_OF = "2026-11-01"
END = datetime(2026, 11, 1, 23, 59, 59, 999999, tzinfo=timezone.utc)
BATCH = 1_000_000
AGENTS = [f"agent-{i:02d}" for i in range(12)]
MARTS = ("mart_usage_daily", "mart_usage_by_memory", "mart_decay")


def build(path: Path, events: int) -> None:
    import lance

    from memlib import MemoryStore
    from memlib.embeddings import default_embedder
    from memlib.store.recall_log import SCHEMA

    from peers import load_corpus

    if (path / "recall_events.lance").exists():
        return
    data = load_corpus(100_000)
    store = MemoryStore.open(str(path), embedder=default_embedder())
    store.add(data.memories, vectors=data.vectors)  # one commit: turns name the turns before them
    ids = pa.array([m.id for m in data.memories if m.created_at <= END])
    weights = 1.0 / (np.arange(len(ids)) + 10.0)
    weights /= weights.sum()
    rng = np.random.default_rng(7)
    start_us = int(datetime(2026, 8, 3, tzinfo=timezone.utc).timestamp() * 1e6)
    span_us = int(90 * 86400e6)
    agents = pa.array(AGENTS)
    uri = str(path / "recall_events.lance")
    store.recalls.table  # the table, created empty in memlib's schema
    started, written = time.perf_counter(), 0
    while written < events:
        n = min(BATCH, events - written)
        serial = np.arange(written, written + n)
        queries = serial // 3
        at = np.sort(rng.integers(start_us, start_us + span_us, n // 3 + 1))[queries - queries[0]]
        stamps = pa.array(at, pa.int64()).cast(pa.timestamp("us", tz="UTC"))
        batch = pa.table({
            "event_id": pa.array(serial).cast(pa.string()),
            "query_id": pa.array(queries).cast(pa.string()),
            "query_text": pa.nulls(n, pa.string()),
            "memory_id": ids.take(pa.array(rng.choice(len(ids), n, p=weights))),
            "rank": pa.array(serial % 3 + 1, pa.int32()),
            "score": pa.array(rng.random(n)),
            "mode": pa.array(["hybrid"] * n),
            "agent": agents.take(pa.array(rng.integers(0, len(AGENTS), n))),
            "tool": pa.nulls(n, pa.string()),
            "session_id": pa.nulls(n, pa.string()),
            "recalled_at": stamps,
            "flush_id": pa.array(["bench"] * n),
            "flushed_at": stamps,
        }, schema=SCHEMA)
        lance.write_dataset(batch, uri, mode="append", schema=SCHEMA)
        written += n
        if sys.stderr.isatty():
            rate = written / (time.perf_counter() - started)
            print(f"\r{written:,} of {events:,} events ({rate:,.0f}/s)", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)


def duck(path: str, memory_limit: str, out: str, marts: str) -> dict:
    from memlib import MemoryStore, analytics
    from memlib.analytics.distributed import COLUMNS

    config = Path(tempfile.mkdtemp()) / "memlib.toml"
    config.write_text(f'[duckdb]\nmemory_limit = "{memory_limit}"\n'
                      f'temp_directory = "{Path(path).parent / "duckdb-spill"}"\n')
    os.environ["MEMLIB_CONFIG"] = str(config)
    started = time.perf_counter()
    # the store was written today with events dated before: judged as of the date, as it is
    built = marts.split(",")
    con = analytics.connect(MemoryStore.open(path, create=False), as_of=AS_OF, views=built, time_travel=False)
    counts = {m: con.execute(f"select count(*) from {m}").fetchone()[0] for m in built}
    seconds = time.perf_counter() - started
    events = con.execute("select count(*) from int_recall_events_as_of").fetchone()[0]
    import pyarrow.parquet as pq

    pq.write_table(con.execute(f"select {', '.join(COLUMNS)} from mart_usage_daily order by all").to_arrow_table(), out)
    return {"seconds": seconds, "events": events, "rows": counts,
            "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


class ClusterMemory:
    """The peak of the resident memory of this process and its descendants together (Ray's
    raylets and workers are children of the driver that starts the cluster), sampled."""

    def __init__(self, every: float = 0.25):
        import threading

        self.peak, self.every, self.done = 0, every, threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        import psutil

        me = psutil.Process()
        while not self.done.is_set():
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            self.done.wait(self.every)

    def stop(self) -> float:
        self.done.set()
        self.thread.join()
        return self.peak / 2**30


def daft_run(path: str, runner: str, out: str) -> dict:
    from memlib.analytics import distributed

    memory = ClusterMemory()
    cluster, started = None, time.perf_counter()
    if runner == "ray":
        from ray.cluster_utils import Cluster

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        distributed.use_ray(cluster.address)
    booted = time.perf_counter() - started
    started = time.perf_counter()
    table = distributed.usage_daily(path, END)
    seconds = time.perf_counter() - started
    import pyarrow.parquet as pq

    pq.write_table(table, out)
    if cluster is not None:
        import ray

        workers = sum(1 for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU"))
        ray.shutdown()
        cluster.shutdown()
    else:
        workers = 1
    return {"seconds": seconds, "cluster_start_s": booted, "workers": workers, "peak_gb_all": memory.stop(),
            "peak_rss_gb_driver": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def child(*args: str) -> dict:
    """Run one engine in a new process: its figures, or {"failed": why} when it dies (the
    kernel's out-of-memory killer leaves no message: the signal says it)."""
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True)
    if done.returncode == 0:
        return json.loads(done.stdout.strip().splitlines()[-1])
    why = done.stderr.strip().splitlines()[-1:] or [f"killed by signal {-done.returncode}" if done.returncode < 0
                                                    else f"exit {done.returncode}"]
    print(f"bench/events.py {args[0]} failed: {why[0]}", file=sys.stderr)
    return {"failed": why[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000_000)
    parser.add_argument("--memory-limit", default="8GB", help="DuckDB's memory_limit (it spills past it)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        role, path, *rest = args.child
        print(json.dumps(duck(path, *rest) if role == "duck" else daft_run(path, role, *rest)))
        return
    path = CACHE / f"events-{args.events}"
    started = time.perf_counter()
    build(path, args.events)
    print(f"store: {path} ({time.perf_counter() - started:.0f} s to build or find)", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="memlib-events-"))
    results = {"events": args.events, "memory_limit": args.memory_limit}
    results["duckdb"] = child("duck", str(path), args.memory_limit, str(tmp / "duck.parquet"), "mart_usage_daily")
    print(f"duckdb: {json.dumps(results['duckdb'])}", flush=True)
    results["duckdb_marts"] = child("duck", str(path), args.memory_limit, str(tmp / "duck3.parquet"), ",".join(MARTS))
    print(f"duckdb, three marts: {json.dumps(results['duckdb_marts'])}", flush=True)
    results["daft_ray"] = child("ray", str(path), str(tmp / "ray.parquet"))
    print(f"daft on ray: {json.dumps(results['daft_ray'])}", flush=True)
    results["daft_native"] = child("native", str(path), str(tmp / "native.parquet"))
    print(f"daft native: {json.dumps(results['daft_native'])}", flush=True)
    summarise(results, tmp, args.events, args.memory_limit)


def summarise(results: dict, tmp: Path, events: int, memory_limit: str) -> None:
    """Compare each engine's rows with DuckDB's mart_usage_daily, print and keep the table."""
    import pyarrow.parquet as pq

    reference = pq.read_table(tmp / "duck.parquet").to_pylist()
    for name, key in (("duck3", "duckdb_marts"), ("ray", "daft_ray"), ("native", "daft_native")):
        if "failed" not in results[key]:
            results[f"rows_equal_{name}"] = pq.read_table(tmp / f"{name}.parquet").to_pylist() == reference
    results["usage_daily_rows"] = len(reference)

    def row(engine: str, what: str, key: str, memory: str, equal: str | None) -> str:
        got = results[key]
        if "failed" in got:
            return f"| {engine} | {what} | failed: {got['failed']} | | |"
        peak = f"{got[memory]:.1f} GB" + (" (all processes)" if key == "daft_ray" else "")
        return f"| {engine} | {what} | {got['seconds']:.0f} s | {peak} | " \
               f"{results[equal] if equal else f'(reference: {len(reference):,} rows)'} |"

    ray = results["daft_ray"]
    table = [
        f"| engine ({events:,} events) | what | wall time | peak memory | rows equal DuckDB's |",
        "|---|---|---|---|---|",
        row(f"DuckDB, memlib's views, memory_limit {memory_limit}", "mart_usage_daily", "duckdb", "peak_rss_gb", None),
        row(f"DuckDB, memlib's views, memory_limit {memory_limit}", "+ mart_usage_by_memory, mart_decay",
            "duckdb_marts", "peak_rss_gb", "rows_equal_duck3"),
        row("Daft on Ray, 2 workers x 1 CPU" + (f" (cluster start {ray['cluster_start_s']:.0f} s not counted)"
                                               if "failed" not in ray else ""),
            "mart_usage_daily", "daft_ray", "peak_gb_all", "rows_equal_ray"),
        row("Daft in one process", "mart_usage_daily", "daft_native", "peak_gb_all", "rows_equal_native"),
    ]
    save_results("events", results, table)

if __name__ == "__main__":
    main()
