"""A soak of many processes on one local store (store/concurrency.py), the hostile run's
shape: eight agents and a maintainer in a loop.

4 writer processes add batches of 10 insights, 2 processes lower the confidence of 10 shared
memories by one point at a time, 2 recall (search and log the hits, so every maintain has
usage to fold into the rows the adjusters are changing), and one runs `maintain()` in a loop
(a 2 s pause between runs), all on one store with the real model. Afterwards it counts,
against what each process says it did:

- rows: every id a writer was told it wrote is in the store (lost = expected - present);
- audit: write events = rows written, confidence events = adjustments made, and each shared
  memory's confidence = 100 - the adjustments made to it (a lost update shows here);
- maintain: runs that failed (a failed run is counted and the loop goes on), memories folded
  = usage audit events, and usage_count summed = recall events (nothing folded twice or lost);
- errors: any exception in any process;
- staleness seen by the recallers, two ways: from the moment a commit returned to its writer
  to the start of a read that did not see it (the bound the README states: a read that
  starts more than max_staleness after a commit returned sees it), and Lance's manifest time
  of the commit to the end of the read (what earlier soaks measured: it also counts the
  commit's own time in flight and the read's);
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
from common import collect, percentile  # noqa: E402

BATCH = 10
MAINTAIN_PAUSE = 2.0  # seconds between maintain runs: a busy scheduler, not a tight loop


def _open(uri: str):
    from memlib import MemoryStore

    return MemoryStore.open(uri, create=False)


def writer(uri: str, project_id: str, seconds: float, tag: str) -> dict:
    from memlib import Insight

    store, written, batches, commits = _open(uri), [], 0, []
    until = time.monotonic() + seconds
    started = time.perf_counter()
    while time.monotonic() < until:
        batch = [Insight(project_id=project_id, content=f"{tag} batch {batches} note {i}: ledger "
                         f"retries need idempotency keys", tags=[tag]) for i in range(BATCH)]
        written += store.add(batch)
        commits.append((time.time(), store.table.version))  # returned: its version and later ones exist
        batches += 1
    return {"written": written, "seconds": time.perf_counter() - started, "commits": commits}


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


def recaller(uri: str, seconds: float, tag: str) -> dict:
    store, seen = _open(uri), []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        started, version = time.time(), store.version  # the version this read reads
        store.recall("ledger retries idempotency", k=5, agent=tag)
        seen.append((started, version, time.time()))
    return {"seen": seen}


def maintainer(uri: str, seconds: float, tag: str) -> dict:
    store, runs, failed, folded = _open(uri), 0, [], 0
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            folded += store.maintain()["memories_folded"]
        except Exception as exc:  # counted, and the loop goes on: the soak's figure is the count
            failed.append(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        runs += 1
        time.sleep(MAINTAIN_PAUSE)
    return {"maintained": runs, "failed": failed, "folded": folded}


ROLES = {"writer": writer, "adjuster": adjuster, "recaller": recaller, "maintainer": maintainer}


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
    alone = collect(_spawn("writer", alone_store.uri, alone_project.id, args.seconds / 4, "alone"))
    if alone.get("error"):
        sys.exit(f"the lone writer failed: {alone['error']}")
    alone_rate = len(alone["written"]) / alone["seconds"]
    print(f"one writer alone: {len(alone['written'])} rows in {alone['seconds']:.1f} s", file=sys.stderr)

    store, project, shared = _new_store(str(base / "soak"), args.embedder)
    ids = ",".join(m.id for m in shared)
    procs = ([("writer", _spawn("writer", store.uri, project.id, args.seconds, f"w{i}")) for i in range(4)]
             + [("adjuster", _spawn("adjuster", store.uri, ids, args.seconds, f"a{i}")) for i in range(2)]
             + [("recaller", _spawn("recaller", store.uri, "-", args.seconds, f"r{i}")) for i in range(2)]
             + [("maintainer", _spawn("maintainer", store.uri, "-", args.seconds, "m"))])
    results = [(role, collect(proc)) for role, proc in procs]
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

    maintain_failed = [f for _, r in results for f in r.get("failed") or []]
    folded = sum(r.get("folded", 0) for _, r in results)
    folded += store.maintain()["memories_folded"]  # what the recallers spooled after the last run
    usage_events = len(store.audit.events("action = 'usage'"))
    recalled = store.recalls.dataset().count_rows()
    usage = sum(store.dataset().to_table(columns=["usage_count"]).column("usage_count").to_pylist())

    # staleness 1: a writer's commit returned at t; a read starting after t that reads an
    # older version is stale by (its start - t) for the oldest such commit
    returned = sorted((at, v) for role, r in results if role == "writer" for at, v in r.get("commits") or [])
    # staleness 2 (earlier soaks): Lance's manifest time of the oldest unseen commit to the end of the read
    times = {v.get("version"): v.get("timestamp") for v in store.table.list_versions()}
    commit_at = sorted((v, t.timestamp()) for v, t in times.items() if v is not None)
    staleness, manifest_staleness = [], []
    for role, r in results:
        for started, version, ended in r.get("seen") or []:
            older = [at for at, v in returned if v > version and at <= started]
            staleness.append(started - min(older) if older else 0.0)
            newer = [t for v, t in commit_at if v > version and t <= ended]
            manifest_staleness.append(ended - min(newer) if newer else 0.0)
    contended_seconds = max((r.get("seconds", 0) for role, r in results if role == "writer"), default=0)
    contended_rate = len(written) / contended_seconds if contended_seconds else 0.0

    rows = [
        ("rows written (4 writers)", f"{len(written):,}"),
        ("rows present of them", f"{len(written) - len(lost):,} (lost {len(lost)})"),
        ("write audit events for them", f"{len(audited_writes & set(written)):,} (extra {len(audited_writes - set(written))})"),
        ("confidence changes made / audited", f"{sum(adjusted.values())} / {confidence_events}"),
        ("shared memories whose confidence is off", f"{len(wrong_confidence)} of {len(shared)}"),
        ("errors in any process", f"{len(errors)}"),
        ("maintain runs / failed", f"{sum(r.get('maintained', 0) for _, r in results)} / {len(maintain_failed)}"),
        ("memories folded (with a last maintain) / usage audit events", f"{folded:,} / {usage_events:,}"),
        ("recall events / usage_count summed", f"{recalled:,} / {usage:,}"),
        ("recalls", f"{len(staleness):,}"),
        ("staleness, commit returned -> read started: p50 / p99 / max", _spread(staleness)),
        ("staleness, manifest time -> read ended (earlier soaks): p50 / p99 / max", _spread(manifest_staleness)),
        ("reads over max_staleness (1 s), commit returned -> read started", f"{sum(x > 1.0 for x in staleness)}"),
        ("add throughput: 4 writers under contention", f"{contended_rate:.1f} rows/s"),
        ("add throughput: one writer alone", f"{alone_rate:.1f} rows/s"),
        ("ratio (contended / alone)", f"{contended_rate / alone_rate:.2f}"),
    ]
    print(f"\nsoak: {args.seconds:.0f} s, embedder {args.embedder}, store {store.uri}\n")
    print("| figure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    for line in errors + [f"maintain: {f}" for f in maintain_failed]:
        print(f"error: {line}")


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return (f"{statistics.median(values):.2f} s / {percentile(values, 0.99):.2f} s / "
            f"{max(values):.2f} s")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--role":
        _role_main(sys.argv[2:])
    else:
        main()
