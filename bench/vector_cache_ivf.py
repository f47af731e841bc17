"""Whole-store queries of the warm vector cache above IVF_ABOVE rows, on the 1M sample store's
vectors: the NPROBE partitions nearest the query scanned in REDUCED principal components, from
a copy of 8-bit codes (memlib.search.vector_cache, since 2026-11-25) against the same scan of a
float32 copy (the cache before), the RERANK best rows per hit re-ranked exactly after either,
side by side in one run: the two scans alternate query by query.

    .venv/bin/python bench/vector_cache_ivf.py [--queries 200] [--reduced 64,96] [--nprobe 48,64] [--rerank 40] [--cold]

Queries are bench/vector_index.py's query texts embedded by the real model. They are the
tuning split: texts 100 to 100+N of seed 99, never the first 100, which bench/peers.py reports
its recall and latency on. Prints recall@10 against an exact scan of every row (a hit counts if
its score reaches the 10th best), median and p95 ms of the scan and re-rank, the load cost and
the copy's size. With --cold, a product over every vector (what bench/peers.py's recall check
does between systems) comes before each query, so no cache holds the copy.
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


def float_probe(cache, copy: np.ndarray, query: np.ndarray, n: int, nprobe: int):
    """The cache's scan before 2026-11-25: the picked partitions of a float32 copy in the
    principal components, each a product, the best RERANK * n rows ranked exactly."""
    picked = np.sort(np.argsort(-(cache.centroids @ query))[:nprobe])
    spans = [(cache.offsets[p], cache.offsets[p + 1]) for p in picked]
    reduced = cache.basis @ query
    scores = np.concatenate([copy[start:end] @ reduced for start, end in spans])
    rows = np.concatenate([cache.members[start:end] for start, end in spans])
    rows = rows[np.argpartition(-scores, vector_cache.RERANK * n - 1)[:vector_cache.RERANK * n]]
    return cache._top(rows, cache.matrix[rows] @ query, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--reduced", default="64,96", help="principal components to compare")
    parser.add_argument("--nprobe", default="48,64,80", help="partitions probed, to compare")
    parser.add_argument("--rerank", type=int, default=vector_cache.RERANK, help="rows re-ranked exactly per hit")
    parser.add_argument("--cold", action="store_true", help="a product over every vector before each query")
    args = parser.parse_args()
    vector_cache.RERANK = args.rerank  # read by both scans at each query
    path = CACHE / "sample-1m"
    if not (path / "memories.lance").exists():
        sys.exit(f"bench/vector_cache_ivf.py: no {path}; build it first (see bench/reports.py)")
    store = MemoryStore.open(str(path), create=False)
    table = store.dataset().to_table()
    table = table.take(pc.sort_indices(table, [("created_at", "ascending")]))
    dims = store.dims
    queries = np.asarray(default_embedder().embed(query_texts(REPORTED + args.queries)[REPORTED:]), np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    unit = table.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, dims)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    truth = []
    for q in queries:
        scores = unit @ q
        truth.append(-np.partition(-scores, 9)[9])
    everything = Scope(include_expired=True)
    print(f"{len(unit):,} rows x {dims} dims, {len(queries)} tuning queries "
          f"(texts {REPORTED}-{REPORTED + len(queries) - 1} of seed 99), "
          f"{'cold: a full product before each query' if args.cold else 'warm'}\n")
    print("| copy | dims | nprobe | rerank rows | recall@10 | median ms | p95 ms | load s | copy MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for reduced in (int(r) for r in args.reduced.split(",")):
        started = time.perf_counter()
        cache = vector_cache.VectorCache(1, table, dims, reduced=reduced)
        load = time.perf_counter() - started
        copy = np.concatenate([(cache.matrix[cache.members[i:i + 65_536]] - cache.mean) @ cache.basis.T
                               for i in range(0, len(cache.members), 65_536)])
        scans = {"float32": (lambda q, p: float_probe(cache, copy, q, 10, p), copy.nbytes),
                 "8-bit codes": (lambda q, p: cache.search(q, 10, everything, nprobe=p), cache.partitioned.nbytes)}
        for nprobe in (int(p) for p in args.nprobe.split(",")):
            recalls = {name: [] for name in scans}
            times = {name: [] for name in scans}
            for q, tenth in zip(queries, truth):
                for name, (scan, _) in scans.items():
                    if args.cold:
                        unit @ q
                    started = time.perf_counter()
                    hits = scan(q, nprobe)
                    times[name].append(time.perf_counter() - started)
                    got = [float(cache.matrix[cache.position[i]] @ q) for i, _ in hits]
                    recalls[name].append(sum(s >= tenth - 1e-5 for s in got) / 10)
            for name, (_, nbytes) in scans.items():
                print(f"| {name} | {reduced} | {nprobe} | {vector_cache.RERANK * 10} | "
                      f"{np.mean(recalls[name]):.3f} | {median_ms(times[name]):.2f} | "
                      f"{p95_ms(times[name]):.2f} | {load:.1f} | {nbytes / 2**20:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
