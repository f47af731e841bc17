"""The judge's reading rate beside real-text writes: can reading after the write keep pace?

The sample corpus of `--size` memories is written with its real all-MiniLM-L6-v2 vectors
(cached under data/bench/), then each judge reads what it has not read (`read_unread`, as
`maintain` or a memory server's reader does), timed. In the same run the model embeds
`--encode` of the corpus's texts, the rate at which real text can be written at all (a write
embeds its text first). Reading keeps pace when it reads at least as many memories a second
as the model embeds.

    .venv/bin/python bench/reading.py [--size 10000] [--encode 2000] [--judges rules,none]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import corpus, real_vectors  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.consensus import subjects  # noqa: E402
from memlib.consensus.duplicates import KINDS  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402
from memlib.judges import judge_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--encode", type=int, default=2_000, help="texts the model embeds for the write rate")
    parser.add_argument("--judges", default="rules,none")
    args = parser.parse_args()
    embedder = default_embedder()
    memories = corpus(args.size)
    vectors = real_vectors(memories, args.size, embedder=embedder)
    texts = [m.text for m in memories[:args.encode]]
    embedder.embed(texts[:50])  # the model's sessions, once
    started = time.perf_counter()
    embedder.embed(texts)
    encode = len(texts) / (time.perf_counter() - started)
    knowledge = sum(m.kind.value in KINDS for m in memories)
    print(f"| judge | memories read | seconds | read/s | contradictions | updates | read/s over encode/s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.judges.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            store = MemoryStore.open(tmp, embedder=embedder, judge=judge_for(name))
            store.add(memories, vectors=vectors)
            unread = store.unread()  # the live ones: a memory past its TTL is not read
            loading = time.perf_counter()
            if name == "rules" and subjects.available():  # its parser loads once per process: a server's reader pays it once
                subjects._parser()
            loaded = time.perf_counter() - loading
            started = time.perf_counter()
            done = store.read_unread()
            seconds = time.perf_counter() - started
            assert done["read"] == unread <= knowledge and store.unread() == 0, (done, unread, knowledge)
            rate = done["read"] / seconds
            print(f"| {name} | {done['read']:,} | {seconds:.1f} (+{loaded:.1f} loading) | {rate:,.0f} | "
                  f"{done['contradictions']:,} | {done['updates']:,} | {rate / encode:.2f} |", flush=True)
    print(f"\nthe model embeds {encode:,.0f} texts/s here ({len(texts):,} of the corpus, one call)")


if __name__ == "__main__":
    main()
