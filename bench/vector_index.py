"""Choose the vector index: recall@10 against exact search and latency, per index and knobs.

Runs on the sample corpus with real all-MiniLM-L6-v2 embeddings (cached under data/bench/),
queried with realistic query texts, never random vectors.

    .venv/bin/python bench/vector_index.py [--size 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import CACHE, corpus, median_ms, p95_ms, real_vectors  # noqa: E402

from memlib import MemoryStore, Scope  # noqa: E402
from memlib.sample import text as T  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402
from memlib.sample.generate import _Writer  # noqa: E402
from memlib.search.search import SearchConfig, vector_candidates  # noqa: E402

CONFIGS = [
    # (label, create_index kwargs or None for flat, [(nprobes, refine_factor, ef), ...])
    ("flat (no index)", None, [(0, 0, 0)]),
    ("IVF_PQ m=96", {"index_type": "IVF_PQ", "num_sub_vectors": 96}, [(20, 5, 0), (40, 5, 0), (60, 10, 0)]),
    ("IVF_HNSW_SQ", {"index_type": "IVF_HNSW_SQ"},
     [(4, 0, 0), (8, 0, 0), (8, 4, 0), (16, 4, 0), (8, 0, 100), (8, 4, 100), (12, 4, 100), (16, 0, 150)]),
    ("IVF_SQ", {"index_type": "IVF_SQ"}, [(20, 0, 0), (20, 4, 0), (40, 4, 0)]),
]


def query_texts(n: int, seed: int = 99) -> list[str]:
    w = _Writer(random.Random(seed))
    return [w.fill(T.QUERIES, w.topic()) for _ in range(n)]


def build(size: int, embedder) -> tuple[MemoryStore, np.ndarray, list[str]]:
    memories = corpus(size)
    vectors = real_vectors(memories, size, embedder=embedder)
    path = CACHE / f"store-{size}"
    fresh = not (path / "memories.lance").exists()
    if fresh:
        shutil.rmtree(path, ignore_errors=True)
    # this bench and bench/search.py measure the Lance path, as a one-shot process sees it;
    # bench/peers.py measures a warm process (vectors in memory)
    store = MemoryStore.open(str(path), embedder=embedder, vector_cache="off")
    if fresh:
        store.add(memories, vectors=vectors)
        store.table.optimize()
    ids = [m.id for m in memories]
    return store, vectors, ids


def setup():
    """Arguments, the model, and the bench store with its vectors and ids."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    embedder = default_embedder()
    return (args, embedder, *build(args.size, embedder))


def drop_vector_index(store) -> None:
    for index in store.table.list_indices():
        if index.columns == ["embedding"]:
            store.table.drop_index(index.name)
    store._vector_index = None


def main() -> None:
    args, embedder, store, vectors, ids = setup()
    queries = embedder.embed(query_texts(args.queries))
    exact = np.argsort(-(queries @ vectors.T), axis=1)[:, :10]
    truth = [{ids[j] for j in row} for row in exact]
    started = time.perf_counter()
    for q in queries:
        np.argsort(-(vectors @ q))[:10]
    numpy_ms = (time.perf_counter() - started) / len(queries) * 1000
    print(f"{args.size:,} rows, {len(queries)} queries; exact numpy search: {numpy_ms:.1f} ms/query\n")
    print("| index | nprobes | refine | ef | build s | recall@10 | median ms | p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    n_partitions = {"IVF_HNSW_SQ": max(1, args.size // 4096)}
    for label, kwargs, knobs in CONFIGS:
        build_s = 0.0
        drop_vector_index(store)
        if kwargs:
            started = time.perf_counter()
            parts = n_partitions.get(kwargs["index_type"], int(np.sqrt(args.size)))
            store.table.create_index(metric="cosine", vector_column_name="embedding",
                                     num_partitions=parts, **kwargs)
            build_s = time.perf_counter() - started
            store._vector_index = None
        for nprobes, refine, ef in knobs:
            config = SearchConfig(nprobes=nprobes or 1, refine_factor=refine or None, ef=ef or None)
            times, recalls = [], []
            for q, expected in zip(queries, truth):
                started = time.perf_counter()
                rows = vector_candidates(store, q, 10, Scope(include_expired=True), config)
                times.append(time.perf_counter() - started)
                recalls.append(len({i for i, _ in rows} & expected) / 10)
            print(f"| {label} | {nprobes or '-'} | {refine or '-'} | {ef or '-'} | {build_s:.1f} | "
                  f"{np.mean(recalls):.3f} | {median_ms(times):.1f} | {p95_ms(times):.1f} |", flush=True)


if __name__ == "__main__":
    main()
