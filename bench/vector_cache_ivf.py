"""Whole-store queries of the warm vector cache above IVF_ABOVE rows, on the 1M sample store's
vectors: the NPROBE partitions nearest the query scanned in all dimensions (exact; the cache
before 2026-11-24) against the same partitions scanned in REDUCED principal components with
the RERANK best rows per hit re-ranked exactly (memlib.search.vector_cache), side by side in
one run.

    .venv/bin/python bench/vector_cache_ivf.py [--queries 200]

Queries are bench/vector_index.py's query texts embedded by the real model. They are the
tuning split: texts 100 to 100+N of seed 99, never the first 100, which bench/peers.py reports
its recall and latency on. Prints recall@10 against an exact scan of every row (a hit counts if
its score reaches the 10th best), median and p95 ms of `VectorCache.search`, and the load cost.
Needs data/bench/sample-1m (bench/reports.py says how to build it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, median_ms, p95_ms  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402
from memlib.scope import Scope  # noqa: E402
from memlib.search import vector_cache  # noqa: E402

REPORTED = 100  # bench/peers.py's queries: never used here


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--reduced", default="64,96,128", help="principal components to compare")
    parser.add_argument("--nprobe", default="48,64,80", help="partitions probed, to compare")
    args = parser.parse_args()
    path = CACHE / "sample-1m"
    if not (path / "memories.lance").exists():
        sys.exit(f"bench/vector_cache_ivf.py: no {path}; build it first (see bench/reports.py)")
    store = MemoryStore.open(str(path), create=False)
    table = store.dataset().to_table()
    table = table.take(pc.sort_indices(table, [("created_at", "ascending")]))
    dims = store.dims
    queries = np.asarray(default_embedder().embed(query_texts(REPORTED + args.queries)[REPORTED:]), np.float32)
    unit = table.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, dims)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    truth = []
    for q in queries:
        scores = unit @ (q / np.linalg.norm(q))
        truth.append((scores, -np.partition(-scores, 9)[9]))
    everything = Scope(include_expired=True)
    print(f"{len(unit):,} rows x {dims} dims, {len(queries)} tuning queries "
          f"(texts {REPORTED}-{REPORTED + len(queries) - 1} of seed 99)\n")
    print("| scan | dims | nprobe | rerank rows | recall@10 | median ms | p95 ms | load s | copy MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for reduced in [dims, *(int(r) for r in args.reduced.split(","))]:
        started = time.perf_counter()
        cache = vector_cache.VectorCache(1, table, dims, reduced=reduced)
        load = time.perf_counter() - started
        for nprobe in (int(p) for p in args.nprobe.split(",")):
            recalls, times = [], []
            for q, (scores, tenth) in zip(queries, truth):
                started = time.perf_counter()
                hits = cache.search(q, 10, everything, nprobe=nprobe)
                times.append(time.perf_counter() - started)
                rows = [cache.position[i] for i, _ in hits]
                got = [float(cache.matrix[r] @ (q / np.linalg.norm(q))) for r in rows]
                recalls.append(sum(s >= tenth - 1e-5 for s in got) / 10)
            label = "all dimensions" if reduced == dims else "principal components"
            print(f"| {label} | {reduced} | {nprobe} | {vector_cache.RERANK * 10} | {np.mean(recalls):.3f} | "
                  f"{median_ms(times):.2f} | {p95_ms(times):.2f} | {load:.1f} | "
                  f"{cache.partitioned.nbytes / 2**20:,.0f} |", flush=True)
        del cache


if __name__ == "__main__":
    main()
