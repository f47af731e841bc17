"""Ingest 10,000 memories with the real model; compare with the bare model's encode rate.

Both run on the same texts in the same process, alternating, three rounds each; medians are
reported. The store's time is everything before its quoted query speed holds: `add`, then
`maintain` and `warm`. Target: the store adds at most 10% on top of encoding.

    .venv/bin/python bench/ingest.py [--size 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import corpus  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    memories = corpus(args.size)
    records = [m.model_dump(mode="json", exclude={"embedding"}) for m in memories]
    texts = [m.text for m in memories]
    embedder = default_embedder()
    embedder.embed(texts[:256])  # load and warm up the model once
    encode, ingest, whole = [], [], []
    for round_ in range(args.rounds):
        started = time.perf_counter()
        embedder.embed(texts)
        encode.append(time.perf_counter() - started)
        with tempfile.TemporaryDirectory() as tmp:
            store = MemoryStore.open(tmp, embedder=embedder)
            started = time.perf_counter()
            store.add(records)
            ingest.append(time.perf_counter() - started)
            store.maintain()
            store.warm()
            whole.append(time.perf_counter() - started)
            assert store.count() == args.size
        print(f"round {round_ + 1}: encode {encode[-1]:.1f} s, store.add {ingest[-1]:.1f} s, "
              f"with maintain and warm {whole[-1]:.1f} s", flush=True)
    enc, ing, all_ = (statistics.median(x) for x in (encode, ingest, whole))
    print(f"\n{args.size:,} memories, {args.rounds} rounds, medians")
    print("| what | seconds | per second |\n|---|---|---|")
    print(f"| bare model encode | {enc:.1f} | {args.size / enc:,.0f} texts/s |")
    print(f"| store.add (validate, check parents, embed, write, index) | {ing:.1f} | {args.size / ing:,.0f} memories/s |")
    print(f"| + maintain + warm | {all_:.1f} | {args.size / all_:,.0f} memories/s |")
    print(f"\noverhead of the store on top of encoding: {100 * (all_ / enc - 1):+.1f}% with maintain and "
          f"warm, {100 * (ing / enc - 1):+.1f}% for add alone (target <= 10%)")


if __name__ == "__main__":
    main()
