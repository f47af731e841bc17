"""The usage and decay marts over 100 million recall events: DuckDB on this machine (memlib's
views, as a report reads them) against Daft on a local Ray cluster of two workers, same data,
same rows.

    .venv/bin/python bench/events.py [--events 100000000] [--memory-limit 8GB]

Builds once, under data/bench/events-N: the peers' 100,000 sample memories (real vectors)
and N synthetic recall events appended straight to the store's recall_events table in
memlib's schema (1M rows a commit): memories drawn with a Zipf-like skew, three events per
query, twelve agents, 90 days before 2026-11-01. Then, each in a new process:

- DuckDB: `analytics.connect(store, as_of=...)` building mart_usage_daily, mart_usage_by_memory
  and mart_decay (each scans the events: int_recall_events_as_of and int_memory_as_of are
  materialized), with [duckdb] memory_limit = --memory-limit so that it spills past it;
  wall time and the process's peak RSS.
- Daft on Ray: a head with no CPUs and two one-CPU workers (ray.cluster_utils.Cluster), the
  same mart by memlib.analytics.distributed; wall time, cluster start excluded and stated.
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


def duck(path: str, memory_limit: str, out: str) -> dict:
    from memlib import MemoryStore, analytics
    from memlib.analytics.distributed import COLUMNS

    config = Path(tempfile.mkdtemp()) / "memlib.toml"
    config.write_text(f'[duckdb]\nmemory_limit = "{memory_limit}"\n'
                      f'temp_directory = "{Path(path).parent / "duckdb-spill"}"\n')
    os.environ["MEMLIB_CONFIG"] = str(config)
    started = time.perf_counter()
    # the store was written today with events dated before: judged as of the date, as it is
    con = analytics.connect(MemoryStore.open(path, create=False), as_of=AS_OF, views=list(MARTS), time_travel=False)
    counts = {m: con.execute(f"select count(*) from {m}").fetchone()[0] for m in MARTS}
    seconds = time.perf_counter() - started
    events = con.execute("select count(*) from int_recall_events_as_of").fetchone()[0]
    import pyarrow.parquet as pq

    pq.write_table(con.execute(f"select {', '.join(COLUMNS)} from mart_usage_daily order by all").to_arrow_table(), out)
    return {"seconds": seconds, "events": events, "rows": counts,
            "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def daft_run(path: str, runner: str, out: str) -> dict:
    from memlib.analytics import distributed

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
    return {"seconds": seconds, "cluster_start_s": booted, "workers": workers,
            "peak_rss_gb_driver": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench/events.py {' '.join(args)} failed: {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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
    import pyarrow.parquet as pq

    path = CACHE / f"events-{args.events}"
    started = time.perf_counter()
    build(path, args.events)
    print(f"store: {path} ({time.perf_counter() - started:.0f} s to build or find)", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="memlib-events-"))
    results = {"events": args.events, "memory_limit": args.memory_limit}
    results["duckdb"] = child("duck", str(path), args.memory_limit, str(tmp / "duck.parquet"))
    print(f"duckdb: {json.dumps(results['duckdb'])}", flush=True)
    results["daft_ray"] = child("ray", str(path), str(tmp / "ray.parquet"))
    print(f"daft on ray: {json.dumps(results['daft_ray'])}", flush=True)
    results["daft_native"] = child("native", str(path), str(tmp / "native.parquet"))
    print(f"daft native: {json.dumps(results['daft_native'])}", flush=True)
    reference = pq.read_table(tmp / "duck.parquet").to_pylist()
    for name in ("ray", "native"):
        other = pq.read_table(tmp / f"{name}.parquet")
        results[f"rows_equal_{name}"] = other.to_pylist() == reference
    results["usage_daily_rows"] = len(reference)
    print(json.dumps({k: v for k, v in results.items() if k.startswith("rows_equal") or k == "usage_daily_rows"}))
    table = [
        f"| engine ({args.events:,} events) | wall time | peak memory | mart_usage_daily rows equal DuckDB's |",
        "|---|---|---|---|",
        f"| DuckDB, memlib's views (3 marts; memory_limit {args.memory_limit}) | {results['duckdb']['seconds']:.0f} s | "
        f"{results['duckdb']['peak_rss_gb']:.1f} GB | (reference: {len(reference):,} rows) |",
        f"| Daft on Ray, 2 workers x 1 CPU (mart_usage_daily; cluster start {results['daft_ray']['cluster_start_s']:.0f} s "
        f"not counted) | {results['daft_ray']['seconds']:.0f} s | driver {results['daft_ray']['peak_rss_gb_driver']:.1f} GB | "
        f"{results['rows_equal_ray']} |",
        f"| Daft in one process (mart_usage_daily) | {results['daft_native']['seconds']:.0f} s | "
        f"{results['daft_native']['peak_rss_gb_driver']:.1f} GB | {results['rows_equal_native']} |",
    ]
    save_results("events", results, table)


if __name__ == "__main__":
    main()
