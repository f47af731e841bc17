"""Many processes on one store (store/concurrency.py): real processes, never threads, one
test per way a team was seen to lose data or read stale answers."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from memlib import Insight, MemoryStore, Project
from memlib.embeddings import HashEmbedder
from memlib.lifecycle import curation, retention
from memlib.models import from_row
from memlib.store.concurrency import retryable

WORKERS = str(Path(__file__).with_name("workers.py"))
MEMLIB = [sys.executable, "-m", "memlib.cli"]


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, WORKERS, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(procs: list[subprocess.Popen], timeout: float = 600) -> list[dict]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, stderr[-2000:]
        # a writer that lost a race says so in memlib's words, once: not Lance's text and
        # the Rust source line it came from, at every write (Lance's own log lines, which
        # LANCE_LOG governs and the CLI sets to errors, are Lance's)
        mine = [line for line in stderr.splitlines() if not re.match(r"\[\d{4}-\d\d-\d\dT.* (WARN|INFO) ", line)]
        assert not any(".rs:" in line or "Retryable commit conflict" in line for line in mine), stderr[-2000:]
        assert stderr.count("left indexing and compaction") <= 1, stderr[-2000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def events(store, action: str) -> list[dict]:
    return store.audit.events(f"action = '{action}'")


@pytest.fixture
def project_store(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    project = Project(name="payments")
    note = Insight(project_id=project.id, content="Ledger retries must be idempotent", importance="critical")
    store.add([project, note])
    return store, project, note


def test_two_processes_adjusting_one_confidence_lose_nothing(project_store):
    store, _, note = project_store
    finish([start("confidence", store.uri, note.id, "20") for _ in range(2)])
    store.refresh()
    assert store.get(note.id).confidence == 60
    changes = events(store, "confidence")
    assert len(changes) == 40  # one event per change that took effect, none for one that did not
    assert sorted(e["details"]["after"]["confidence"] for e in changes) == list(range(60, 100))


def test_two_shells_adjusting_confidence_lose_nothing(project_store):
    store, _, note = project_store
    env = {**os.environ, "MEMLIB_STORE": store.uri}
    script = " && ".join([f"{' '.join(MEMLIB)} confidence {note.id} --by -1 --reason shell"] * 5)
    shells = [subprocess.Popen(["bash", "-c", script], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for shell in shells:
        _, err = shell.communicate(timeout=600)
        assert shell.returncode == 0, err
    store.refresh()
    assert store.get(note.id).confidence == 90
    assert len(events(store, "confidence")) == 10


def test_parallel_first_writers_on_a_new_store_all_succeed_and_are_audited(tmp_path):
    uri = str(tmp_path / "fresh")
    MemoryStore.open(uri, embedder=HashEmbedder())  # `memlib init`: an empty store
    project = Project(name="p")
    MemoryStore.open(uri).add([project])
    env = {**os.environ, "MEMLIB_STORE": uri}
    adds = [subprocess.Popen([*MEMLIB, "add", "--kind", "insight", "--project-id", project.id, "--content", f"note {i}"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(4)]
    for proc in adds:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    store = MemoryStore.open(uri)
    assert store.table.count_rows() == 5
    held = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    assert {e["subject_id"] for e in events(store, "write")} == held


def test_writers_and_searchers_on_a_brand_new_store(tmp_path):
    uri = str(tmp_path / "busy")
    store = MemoryStore.open(uri, embedder=HashEmbedder())
    project = Project(name="p")
    store.add([project])
    searchers = [start("search", uri, "20") for _ in range(2)]
    writers = [start("add", uri, project.id, "10", "10", f"w{i}") for i in range(4)]
    results = finish(writers) + finish(searchers)
    written = [i for r in results[:4] for i in r["written"]]
    assert [r["failed"] for r in results[:4]] == [0, 0, 0, 0]
    assert len(written) == 400 and results[4]["searches"] > 0
    store.refresh()
    held = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    assert set(written) <= held and len(held) == 401
    assert {e["subject_id"] for e in events(store, "write")} == held


FIRST_WRITE_KILLED = """
import os, signal, sys
from memlib import Insight, MemoryStore, Project
from memlib.embeddings import HashEmbedder
from memlib.store.store import Store

