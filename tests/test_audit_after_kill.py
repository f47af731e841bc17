"""A change and its audit events are two commits. A writer killed between them (SIGKILL,
in a child process, right after the change committed and before its events) leaves its
promise (memlib/store/journal.py), and the next open of the store logs the events of what
committed, once: for every write path (add, import, update, confidence, correct, forget,
retention, undo, workspace sync, consensus). The kill is injected here, in the child, by
wrapping the audit log's append; the library has no hook for it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memlib import Insight, MemoryStore, Project
from memlib.clock import Clock
from memlib.consensus import Consensus
from memlib.embeddings import HashEmbedder
from memlib.lifecycle import curation, retention
from workers import CHILD_PATH

# The child runs OP on the store at argv[1] and kills itself when it is about to log the
# audit action $KILL_ACTION (after the change it records committed), or, with
# $KILL_CLUSTERS, when a consensus add is about to commit its clusters.
CHILD = CHILD_PATH + """
import json, os, signal, sys
from memlib import MemoryStore
from memlib.store.audit import AuditLog

kill_action, real = os.environ.get("KILL_ACTION"), AuditLog.append

def append(self, rows, version=None):
    if kill_action in set(rows.column("action").to_pylist()):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(self, rows, version)

AuditLog.append = append
if os.environ.get("KILL_CLUSTERS"):
    from memlib.consensus.store import Consensus
    Consensus._write_clusters = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
