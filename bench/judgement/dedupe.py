"""Duplicate detection on write, on hand-written pairs (duplicates.py): each pair's
existing memory is stored, then its new one is written into the same project through
memlib's public API with the store's real model, and what the store found is compared with
the truth: precision and recall of "a duplicate" (exact or near), and which kinds of pairs
it got wrong.

    .venv/bin/python bench/judgement/dedupe.py [--split dev|check|all]

`dev` pairs are what the rule was chosen on; `check` pairs are read only to report.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from duplicates import split  # noqa: E402

from memlib import MemoryStore, Project  # noqa: E402
from memlib.errors import InvalidMemory  # noqa: E402
from memlib.models import parse_memory  # noqa: E402

FIELD = {"decision": ("title", "decision"), "pattern": ("name", "description")}


def memory(kind: str, text: str, project_id: str):
    if kind in FIELD:
        short, long = FIELD[kind]
        return parse_memory({"kind": kind, "project_id": project_id, short: text[:60], long: text}, "pair")
    return parse_memory({"kind": kind, "project_id": project_id, "content": text}, "pair")


def seen(store) -> list[dict]:
    """The store's duplicate findings so far, oldest first (audit: duplicate, corroborate)."""
    return sorted(store.audit.events("action IN ('duplicate', 'corroborate')"), key=lambda e: e["event_id"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="dev", choices=("dev", "check", "all"))
    args = parser.parse_args()
    pairs = split(args.split)
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(tmp)
        for kind, old, new, truth, what in pairs:
            project = Project(name=what)  # a project of its own: only the pair meets
            store.add([project, memory(kind, old, project.id)])
            events = len(seen(store))
            try:
                store.add([memory(kind, new, project.id)])
                match = seen(store)[events:]
                verdict = match[0]["details"]["kind"] if match else None
            except InvalidMemory as exc:  # a decision's title is unique in its project
                verdict = "exact (title refused)" if "already exists" in str(exc) else None
            found.append((truth, verdict, what, old, new))
    tp = sum(1 for t, f, *_ in found if t == "same" and f)
    fp = sum(1 for t, f, *_ in found if t != "same" and f)
    fn = sum(1 for t, f, *_ in found if t == "same" and not f)
    print(f"split {args.split}: {len(found)} pairs, {sum(t == 'same' for t, *_ in found)} duplicates")
    print(f"precision {tp / max(1, tp + fp):.2f} ({tp} of {tp + fp}), recall {tp / max(1, tp + fn):.2f} ({tp} of {tp + fn})")
    for truth, f, what, old, new in found:
        if (truth == "same") != bool(f):
            print(f"  {'missed' if truth == 'same' else 'false alarm'} ({what}): {old!r} / {new!r}")


if __name__ == "__main__":
    main()
