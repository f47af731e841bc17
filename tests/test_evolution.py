"""Stores written by older versions still open and read; added fields get defaults."""

from __future__ import annotations

import shutil
from pathlib import Path

from memlib import MemoryStore, Project, Scope, analytics

FIXTURE = Path(__file__).parent / "fixtures" / "store_v1"


def _copy(tmp_path) -> str:
    target = tmp_path / "store_v1"
    shutil.copytree(FIXTURE, target)
    return str(target)


def test_fixture_store_from_2026_11_22_opens_and_reads(tmp_path):
    store = MemoryStore.open(_copy(tmp_path), create=False)
    assert store.model_name == "memlib/hash-384" and store.dims == 384
    decision = store.get("6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e04")
    assert decision.title == "Schema v1"
    assert decision.metadata == {"written_by": "memlib 0.1.0"}
    sub = store.get("6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e03")
    assert sub.project_id == "6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e01" and sub.tags == ["fixture"]
    assert store.count() == 4
    assert store.recalls.table.count_rows() == 2
    hits = store.search("old stores readable", k=2, scope=Scope(include_expired=True))
    assert hits and hits[0].memory.id == "6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e02"
    assert sum(m.usage_count for m in (store.get(h.memory.id) for h in hits)) >= 1


def test_fixture_store_accepts_new_writes(tmp_path):
    store = MemoryStore.open(_copy(tmp_path))
    store.add([Project(name="written by today's code")])
    assert store.count() == 5


def test_column_missing_from_an_older_store_reads_as_its_default(tmp_path):
    uri = _copy(tmp_path)
    store = MemoryStore.open(uri)
    # An older memlib did not know these fields: drop them, as if they were added later.
    store.table.drop_columns(["manual_promote_flag", "agent", "recalls_folded_until"])
    old = MemoryStore.open(uri)
    memory = old.get("6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e04")
    assert memory.manual_promote_flag is False and memory.agent is None
    assert old.search("schema", k=1, mode="fts", scope=Scope(include_expired=True))
    con = analytics.connect(old, as_of="2027-06-01")  # the views read it too, with defaults
    assert con.execute("select count(*), bool_or(manual_promote_flag) from v_memory").fetchone() == (4, False)
    dropped = con.execute("select id from mart_retention_candidates where policy = 'conservative' "
                          "order by id").fetchall()
    assert dropped == [("6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e03",)]  # the sub task; root tasks are protected
    # the first write brings the table up to date, as nulls for the old rows
    old.add([Project(name="new", manual_promote_flag=True)])
    assert "manual_promote_flag" in old.table.schema.names
    assert old.get("6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e04").manual_promote_flag is False
    assert old.count() == 5