store = MemoryStore.open(sys.argv[1], embedder=HashEmbedder())  # a new store
Store.index_quietly = lambda self: os.kill(os.getpid(), signal.SIGKILL)  # the fault
project = Project(name="p")
store.add([project, *(Insight(project_id=project.id, content=f"ledger retries note {i}") for i in range(5))])
"""


@pytest.mark.parametrize("where", ["first write", "creation"])
def test_a_new_store_killed_before_its_first_index_answers_searches(tmp_path, where, monkeypatch):
    """The first write to a new store killed after its commit, before any index: every
    full-text and hybrid search raised Lance's raw 'INVERTED index' error until the next
    write. The first search that needs the index now builds it (a handle that may not write
    ranks by the vectors alone)."""
    from memlib.store.store import Store

    uri = str(tmp_path / "new")
    if where == "creation":
        monkeypatch.setattr(Store, "index_quietly", lambda self: None)  # as a kill would
        store = MemoryStore.open(uri, embedder=HashEmbedder())
        project = Project(name="p")
        store.add([project, *(Insight(project_id=project.id, content=f"ledger retries note {i}") for i in range(5))])
        monkeypatch.undo()
        assert not any(ix.columns == ["text"] for ix in store.table.list_indices())
        reader = MemoryStore.open(uri, version=store.version)  # read-only: cannot build it
        assert [h.memory.kind.value for h in reader.search("ledger retries", k=3, mode="hybrid")] == ["insight"] * 3
        assert reader.search("ledger retries", k=3, mode="fts") == []
    else:
        proc = subprocess.run([sys.executable, "-c", FIRST_WRITE_KILLED, uri, where], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == -9, proc.stderr[-2000:]
    searcher = MemoryStore.open(uri)
    assert searcher.count() == 6
    for mode in ("fts", "hybrid"):
        hits = searcher.search("ledger retries", k=3, mode=mode)
        assert len(hits) == 3 and all("ledger retries" in h.memory.content for h in hits)


def test_maintain_beside_a_writer_and_a_recaller_loses_nothing(project_store):
    store, project, _ = project_store
    procs = [start("maintain", store.uri, "3"), start("add", store.uri, project.id, "10", "10", "m"),
             start("recall", store.uri, "30")]
    results = finish(procs)
    store.refresh()
    assert store.table.count_rows() == 2 + 100 and results[1]["failed"] == 0
    store.maintain()
    recalled = store.recalls.dataset().count_rows()
    assert recalled == sum(store.dataset().to_table(columns=["usage_count"]).column("usage_count").to_pylist())


def test_a_held_handle_sees_other_processes_within_a_second(project_store):
    store, project, _ = project_store
    store.warm()
    assert store.search("ledger retries", k=5)  # searched (and cached) before the others write
    other = MemoryStore.open(store.uri)
    (new_id,) = other.add([Insight(project_id=project.id, content="A fresh note on ledger retries")])
    time.sleep(store.max_staleness + 0.1)
    assert store.get(new_id).id == new_id
    assert new_id in {h.id for h in store.search("fresh note ledger retries", k=10)}
    other.delete([new_id])
    time.sleep(store.max_staleness + 0.1)
    assert new_id not in {h.id for h in store.search("fresh note ledger retries", k=10)}
    for mode in ("vector", "fts"):
        assert new_id not in {h.id for h in store.search("fresh note ledger retries", k=10, mode=mode)}
    with pytest.raises(Exception, match="no memory"):
        store.get(new_id)


def test_max_staleness_zero_reads_every_commit(project_store):
    store, project, _ = project_store
    strict = MemoryStore.open(store.uri, max_staleness=0)
    strict.count()
    (new_id,) = MemoryStore.open(store.uri).add([Insight(project_id=project.id, content="now")])
    assert strict.get(new_id).id == new_id


def test_the_version_check_asks_lance_only_after_a_commit(project_store, monkeypatch):
    from memlib.store import store as store_module

    store, project, _ = project_store
    # the directory's time is trusted however recent (the store was just written), and the
    # handle checks before every read
    monkeypatch.setattr(store_module, "COARSEST_MTIME_NS", 0)
    store.max_staleness = 0
    asked = []
    real = store.table.checkout_latest
    monkeypatch.setattr(store.table, "checkout_latest", lambda: asked.append(1) or real())
    version = store.refresh()
    store.version  # noqa: B018 (the first check notes the directory's time)
    asked.clear()
    for _ in range(5):
        assert store.version == version
    assert asked == []  # nothing committed: Lance not asked
    time.sleep(0.05)  # past the file system's time step
    (new_id,) = MemoryStore.open(store.uri).add([Insight(project_id=project.id, content="now")])
    assert store.version > version and asked == [1]
    assert store.get(new_id).id == new_id


def test_promotion_by_two_processes_promotes_once(project_store):
    store, _, note = project_store
    results = finish([start("promote", store.uri, note.id) for _ in range(2)])
    assert sorted("promoted" in r for r in results) == [False, True]
    store.refresh()
    assert store.count() == 3
    assert len(events(store, "promote")) == 1


@pytest.fixture
def expired(tmp_path):
    """A store with a project and five insights that expired long before 2026-06-01."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    project = Project(name="p")
    old = [Insight(project_id=project.id, content=f"old {i}", ttl_days=1,
                   created_at="2026-01-01T00:00:00Z") for i in range(5)]
    store.add([project, *old])
    return store, old


