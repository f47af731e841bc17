"""Ingest 10,000 memories with the real model; compare with the bare model's encode rate,
and each model's ingest with the first's (all-MiniLM-L6-v2 in floats through PyTorch, the
default before 2026-11-25, against the same model in 8-bit integers through ONNX Runtime).

Everything runs on the same texts in the same process, in turn, three rounds each; medians are
reported. The store's time is everything before its quoted query speed holds: `add`, then
`maintain` and `warm`. Target: the store adds at most 10% on top of encoding.

    .venv/bin/python bench/ingest.py [--size 10000] [--rounds 3] [--models minilm,minilm-int8,minilm-int8-rows]
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
from memlib.embeddings import named  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", default="minilm,minilm-int8,minilm-int8-rows",
                        help="embedders by name (memlib.embeddings.NAMED), measured in turn, the first the baseline")
    args = parser.parse_args()

    memories = corpus(args.size)
    records = [m.model_dump(mode="json", exclude={"embedding"}) for m in memories]
    texts = [m.text for m in memories]
    names = args.models.split(",")
    embedders = {name: named(name) for name in names}
    for embedder in embedders.values():
        embedder.embed(texts[:256])  # load and warm up the model once
    encode = {n: [] for n in names}
    ingest = {n: [] for n in names}
    whole = {n: [] for n in names}
    for round_ in range(args.rounds):
        for name, embedder in embedders.items():
            started = time.perf_counter()
            embedder.embed(texts)
            encode[name].append(time.perf_counter() - started)
            with tempfile.TemporaryDirectory() as tmp:
                store = MemoryStore.open(tmp, embedder=embedder)
                started = time.perf_counter()
                store.add(records)
                ingest[name].append(time.perf_counter() - started)
                store.maintain(read=False)  # the judge reads apart: its rate is its own figure
                store.warm()
                whole[name].append(time.perf_counter() - started)
                assert store.count() == args.size
            print(f"round {round_ + 1}, {name}: encode {encode[name][-1]:.1f} s, store.add {ingest[name][-1]:.1f} s, "
                  f"with maintain and warm {whole[name][-1]:.1f} s", flush=True)
    base = statistics.median(whole[names[0]])
    print(f"\n{args.size:,} memories, {args.rounds} rounds, models in turn, medians")
    print("| model | bare encode | store.add | + maintain + warm | store over encode | ingest vs "
          f"{names[0]} |\n|---|---|---|---|---|---|")
    for name, embedder in embedders.items():
        enc, ing, all_ = (statistics.median(x[name]) for x in (encode, ingest, whole))
        print(f"| {embedder.name} | {enc:.1f} s, {args.size / enc:,.0f} texts/s | {ing:.1f} s, "
              f"{args.size / ing:,.0f}/s | {all_:.1f} s, {args.size / all_:,.0f}/s | {100 * (all_ / enc - 1):+.1f}% "
              f"| {base / all_:.2f}x |")


if __name__ == "__main__":
    main()
