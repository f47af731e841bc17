"""Pairs of an older and a newer memory, written by hand to say whether the newer reports a change.

Written on 2026-11-29 (nineteenth session) before it was first run, in the voices of the
hand-written topics (chat lines, status reports, tickets, notes) and on subjects of their
own. Each pair is (older, newer, what the newer is to the older):

- "update": the newer says the thing changed (it supersedes the older, no conflict);
- "conflict": the newer states otherwise and says nothing changed (a contradiction of any kind);
- None: neither, though the newer uses a word of change (a plan, a proposal, a change said
  never made, a failure that happened again, a change of something else).

The pairs are sets/changes.jsonl (sets/README.md). Every third pair (the third, sixth, ...) is
the check (its row says so): read only for its figure.

    .venv/bin/python bench/judgement/changes.py [--check] [--misses]

prints, per kind of pair, how the store's judge (`rules`) reads the newer against the older
after the write: an update recorded, a contradiction flagged, or nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

# (older, newer, truth), as sets/changes.jsonl holds them
ROWS = [json.loads(line) for line in (Path(__file__).parent / "sets" / "changes.jsonl").read_text(encoding="utf-8").splitlines()]
PAIRS: list[tuple[str, str, str | None]] = [(r["older"], r["newer"], r["truth"]) for r in ROWS]


def main() -> None:
    import argparse
    import collections
    import sys
    import tempfile
    from datetime import datetime, timedelta, timezone

    from memlib import Insight, MemoryStore, Project
    from memlib.clock import Clock

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="the check pairs (every third) instead of the others")
    parser.add_argument("--misses", action="store_true", help="print each pair read otherwise than written")
    args = parser.parse_args()
    chosen = [pair for pair, row in zip(PAIRS, ROWS) if (row["split"] == "check") == args.check]
    t0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
    read = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(str(Path(tmp) / "store"), clock=Clock(t0))
        for n, (older, newer, truth) in enumerate(chosen):
            project = Project(name=f"pair {n}")
            store.add([project])
            ids = []
            for k, text in enumerate((older, newer)):
                store.clock.set(t0 + timedelta(days=n, minutes=k))
                ids += store.add([Insight(project_id=project.id, content=text, agent="agent")], duplicates="link")
            store.read_unread()
            actions = {event["action"] for event in store.audit.events("action IN ('contradiction', 'update')")
                       if event["subject_id"] in ids}
            got = "update" if "update" in actions else "conflict" if "contradiction" in actions else None
            read[truth, got] += 1
            if args.misses and got != truth:
                print(f"{truth} read as {got}: {older!r} -> {newer!r}", file=sys.stderr)
    print(f"### changes said between two memories ({'check' if args.check else 'development'} pairs: {len(chosen)})\n")
    print("| written as | pairs | recorded as an update | flagged as a contradiction | neither |")
    print("|---|---|---|---|---|")
    for truth in ("update", "conflict", None):
        row = [read[truth, got] for got in ("update", "conflict", None)]
        print(f"| {truth or 'neither'} | {sum(row)} | " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
