"""What a fresh read costs: warm hybrid search at 100,000 memories, side by side, on handles
that check for other processes' commits never (memlib before the check existed), at most
once a second (the default) and before every query (max_staleness=0).

The three handles search the same queries in one run, interleaved in rotating order, so the
machine's noise falls on all three alike. Real embeddings of the sample corpus (cached in
data/bench/); the query embeddings are computed once, outside the timing.

    .venv/bin/python bench/freshness.py [--size 100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import maintained_store, median_ms, p95_ms  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402

HANDLES = {"never (before)": float("inf"), "1 s (default)": 1.0, "every query (0)": 0.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    embedder = default_embedder()
    _, uri = maintained_store(args.size, embedder, "memlib-fresh-")
    handles = {name: MemoryStore.open(uri, vector_cache="on", max_staleness=s) for name, s in HANDLES.items()}
    for handle in handles.values():
        handle.warm()
    texts = query_texts(args.queries)
    queries = embedder.embed(texts)
    for handle in handles.values():  # a first pass: caches, the full-text index, the allocator
        for text, vector in zip(texts[:20], queries[:20]):
            handle.search(text, k=10, vector=vector)
    times: dict[str, list[float]] = {name: [] for name in handles}
    names = list(handles)
    for i, (text, vector) in enumerate(zip(texts, queries)):
        for name in names[i % 3:] + names[:i % 3]:
            started = time.perf_counter()
            handles[name].search(text, k=10, vector=vector)
            times[name].append(time.perf_counter() - started)
    base = median_ms(times[names[0]])
    print(f"\n{args.size:,} memories, {args.queries} warm hybrid queries per handle, interleaved\n")
    print("| checks for new commits | median ms | p95 ms | median vs never |")
    print("|---|---|---|---|")
    for name in names:
        print(f"| {name} | {median_ms(times[name]):.2f} | {p95_ms(times[name]):.2f} | "
              f"{median_ms(times[name]) / base:.3f} |")
    check = []
    handle = handles[names[2]]
    for _ in range(200):
        started = time.perf_counter()
        handle.version  # noqa: B018 (max_staleness 0: one check of the latest version)
        check.append(time.perf_counter() - started)
    print(f"\none check of the latest version alone: median {statistics.median(check) * 1000:.3f} ms")


if __name__ == "__main__":
    main()
