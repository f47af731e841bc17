"""Batch writes, get, update, delete, upsert, indexes, and the store's recorded model."""

from __future__ import annotations

import numpy as np
import pytest

from memlib import EmbedderMismatch, InvalidInput, MemoryStore, NotFound, Project, StoreError
from memlib.embeddings import HashEmbedder

pytestmark = pytest.mark.on_s3  # every test with a store fixture runs on local disk and on S3


def test_get_returns_what_was_added(store, tree):
    got = store.get(tree["decision"].id)
    assert got.model_dump(exclude={"embedding"}) == tree["decision"].model_dump(exclude={"embedding"})


def test_sub_task_carries_its_project(store, tree):
    assert store.get(tree["sub"].id).project_id == tree["project"].id


def test_one_commit_per_batch(store, tree):
    version = store.table.version
    store.add([Project(name=f"p{i}") for i in range(300)])
    assert store.table.version == version + 1
    store.upsert([Project(name=f"q{i}") for i in range(300)])
    assert store.table.version == version + 2


def test_update_reembeds_only_when_text_changes(store, tree):
    rid = tree["root"].id
    before = store.get(rid, with_embedding=True)
    same_text = store.update(rid, confidence=40)
    after_conf = store.get(rid, with_embedding=True)
    assert same_text.id == rid and same_text.confidence == 40
    assert after_conf.embedding == before.embedding
    assert after_conf.updated_at > before.updated_at
    store.update(rid, objective="Move the ledger to CockroachDB")
    changed = store.get(rid, with_embedding=True)
    assert changed.objective == "Move the ledger to CockroachDB"
    expected = HashEmbedder().embed([changed.text])[0]
    assert np.allclose(changed.embedding, expected, atol=1e-6)
    assert changed.created_at == before.created_at
    assert store.table.count_rows() == 5


def test_update_rejects_bad_values_and_frozen_fields(store, tree):
    with pytest.raises(Exception) as info:
        store.update(tree["root"].id, confidence=500)
    assert "confidence" in str(info.value)
    with pytest.raises(InvalidInput):
        store.update(tree["root"].id, kind="project")
    assert store.get(tree["root"].id).confidence == 100


def test_delete_and_cascade(store, tree):
    with pytest.raises(InvalidInput):
        store.delete([tree["root"].id])  # has a sub task and a decision hanging off it
    assert store.table.count_rows() == 5
    assert store.delete([tree["sub"].id]) == 1
    with pytest.raises(NotFound):
        store.get(tree["sub"].id)
    assert store.delete([tree["project"].id], cascade=True) == 4
    assert store.table.count_rows() == 0
    with pytest.raises(NotFound):
        store.delete(["0b5c0a38-0000-4000-8000-000000000000"])


def test_upsert_is_idempotent(store, tree):
    batch = [Project(name=f"imported {i}") for i in range(20)]
    store.upsert(batch)
    store.upsert(batch)
    store.upsert([p.model_copy(update={"description": "now described"}) for p in batch])
    assert store.table.count_rows() == 25
    assert store.get(batch[3].id).description == "now described"


def test_upsert_cannot_change_kind(store, tree):
    with pytest.raises(Exception) as info:
        store.upsert([{"kind": "manual", "id": tree["insight"].id, "project_id": tree["project"].id,
                       "content": "x"}])
    assert "kind" in str(info.value)


def test_indexes_exist_after_first_write(store, tree):
    columns = {tuple(ix.columns) for ix in store.table.list_indices()}
    for column in ("source", "created_at", "level", "kind", "project_id", "root_task_id", "text"):
        assert (column,) in columns


def test_store_records_its_model(tmp_path):
    uri = str(tmp_path / "s")
    MemoryStore.open(uri, embedder=HashEmbedder(384))
    reopened = MemoryStore.open(uri)
    assert reopened.embedder.name == "memlib/hash-384" and reopened.dims == 384
    with pytest.raises(EmbedderMismatch):
        MemoryStore.open(uri, embedder=HashEmbedder(64))


def test_open_missing_store_without_create(tmp_path):
    with pytest.raises(StoreError):
        MemoryStore.open(str(tmp_path / "nothing"), create=False)


def test_default_uri_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLIB_STORE", str(tmp_path / "env-store"))
    store = MemoryStore.open(embedder=HashEmbedder())
    assert store.uri == str(tmp_path / "env-store")
    assert (tmp_path / "env-store" / "memories.lance").is_dir()


