"""`memlib report run --all` on the 1,000,000-memory sample store, and the cost of each view.

Build the store once (about 12 minutes; approximate vectors, several million recall events):
    .venv/bin/memlib --store data/bench/sample-1m sample --size 1000000 --seed 7 --anchor 2026-11-01
Then:
    .venv/bin/python bench/reports.py [--store data/bench/sample-1m] [--as-of 2026-11-01]

Prints the time to connect (which builds the views marked `-- materialize: table`) and each
view's time to compute fully, through DuckDB's lance extension and through Arrow datasets
(alternating, medians of two rounds), then the wall time of the four reports.
Target: the whole run within 60 s on these 2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from memlib import analytics
from memlib.analytics.views import ordered_views
from memlib.analytics import reports
from memlib import MemoryStore


def view_times(store, as_of, backend: str) -> dict[str, float]:
    started = time.perf_counter()
    con = analytics.connect(store, backend=backend, as_of=as_of)
    out = {"(connect: create views, build materialized ones)": time.perf_counter() - started}
    for name, sql in ordered_views():
        if "create or replace macro" in sql.lower():
            continue
        started = time.perf_counter()
        con.execute(f"select count(*) from (select * from {name})").fetchone()
        out[name] = time.perf_counter() - started
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", default="data/bench/sample-1m")
    parser.add_argument("--as-of", default="2026-11-01")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backends", nargs="+", default=["lance", "arrow"], choices=["lance", "arrow"],
                        help="the lance extension reads the latest version only: as of the latest day")
    args = parser.parse_args()
    store = MemoryStore.open(args.store, create=False)
    print(f"store {args.store}: {store.count():,} memories, "
          f"{store.recalls.table.count_rows():,} recall events\n")
    times: dict[str, dict[str, list[float]]] = {}
    for _ in range(args.rounds):
        for backend in args.backends:
            for name, seconds in view_times(store, args.as_of, backend).items():
                times.setdefault(name, {}).setdefault(backend, []).append(seconds)
    print("| view | lance extension ms | arrow dataset ms |\n|---|---|---|")
    totals = {b: 0.0 for b in ("lance", "arrow")}
    for name, by_backend in times.items():
        med = {b: statistics.median(by_backend[b]) * 1000 if b in by_backend else float("nan") for b in totals}
        totals = {b: totals[b] + med[b] for b in totals}
        print(f"| {name} | {med['lance']:,.0f} | {med['arrow']:,.0f} |", flush=True)
    print(f"| **all views** | **{totals['lance']:,.0f}** | **{totals['arrow']:,.0f}** |")
    views = [n for n in times if not n.startswith("(")]
    slowest = max(views, key=lambda n: statistics.median(times[n]["arrow"]))
    print(f"\nslowest view (arrow datasets, the default): {slowest}")

    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        result = reports.run(list(reports.REPORTS), date.fromisoformat(args.as_of), args.store,
                             out_root=Path(out))
        wall = time.perf_counter() - started
    print("\n| report | ok | seconds |\n|---|---|---|")
    for o in result.outcomes:
        print(f"| {o.name} | {o.ok} | {o.seconds:.1f} |")
    print(f"\n`memlib report run --all` wall time: **{wall:.1f} s** (target <= 60 s)")
    if not result.ok:
        print("failures:", [o.error for o in result.outcomes if not o.ok])


if __name__ == "__main__":
    main()
