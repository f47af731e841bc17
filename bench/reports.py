"""`memlib report run --all` on the 1,000,000-memory sample store, and the cost of each view.

Build the store once (about 12 minutes; approximate vectors, several million recall events):
    .venv/bin/memlib --store data/bench/sample-1m sample --size 1000000 --seed 7 --anchor 2026-11-01
Then:
    .venv/bin/python bench/reports.py [--store data/bench/sample-1m] [--as-of 2026-11-01]

Prints the wall time of `memlib report run --all` as a user runs it (the CLI, a new process
each time): once cold (a new output folder: the shared views are built) and `--warm` times
more on the unchanged store (the views read from the last run's reports/.cache), median.
Target (issue 21): warm within 15 s on these 2 cores. With --views, first each view's time to
compute fully, through DuckDB's lance extension and through Arrow datasets (alternating,
medians of two rounds).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memlib import analytics
from memlib.analytics.views import ordered_views
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
    parser.add_argument("--warm", type=int, default=5, help="warm runs after the cold one")
    parser.add_argument("--views", action="store_true", help="first time each view (minutes at 1M)")
    args = parser.parse_args()
    if not args.views:
        return runs(args)
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

    runs(args)


def runs(args) -> None:
    memlib = str(Path(sys.executable).with_name("memlib"))
    command = [memlib, "--store", args.store, "report", "run", "--all", "--as-of", args.as_of]
    with tempfile.TemporaryDirectory() as out:
        walls = []
        for i in range(1 + args.warm):
            started = time.perf_counter()
            proc = subprocess.run(command + ["--out", out], capture_output=True, text=True)
            walls.append(time.perf_counter() - started)
            if proc.returncode:
                raise SystemExit(f"report run failed: {proc.stderr.strip().splitlines()[-1]}")
            print(f"{'cold' if i == 0 else 'warm'} run {i}: {walls[-1]:.1f} s", flush=True)
    print(f"\n`memlib report run --all`: cold **{walls[0]:.1f} s** (views built), warm median "
          f"**{statistics.median(walls[1:]):.1f} s** of {args.warm} (min {min(walls[1:]):.1f}, "
          f"max {max(walls[1:]):.1f}; target <= 15 s)")


if __name__ == "__main__":
    main()