def test_stats_counts(store, tree):
    stats = store.stats()
    assert stats["memories"] == 5
    assert stats["by_kind"] == {"decision": 1, "insight": 1, "project": 1, "root_task": 1, "sub_task": 1}
    assert stats["by_level"] == {"0": 1, "1": 2, "2": 2}
    assert list(stats["by_project"].values()) == [5]


def test_trusted_rows_build_the_same_memories_as_validated_ones(tmp_path):
    from datetime import datetime, timezone

    from memlib.embeddings import HashEmbedder
    from memlib.models import from_row
    from memlib.sample import generate

    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    store.add(generate(600, seed=2, anchor=datetime(2026, 11, 1, tzinfo=timezone.utc)).memories)
    rows = store.dataset().to_table(columns=[n for n in store.table.schema.names if n != "embedding"]).to_pylist()
    kinds = set()
    for row in rows:
        validated, trusted = from_row(row), from_row(row, trusted=True)
        assert trusted == validated and type(trusted) is type(validated)
        assert trusted.model_dump(mode="json") == validated.model_dump(mode="json")
        kinds.add(trusted.kind)
    assert len(kinds) == 11


class _Counting(HashEmbedder):
    def __init__(self):
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return super().embed(texts)


def test_a_large_write_embeds_longest_first_and_stores_each_texts_own_vector(tmp_path):
    """Chunks of a large batch are cut from its texts ordered longest first, so each model
    batch pads as little as one call over all of them would; each row keeps its own vector."""
    from memlib.store.batch import EMBED_CHUNK

    embedder = _Counting()
    store = MemoryStore.open(str(tmp_path / "s"), embedder=embedder)
    projects = [Project(name=f"p{i} " + "word " * ((i * 37) % 50)) for i in range(EMBED_CHUNK * 2 + 17)]
    store.add(projects)
    assert len(embedder.calls) == 3
    lengths = [len(text) for call in embedder.calls for text in call]
    assert lengths == sorted(lengths, reverse=True) and len(lengths) == len(projects)
    stored = store.lookup([p.id for p in projects], ["embedding"])
    for project in projects:
        assert np.allclose(stored[project.id]["embedding"], HashEmbedder().embed([project.text])[0])


def test_a_small_write_embeds_once_while_it_is_checked(tmp_path, tree):
    """A small batch embeds its texts on a second thread while the store checks it; what is
    stored is the text's vector, embedded once; a turn whose context the store fills is
    embedded after (its text is only then known); a refused batch writes nothing."""
    from memlib import Conversation, Insight, InvalidMemory

    embedder = _Counting()
    store = MemoryStore.open(str(tmp_path / "s"), embedder=embedder)
    project = Project(name="payments")
    store.add([project])
    insight = Insight(project_id=project.id, content="Ledger retries must be idempotent")
    embedder.calls.clear()
    store.add([insight])
    assert embedder.calls == [[insight.text]]
    stored = store.lookup([insight.id], ["embedding"])[insight.id]["embedding"]
    assert np.allclose(stored, HashEmbedder().embed([insight.text])[0])

    first = Conversation(project_id=project.id, iteration_id="s1", speaker="ann", content="ann: hello")
    second = Conversation(project_id=project.id, iteration_id="s1", speaker="bob", content="bob: the ledger")
    store.add([first])
    embedder.calls.clear()
    store.add([second])
    got = store.get(second.id)
    assert got.context == "ann: hello" and embedder.calls == [[got.text]]

    version = store.version
    with pytest.raises(InvalidMemory, match="does not exist"):
        store.add([Insight(project_id="no-such-project", content="orphan")])
    assert store.version == version


def test_a_batch_audits_each_memory_with_its_own_event_id(store):
    import uuid

    ids = store.add([Project(name=f"p{i}") for i in range(500)])
    events = store.audit.events("action = 'write'")
    assert {e["subject_id"] for e in events} >= set(ids)
    event_ids = [e["event_id"] for e in events]
    assert len(set(event_ids)) == len(event_ids)
    for event in events:  # time-ordered (version 7) UUIDs of the event's millisecond, canonical
        parsed = uuid.UUID(event["event_id"])
        assert parsed.version == 7 and parsed.variant == uuid.RFC_4122 and str(parsed) == event["event_id"]
        assert parsed.int >> 80 == int(event["at"].timestamp() * 1000)
    # a batch's ids sort in the order its memories were given
    mine = sorted((e for e in events if e["subject_id"] in set(ids)), key=lambda e: e["event_id"])
    assert [e["subject_id"] for e in mine] == ids


