"""Recall events: spooled, flushed in batches, folded into usage by maintain, never lost."""

from __future__ import annotations

import collections
import subprocess
import sys
import textwrap

import pytest

from memlib import MemoryStore, Project
from memlib.embeddings import HashEmbedder
from memlib.store import recall_log

pytestmark = pytest.mark.on_s3  # every test with a store fixture runs on local disk and on S3


def _usage(store):
    rows = store.table.to_lance().to_table(columns=["id", "usage_count", "last_accessed_at"]).to_pylist()
    return {r["id"]: (r["usage_count"], r["last_accessed_at"]) for r in rows}


def _events(store):
    return store.recalls.table.to_lance().to_table().to_pylist()


def test_recall_logs_one_event_per_hit_without_a_commit_each(store, tree):
    versions = (store.table.version, store.recalls.table.version)
    hits = []
    for _ in range(10):
        hits += store.recall("ledger retries", k=3, agent="coder")
    assert (store.table.version, store.recalls.table.version) == versions
    assert len(store.recalls.segments()) == 10
    assert store.recalls.flush() == len(hits)
    assert store.recalls.table.version == versions[1] + 1  # one commit for the whole batch
    events = _events(store)
    assert [(e["memory_id"], e["rank"]) for e in events] == [(h.memory.id, h.rank) for h in hits]
    assert {e["agent"] for e in events} == {"coder"}
    assert len({e["query_id"] for e in events}) == 10
    assert all(e["query_text"] == "ledger retries" and e["mode"] == "hybrid" for e in events)


def test_maintain_folds_usage_from_events(store, tree):
    store.recall("ledger", k=2, agent="a")
    store.recall("postgres ledger decision", k=4, agent="b")
    store.maintain()
    store.recall("ledger", k=1, agent="a")
    report = store.maintain()
    assert report["events_flushed"] == 1
    expected = collections.Counter(e["memory_id"] for e in _events(store))
    last = {}
    for e in _events(store):
        last[e["memory_id"]] = max(last.get(e["memory_id"], e["recalled_at"]), e["recalled_at"])
    usage = _usage(store)
    for memory_id, (count, accessed) in usage.items():
        assert count == expected.get(memory_id, 0)
        assert accessed == last.get(memory_id)
    assert store.maintain()["memories_folded"] == 0  # folding again changes nothing
    assert _usage(store) == usage


def test_flush_that_died_after_commit_is_not_applied_twice(store, tree, monkeypatch):
    store.recall("ledger", k=3)
    real_remove = recall_log._remove
    monkeypatch.setattr(recall_log, "_remove", lambda paths: (_ for _ in ()).throw(OSError("killed")))
    with pytest.raises(OSError):
        store.recalls.flush()
    monkeypatch.setattr(recall_log, "_remove", real_remove)
    assert store.recalls.table.count_rows() == 3
    store.recalls.flush()
    assert store.recalls.table.count_rows() == 3
    assert store.recalls.segments() == []


CHILD = textwrap.dedent("""
    import sys
    from memlib import MemoryStore
    from memlib.store import recall_log
    from memlib.embeddings import HashEmbedder
    recall_log.AUTO_FLUSH_SEGMENTS = 4      # flush often, while the other process appends
    recall_log.AUTO_FLUSH_CHECK = 1
    store = MemoryStore.open(sys.argv[1], embedder=HashEmbedder())
    total = 0
    for i in range(int(sys.argv[2])):
        total += len(store.recall(f"memory {i % 7}", k=3, agent=sys.argv[3]))
    print(total)
""")


def test_two_processes_recalling_at_once_lose_no_event(tmp_path):
    uri = str(tmp_path / "shared")
    store = MemoryStore.open(uri, embedder=HashEmbedder())
    store.add([Project(name=f"memory {i}") for i in range(12)])
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, uri, "40", f"agent-{n}"],
                              stdout=subprocess.PIPE, text=True) for n in range(2)]
    totals = [int(p.communicate(timeout=300)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    store.maintain()
    events = _events(store)
    assert len(events) == sum(totals) == 240
    assert len({e["event_id"] for e in events}) == 240
    assert collections.Counter(e["agent"] for e in events) == {"agent-0": 120, "agent-1": 120}
    assert sum(count for count, _ in _usage(store).values()) == 240


def test_a_segment_cut_short_is_read_up_to_its_last_whole_line(store, tree, caplog):
    """A machine crash before the background sync can leave a segment ending mid-line."""
    store.recall("ledger", k=2)
    (segment,) = store.recalls.segments()
    whole = segment.read_text()
    segment.write_text(whole + whole.splitlines()[0][:40])  # one more event, cut short
    assert store.recalls.flush() == len(whole.splitlines())
    assert "partial line" in caplog.text
    assert store.recalls.dataset().count_rows() == len(whole.splitlines())
