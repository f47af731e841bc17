"""memlib on object storage: a real S3-compatible server on loopback (moto's, started by
conftest), never a mock of memlib's own calls. The store, search, recall and lifecycle
modules also run whole on it (their `on_s3` mark); this module covers what only a remote
store has: many writer processes committing to one bucket, the CLI and every report run
there, and secrets kept out of everything printed or written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from memlib import MemoryStore, Project, analytics, testing
from memlib.embeddings import HashEmbedder
from memlib.sample import build_sample
from memlib.settings import Settings
from memlib.store.storage import describe, storage_options
from memlib.testing import CREDENTIALS

from test_concurrency import events, finish, start

MEMLIB = [sys.executable, "-m", "memlib.cli"]


def test_writers_in_four_processes_lose_no_commit_and_no_recall(s3_uri):
    """4 processes x COMMITS single-row adds (a commit each), recalling between them: every
    row is there once with its audit event, and every recall event reaches the log."""
    commits = int(os.environ.get("MEMLIB_S3_COMMITS", "40"))  # bench/s3.py runs 500
    store = MemoryStore.open(s3_uri, embedder=HashEmbedder())
    project = Project(name="shared")
    store.add([project])
    writers = [start("add", s3_uri, project.id, str(commits), "1", f"w{i}") for i in range(4)]
    recallers = [start("recall", s3_uri, str(commits // 4)) for _ in range(2)]
    results = finish(writers, timeout=600 + 6 * commits) + finish(recallers, timeout=600)
    written = [i for r in results[:4] for i in r["written"]]
    assert [r["failed"] for r in results[:4]] == [0, 0, 0, 0]
    assert len(written) == len(set(written)) == 4 * commits
    store.refresh()
    held = store.dataset().to_table(columns=["id"]).column("id").to_pylist()
    assert len(held) == len(set(held)) == 4 * commits + 1 and set(written) <= set(held)
    assert {e["subject_id"] for e in events(store, "write")} == set(held)
    store.recalls.flush()
    logged = store.recalls.dataset().to_table(columns=["query_id"]).column("query_id").to_pylist()
    assert len(set(logged)) == 2 * (commits // 4)  # one query id per recall, none lost


def test_the_loopback_server_lets_one_conditional_write_of_a_key_win():
    """What Lance's commits rest on: of many writers putting one key with If-None-Match: *,
    exactly one is told it won. The server's threads switch every microsecond, so a check
    apart from its write is caught (plain moto let two win in 9 of 200 such rounds)."""
    import boto3
    from botocore.exceptions import ClientError
    from concurrent.futures import ThreadPoolExecutor

    with testing.s3_server(switch_interval=1e-6) as endpoint:
        bucket = testing.new_bucket(endpoint)
        client = boto3.client("s3", endpoint_url=endpoint, **testing._boto_credentials())

        def put(key: str) -> bool:
            try:
                client.put_object(Bucket=bucket, Key=key, Body=b"manifest" * 100, IfNoneMatch="*")
                return True
            except ClientError as exc:
                assert exc.response["Error"]["Code"] == "PreconditionFailed"
                return False

        with ThreadPoolExecutor(8) as pool:
            winners = [sum(pool.map(put, [f"v{round_}"] * 8)) for round_ in range(150)]
    assert winners == [1] * 150


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*MEMLIB, *args], capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})


def test_every_command_on_an_s3_store_keeps_secrets_out(s3_uri, tmp_path):
    """The CLI on `--store s3://...`: sample (its queue in a local control plane), search,
    recall, add, get, export, import (twice: no duplicates), maintain, retention
    plan/apply/undo/purge, history and time travel, and every report. The secret key never
    appears in any output or report file."""
    secret = CREDENTIALS["AWS_SECRET_ACCESS_KEY"]
    # no setting: the control plane is kept in this machine's cache folder, and said where
    # (it stopped the sample with 'set MEMLIB_CONTROL_PLANE')
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    sampled = run("--store", s3_uri, "sample", "--size", "600", "--embedder", "hash", "--anchor", "2026-11-01",
                  env=env)
    assert sampled.returncode == 0, sampled.stderr[-1500:]
    (said,) = [line for line in sampled.stderr.splitlines() if "its control plane" in line]
    kept = next((tmp_path / "cache" / "memlib" / "control").glob("*.db"))
    assert str(kept) in said and "MEMLIB_CONTROL_PLANE" in said
    outputs = [sampled.stdout + sampled.stderr]
    for args in (["search", "ledger retries", "-k", "3"],
                 ["recall", "ledger retries", "-k", "3", "--agent", "a1"],
                 ["maintain"],
                 ["retention", "plan", "--as-of", "2026-10-20"],
                 ["history", "--as-of", "2026-10-01"],
                 ["report", "run", "--all", "--as-of", "2026-10-31", "--out", str(tmp_path / "reports")]):
        done = run("--store", s3_uri, *args, env=env)
        assert done.returncode == 0, f"{args}: {done.stderr[-1500:]}"
        outputs.append(done.stdout + done.stderr)
    added = run("--store", s3_uri, "add", "--kind", "project", "--name", "s3 shop", "--description",
                "a project added to a bucket", env=env)
    assert added.returncode == 0, added.stderr[-1500:]
    project = added.stdout.strip()
    assert json.loads(run("--store", s3_uri, "get", project, env=env).stdout)["name"] == "s3 shop"
    held = MemoryStore.open(s3_uri, create=False).table.count_rows()
    exported = tmp_path / "all.jsonl"
    for args in (["export", str(exported)], ["import", str(exported)], ["import", str(exported)]):
        done = run("--store", s3_uri, *args, env=env)
        assert done.returncode == 0, f"{args}: {done.stderr[-1500:]}"
        outputs.append(done.stdout + done.stderr)
    assert len(exported.read_text().splitlines()) == held
    assert MemoryStore.open(s3_uri, create=False).table.count_rows() == held  # upserts, no duplicates
    for args in (["retention", "apply", "--as-of", "2026-10-20"], ["retention", "runs", "--json"]):
        done = run("--store", s3_uri, *args, env=env)
        assert done.returncode == 0, f"{args}: {done.stderr[-1500:]}"
        outputs.append(done.stdout + done.stderr)
    (run_id,) = [r["run_id"] for r in json.loads(done.stdout) if r["status"] == "done" and r["policy"] == "default"]
    for args in (["retention", "undo", run_id], ["retention", "apply", "--as-of", "2026-10-20"],
                 ["retention", "runs", "--json"]):
        done = run("--store", s3_uri, *args, env=env)
        assert done.returncode == 0, f"{args}: {done.stderr[-1500:]}"
        outputs.append(done.stdout + done.stderr)
    (again,) = [r["run_id"] for r in json.loads(done.stdout) if r["status"] == "done" and r["policy"] == "default"]
    purged = run("--store", s3_uri, "retention", "purge", again, "--yes", env=env)
    assert purged.returncode == 0 and "purged" in purged.stdout, purged.stderr[-1500:]
    outputs.append(purged.stdout + purged.stderr)
    files = [p for p in (tmp_path / "reports").rglob("*") if p.is_file()]
    assert any(p.name == "index.html" for p in files) and len(files) > 6
    for text in outputs + [p.read_text(errors="replace") for p in files]:
        assert secret not in text and "Traceback" not in text


def test_reports_on_s3_equal_reports_on_disk(s3_uri, tmp_path, monkeypatch):
    """The same sample on disk and in the bucket: every mart the reports read has the same rows
    (ids aside: each store draws its own)."""
    monkeypatch.setenv("MEMLIB_CONTROL_PLANE", str(tmp_path / "cp-s3.db"))
    anchor = datetime(2026, 11, 1, tzinfo=timezone.utc)
    marts = ("mart_usage_daily", "mart_ttl", "mart_confidence", "mart_retention_candidates")

    def rows(con, mart):
        columns = [c[0] for c in con.execute(f"describe {mart}").fetchall()]
        chosen = "* exclude (memory_id)" if "memory_id" in columns else "*"
        return sorted(con.execute(f"select {chosen} from {mart}").fetchall(), key=repr)

    tables = []
    for uri in (str(tmp_path / "disk"), s3_uri):
        store = MemoryStore.open(uri, embedder=HashEmbedder())
        build_sample(store, size=400, seed=5, anchor=anchor)
        con = analytics.connect(store, as_of="2026-10-31")
        tables.append({m: rows(con, m) for m in marts})
    for m in marts:
        assert tables[0][m] and tables[0][m] == tables[1][m], m


def test_storage_options_come_from_the_config_and_hide_secrets(tmp_path, monkeypatch):
    config = tmp_path / "memlib.toml"
    config.write_text('[storage_options]\naws_endpoint = "http://10.0.0.5:9000"\n'
                      'aws_secret_access_key = "hunter2"\n[control_plane]\npath = "/srv/cp.db"\n')
    monkeypatch.setenv("MEMLIB_CONFIG", str(config))
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    settings = Settings.resolve()
    options = storage_options("s3://b/p", settings)
    assert options == {"aws_endpoint": "http://10.0.0.5:9000", "aws_secret_access_key": "hunter2",
                       "allow_http": "true"}
    assert "hunter2" not in describe(options) and "aws_endpoint=http://10.0.0.5:9000" in describe(options)
    assert storage_options(str(tmp_path), settings) == {}
    from memlib.control.db import path_for

    assert path_for("s3://b/p", settings) == Path("/srv/cp.db")
    config.write_text("[storage_options\n")
    done = run("--store", "s3://b/p", "search", "x", env={"MEMLIB_CONFIG": str(config)})
    assert done.returncode != 0 and done.stderr.count("\n") == 1 and str(config) in done.stderr