def test_single_writes_keep_the_audit_log_tidy(store):
    """Each write appends its audit events as a fragment; writes merge them as they merge
    their own, so the log never holds more than a tidy's worth of small fragments."""
    from memlib.store.tables import TIDY_EVERY, TIDY_FRAGMENTS, small_fragments

    project = Project(name="p")
    store.add([project])
    ids = [store.add([Project(name=f"q{i}")])[0] for i in range(3 * TIDY_FRAGMENTS)]
    fragments = small_fragments(store.audit.dataset())
    assert fragments < TIDY_FRAGMENTS + TIDY_EVERY, fragments
    written = {e["subject_id"] for e in store.audit.events("action = 'write'")}
    assert written >= {project.id, *ids}


def test_unindexed_rows_are_counted_by_the_index_on_the_column_whatever_its_name(tmp_path):
    from lancedb.index import BTree

    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    store.add([Project(name=f"a{i}") for i in range(20)])  # builds the indexes
    assert store.unindexed("id") == 0
    table = store.table
    table.drop_index(next(ix.name for ix in table.list_indices() if list(ix.columns) == ["id"]))
    assert store.unindexed("id") == 20  # no index on it: every row
    table.create_index("id", config=BTree(), name="ids_by_hand")
    store.add([Project(name=f"b{i}") for i in range(7)])
    assert store.unindexed("id") == 7


def test_a_lookup_of_many_ids_before_maintain_reads_the_id_column_once(store, monkeypatch):
    from memlib.scope import sql_in
    from memlib.store.store import LOOKUP_CHUNK

    first = store.add([Project(name=f"a{i}") for i in range(LOOKUP_CHUNK + 500)])  # builds the indexes
    second = store.add([Project(name=f"b{i}") for i in range(LOOKUP_CHUNK + 500)])
    assert store.unindexed("id") >= len(second)  # the second add is in no index until maintain
    store.delete([first[2], second[3]])
    ids = first[::2] + second[1::2] + ["0b5c0a38-0000-4000-8000-000000000000"]
    assert len(ids) > LOOKUP_CHUNK
    expected = {row["id"]: row for row in store.rows(sql_in("id", ids), limit=len(ids), columns=["id", "name", "kind"])}
    assert len(expected) == len(ids) - 3  # the two deleted, and the id never written

    def filtered(*args, **kwargs):
        raise AssertionError("looked up by filters")

    monkeypatch.setattr(store, "rows", filtered)
    assert store.lookup(ids, ["name", "kind"]) == expected


def test_a_table_whose_creation_was_cut_short_is_made_again_and_a_damaged_one_is_an_error(tmp_path):
    """A process killed while it created a table (the archive, at a store's first forget)
    leaves the table's folder listed with no version in it: the next forget completes the
    creation instead of failing on every later run. A table with a version that cannot be
    read stays an error (found by the workspace kill test, tests/test_workspace_processes.py)."""
    import shutil

    from memlib.lifecycle import retention
    from memlib.models import Insight, Project
    from memlib.store.tables import ARCHIVE, open_table

    uri = tmp_path / "s"
    store = MemoryStore.open(str(uri), embedder=HashEmbedder())
    project = Project(name="p")
    insight = Insight(project_id=project.id, content="the ledger retries twice")
    store.add([project, insight])
    store.db.create_table(ARCHIVE, schema=store.table.schema)
    shutil.rmtree(uri / f"{ARCHIVE}.lance" / "_versions")  # what a kill before its first commit leaves
    assert (uri / f"{ARCHIVE}.lance" / "_transactions").is_dir()
    assert open_table(store.db, ARCHIVE) is None
    outcome = retention.remove(store, [insight.id], {"reason": "test"})
    assert store.lookup([insight.id], ["id"]) == {}
    assert retention.undo(store, outcome.run_id) == 1 and store.get(insight.id).content == insight.content
    for manifest in (uri / f"{ARCHIVE}.lance" / "_versions").glob("*.manifest"):
        manifest.write_bytes(b"not a manifest")
    with pytest.raises(StoreError, match="table 'archive' of the store cannot be opened"):
        open_table(store.db, ARCHIVE)
