"""The memory server against today's way (each agent its own process on the store), side by side.

Writers each save one new insight at a time (a distinct sentence each, so the write screen
merges nothing) for `--seconds`, as agents do:

- embedded, 1 and 4 processes: each opens the store itself (`MemoryStore.open`, the model
  loaded and warmed before its clock starts) and calls `store.add([insight])`: today's way;
- served, 1, 4 and 8 client processes: each posts to `memlib serve` on loopback
  (`POST /v1/memories`, a kept-alive connection), whose group commit batches them.

Every configuration starts on a fresh copy of one base store (a project and 2,000 insights,
real embeddings), in rounds that alternate the configurations. Prints writes/s (all writers
together), p50 and p99 write latency, the server's commits (how many writes each held), its
RSS against the embedded processes', and recall p50 through the server against in-process.
Target (issue 41): 8 served clients >= 1.0x one embedded writer alone, p99 <= 250 ms.

    .venv/bin/python bench/server.py [--seconds 20] [--rounds 2] [--window-ms 4]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import percentile  # noqa: E402

SUBJECTS = ["the ledger writer", "settlement", "the search index", "the payments API", "nightly import",
            "the cache", "checkout", "the auth service", "the queue consumer", "report rendering"]
FINDINGS = ["times out under load", "retries without an idempotency key", "needs a bigger connection pool",
            "drops events when the broker restarts", "is faster with batched writes", "leaks file handles",
            "should log the request id", "blocks on a slow DNS lookup", "double-counts refunds",
            "misses the first page of results"]


def sentence(rng: random.Random, writer: int, n: int) -> str:
    return (f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(FINDINGS)} "
            f"(seen by writer {writer}, case {n}, build {rng.randrange(10**6)})")


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


# -- the writer processes ------------------------------------------------------------------

def embedded_writer(uri: str, project_id: str, writer: int, start_at: float, seconds: float, out: str) -> None:
    from memlib import Insight, MemoryStore

    store = MemoryStore.open(uri, create=False)
    store.embedder.embed(["warm"])
    store.warm()
    rng, latencies, n = random.Random(writer), [], 0
    time.sleep(max(0.0, start_at - time.time()))
    end = time.time() + seconds
    while time.time() < end:
        text = sentence(rng, writer, n)
        t = time.perf_counter()
        store.add([Insight(project_id=project_id, content=text)], actor=f"agent-{writer}")
        latencies.append(time.perf_counter() - t)
        n += 1
    Path(out).write_text(json.dumps({"latencies": latencies, "rss_mb": rss_mb(os.getpid())}))


def served_writer(url: str, token: str, project_id: str, writer: int, start_at: float, seconds: float,
                  out: str) -> None:
    import httpx

    rng, latencies, errors, n = random.Random(writer), [], 0, 0
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        client.get("/v1/health")
        time.sleep(max(0.0, start_at - time.time()))
        end = time.time() + seconds
        while time.time() < end:
            body = {"memories": [{"kind": "insight", "project_id": project_id, "content": sentence(rng, writer, n)}]}
            t = time.perf_counter()
            response = client.post("/v1/memories", json=body)
            latencies.append(time.perf_counter() - t)
            errors += response.status_code != 200
            n += 1
    Path(out).write_text(json.dumps({"latencies": latencies, "errors": errors}))


# -- the configurations --------------------------------------------------------------------

def base_store(where: Path) -> tuple[str, str]:
    from memlib import Insight, MemoryStore, Project

    store = MemoryStore.open(str(where / "base"))
    project = Project(name="team")
    rng = random.Random(0)
    store.add([project, *[Insight(project_id=project.id, content=sentence(rng, 99, i)) for i in range(2000)]],
              duplicates="keep")
    store.maintain(read=False)
    return store.uri, project.id


def run_writers(kind: str, n: int, args, uri: str, project_id: str, work: Path) -> dict:
    """n writer processes of `kind` ("embedded" or "served") on a fresh copy of the store."""
    store_dir = work / f"{kind}-{n}"
    shutil.rmtree(store_dir, ignore_errors=True)
    shutil.copytree(uri, store_dir)
    server, url, token = None, None, None
    if kind == "served":
        from memlib import MemoryStore
        from memlib.server import Tokens

        token = Tokens(MemoryStore.open(str(store_dir), create=False)).create("bench")[0]
        server = subprocess.Popen([sys.executable, "-m", "memlib.cli", "--store", str(store_dir), "serve",
                                   "--port", "0", "--window-ms", str(args.window_ms)],
                                  stderr=subprocess.PIPE, text=True)
        url = re.search(r"at (http://\S+) ", server.stderr.readline()).group(1)
        import httpx

        while not httpx.get(f"{url}/v1/health").json().get("ok"):
            time.sleep(0.1)
        time.sleep(3)  # its model and cache warm in the background
    start_at = time.time() + (25 if kind == "embedded" else 3)  # every writer ready (model loaded) first
    outs = [work / f"{kind}-{n}-{w}.json" for w in range(n)]
    call = "embedded_writer" if kind == "embedded" else "served_writer"
    target = [str(store_dir)] if kind == "embedded" else [url, token]
    quiet = {**os.environ, "LANCE_LOG": "error"}  # Lance's retried-compaction warnings, as the CLI sets it
    procs = [subprocess.Popen([sys.executable, __file__, "--writer", call, json.dumps(
        [*target, project_id, w, start_at, args.seconds, str(outs[w])])], env=quiet) for w in range(n)]
    for p in procs:
        p.wait()
    results = [json.loads(o.read_text()) for o in outs]
    latencies = [x for r in results for x in r["latencies"]]
    out = {"writes": len(latencies), "per_s": len(latencies) / args.seconds,
           "p50_ms": statistics.median(latencies) * 1000, "p99_ms": percentile(latencies, 0.99) * 1000,
           "errors": sum(r.get("errors", 0) for r in results)}
    if kind == "embedded":
        out["rss_mb"] = sum(r["rss_mb"] for r in results)
    else:
        out["rss_mb"] = rss_mb(server.pid)
        out["recall"] = recall_times(url, token, project_id, store_dir)
        server.terminate()
        server.wait(60)
        from memlib import MemoryStore

        written = [e for e in MemoryStore.open(str(store_dir), create=False).audit_events("action = 'write'")
                   if e["actor"] == "bench"]
        out["commits"] = len({e["version"] for e in written})  # one version per commit
        out["stored"] = len(written)
    shutil.rmtree(store_dir, ignore_errors=True)
    return out


def recall_times(url: str, token: str, project_id: str, store_dir: Path) -> dict:
    """Recall p50 through the server, then in this process on the same store (warm), 50 each."""
    import httpx

    from memlib import MemoryStore
    from memlib.scope import Scope

    queries = [f"{s} {f}" for s, f in zip(SUBJECTS * 5, FINDINGS[3:] + FINDINGS[:3] + FINDINGS * 4)][:50]
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        served = []
        for q in queries:
            t = time.perf_counter()
            client.post("/v1/recall", json={"query": q, "k": 10, "scope": {"project_id": project_id}})
            served.append(time.perf_counter() - t)
    store = MemoryStore.open(str(store_dir), create=False)
    store.warm()
    store.recall("warm", k=10, scope=Scope(project_id=project_id))
    local = []
    for q in queries:
        t = time.perf_counter()
        store.recall(q, k=10, scope=Scope(project_id=project_id), agent="bench")
        local.append(time.perf_counter() - t)
    return {"served_p50_ms": statistics.median(served) * 1000, "in_process_p50_ms": statistics.median(local) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--window-ms", type=float, default=4)
    parser.add_argument("--configs", nargs="+", default=["embedded-1", "embedded-4", "served-1", "served-4", "served-8"])
    parser.add_argument("--writer", help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.writer:
        {"embedded_writer": embedded_writer, "served_writer": served_writer}[args.writer](*json.loads(args.arguments))
        return
    with tempfile.TemporaryDirectory(prefix="memlib-bench-server-") as tmp:
        work = Path(tmp)
        uri, project_id = base_store(work)
        runs: dict[str, list[dict]] = {c: [] for c in args.configs}
        for round_no in range(args.rounds):
            for config in args.configs:
                kind, n = config.split("-")
                result = run_writers(kind, int(n), args, uri, project_id, work)
                runs[config].append(result)
                print(f"round {round_no + 1} {config}: {result['per_s']:.1f} writes/s, p50 {result['p50_ms']:.1f} ms, "
                      f"p99 {result['p99_ms']:.1f} ms, errors {result['errors']}"
                      + (f", {result['stored']} stored in {result['commits']} commits" if "commits" in result else ""),
                      flush=True)
    alone = statistics.median(r["per_s"] for r in runs.get("embedded-1", [{"per_s": float("nan")}]))
    print(f"\n{args.seconds:.0f} s per run, {args.rounds} rounds, medians; group commit window {args.window_ms} ms\n")
    print("| writers | writes/s | vs one embedded writer | p50 ms | p99 ms | errors | RSS MB (all writer processes, or the server) |")
    print("|---|---|---|---|---|---|---|")
    for config, results in runs.items():
        med = {k: statistics.median(r[k] for r in results) for k in ("per_s", "p50_ms", "p99_ms", "rss_mb")}
        print(f"| {config} | {med['per_s']:.1f} | {med['per_s'] / alone:.2f}x | {med['p50_ms']:.1f} | "
              f"{med['p99_ms']:.1f} | {sum(r['errors'] for r in results)} | {med['rss_mb']:.0f} |")
    served = [r for c, rs in runs.items() if c.startswith("served") for r in rs]
    if served:
        print(f"\nrecall p50 through the server {statistics.median(r['recall']['served_p50_ms'] for r in served):.1f} ms, "
              f"in process {statistics.median(r['recall']['in_process_p50_ms'] for r in served):.1f} ms")


if __name__ == "__main__":
    main()
