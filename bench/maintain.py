"""What `maintain` costs: after a bulk load, and after 1% more rows, measured separately.

    .venv/bin/python bench/maintain.py [--size 100000] [--rounds 3]

bench/peers.py's corpus of that size (up to 100k the sample with its real MiniLM embeddings,
conversation turns linked; at 1M the 1M sample store's rows and topical vectors), added in
bench/peers.py's chunks; each round is a fresh store: `add` of 99%, `maintain`, `add` of the
last 1%, `maintain` again. Prints each step's median and what the second maintain says it did.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import CHUNK, load_corpus  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import HashEmbedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = load_corpus(args.size)
    memories, vectors = data.memories, data.vectors
    bulk = args.size - args.size // 100
    steps: dict[str, list[float]] = {"add 99%": [], "maintain after the bulk load": [], "add 1% more": [],
                                     "maintain after 1% more": []}
    said = None
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            # the vectors are given: the embedder only names the model (no text is encoded)
            store = MemoryStore.open(f"{tmp}/store", embedder=HashEmbedder(vectors.shape[1]), vector_cache="off")
            def add(start: int, end: int) -> None:
                for at in range(start, end, CHUNK):
                    store.add(memories[at:min(at + CHUNK, end)], vectors=vectors[at:min(at + CHUNK, end)])

            for name, step in (("add 99%", lambda: add(0, bulk)),
                               ("maintain after the bulk load", store.maintain),
                               ("add 1% more", lambda: add(bulk, args.size)),
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
