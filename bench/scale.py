"""How memlib grows from 10,000 to 1,000,000 memories: ingest, search latency, report time,
and the peak memory of each run; a markdown table and one altair chart (PNG).

Ingest and search come from the peers runs (`bench/results/peers-<size>.json`, run
bench/peers.py first); the report time is measured here: `memlib report run --all` on the
sample store of each size (built with `memlib sample` under data/bench/ if missing), each in
its own process, whose peak memory (kernels included) is read from the kernel with wait4.

    .venv/bin/python bench/scale.py [--sizes 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import altair as alt
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from common import CACHE  # noqa: E402

RESULTS = Path(__file__).parent / "results"
MEMLIB = [sys.executable, "-m", "memlib.cli"]
ANCHOR = "2026-11-01"


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of a command and the children it waited for."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench/scale.py: {' '.join(command)} failed: {process.stderr.read().decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def sample_store(size: int) -> Path:
    path = CACHE / ("sample-1m" if size == 1_000_000 else f"sample-{size}")
    if not (path / "memories.lance").exists():
        print(f"building the {size:,} sample store at {path} ...", flush=True)
        seconds, peak = timed([*MEMLIB, "--store", str(path), "sample", "--size", str(size),
                               "--seed", "7", "--anchor", ANCHOR])
        print(f"  built in {seconds:.0f} s, peak {peak:,.0f} MB", flush=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        peers = RESULTS / f"peers-{size}.json"
        if not peers.exists():
            sys.exit(f"bench/scale.py: no {peers}; run bench/peers.py --sizes {size} first")
        run = json.loads(peers.read_text())
        m = run["systems"]["memlib"]
        store = sample_store(size)
        out = CACHE / f"reports-{size}"
        seconds, peak = timed([*MEMLIB, "--store", str(store), "report", "run", "--all",
                               "--as-of", ANCHOR, "--out", str(out)])
        rows.append({"memories": size, "ingest rows/s": m["rate"],
                     "vector ms": m["vector"]["median_ms"],
                     "project vector ms": m["vector_project"]["median_ms"],
                     "full-text ms": m["fts"]["median_ms"], "hybrid ms": m["hybrid"]["median_ms"],
                     "report run --all s": seconds, "report peak MB": peak,
                     "ingest+search run peak MB": run["peak_rss_mb"], "disk MB": m["disk_mb"]})
        print(f"{size:,}: report run --all {seconds:.1f} s, peak {peak:,.0f} MB", flush=True)
    frame = pl.DataFrame(rows)
    header = "| " + " | ".join(frame.columns) + " |\n" + "|---" * len(frame.columns) + "|\n"
    body = "\n".join("| " + " | ".join(f"{v:,.0f}" if isinstance(v, int) or v >= 100 else f"{v:.2f}"
                                       for v in row) + " |" for row in frame.iter_rows())
    (RESULTS / "scale.md").write_text(
        "# memlib from 10,000 to 1,000,000 memories\n\n"
        "Ingest and search: bench/peers.py (memlib column, warm process); report: "
        "`memlib report run --all` on the sample store of that size. Chart: `scale.png`.\n\n"
        + header + body + "\n")
    long = frame.select("memories", "ingest rows/s", "vector ms", "project vector ms", "full-text ms",
                        "hybrid ms", "report run --all s").unpivot(index="memories")
    chart = alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("memories:Q", scale=alt.Scale(type="log"), title="memories"),
        y=alt.Y("value:Q", scale=alt.Scale(type="log"), title=None),
        color=alt.Color("variable:N", legend=None),
        facet=alt.Facet("variable:N", columns=3, title=None),
    ).properties(width=220, height=150, title="memlib from 10k to 1M memories (log-log)")
    chart.resolve_scale(y="independent").save(str(RESULTS / "scale.png"), scale_factor=2)
    print(f"written: {RESULTS / 'scale.md'} and {RESULTS / 'scale.png'}")


if __name__ == "__main__":
    main()
