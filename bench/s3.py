"""memlib on an S3-compatible server on loopback against memlib on local disk, same data, side
by side in one run: ingest (add + maintain + warm), project-scoped search, `report run --all`,
and the latency the server adds to one request.

    .venv/bin/python bench/s3.py [--size 100000] [--queries 200] [--sample 100000]

The server is moto's (`moto[server]`, a dev dependency): a Python process serving S3's HTTP
API on 127.0.0.1, so every request pays HTTP and moto's Python, not a network. A real S3 adds
its own round trip (tens of ms per request across a region) on top: the ratios here are a
floor for what a bucket costs, not a figure for AWS.

- ingest: the peers' corpus (bench/peers.py's sample memories with real MiniLM vectors), added
  in commits of 100,000 rows, then `maintain()` and `warm()`, as bench/peers.py times it.
- scoped search: hybrid and vector p50 in the project nearest 1% of the rows, warm, the
  queries alternating between the two stores.
- reports: `memlib sample --size N --vectors approx` into each (timed too), then `memlib
  report run --all` as a user runs it (the CLI, a new process, a new output folder).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, median_ms, save_results  # noqa: E402
from peers import CHUNK, load_corpus  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib import MemoryStore, Scope, testing  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402


def request_latency(endpoint: str, bucket: str, tmp: Path, n: int = 200) -> dict:
    """Median seconds of one small GET from the server and of one read of the same file on disk."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=endpoint)
    s3.put_object(Bucket=bucket, Key="probe", Body=b"x" * 1024)
    (tmp / "probe").write_bytes(b"x" * 1024)
    remote, local = [], []
    for _ in range(n):
        started = time.perf_counter()
        s3.get_object(Bucket=bucket, Key="probe")["Body"].read()
        remote.append(time.perf_counter() - started)
        started = time.perf_counter()
        (tmp / "probe").read_bytes()
        local.append(time.perf_counter() - started)
    return {"get_s3_ms": median_ms(remote), "read_disk_ms": median_ms(local)}


def ingest(uri: str, data, embedder) -> tuple[MemoryStore, dict]:
    store = MemoryStore.open(uri, embedder=embedder, vector_cache="on")
    started = time.perf_counter()
    for start in range(0, len(data), CHUNK):
        store.add(data.memories[start:start + CHUNK], vectors=data.vectors[start:start + CHUNK])
    added = time.perf_counter() - started
    store.maintain(read=False)
    maintained = time.perf_counter() - started - added
    store.warm()
    total = time.perf_counter() - started
    return store, {"add_s": added, "maintain_s": maintained, "warm_s": total - added - maintained,
                   "rows_per_s": len(data) / total}


def searches(stores: dict[str, MemoryStore], texts: list[str], vectors, project: str) -> dict:
    scope = Scope(project_id=project, include_expired=True)
    laps = collections.defaultdict(list)
    for i, (text, q) in enumerate(zip(texts, vectors)):
        order = list(stores) if i % 2 == 0 else list(stores)[::-1]
        for name in order:
            for mode in ("hybrid", "vector"):
                started = time.perf_counter()
                stores[name].search(text, k=10, mode=mode, scope=scope, vector=q)
                laps[f"{name} {mode}"].append(time.perf_counter() - started)
    return {key: median_ms(values) for key, values in laps.items()}


