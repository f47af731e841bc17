"""A one-minute soak of many processes on one local store (store/concurrency.py).

4 writer processes add batches of 10 insights, 2 processes lower the confidence of 10 shared
memories by one point at a time, 2 search, and one runs `maintain()` in a loop, all on one
store with the real model (`maintain` pauses 2 s between runs). Afterwards it counts, against what each process says it did:

- rows: every id a writer was told it wrote is in the store (lost = expected - present);
- audit: write events = rows written, confidence events = adjustments made, and each shared
  memory's confidence = 100 - the adjustments made to it (a lost update shows here);
- errors: any exception in any process;
- staleness seen by the searchers: at each query, how long ago the oldest commit the handle
  could not see yet was made (0 when it read the latest), from Lance's version timestamps;
- add throughput of the 4 writers together under contention, against one writer alone on
  its own store just before (the same batches, the same model).

    .venv/bin/python bench/soak.py [--seconds 60] [--embedder default|hash]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import percentile  # noqa: E402

BATCH = 10
MAINTAIN_PAUSE = 2.0  # seconds between maintain runs: a busy scheduler, not a tight loop


def _open(uri: str):
    from memlib import MemoryStore

    return MemoryStore.open(uri, create=False)


def writer(uri: str, project_id: str, seconds: float, tag: str) -> dict:
    from memlib import Insight

    store, written, batches = _open(uri), [], 0
    until = time.monotonic() + seconds
    started = time.perf_counter()
    while time.monotonic() < until:
        batch = [Insight(project_id=project_id, content=f"{tag} batch {batches} note {i}: ledger "
                         f"retries need idempotency keys", tags=[tag]) for i in range(BATCH)]
        written += store.add(batch)
        batches += 1
    return {"written": written, "seconds": time.perf_counter() - started}


def adjuster(uri: str, ids: str, seconds: float, tag: str) -> dict:
    from memlib.lifecycle import curation

    store, made = _open(uri), {}
    targets = ids.split(",")
    until, n = time.monotonic() + seconds, 0
    while time.monotonic() < until:
        memory_id = targets[n % len(targets)]
        curation.adjust_confidence(store, memory_id, -1, reason=f"soak {tag}")
        made[memory_id] = made.get(memory_id, 0) + 1
        n += 1
    return {"adjusted": made}


def searcher(uri: str, seconds: float, tag: str) -> dict:
    store, seen = _open(uri), []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        store.search("ledger retries idempotency", k=5)
        seen.append((time.time(), store.version))
    return {"seen": seen}


def maintainer(uri: str, seconds: float, tag: str) -> dict:
    store, runs = _open(uri), 0
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        store.maintain()
        runs += 1
        time.sleep(MAINTAIN_PAUSE)
    return {"maintained": runs}


ROLES = {"writer": writer, "adjuster": adjuster, "searcher": searcher, "maintainer": maintainer}


def _role_main(argv: list[str]) -> None:
    role, uri, arg, seconds, tag = argv
    args = (uri, arg, float(seconds), tag) if role in ("writer", "adjuster") else (uri, float(seconds), tag)
    try:
        out = ROLES[role](*args)
        out["error"] = None
    except Exception as exc:  # counted, not hidden: the soak's figure is the number of these
        out = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
               "trace": traceback.format_exc()}
    print(json.dumps(out))


def _spawn(role: str, uri: str, arg: str, seconds: float, tag: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--role", role, uri, arg, str(seconds), tag],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _collect(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    lines = out.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"}
    return json.loads(lines[-1])


def _new_store(uri: str, embedder: str):
    from memlib import Insight, MemoryStore, Project
    from memlib.embeddings import HashEmbedder, default_embedder

    store = MemoryStore.open(uri, embedder=HashEmbedder() if embedder == "hash" else default_embedder())
    project = Project(name="soak")
    shared = [Insight(project_id=project.id, content=f"shared note {i} on ledger retries") for i in range(10)]
    store.add([project, *shared])
    return store, project, shared


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--embedder", choices=["default", "hash"], default="default")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="memlib-soak-"))

    # one writer alone, on its own store, for the throughput ratio
    alone_store, alone_project, _ = _new_store(str(base / "alone"), args.embedder)
    alone = _collect(_spawn("writer", alone_store.uri, alone_project.id, args.seconds / 4, "alone"))
    if alone.get("error"):
        sys.exit(f"the lone writer failed: {alone['error']}")
    alone_rate = len(alone["written"]) / alone["seconds"]
    print(f"one writer alone: {len(alone['written'])} rows in {alone['seconds']:.1f} s", file=sys.stderr)

    store, project, shared = _new_store(str(base / "soak"), args.embedder)
    ids = ",".join(m.id for m in shared)
    procs = ([("writer", _spawn("writer", store.uri, project.id, args.seconds, f"w{i}")) for i in range(4)]
             + [("adjuster", _spawn("adjuster", store.uri, ids, args.seconds, f"a{i}")) for i in range(2)]
             + [("searcher", _spawn("searcher", store.uri, "-", args.seconds, f"s{i}")) for i in range(2)]
             + [("maintainer", _spawn("maintainer", store.uri, "-", args.seconds, "m"))])
    results = [(role, _collect(proc)) for role, proc in procs]
    errors = [f"{role}: {r['error']}" for role, r in results if r.get("error")]

    store.refresh()
    present = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    written = [i for role, r in results if role == "writer" for i in r.get("written", [])]
    lost = [i for i in written if i not in present]
    write_events = store.audit.events("action = 'write'")
    audited_writes = {e["subject_id"] for e in write_events} - {project.id, *(m.id for m in shared)}
    adjusted: dict[str, int] = {}
    for role, r in results:
        for memory_id, n in (r.get("adjusted") or {}).items():
            adjusted[memory_id] = adjusted.get(memory_id, 0) + n
    confidence_events = len(store.audit.events("action = 'confidence'"))
    wrong_confidence = [m.id for m in shared if store.get(m.id).confidence != 100 - adjusted.get(m.id, 0)]

    times = {v.get("version"): v.get("timestamp") for v in store.table.list_versions()}
    commit_at = sorted((v, t.timestamp()) for v, t in times.items() if v is not None)
    staleness = []
    for role, r in results:
        for at, version in r.get("seen") or []:
            newer = [t for v, t in commit_at if v > version and t <= at]
            staleness.append(at - min(newer) if newer else 0.0)
    contended_seconds = max((r.get("seconds", 0) for role, r in results if role == "writer"), default=0)
    contended_rate = len(written) / contended_seconds if contended_seconds else 0.0

    rows = [
        ("rows written (4 writers)", f"{len(written):,}"),
        ("rows present of them", f"{len(written) - len(lost):,} (lost {len(lost)})"),
        ("write audit events for them", f"{len(audited_writes & set(written)):,} (extra {len(audited_writes - set(written))})"),
        ("confidence changes made / audited", f"{sum(adjusted.values())} / {confidence_events}"),
        ("shared memories whose confidence is off", f"{len(wrong_confidence)} of {len(shared)}"),
        ("errors in any process", f"{len(errors)}"),
        ("searches", f"{len(staleness):,}"),
        ("staleness p50 / p99 / max seen by searchers", f"{statistics.median(staleness) if staleness else float('nan'):.2f} s / "
                                                         f"{percentile(staleness, 0.99):.2f} s / {max(staleness, default=0):.2f} s"),
        ("maintain runs", f"{sum(r.get('maintained', 0) for _, r in results)}"),
        ("add throughput: 4 writers under contention", f"{contended_rate:.1f} rows/s"),
        ("add throughput: one writer alone", f"{alone_rate:.1f} rows/s"),
        ("ratio (contended / alone)", f"{contended_rate / alone_rate:.2f}"),
    ]
    print(f"\nsoak: {args.seconds:.0f} s, embedder {args.embedder}, store {store.uri}\n")
    print("| figure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    for line in errors:
        print(f"error: {line}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--role":
        _role_main(sys.argv[2:])
    else:
        main()
