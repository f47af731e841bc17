"""Why the unscoped query at 1M is slower in bench/peers.py than alone: the same store's warm
cache queried with its caches warm, and with a full 1M x 384 product before each query (what
peers.py's recall check does between systems), side by side in one run.

    .venv/bin/python bench/vector_cache_cold.py [--store data/bench/peers/memlib-1000000]

The store is the one bench/peers.py --sizes 1000000 leaves. Queries are texts 100-199 of
seed 99 (the tuning split; peers.py reports the first 100). Prints medians of two rounds of
`store.search` (the whole path) and `VectorCache.search` (the partition scan and re-rank).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402
from memlib.scope import Scope  # noqa: E402

REPORTED = 100  # bench/peers.py's queries: never used here
ALL = Scope(include_expired=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=str(CACHE / "peers" / "memlib-1000000"))
    args = parser.parse_args()
    if not Path(args.store).exists():
        sys.exit(f"bench/vector_cache_cold.py: no {args.store}; run bench/peers.py --sizes 1000000 first")
    store = MemoryStore.open(args.store, create=False)
    print(f"warm: {store.warm()}", flush=True)
    cache = store.cached().segments[0]
    queries = np.asarray(default_embedder().embed(query_texts(REPORTED + 100)[REPORTED:]), np.float32)
    other = np.ones((len(cache), store.dims), np.float32)  # another system's full scan

    def median_ms(search, cold: bool) -> float:
        laps = []
        for q in queries:
            if cold:
                other @ q
            started = time.perf_counter()
            search(q)
            laps.append(time.perf_counter() - started)
        return statistics.median(laps) * 1000

    whole = lambda q: store.search("query", k=10, mode="vector", scope=ALL, vector=q)  # noqa: E731
    scan = lambda q: cache.search(q, 10, ALL)  # noqa: E731
    print("| caches | store.search p50 ms | VectorCache.search p50 ms |\n|---|---|---|")
    for round_ in range(2):
        for cold in (False, True):
            print(f"| {'cold (a 1M x 384 product first)' if cold else 'warm'}, round {round_ + 1} | "
                  f"{median_ms(whole, cold):.2f} | {median_ms(scan, cold):.2f} |", flush=True)


if __name__ == "__main__":
    main()
