"""Worker processes for tests/test_concurrency.py and bench/soak.py: each role opens the
store in its own process, does its work, and prints one JSON line of what it did.

    python tests/workers.py ROLE STORE [ARGS...]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from memlib import Insight, MemoryStore, Scope
from memlib.lifecycle import curation, retention
from memlib.errors import MemlibError


def step_hook():
    """The `on_step` of a child process a crash test kills (the fault injection lives in the
    tests, not the library): prints each step; $KILL_AT names the step at which it kills
    itself with SIGKILL, $PAUSE the seconds it rests after each step."""
    import os
    import signal

    kill_at, pause = os.environ.get("KILL_AT"), float(os.environ.get("PAUSE", "0"))

    def on_step(step: str) -> None:
        print(step, flush=True)
        if step == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(pause)

    return on_step


# A child's first lines: the tests folder on its path, then `from workers import step_hook`.
CHILD_PATH = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"


def confidence(store, memory_id: str, times: str) -> dict:
    for _ in range(int(times)):
        curation.adjust_confidence(store, memory_id, -1, reason="worker")
    return {"adjusted": int(times)}


def add(store, project_id: str, batches: str, size: str, tag: str) -> dict:
    """Batches of insights tagged `tag`; counts what the store said it wrote and what failed."""
    written, failed = [], 0
    for b in range(int(batches)):
        batch = [Insight(project_id=project_id, content=f"{tag} note {b}-{i} about ledger retries",
                         tags=[tag]) for i in range(int(size))]
        try:
            written += store.add(batch)
        except MemlibError as exc:
            failed += 1
            print(f"batch {b} failed: {exc}", file=sys.stderr)
    return {"written": written, "failed": failed}


def search(store, seconds: str) -> dict:
    n, until = 0, time.monotonic() + float(seconds)
    while time.monotonic() < until:
        store.search("ledger retries", k=5)
        n += 1
    return {"searches": n}


def recall(store, times: str) -> dict:
    for _ in range(int(times)):
        store.recall("ledger retries", k=3, agent="worker")
    return {"recalls": int(times)}


def maintain(store, times: str) -> dict:
    folded = [store.maintain()["memories_folded"] for _ in range(int(times))]
    return {"maintained": int(times), "folded": folded}


def promote(store, memory_id: str) -> dict:
    try:
        return {"promoted": curation.promote(store, memory_id).id}
    except MemlibError as exc:
        return {"refused": str(exc)}


def undo(store, run_id: str) -> dict:
    try:
        return {"restored": retention.undo(store, run_id)}
    except MemlibError as exc:
        return {"refused": str(exc)}


def scoped_count(store, project_id: str) -> dict:
    return {"count": store.count(Scope(project_id=project_id))}


ROLES = {f.__name__: f for f in (confidence, add, search, recall, maintain, promote, undo, scoped_count)}

if __name__ == "__main__":
    role, uri, *args = sys.argv[1:]
    out = ROLES[role](MemoryStore.open(uri, create=False), *args)
    print(json.dumps(out))
