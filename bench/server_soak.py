"""A soak of the memory server: eight client processes and the store's upkeep beside it.

One `memlib serve` on a new store (the real model); through it, for `--seconds`:
2 writers add batches of 5 insights (each with an idempotency key), 2 adjusters lower and
raise the confidence of 10 shared memories by one point at a time, 2 recallers recall within the
project, 2 agents run sessions (a turn, `build_context`, another turn, end); beside the
server, one process runs `maintain()` on the same store in a loop (2 s apart) and another
runs `memlib report run --all` in a loop. Afterwards, against what each process says it did:

- rows: every id a writer was told it wrote is in the store (lost = told - present);
- audit: write events = rows written, confidence events = adjustments made, and each shared
  memory's confidence = 50 + the changes made to it (a lost update shows here);
- staleness: each writer reads each batch back through the server as soon as it is
  answered; a read that misses it is retried until it sees it, and the delay is the
  staleness (the server reads what it committed: 0 unless something is wrong);
- errors: any non-2xx answer or exception in any process, maintain and report runs included.

    .venv/bin/python bench/server_soak.py [--seconds 600]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import collect, percentile  # noqa: E402

BATCH = 5
PAUSE = 2.0


def _client(url: str, token: str):
    from memlib import MemoryStore

    return MemoryStore.connect(url, token)


def writer(url: str, token: str, project_id: str, seconds: float, tag: str) -> dict:
    client, written, stale, n = _client(url, token), [], [], 0
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        batch = [{"kind": "insight", "project_id": project_id, "tags": [tag],
                  "content": f"{tag} batch {n} note {i}: ledger retries need idempotency keys ({time.time()})"}
                 for i in range(BATCH)]
        ids = client.add(batch, key=f"{tag}-{n}")
        answered, missed = time.monotonic(), False
        while True:  # read your write, through the server: stale by the time until it is seen
            try:
                client.get(ids[-1])
                break
            except Exception:  # noqa: BLE001 - not seen yet
                missed = True
                time.sleep(0.005)
        stale.append(time.monotonic() - answered if missed else 0.0)
        written += ids
        n += 1
    return {"written": written, "stale": stale}


def adjuster(url: str, token: str, ids: str, seconds: float, tag: str) -> dict:
    """Lower a memory's confidence by one, raise it by one, then the next memory's: each
    adjuster leaves a memory at most one point off, so the clamp at 0-100 never hides a change."""
    client, made, net, n = _client(url, token), {}, {}, 0
    targets = ids.split(",")
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        memory_id, delta = targets[(n // 2) % len(targets)], -1 if n % 2 == 0 else 1
        client.adjust_confidence(memory_id, delta, f"soak {tag}")
        made[memory_id] = made.get(memory_id, 0) + 1
        net[memory_id] = net.get(memory_id, 0) + delta
        n += 1
    return {"adjusted": made, "net": net}


def recaller(url: str, token: str, project_id: str, seconds: float, tag: str) -> dict:
    from memlib.scope import Scope

    client, took = _client(url, token), []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        t = time.perf_counter()
        client.recall("ledger retries idempotency", k=5, scope=Scope(project_id=project_id))
        took.append(time.perf_counter() - t)
    return {"recalls": len(took), "p50_ms": sorted(took)[len(took) // 2] * 1000 if took else None}


def agent(url: str, token: str, project_id: str, seconds: float, tag: str) -> dict:
    client, sessions = _client(url, token), 0
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        session = client.start_session(project_id)
        client.append(session["session_id"], "user", "Why do ledger retries fail?")
        built = client.build_context(session["session_id"], "ledger retries idempotency keys", budget_tokens=600)
        client.append(session["session_id"], "assistant", f"recalled {len(built['recalled'])} memories")
        client.end_session(session["session_id"])
        sessions += 1
    return {"sessions": sessions}


def maintainer(uri: str, seconds: float, tag: str) -> dict:
    from memlib import MemoryStore

    store, runs, failed = MemoryStore.open(uri, create=False), 0, []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            store.maintain()
        except Exception as exc:  # noqa: BLE001 - counted
            failed.append(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        runs += 1
        time.sleep(PAUSE)
    return {"maintained": runs, "failed": failed}


def reporter(uri: str, seconds: float, tag: str) -> dict:
    runs, failed = 0, []
    until = time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as out:
        while time.monotonic() < until:
            done = subprocess.run([sys.executable, "-m", "memlib.cli", "--store", uri, "report", "run", "--all",
                                   "--out", out], capture_output=True, text=True)
            runs += 1
            if done.returncode != 0:
                failed.append(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
    return {"reports": runs, "failed": failed}


ROLES = {"writer": writer, "adjuster": adjuster, "recaller": recaller, "agent": agent, "maintainer": maintainer,
         "reporter": reporter}


def _role_main(argv: list[str]) -> None:
    role, args = argv[0], json.loads(argv[1])
    try:
        out = ROLES[role](*args)
        out["error"] = None
    except Exception as exc:  # noqa: BLE001 - counted, not hidden
        out = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
               "trace": traceback.format_exc()}
    print(json.dumps(out))


def _spawn(role: str, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--role", role, json.dumps(list(args))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "LANCE_LOG": "error"})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        return _role_main([args.role, *args.arguments])
    from memlib import Insight, MemoryStore, Project
    from memlib.server import Tokens

    base = Path(tempfile.mkdtemp(prefix="memlib-server-soak-"))
    store = MemoryStore.open(str(base / "store"))
    project = Project(name="soak")
    shared = [Insight(project_id=project.id, content=f"shared note {i} on ledger retries", confidence=50)
              for i in range(10)]
    store.add([project, *shared])
    token = Tokens(store).create("soak")[0]
    server = subprocess.Popen([sys.executable, "-m", "memlib.cli", "--store", store.uri, "serve", "--port", "0"],
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "LANCE_LOG": "error"})
    url = re.search(r"at (http://\S+) ", server.stderr.readline()).group(1)
    time.sleep(5)  # the model and the cache warm
    seconds = args.seconds
    ids = ",".join(m.id for m in shared)
    procs = ([("writer", _spawn("writer", url, token, project.id, seconds, f"w{i}")) for i in range(2)]
             + [("adjuster", _spawn("adjuster", url, token, ids, seconds, f"a{i}")) for i in range(2)]
             + [("recaller", _spawn("recaller", url, token, project.id, seconds, f"r{i}")) for i in range(2)]
             + [("agent", _spawn("agent", url, token, project.id, seconds, f"g{i}")) for i in range(2)]
             + [("maintainer", _spawn("maintainer", store.uri, seconds, "m")),
                ("reporter", _spawn("reporter", store.uri, seconds, "rep"))])
    results = [(role, collect(proc)) for role, proc in procs]
    server.send_signal(signal.SIGTERM)
    server.wait(120)
    errors = [f"{role}: {r['error']}" for role, r in results if r.get("error")]
    errors += [f"maintain: {f}" for _, r in results for f in r.get("failed") or [] if _ == "maintainer"]
    errors += [f"report: {f}" for _, r in results for f in r.get("failed") or [] if _ == "reporter"]

    store = MemoryStore.open(store.uri, create=False)
    written = [i for role, r in results if role == "writer" for i in r.get("written", [])]
    present = store.lookup(written, ["id"])
    audited = {e["subject_id"] for e in store.audit_events("action = 'write'")}
    adjusted: dict[str, int] = {}
    net: dict[str, int] = {}
    for _, r in results:
        for memory_id, n in (r.get("adjusted") or {}).items():
            adjusted[memory_id] = adjusted.get(memory_id, 0) + n
        for memory_id, n in (r.get("net") or {}).items():
            net[memory_id] = net.get(memory_id, 0) + n
    confidence_events = len(store.audit_events("action = 'confidence'"))
    wrong = [m.id for m in shared if store.get(m.id).confidence != 50 + net.get(m.id, 0)]
    stale = [x for role, r in results if role == "writer" for x in r.get("stale", [])]
    rows = [
        ("rows written through the server (2 writers)", f"{len(written):,}"),
        ("rows present of them", f"{len(present):,} (lost {len(written) - len(present)})"),
        ("write audit events for them", f"{len(audited & set(written)):,}"),
        ("confidence changes made / audited", f"{sum(adjusted.values())} / {confidence_events}"),
        ("shared memories whose confidence is off", f"{len(wrong)} of {len(shared)}"),
        ("recalls / p50 ms", " / ".join(f"{r.get('recalls')} / {r.get('p50_ms') or 0:.1f}"
                                        for role, r in results if role == "recaller")),
        ("agent sessions (turn, build_context, turn, end)", f"{sum(r.get('sessions', 0) for _, r in results)}"),
        ("maintain runs beside the server", f"{sum(r.get('maintained', 0) for _, r in results)}"),
        ("report runs beside the server", f"{sum(r.get('reports', 0) for _, r in results)}"),
        ("read-your-write staleness through the server: p50 / p99 / max",
         f"{percentile(stale, 0.5):.3f} / {percentile(stale, 0.99):.3f} / {max(stale, default=0):.3f} s"),
        ("errors in any process", f"{len(errors)}"),
    ]
    print(f"\nserver soak: {seconds:.0f} s, store {store.uri}\n")
    print("| figure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    for line in errors:
        print(f"error: {line}")


if __name__ == "__main__":
    main()
