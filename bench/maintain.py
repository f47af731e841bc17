"""What `maintain` costs: after a bulk load, and after 1% more rows, measured separately.

    .venv/bin/python bench/maintain.py [--size 100000] [--rounds 3]

The sample corpus with its real MiniLM embeddings (cached, bench/common.py), conversation
turns linked as bench/peers.py gives them; each round is a fresh store: `add` of 99%,
`maintain`, `add` of the last 1%, `maintain` again. Prints each step's median and what the
second maintain says it did.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import corpus, real_vectors  # noqa: E402
from peers import linked  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import HashEmbedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    memories = linked(corpus(args.size))
    vectors = real_vectors(memories, args.size)
    bulk = args.size - args.size // 100
    steps: dict[str, list[float]] = {"add 99%": [], "maintain after the bulk load": [], "add 1% more": [],
                                     "maintain after 1% more": []}
    said = None
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            # the vectors are given: the embedder only names the model (no text is encoded)
            store = MemoryStore.open(f"{tmp}/store", embedder=HashEmbedder(vectors.shape[1]), vector_cache="off")
            for name, step in (("add 99%", lambda: store.add(memories[:bulk], vectors=vectors[:bulk])),
                               ("maintain after the bulk load", store.maintain),
                               ("add 1% more", lambda: store.add(memories[bulk:], vectors=vectors[bulk:])),
                               ("maintain after 1% more", store.maintain)):
                started = time.perf_counter()
                out = step()
                steps[name].append(time.perf_counter() - started)
            said = out
        print(f"round {round_ + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in steps.items()), flush=True)
    print(f"\n{args.size:,} memories, {args.rounds} rounds, medians\n")
    print("| step | seconds |\n|---|---|")
    for name, values in steps.items():
        print(f"| {name} | {statistics.median(values):.2f} |")
    print(f"\nthe last maintain said: {said}")


if __name__ == "__main__":
    main()
