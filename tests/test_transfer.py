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
