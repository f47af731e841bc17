"""Retention plan + apply (and undo) on the 1,000,000-memory sample store.

    .venv/bin/python bench/retention.py [--store data/bench/sample-1m] [--policy default]
                                        [--as-of 2026-06-15]

Works on a copy (hard links: Lance never rewrites a data file, so the copy is instant and the
source stays as it was). Prints the wall time of each step and the share of the store removed,
and writes bench/results/retention.json. Deletes are one commit for the whole plan; the audit
events are one commit per step.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

from memlib import MemoryStore
from memlib.lifecycle import retention as lifecycle

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default=str(ROOT / "data" / "bench" / "sample-1m"))
    parser.add_argument("--policy", default="default")
    parser.add_argument("--as-of", default="2026-06-15")  # about 10% of the sample goes
    parser.add_argument("--work", default=str(ROOT / "data" / "bench" / "retention-work"))
    args = parser.parse_args()
    if not (Path(args.store) / "memories.lance").exists():
        raise SystemExit(f"bench/retention.py: no store at {args.store} (see bench/reports.py to build it)")
    shutil.rmtree(args.work, ignore_errors=True)
    shutil.copytree(args.store, args.work, copy_function=os.link)
    store = MemoryStore.open(args.work, vector_cache="off")
    total = store.count()
    figures: dict = {"date": datetime.now(timezone.utc).date().isoformat(), "memories": total,
                     "policy": args.policy, "as_of": args.as_of}

    started = time.perf_counter()
    plan = lifecycle.plan(store, args.policy, args.as_of)
    figures["plan_s"] = time.perf_counter() - started
    figures["candidates"] = len(plan.ids)
    figures["share_removed"] = len(plan.ids) / total
    figures["by_reason"] = plan.summary()["by_reason"]
    print(f"plan:  {figures['plan_s']:6.1f} s  {len(plan.ids):,} of {total:,} memories "
          f"({100 * figures['share_removed']:.1f}%)  {figures['by_reason']}", flush=True)

    versions = len(store.table.list_versions())
    started = time.perf_counter()
    out = lifecycle.apply(store, args.policy, args.as_of)  # plans again, as the command does
    figures["apply_s"] = time.perf_counter() - started
    figures["removed"] = out.removed
    figures["memory_commits"] = len(store.table.list_versions()) - versions
    print(f"apply: {figures['apply_s']:6.1f} s  removed {out.removed:,} in {figures['memory_commits']} "
          f"commit(s) of the memories table (the plan included)", flush=True)
    assert store.count() == total - out.removed

    started = time.perf_counter()
    restored = lifecycle.undo(store, out.run_id)
    figures["undo_s"] = time.perf_counter() - started
    print(f"undo:  {figures['undo_s']:6.1f} s  restored {restored:,}", flush=True)
    assert store.count() == total
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {figures['peak_rss_mb']:,.0f} MB")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "retention.json").write_text(json.dumps(figures, indent=1))
    shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    main()