def test_undo_by_two_processes_restores_once(expired):
    store, _ = expired
    run = retention.apply(store, "default", "2026-06-01")
    assert run.removed == 5
    results = finish([start("undo", store.uri, run.run_id) for _ in range(2)])
    assert sorted(r.get("restored", 0) for r in results) == [0, 5]
    store.refresh()
    assert store.count() == 6 and len(set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())) == 6


def test_retention_keeps_a_row_changed_after_its_plan(expired):
    store, old = expired
    other = MemoryStore.open(store.uri)

    def change_one(step: str) -> None:  # another process changes a planned row mid-run
        if step == "archived":
            curation.adjust_confidence(other, old[0].id, -5, reason="still wanted")

    run = retention.apply(store, "default", "2026-06-01", on_step=change_one)
    assert run.removed == 4
    store.refresh()
    assert store.get(old[0].id).confidence == 95
    removed = {e["subject_id"] for e in events(store, "retention_remove")}
    assert removed == {m.id for m in old[1:]}
    assert retention.undo(store, run.run_id) == 4
    curation.adjust_confidence(store, old[0].id, -5, reason="x")  # still there, changeable


def test_reimporting_an_export_changes_no_row(tmp_path, model):
    from memlib.sample import build_sample
    from memlib.store.transfer import export_jsonl, import_jsonl

    store = MemoryStore.open(str(tmp_path / "store"), embedder=model)
    build_sample(store, size=300)
    before = store.dataset().to_table().sort_by("id")
    version = store.version
    path = str(tmp_path / "export.jsonl")
    export_jsonl(store, path)
    import_jsonl(store, path)
    store.refresh()
    assert store.version == version  # nothing to write: no commit
    assert store.dataset().to_table().sort_by("id").equals(before)
    # text and embedding agree: a sample of rows embedded again matches what is stored
    rows = store.dataset().to_table(columns=["text", "embedding"]).slice(0, 40).to_pylist()
    again = model.embed([r["text"] for r in rows])
    assert np.allclose(np.array([r["embedding"] for r in rows]), again, atol=1e-4)


