"""Whole-table queries of the warm vector cache: exact products against sign codes with an
exact re-rank (memlib.search.vector_cache), on 100,000 real MiniLM embeddings of the sample
corpus, side by side in one run.

    .venv/bin/python bench/vector_cache_approx.py [--size 100000] [--queries 200]

Queries are the realistic query texts of bench/vector_index.py, embedded by the real model.
CANDIDATES was chosen on query seed 99 (the tuning split); seed 7 is the check, printed
beside it and never used to choose. Two scopes: the whole table (expired memories
included) and the default (unexpired memories only). Prints recall@10 against the exact answer and the median
and p95 latency of each path, and the cost of the codes at load.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import corpus, median_ms, p95_ms, real_vectors  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib.embeddings import default_embedder  # noqa: E402
from memlib.scope import Scope  # noqa: E402
from memlib.search import vector_cache  # noqa: E402


def table_of(memories, vectors: np.ndarray):
    """The memories table's rows as the cache reads them (written once to a scratch store)."""
    import tempfile

    from memlib import MemoryStore
    from memlib.embeddings import HashEmbedder

    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(f"{tmp}/store", embedder=HashEmbedder(vectors.shape[1]), vector_cache="off")
        store.add(memories, vectors=vectors)
        return store.dataset().to_table()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--candidates", default="10,20,40", help="CANDIDATES values to compare")
    args = parser.parse_args()
    embedder = default_embedder()
    memories = corpus(args.size)
    vectors = real_vectors(memories, args.size, embedder=embedder)
    table = table_of(memories, vectors)
    dims = vectors.shape[1]
    started = time.perf_counter()
    exact = vector_cache.VectorCache(1, table, dims, approx_above=10**12)
    plain_load = time.perf_counter() - started
    started = time.perf_counter()
    coded = vector_cache.VectorCache(1, table, dims)
    coded_load = time.perf_counter() - started
    print(f"{args.size:,} rows x {dims}: load {plain_load:.2f} s exact, {coded_load:.2f} s with sign codes "
          f"({coded.signs.nbytes / 2**20:.1f} MB of codes)")
    # every row, and the default scope: the memories not expired (of the sample's history,
    # 39% by now), where the codes of expired rows are skipped
    for (seed, role), (scope, what) in [(s, w) for s in ((99, "tuning"), (7, "check"))
                                         for w in ((Scope(include_expired=True), "every row"),
                                                   (Scope(), "unexpired"))]:
        queries = embedder.embed(query_texts(args.queries, seed=seed))
        truth = [{i for i, _ in exact.search(q, 10, scope)} for q in queries]
        for candidates in [int(c) for c in args.candidates.split(",")]:
            vector_cache.CANDIDATES = candidates
            timings = {"exact": [], "codes": []}
            recall = []
            for q, want in zip(queries, truth):  # interleaved: the same noise on both paths
                t = time.perf_counter()
                exact.search(q, 10, scope)
                timings["exact"].append(time.perf_counter() - t)
                t = time.perf_counter()
                got = coded.search(q, 10, scope)
                timings["codes"].append(time.perf_counter() - t)
                recall.append(len(want & {i for i, _ in got}) / 10)
            ratio = median_ms(timings["codes"]) / median_ms(timings["exact"])
            print(f"seed {seed} ({role}), {what}, candidates {candidates:>3}/hit: recall@10 {np.mean(recall):.3f}  "
                  f"p50 exact {median_ms(timings['exact']):.2f} ms, codes {median_ms(timings['codes']):.2f} ms "
                  f"({ratio:.2f}x)  p95 exact {p95_ms(timings['exact']):.2f}, codes {p95_ms(timings['codes']):.2f}")


if __name__ == "__main__":
    main()
