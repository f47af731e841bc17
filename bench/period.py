"""What naming a period costs a hybrid query at 100,000 memories (warm, real embeddings):
each query asked as it is and with " in May 2026" appended, in turn, 200 of each. The second
reads its candidates' dates to rank the period's first (search.fusion.with_boost).

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
    plain, dated = [], []
    for text in texts[20:]:
        for query, times in ((text, plain), (text + " in May 2026", dated)):
            started = time.perf_counter()
            store.search(query)
            times.append(time.perf_counter() - started)
    print(f"hybrid p50 at {args.size:,}: as asked {median_ms(plain):.1f} ms, naming a period "
          f"{median_ms(dated):.1f} ms (ratio {median_ms(dated) / median_ms(plain):.2f})")


if __name__ == "__main__":
    main()
