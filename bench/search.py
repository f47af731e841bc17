"""Search latency on a 100,000-memory store with real embeddings, and the index's recall@10.

Median and p95 latency of each mode through the public API (`store.search`, query embedding
included), unscoped and scoped to one project holding about 1% of the rows; recall@10 of the
default vector index against exact search, unscoped and scoped. Target: scoped hybrid median
at most 50 ms.

    .venv/bin/python bench/search.py [--size 100000] [--queries 200]
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import median_ms, p95_ms  # noqa: E402
from vector_index import drop_vector_index, query_texts, setup  # noqa: E402

from memlib import Scope  # noqa: E402
from memlib.lifecycle.vector_index import ensure_vector_index  # noqa: E402
from memlib.search.search import SearchConfig, vector_candidates  # noqa: E402


def main() -> None:
    args, embedder, store, vectors, ids = setup()
    drop_vector_index(store)
    started = time.perf_counter()
    built = ensure_vector_index(store, force=True)  # the cold path through the index, at any size
    print(f"default vector index built: {built} in {time.perf_counter() - started:.1f} s")

    projects = collections.Counter(store.table.to_lance().to_table(columns=["project_id"])
                                   .column("project_id").to_pylist())
    project, rows = min(projects.items(), key=lambda kv: abs(kv[1] - args.size / 100))
    print(f"scope: project {project} with {rows:,} of {args.size:,} rows ({100 * rows / args.size:.1f}%)\n")

    texts = query_texts(args.queries)
    scoped = Scope(project_id=project)
    for text in texts[:20]:  # warm caches
        store.search(text, k=10, scope=scoped)
    print("| mode | scope | median ms | p95 ms |\n|---|---|---|---|")
    for mode in ("hybrid", "vector", "fts"):
        for label, scope in (("project (~1%)", scoped), ("none", Scope())):
            times = []
            for text in texts:
                started = time.perf_counter()
                store.search(text, k=10, mode=mode, scope=scope)
                times.append(time.perf_counter() - started)
            print(f"| {mode} | {label} | {median_ms(times):.1f} | {p95_ms(times):.1f} |", flush=True)

    started = time.perf_counter()
    qv = embedder.embed(texts)
    embed_ms = (time.perf_counter() - started) / len(texts) * 1000
    print(f"\nquery embedding alone: {embed_ms:.1f} ms/query (batched)")
    in_project = np.array([i for i, m in enumerate(ids)
                           if projects and store_project(store, m, project)])
    config = SearchConfig()
    for label, scope, rows_idx in (("none", Scope(include_expired=True), np.arange(len(ids))),
                                   ("project (~1%)", Scope(project_id=project, include_expired=True),
                                    in_project)):
        sub = vectors[rows_idx]
        recalls = []
        for q in qv:
            exact = {ids[rows_idx[j]] for j in np.argsort(-(sub @ q))[:10]}
            got = {i for i, _ in vector_candidates(store, q, 10, scope, config)}
            recalls.append(len(got & exact) / 10)
        print(f"recall@10 of the default vector search vs exact, scope {label}: {np.mean(recalls):.3f}")


_PROJECTS: dict[str, str] = {}


def store_project(store, memory_id: str, project: str) -> bool:
    if not _PROJECTS:
        table = store.table.to_lance().to_table(columns=["id", "project_id"])
        _PROJECTS.update(zip(table.column("id").to_pylist(), table.column("project_id").to_pylist()))
    return _PROJECTS[memory_id] == project


if __name__ == "__main__":
    main()