def cli(uri: str, *args: str, env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memlib.cli", "--store", uri, *args],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"bench/s3.py: memlib {' '.join(args)} on {uri} failed: {done.stderr.strip()[-500:]}")
    return time.perf_counter() - started


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=Path(__file__).parent)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True, cwd=Path(__file__).parent).stdout.strip()
    return (done.stdout.strip() or "unknown") + ("+changes" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="memories for ingest and search")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sample", type=int, default=100_000, help="memories of the report runs' sample")
    parser.add_argument("--keep-reports", action="store_true",
                        help="measure ingest and search only; keep the sample and report rows of results/s3.json "
                             "(for a change that touches neither), marked with the commit they were measured on")
    args = parser.parse_args()
    embedder = default_embedder()
    data = load_corpus(args.size)
    texts = query_texts(args.queries)
    vectors = embedder.embed(texts)
    project, rows = min(collections.Counter(data.projects).items(), key=lambda kv: abs(kv[1] - args.size / 100))
    tmp = Path(tempfile.mkdtemp(prefix="memlib-s3-bench-"))
    out: dict = {"size": args.size, "queries": args.queries, "project_rows": rows, "sample": args.sample}
    try:
        with testing.s3_server() as endpoint:
            os.environ.update({**testing.CREDENTIALS, "AWS_ENDPOINT_URL": endpoint})
            bucket = testing.new_bucket(endpoint)
            uris = {"disk": str(tmp / "store"), "s3": f"s3://{bucket}/store"}
            out["latency"] = request_latency(endpoint, bucket, tmp)
            print(f"one 1 KB GET: {out['latency']['get_s3_ms']:.2f} ms from the server, "
                  f"{out['latency']['read_disk_ms']:.3f} ms from disk", flush=True)
            stores = {}
            for name, uri in uris.items():
                stores[name], out[f"ingest_{name}"] = ingest(uri, data, embedder)
                print(f"ingest {name}: {json.dumps(out[f'ingest_{name}'])}", flush=True)
            out["search_ms"] = searches(stores, texts, vectors, project)
            print(f"scoped search p50 ms: {json.dumps(out['search_ms'])}", flush=True)
            env = {**os.environ, "MEMLIB_CONTROL_PLANE": str(tmp / "control-plane.db")}
            if args.keep_reports:  # the sample's size, its timings and their commit
                kept = json.loads((RESULTS / "s3.json").read_text())
                out.update({k: v for k, v in kept.items() if k.startswith(("sample", "reports"))})
            else:
                out["reports_commit"] = commit()
            for name, uri in ({} if args.keep_reports else uris).items():
                uri = uri + "-sample"
                out[f"sample_{name}_s"] = cli(uri, "sample", "--size", str(args.sample), "--vectors", "approx",
                                              "--anchor", "2026-11-01", env=env)
                out[f"reports_{name}_s"] = cli(uri, "report", "run", "--all", "--as-of", "2026-11-01",
                                               "--out", str(tmp / f"reports-{name}"), env=env)
                print(f"{name}: sample {out[f'sample_{name}_s']:.1f} s, report run --all "
                      f"{out[f'reports_{name}_s']:.1f} s", flush=True)
    except testing.Unavailable as exc:
        sys.exit(f"bench/s3.py: {exc}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["commit"] = commit()
    measured = "" if out["reports_commit"] == out["commit"] else f" (measured on {out['reports_commit']})"
    ratio = lambda a, b: a / b  # noqa: E731
    table = [
        "| figure | local disk | S3 server (loopback) | S3 / disk |", "|---|---|---|---|",
        f"| one 1 KB read | {out['latency']['read_disk_ms']:.3f} ms | {out['latency']['get_s3_ms']:.2f} ms | "
        f"{ratio(out['latency']['get_s3_ms'], out['latency']['read_disk_ms']):.0f}x |",
        *(f"| ingest {args.size:,}: {part} | {out['ingest_disk'][key]:.1f} s | {out['ingest_s3'][key]:.1f} s | "
          f"{ratio(out['ingest_s3'][key], out['ingest_disk'][key]):.2f}x |"
          for part, key in (("add", "add_s"), ("maintain", "maintain_s"), ("warm", "warm_s"))),
        f"| ingest {args.size:,}: rows/s, all of it | {out['ingest_disk']['rows_per_s']:,.0f} | "
        f"{out['ingest_s3']['rows_per_s']:,.0f} | {ratio(out['ingest_s3']['rows_per_s'], out['ingest_disk']['rows_per_s']):.2f}x |",
        *(f"| project-scoped {mode} p50 ({rows:,} rows) | {out['search_ms'][f'disk {mode}']:.2f} ms | "
          f"{out['search_ms'][f's3 {mode}']:.2f} ms | {ratio(out['search_ms'][f's3 {mode}'], out['search_ms'][f'disk {mode}']):.2f}x |"
          for mode in ("hybrid", "vector")),
        f"| `memlib sample --size {out['sample']:,}`{measured} | {out['sample_disk_s']:.0f} s | {out['sample_s3_s']:.0f} s | "
        f"{ratio(out['sample_s3_s'], out['sample_disk_s']):.2f}x |",
        f"| `memlib report run --all` ({out['sample']:,}){measured} | {out['reports_disk_s']:.1f} s | {out['reports_s3_s']:.1f} s | "
        f"{ratio(out['reports_s3_s'], out['reports_disk_s']):.2f}x |",
    ]
    save_results("s3", out, table)


if __name__ == "__main__":
    main()