store = MemoryStore.open(sys.argv[1])
args = json.loads(sys.argv[2])
exec(args["code"], {"store": store, **args})
print("not killed", flush=True)
"""


def run_killed(store: MemoryStore, code: str, kill_action: str | None = None, clusters: bool = False, **values):
    import json

    env = {**os.environ, **({"KILL_ACTION": kill_action} if kill_action else {}),
           **({"KILL_CLUSTERS": "1"} if clusters else {})}
    done = subprocess.run([sys.executable, "-c", CHILD, store.uri, json.dumps({"code": code, **values})],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr


def events(store, action: str, subject: str | None = None) -> list[dict]:
    where = f"action = '{action}'" + (f" AND subject_id = '{subject}'" if subject else "")
    return store.audit_events(where)


@pytest.fixture
def store(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(),
                             clock=Clock(datetime(2026, 11, 1, tzinfo=timezone.utc)))
    project = Project(name="payments")
    store.add([project, *[Insight(project_id=project.id, content=f"ledger fact {n}") for n in range(3)]])
    store.project = project
    return store


def reopened(store) -> MemoryStore:
    return MemoryStore.open(store.uri)


def test_an_add_killed_after_its_commit_is_audited_on_the_next_open(store):
    from memlib.store import Store

    p = store.project.id
    run_killed(store, "store.add([{'kind': 'insight', 'project_id': p, 'content': 'killed after the commit'}])",
               "write", p=p)
    plain = Store.open(store.uri)  # the store's own class finishes nothing as it opens
    (row,) = plain.rows("content = 'killed after the commit'", 10)
    assert events(plain, "write", row["id"]) == []
    after = reopened(store)
    (event,) = events(after, "write", row["id"])
    assert event["actor"] and event["status"] == "done"
    assert reopened(store).finish_unfinished() == 0 and len(events(reopened(store), "write", row["id"])) == 1


def test_an_import_of_1500_rows_killed_after_its_commit_is_audited(store, tmp_path):
    """The case as found: 1,500 rows imported, killed 0-60 ms after the commit, 0 events."""
    import json

    p = store.project.id
    path = tmp_path / "import.jsonl"
    path.write_text("".join(json.dumps({"kind": "insight", "project_id": p, "content": f"imported {n}"}) + "\n"
                            for n in range(1_500)))
    run_killed(store, "from memlib.store.transfer import import_jsonl; import_jsonl(store, path)", "upsert",
               path=str(path))
    after = reopened(store)
    imported = {r["id"] for r in after.rows("content LIKE 'imported %'", 2_000, columns=["id"])}
    assert len(imported) == 1_500
    assert sorted(e["subject_id"] for e in events(after, "upsert")) == sorted(imported)


@pytest.mark.parametrize("op, action", [
    ("from memlib.lifecycle import curation; curation.revise(store, m, 'r', content='revised words')", "revise"),
    ("from memlib.lifecycle import curation; curation.adjust_confidence(store, m, -20, 'r')", "confidence"),
    ("store.delete([m])", "delete"),
])
def test_an_update_a_confidence_change_and_a_delete_killed_after_their_commit_are_audited(store, op, action):
    m = store.rows("content = 'ledger fact 0'", 1)[0]["id"]
    run_killed(store, op, action, m=m)
    after = reopened(store)
    (event,) = events(after, action, m)
    assert event["version"] is None  # which version made it is not known after a kill
    if action == "revise":
        assert after.get(m).content == "revised words" and event["details"]["after"] == {"content": "revised words"}


def test_an_update_that_did_not_commit_is_not_audited(store):
    """Killed as it commits (its promise written, the commit not made), the promise finds
    nothing committed and logs nothing."""
    m = store.rows("content = 'ledger fact 1'", 1)[0]["id"]
    code = ("import os, signal\n"
            "store.table.merge_insert = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)\n"
            "from memlib.lifecycle import curation; curation.revise(store, m, 'r', content='never')\n")
    run_killed(store, code, m=m)
    assert len(list(Path(store.uri, "_pending").iterdir())) == 1
    after = reopened(store)
    assert events(after, "revise", m) == [] and after.get(m).content == "ledger fact 1"
    assert list(Path(store.uri, "_pending").iterdir()) == []


def test_a_correction_killed_after_its_commits_is_audited_and_one_killed_midway_is_undone(store):
    m = store.rows("content = 'ledger fact 1'", 1)[0]["id"]
    run_killed(store, "from memlib.lifecycle import curation; curation.correct(store, m, 'r', content='fixed')",
               "correct", m=m)
    after = reopened(store)
    (new,) = after.rows("content = 'fixed'", 1, columns=["id"])
    assert {e["subject_id"] for e in events(after, "correct")} == {m, new["id"]}
    assert not after.lookup([m], ["id"])
    # killed after the old one left and before the correction was written: the old one is back
    m2 = after.rows("content = 'ledger fact 2'", 1)[0]["id"]
    run_killed(after, "from memlib.lifecycle import curation; curation.correct(store, m, 'r', content='fixed 2')",
               "retention_remove", m=m2)
    again = reopened(store)
    assert again.get(m2).content == "ledger fact 2" and again.rows("content = 'fixed 2'", 1) == []
    assert [e for e in events(again, "correct") if e["subject_id"] == m2] == []
    runs = {r["run_id"]: r["status"] for r in retention.runs(again)}
    assert sorted(runs.values()) == ["done", "undone"]


def test_forget_retention_and_undo_killed_after_their_commits_are_audited(store):
    ids = [r["id"] for r in store.rows("content LIKE 'ledger fact %'", 10)]
    run_killed(store, "from memlib.lifecycle import curation; curation.forget(store, ids, 'stale')", "forget", ids=ids)
    after = reopened(store)
    assert sorted(e["subject_id"] for e in events(after, "forget")) == sorted(ids)
    (run,) = retention.runs(after)
    assert run["status"] == "done" and not after.lookup(ids, ["id"])
    run_killed(after, "from memlib.lifecycle import retention; retention.undo(store, run_id)", "restore",
               run_id=run["run_id"])
    back = reopened(store)
    assert sorted(back.lookup(ids, ["id"])) == sorted(ids)
    assert sorted(e["subject_id"] for e in events(back, "restore")) == sorted(ids)
    assert [r["status"] for r in retention.runs(back)] == ["undone"]
    # a run killed before its per-row events
    run_killed(back, "from memlib.lifecycle import curation; curation.forget(store, ids, 'stale again')",
               "retention_remove", ids=ids)
    last = reopened(store)
    assert sorted(r["status"] for r in retention.runs(last)) == ["done", "undone"]
    assert len(events(last, "forget")) == 2 * len(ids) and len(events(last, "retention_remove")) == 2 * len(ids)


def test_a_workspace_sync_killed_after_its_commits_is_audited(store, tmp_path):
    from memlib.workspace import Workspace

    ws, _ = Workspace.init(tmp_path / "ws", store)
    log = tmp_path / "ws" / "memory" / "2026-02-14.md"
    log.write_text("# 2026-02-14 Log\n\n### 10:30 - decision\nWe use React for the front end\n\n"
                   "### 11:00 - insight\nThe invoices job retries three times\n", encoding="utf-8")
    run_killed(store, "from memlib.workspace import Workspace; Workspace(root).sync(store)", "workspace_sync",
               root=str(ws.files.root))
    after = reopened(store)
    synced = {r["id"] for r in after.rows(f"project_id = '{ws.project_id}' AND kind != 'project'", 10)}
    assert len(synced) == 2 and {e["subject_id"] for e in events(after, "workspace_sync")} == synced
    ws.sync(after)  # the killed sync wrote no state of the files: this one does
    log.write_text("# 2026-02-14 Log\n", encoding="utf-8")
    run_killed(after, "from memlib.workspace import Workspace; Workspace(root).sync(store)", "workspace_delete",
               root=str(ws.files.root))
    last = reopened(store)
    assert len({e["subject_id"] for e in events(last, "workspace_delete")}) == 2


def test_a_consensus_add_killed_between_its_commits_leaves_no_fragment_outside_a_cluster(store):
    """Killed after the fragments' commit and before the clusters': the next open places
    them (a retry is not needed) and logs each fragment once."""
    pointer = Consensus(store).register_input("the incident notes")
    fragments = [{"content": f"The checkout cache TTL is {n}00 seconds", "source_agent": f"agent-{n}",
                  "trace_pointer": pointer} for n in range(1, 5)]
    run_killed(store, "from memlib.consensus import Consensus; Consensus(store).add(fragments)", clusters=True,
               fragments=fragments)
    after = reopened(store)
    consensus = Consensus(after)
    held = {f for c in consensus.clusters() for f in c.fragment_ids}
    stored = {f.fragment_id for f in consensus.fragments()}
    assert len(stored) == 4 and held == stored
    assert sorted(e["subject_id"] for e in events(after, "fragment_add")) == sorted(stored)
    assert events(after, "cluster_create")


def test_maintain_finishes_what_a_killed_writer_left(store):
    """A handle that does not finish promises as it opens (the store's own class) leaves
    them to maintain."""
    from memlib.lifecycle.maintenance import maintain
    from memlib.store import Store

    p = store.project.id
    run_killed(store, "store.add([{'kind': 'insight', 'project_id': p, 'content': 'left to maintain'}])",
               "write", p=p)
    plain = Store.open(store.uri)
    (row,) = plain.rows("content = 'left to maintain'", 1)
    assert events(plain, "write", row["id"]) == []
    maintain(plain)
    assert len(events(plain, "write", row["id"])) == 1


def test_a_live_writers_promise_is_left_to_it_and_holds_no_reader_up(store):
    """A promise whose process still runs is that writer's: an open neither keeps it nor
    waits for the writer lock; once the process is gone, the next open keeps it."""
    import json

    p = store.project.id
    waiting = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        row = {"kind": "insight", "project_id": p, "content": "written by a live writer"}
        code = ("import json, os\n"
                "from memlib.store import journal\n"
                "real = journal._owner\n"
                "journal._owner = lambda: {**real(), 'pid': int(os.environ['OWNER']), 'started': None}\n"
                "store.add([row])\n")
        env = {**os.environ, "KILL_ACTION": "write", "OWNER": str(waiting.pid)}
        done = subprocess.run([sys.executable, "-c", CHILD, store.uri, json.dumps({"code": code, "row": row})],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == -signal.SIGKILL, done.stderr
        with store.lock.held():  # a reader opening meanwhile is not held up by the lock
            opened = reopened(store)
        assert events(opened, "write", opened.rows("content = 'written by a live writer'", 1)[0]["id"]) == []
        assert len(list(Path(store.uri, "_pending").iterdir())) == 1
    finally:
        waiting.communicate(b"")
    after = reopened(store)
    (row,) = after.rows("content = 'written by a live writer'", 1)
    assert len(events(after, "write", row["id"])) == 1
