"""Fixtures: stores in tmp_path, the real model loaded once per session, a small task tree."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memlib import Decision, Insight, MemoryStore, Project, RootTask, SubTask
from memlib.embeddings import HashEmbedder, default_embedder


@pytest.fixture(scope="session")
def model():
    """The real all-MiniLM-L6-v2, loaded once for the whole suite."""
    return default_embedder()


@pytest.fixture
def store(tmp_path):
    """A store with the fast deterministic embedder, for tests not about retrieval."""
    return MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())


@pytest.fixture
def real_store(tmp_path, model):
    return MemoryStore.open(str(tmp_path / "real"), embedder=model)


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
