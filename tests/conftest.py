"""Fixtures: stores in tmp_path, the real model loaded once per session, a small task tree,
and an S3-compatible server on loopback for the modules that run on object storage too."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest

from memlib import Decision, Insight, MemoryStore, Project, RootTask, SubTask
from memlib import testing
from memlib.embeddings import HashEmbedder, default_embedder
from memlib.testing import CREDENTIALS


@pytest.fixture(scope="session")
def model():
    """The real all-MiniLM-L6-v2, loaded once for the whole suite."""
    return default_embedder()


@pytest.fixture(scope="session")
def s3_server():
    """A real S3-compatible server (moto's, a separate process on a loopback port) for the
    whole session: its endpoint. Skips, saying why, only when it cannot start here."""
    try:
        with testing.s3_server() as endpoint:
            yield endpoint
    except testing.Unavailable as exc:
        pytest.skip(f"no S3-compatible server: {exc}")


@pytest.fixture
def s3_uri(s3_server, monkeypatch):
    """A fresh bucket on the loopback server, with the standard AWS variables pointing at it
    (as a user's environment would): the URI of a store inside it."""
    for name, value in {**CREDENTIALS, "AWS_ENDPOINT_URL": s3_server}.items():
        monkeypatch.setenv(name, value)
    return f"s3://{testing.new_bucket(s3_server)}/team"


def stored_bytes(uri: str) -> int:
    """What is stored under `uri`, counted without memlib: the directory's files, or the
    bucket's objects as S3 lists them."""
    if "://" not in uri:
        return sum(p.stat().st_size for p in Path(uri).rglob("*") if p.is_file())
    import boto3

    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    pages = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/")
    return sum(item["Size"] for page in pages for item in page.get("Contents", []))


def pytest_generate_tests(metafunc):
    """A test marked `on_s3` (a module's pytestmark) that uses a store fixture runs twice: on
    a local directory and on the S3 server; marked `on_server` as well, a third time through
    a memory server (`served`)."""
    if metafunc.definition.get_closest_marker("on_s3") and "backend" in metafunc.fixturenames:
        served = ["served"] if metafunc.definition.get_closest_marker("on_server") else []
        metafunc.parametrize("backend", ["local", "s3", *served], indirect=True)


@pytest.fixture
def backend(request):
    return getattr(request, "param", "local")


@pytest.fixture
def store_uri(backend, tmp_path, request):
    """Where a test's store lives: a directory in tmp_path, or a bucket on the S3 server."""
    if backend == "s3":
        return request.getfixturevalue("s3_uri")
    return str(tmp_path / "store")


@contextmanager
def served(store: MemoryStore, agent: str = "tester") -> Iterator:
    """`store` behind a memory server in this process: memlib's client (`MemoryStore.connect`'s)
    with an every-project token of `agent`, sending to the server's app through starlette's test client
    (the REST API, its validation, tokens and group commit; no socket: tests/test_server.py
    runs the real process)."""
    from starlette.testclient import TestClient

    from memlib.server import Server, Tokens
    from memlib.server.app import create_app
    from memlib.server.client import Client

    token = Tokens(store).create(agent)[0]
    server = Server(store)
    try:
        with TestClient(create_app(server), base_url="http://served") as http:
            yield Client("http://served", token, http=http)
    finally:
        server.close()


@pytest.fixture
def store(store_uri, backend):
    """A store with the fast deterministic embedder, for tests not about retrieval (for the
    `served` backend, reached through a memory server)."""
    store = MemoryStore.open(store_uri, embedder=HashEmbedder())
    if backend != "served":
        yield store
        return
    with served(store) as client:
        yield client


@pytest.fixture
def real_store(backend, tmp_path, model, request):
    uri = request.getfixturevalue("s3_uri") + "-real" if backend == "s3" else str(tmp_path / "real")
    store = MemoryStore.open(uri, embedder=model)
    if backend != "served":
        yield store
        return
    with served(store) as client:
        yield client


T0 = datetime(2026, 6, 1, tzinfo=timezone.utc)


@pytest.fixture
def tree(store):
    """A project with a root task, a sub task and two knowledge items."""
    project = Project(name="payments", description="Payment service rewrite", created_at=T0)
    root = RootTask(project_id=project.id, objective="Migrate the ledger to Postgres",
                    created_at=T0 + timedelta(days=1))
    sub = SubTask(root_task_id=root.id, details="Write the dual-write shim for ledger entries",
                  created_at=T0 + timedelta(days=2))
    decision = Decision(project_id=project.id, root_task_id=root.id, title="Use Postgres",
                        decision="Postgres 16 stores the ledger", tags=["db"],
                        created_at=T0 + timedelta(days=3))
    insight = Insight(project_id=project.id, content="Ledger retries must be idempotent",
                      importance="critical", created_at=T0 + timedelta(days=4))
    store.add([project, root, sub, decision, insight])
    return {"project": project, "root": root, "sub": sub, "decision": decision, "insight": insight}
