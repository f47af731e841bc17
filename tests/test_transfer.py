"""JSONL export and import: lossless, idempotent, and all-or-nothing on bad input."""

from __future__ import annotations

import json

import pytest

from memlib import InvalidInput, InvalidMemory, MemoryStore
from memlib.embeddings import HashEmbedder
from memlib.store.transfer import export_jsonl, import_jsonl


def test_round_trip_is_lossless(store, tree, tmp_path):
    store.recall("ledger", k=2)
    store.maintain()
    first = tmp_path / "a.jsonl"
    assert export_jsonl(store, str(first)) == 5
    copy = MemoryStore.open(str(tmp_path / "copy"), embedder=HashEmbedder())
    assert import_jsonl(copy, str(first)) == 5
    second = tmp_path / "b.jsonl"
    export_jsonl(copy, str(second))
    a = sorted(first.read_text().splitlines())
    b = sorted(second.read_text().splitlines())
    assert a == b
    row = json.loads(a[0])
    assert len(row["embedding"]) == 384 and "usage_count" in row
    original = store.get(tree["decision"].id, with_embedding=True)
    assert copy.get(tree["decision"].id, with_embedding=True) == original


def test_reimport_creates_no_duplicates(store, tree, tmp_path):
    path = tmp_path / "m.jsonl"
    export_jsonl(store, str(path))
    import_jsonl(store, str(path))
    import_jsonl(store, str(path))
    assert store.count() == 5


def test_bad_line_names_the_line_and_writes_nothing(store, tree, tmp_path):
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"kind": "project", "name": "fine"})
    path.write_text(good + "\n\n" + "{not json\n")
    with pytest.raises(InvalidInput, match="line 3"):
        import_jsonl(store, str(path))
    path.write_text(good + "\n" + json.dumps({"kind": "project", "name": "p", "confidence": 300}) + "\n")
    with pytest.raises(InvalidMemory) as info:
        import_jsonl(store, str(path))
    assert "line 2" in info.value.record and info.value.field == "confidence"
    assert store.count() == 5


def test_export_writes_whole_file_or_nothing(store, tree, tmp_path, monkeypatch):
    target = tmp_path / "out.jsonl"
    target.write_text("previous export\n")

    def broken(*args, **kwargs):
        yield from store.table.to_lance().to_table().to_pylist()[:2]
        raise OSError("disk full")

    monkeypatch.setattr(store, "iter_rows", broken)
    with pytest.raises(OSError):
        export_jsonl(store, str(target))
    assert target.read_text() == "previous export\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".export-")] == []



def test_an_export_after_retention_imports_into_a_new_store(tmp_path):
    """Retention removes an old turn and an old insight a decision was promoted from; the
    export of what is left imports into a new store, each link kept as a reference to
    history (it was refused: 'does not exist')."""
    from datetime import datetime, timezone

    from memlib import Conversation, Insight, Project
    from memlib.clock import Clock
    from memlib.lifecycle import curation, retention

    old = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(),
                           clock=Clock(datetime(2026, 1, 5, tzinfo=timezone.utc)))
    project = Project(name="shop")
    insight = Insight(project_id=project.id, content="Prices can be cached for a minute")
    first = Conversation(project_id=project.id, content="Where do prices come from?", speaker="ana")
    old.add([project, insight, first])
    promoted = curation.promote(old, insight.id)
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())  # today
    (reply,) = store.add([Conversation(project_id=project.id, content="From the catalogue service.",
                                       speaker="bo", ttl_days=-1)])
    assert store.get(reply).previous_id == first.id
    retention.apply(store, "default")
    store.refresh()
    held = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    assert held == {project.id, promoted.id, reply}
    path = tmp_path / "all.jsonl"
    assert export_jsonl(store, str(path)) == 3
    copy = MemoryStore.open(str(tmp_path / "copy"), embedder=HashEmbedder())
    assert import_jsonl(copy, str(path)) == 3
    assert copy.get(reply).previous_id == first.id
    assert copy.get(promoted.id).promoted_from == insight.id
    # a new memory naming a memory that is nowhere is still refused, on add and on upsert
    for write in (copy.add, copy.upsert):
        with pytest.raises(InvalidMemory, match="does not exist"):
            write([Conversation(project_id=project.id, content="and then?", previous_id=first.id)])


def test_an_import_keeps_a_root_task_that_is_history(store, tree, tmp_path):
    """A decision whose root task is gone (a policy that does not protect root tasks) imports
    with its root_task_id."""
    path = tmp_path / "m.jsonl"
    export_jsonl(store, str(path))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    kept = [r for r in lines if r["id"] != tree["root"].id and r["kind"] != "sub_task"]
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    copy = MemoryStore.open(str(tmp_path / "copy"), embedder=HashEmbedder())
    assert import_jsonl(copy, str(path)) == 3
    assert copy.get(tree["decision"].id).root_task_id == tree["root"].id
