"""The sample corpus: deterministic, realistic spread, skewed recall history."""

from __future__ import annotations

import collections
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memlib import InvalidInput, Kind, MemoryStore
from memlib.embeddings import HashEmbedder
from memlib.sample.generate import build_sample, generate, generate_recalls

ANCHOR = datetime(2026, 11, 1, tzinfo=timezone.utc)


def test_same_seed_same_corpus_other_seed_other_corpus():
    a, b = generate(500, 3, ANCHOR), generate(500, 3, ANCHOR)
    assert [m.model_dump() for m in a.memories] == [m.model_dump() for m in b.memories]
    c = generate(500, 4, ANCHOR)
    assert [m.id for m in a.memories] != [m.id for m in c.memories]


def test_corpus_is_varied_and_spread_over_six_months():
    corpus = generate(3000, 1, ANCHOR).memories
    kinds = collections.Counter(m.kind for m in corpus)
    assert set(kinds) == set(Kind)
    created = [m.created_at for m in corpus]
    assert max(created) <= ANCHOR and max(created) - min(created) >= timedelta(days=183)
    texts = [m.text for m in corpus]
    assert len(set(texts)) / len(texts) > 0.9
    assert len({m.source for m in corpus}) >= 4 and len({m.ttl_days for m in corpus}) >= 6
    assert len({m.confidence for m in corpus}) >= 40
    by_id = {m.id: m for m in corpus}
    for m in corpus:  # children are never older than their parents
        for parent in (getattr(m, "root_task_id", None), getattr(m, "project_id", None)):
            if parent and parent != m.id:
                assert by_id[parent].created_at <= m.created_at


def test_recall_history_is_skewed():
    corpus = generate(2000, 5, ANCHOR).memories
    created = np.array([int(m.created_at.timestamp() * 1e6) for m in corpus], dtype=np.int64)
    events = generate_recalls([m.id for m in corpus], created, 5, ANCHOR)
    counts = collections.Counter(events.column("memory_id").to_pylist())
    never = 1 - len(counts) / len(corpus)
    assert never > 0.5
    top = sum(c for _, c in counts.most_common(len(corpus) // 100))
    assert top / events.num_rows > 0.25  # the hottest 1% take over a quarter of recalls
    created = {m.id: m.created_at for m in corpus}
    for memory_id, at in zip(events.column("memory_id").to_pylist(), events.column("recalled_at").to_pylist()):
        assert created[memory_id] <= at <= ANCHOR


def test_build_sample_folds_old_events_and_leaves_recent_ones(tmp_path):
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    summary = build_sample(store, size=400, seed=2, anchor=ANCHOR)
    assert summary["memories"] == store.count(None) == 400 + summary["findings"] and summary["history"] == 400
    held = store.dataset().to_table(columns=["id", "created_at"]).to_pylist()
    history = {m.id for m in generate(400, 2, ANCHOR).memories}
    # the history whole, and the last fortnight's findings (memlib/sample/quality.py) besides
    assert history <= {r["id"] for r in held} and summary["findings"] >= 8
    assert all(r["created_at"] >= ANCHOR - timedelta(days=14) for r in held if r["id"] not in history)
    events = store.recalls.table.to_lance().to_table().to_pylist()
    cutoff = ANCHOR - timedelta(days=14)
    old = collections.Counter(e["memory_id"] for e in events if e["recalled_at"] < cutoff)
    usage = {r["id"]: r["usage_count"] for r in
             store.table.to_lance().to_table(columns=["id", "usage_count"]).to_pylist()}
    assert usage == {memory_id: old.get(memory_id, 0) for memory_id in usage}
    assert any(e["recalled_at"] >= cutoff for e in events)
    with pytest.raises(InvalidInput):
        build_sample(store, size=400)


def test_sample_size_is_checked():
    with pytest.raises(InvalidInput):
        generate(5, 1, ANCHOR)


def test_build_sample_writes_its_history_day_by_day(tmp_path):
    """Each day's memories are one commit at that day's time: the store as of a day holds
    exactly the memories created by its end."""
    store = MemoryStore.open(str(tmp_path / "h"), embedder=HashEmbedder())
    build_sample(store, size=300, seed=5, anchor=ANCHOR)
    corpus = generate(300, 5, ANCHOR).memories
    for day in ("2026-05-20", "2026-08-01", "2026-10-31"):
        end = datetime.fromisoformat(day).replace(hour=23, minute=59, second=59, microsecond=999999,
                                                  tzinfo=timezone.utc)
        then = MemoryStore.open(store.uri, as_of=day)
        rows = then.dataset().to_table(columns=["id", "created_at"]).to_pylist()
        history = {m.id for m in corpus}
        # the history as of that day, and the findings of the last fortnight written by then
        assert {r["id"] for r in rows if r["id"] in history} == {m.id for m in corpus if m.created_at <= end}, day
        assert all(ANCHOR - timedelta(days=14) <= r["created_at"] <= end for r in rows if r["id"] not in history)
        assert then.read_only and (then.version < store.version or day == "2026-10-31")  # the last day: the latest