def test_a_turn_whose_context_is_filled_is_embedded_with_it(store):
    project = Project(name="p")
    first = {"kind": "conversation", "project_id": project.id, "content": "Where is the ledger?",
             "created_at": "2026-06-01T10:00:00Z"}
    reply = {"kind": "conversation", "project_id": project.id, "content": "In Postgres.",
             "created_at": "2026-06-01T10:01:00Z", "embedding": [1.0] * store.dims}
    store.add([project])
    store.add([reply, first])  # out of thread order: the reply still follows the question
    rows = {r["content"]: r for r in store.dataset().to_table().to_pylist()}
    assert rows["In Postgres."]["previous_id"] == rows["Where is the ledger?"]["id"]
    assert rows["Where is the ledger?"]["previous_id"] is None
    turn = from_row(rows["In Postgres."])
    assert np.allclose(rows["In Postgres."]["embedding"], store.embedder.embed([turn.text])[0])


def test_partial_conditional_merge(store, tree):
    """Lance 0.40 panics on a conditional merge of some columns through the id index; the
    store's merge_columns scans for those instead (store.merge_columns)."""
    import pyarrow as pa

    rid = tree["root"].id
    (revision,) = store.revisions([rid]).values()
    rows = pa.table({"id": [rid], "confidence": [7], "revision": pa.array([revision + 1], pa.int64())})
    applied, _ = store.merge_columns(rows, "confidence")
    assert applied == [rid] and store.get(rid).confidence == 7
    applied, _ = store.merge_columns(rows, "confidence")  # the same revision again: skipped
    assert applied == [] and len(events(store, "confidence")) == 1


def test_a_partial_merge_that_loses_a_row_to_another_writer_is_audited_for_the_rest(store, tree):
    """The usage fold merges columns without `updated_at`; when another process changed one
    of its rows first, the rows that did take effect are found and audited (it raised a
    KeyError after the commit, so the fold went unaudited)."""
    import pyarrow as pa

    a, b = tree["root"].id, tree["project"].id
    read = store.revisions([a, b])
    store.update(b, confidence=50)  # another writer changes b after the fold read it
    rows = pa.table({"id": [a, b], "usage_count": pa.array([3, 4], pa.int64()),
                     "revision": pa.array([read[a] + 1, read[b] + 1], pa.int64())})
    applied, _ = store.merge_columns(rows, "usage")
    assert applied == [a]
    assert store.get(a).usage_count == 3 and store.get(b).usage_count == 0 and store.get(b).confidence == 50
    assert [e["subject_id"] for e in events(store, "usage")] == [a]


def test_maintain_in_a_loop_beside_adjusters_never_fails_and_audits_every_fold(project_store):
    store, _, note = project_store
    procs = [start("maintain", store.uri, "6"), start("confidence", store.uri, note.id, "40"),
             start("confidence", store.uri, note.id, "40"), start("recall", store.uri, "60")]
    maintained, *_ = finish(procs)  # a maintain that raised fails its process
    store.refresh()
    assert store.get(note.id).confidence == 20
    folded = sum(maintained["folded"]) + store.maintain()["memories_folded"]
    assert len(events(store, "usage")) == folded > 0
    recalled = store.recalls.dataset().count_rows()
    assert recalled == sum(store.dataset().to_table(columns=["usage_count"]).column("usage_count").to_pylist())


def test_retryable_conflicts_are_recognised():
    assert retryable(RuntimeError("Retryable commit conflict for version 7: This CreateIndex "
                                  "transaction was preempted by concurrent transaction Append"))
    assert not retryable(ValueError("Schema error: No field named x"))


def test_maintain_leaves_a_contended_compaction_for_next_time(project_store, monkeypatch, caplog):
    store, _, _ = project_store

    def preempted(**kwargs):
        raise RuntimeError("lance error: Retryable commit conflict for version 17: This Rewrite transaction "
                           "was preempted by concurrent transaction Update at version 17. Please retry.")

    monkeypatch.setattr(store, "optimize", preempted)
    out = store.maintain()
    assert out["compacted"] is False and "next maintain" in caplog.text
    monkeypatch.setattr(store, "optimize", lambda **kw: (_ for _ in ()).throw(ValueError("disk on fire")))
    with pytest.raises(ValueError, match="disk on fire"):  # anything else is not swallowed
        store.maintain()
