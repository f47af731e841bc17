"""What the duplicate checks add to a write at 100,000 memories (warm, real embeddings): one
new insight at a time into one of the corpus's projects, written with the checks
(`duplicates="merge"`, the default) and without (`"keep"`) in turn, `--writes` of each.
Every write embeds its text with the store's model and commits; the checked one also finds
its nearest memories of its kind and project (from the in-memory vectors) and judges them.
Half the texts repeat a stored memory word for word, as an agent repeating itself would: with
the checks those are merged (nothing committed), so the figure for them is given apart.

    .venv/bin/python bench/write_checks.py [--size 100000] [--writes 200]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import maintained_store, percentile  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib.embeddings import default_embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=200)
    args = parser.parse_args()
    store, _ = maintained_store(args.size, default_embedder(), "memlib-writes-")
    store.warm()
    rng = random.Random(5)
    stored = store.rows("kind = 'insight'", 5_000, columns=["project_id", "content"])
    projects = sorted({r["project_id"] for r in stored})
    fresh = query_texts(4 * args.writes + 20, seed=7)
    for text in fresh[:20]:  # warm-up: the model's sessions, the cache's first advance
        store.add([{"kind": "insight", "project_id": projects[0], "content": f"warm-up: {text}"}])
    times = {"keep": [], "merge, new text": [], "merge, a repeat": []}
    for n in range(args.writes):
        for policy in ("keep", "merge"):
            if policy == "merge" and n % 2:
                row = rng.choice(stored)
                record, name = {"kind": "insight", "project_id": row["project_id"], "content": row["content"]}, \
                    "merge, a repeat"
            else:
                record = {"kind": "insight", "project_id": rng.choice(projects), "content": fresh[20 + 2 * n + (policy == "merge")]}
                name = "keep" if policy == "keep" else "merge, new text"
            started = time.perf_counter()
            store.add([record], duplicates=policy)
            times[name].append(time.perf_counter() - started)
    base = percentile(times["keep"], 0.5)
    print(f"one write at {args.size:,} memories, warm ({args.writes} of each, in turn):")
    for name, samples in times.items():
        p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
        print(f"  {name:<18} p50 {1000 * p50:6.1f} ms ({p50 / base:.2f}x)   p99 {1000 * p99:6.1f} ms   n={len(samples)}")


if __name__ == "__main__":
    main()
