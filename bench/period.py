"""What naming a period or a speaker, or asking for a time, costs a hybrid query at 100,000
memories (warm, real embeddings): each query asked as it is, with " in May 2026" appended,
with " said the user" appended and opened by "When was ", in turn, 200 of each. Every hybrid
query reads its candidates' speakers (to find one the question names), a query naming a
period their dates, and one asking for a time their own words; the boosted ones re-rank
(search.fusion.with_boost).

    .venv/bin/python bench/period.py [--size 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import maintained_store, median_ms  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib.embeddings import default_embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    store, _ = maintained_store(args.size, default_embedder(), "memlib-period-")
    store.warm()
    texts = query_texts(args.queries + 20)
    for text in texts[:20]:
        store.search(text)
    variants = {"as asked": ("", ""), "naming a period": ("", " in May 2026"),
                "naming a speaker": ("", " said the user"), "asking for a time": ("When was ", "")}
    times = {name: [] for name in variants}
    for text in texts[20:]:
        for name, (prefix, suffix) in variants.items():
            started = time.perf_counter()
            store.search(prefix + text + suffix)
            times[name].append(time.perf_counter() - started)
    plain = median_ms(times["as asked"])
    print(f"hybrid p50 at {args.size:,}: " + ", ".join(
        f"{name} {median_ms(t):.1f} ms" + ("" if name == "as asked" else f" ({median_ms(t) / plain:.2f}x)")
        for name, t in times.items()))


if __name__ == "__main__":
    main()
