"""What an agent tool or a server request pays to report one fragment to a store that holds
many: each makes its own Consensus handle. Fragments come with vectors (no encoder time), in
topics of five near vectors; then one fragment is added through a new handle per add, and
through one handle kept, five times each, and the medians printed with their ratio.

    .venv/bin/python bench/consensus_handles.py [--fragments 20000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np

from memlib import MemoryStore
from memlib.consensus import Consensus
from memlib.embeddings import HashEmbedder

WORDS = "alpha beta gamma delta cache ttl queue retry budget owner deploy region".split()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fragments", type=int, default=20_000)
    n = parser.parse_args().fragments
    rng = np.random.default_rng(0)

    def unit(v: np.ndarray) -> list[float]:
        return (v / np.linalg.norm(v)).tolist()

    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore.open(f"{folder}/store", embedder=HashEmbedder())
        kept = Consensus(store)
        pointer = kept.register_input(b"bench")
        centres = rng.normal(size=(n // 5 + 1, store.dims))
        for start in range(0, n, 500):
            kept.add([{"content": f"topic {i // 5} {WORDS[i % 12]} is {i % 7} minutes", "source_agent": "bench",
                       "trace_pointer": pointer, "embedding": unit(centres[i // 5] + 0.3 * rng.normal(size=store.dims))}
                      for i in range(start, min(n, start + 500))])

        def one(handle: Consensus, k: int) -> float:
            fragment = {"content": f"a new fact {k}", "source_agent": "bench", "trace_pointer": pointer,
                        "embedding": unit(rng.normal(size=store.dims))}
            started = time.perf_counter()
            handle.add([fragment])
            return time.perf_counter() - started

        fresh = statistics.median(one(Consensus(store), k) for k in range(5))
        same = statistics.median(one(kept, 10 + k) for k in range(5))
    print(f"{n:,} fragments: one more through a new handle {fresh * 1000:.0f} ms, through one kept "
          f"{same * 1000:.0f} ms (ratio {fresh / same:.2f})")


if __name__ == "__main__":
    main()
