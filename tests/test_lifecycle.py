"""Retention runs, time travel, the audit log, promotion, flags and confidence."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from datetime import datetime, timedelta, timezone

import pyarrow as pa
import pytest

from memlib import Insight, Learning, MemoryStore, analytics
from memlib.lifecycle import curation, retention as lifecycle
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput, InvalidMemory, NotFound, StoreError
from memlib.sample import build_sample

import expected
from conftest import T0, stored_bytes

pytestmark = pytest.mark.on_s3  # every test with a store fixture runs on local disk and on S3

ANCHOR = datetime(2026, 11, 1, tzinfo=timezone.utc)
AS_OF = "2026-10-20"
END = datetime(2026, 10, 20, 23, 59, 59, 999999, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("life") / "store"
    store = MemoryStore.open(str(path), embedder=HashEmbedder())
    build_sample(store, size=1200, seed=11, anchor=ANCHOR, findings=False)  # the runs here are the tests'
    return path


@pytest.fixture
def sample(built, store_uri):
    """A fresh copy of the built sample store for each test: a directory, or uploaded to a
    bucket of the S3 server (Lance's files name each other by relative paths)."""
    if "://" in store_uri:
        import boto3

        bucket, _, prefix = store_uri.removeprefix("s3://").partition("/")
        s3 = boto3.client("s3")
        files = [path for path in built.rglob("*") if path.is_file()]
        with ThreadPoolExecutor(8) as pool:  # 2,700 small files: twice as fast as one at a time
            # one put each (upload_file starts a transfer manager per file: most of the time)
            list(pool.map(lambda path: s3.put_object(Bucket=bucket, Key=f"{prefix}/{path.relative_to(built)}",
                                                     Body=path.read_bytes()), files))
    else:
        shutil.copytree(built, store_uri)
    return MemoryStore.open(store_uri)


def everything(store) -> pa.Table:
    """Every column of every memory, embeddings included, in id order."""
    return store.dataset().to_table().sort_by("id")


def test_the_plan_is_the_retention_reports_candidate_list(sample):
    memories, events = expected.raw(sample)
    con = analytics.connect(sample, as_of=END, policies=analytics.policies(analytics.DEFAULT_POLICIES))
    for name in analytics.DEFAULT_POLICIES:
        plan = lifecycle.plan(sample, name, AS_OF)
        report = [r[0] for r in con.execute("select id from mart_retention_candidates where policy = ? "
                                            "order by id", [name]).fetchall()]
        assert plan.ids == report and plan.ids, name
        want = expected.retention_candidates(memories, events, END, plan.policy)
        assert dict(zip(plan.ids, map(sorted, plan.candidates.column("reasons").to_pylist()))) == want


def test_apply_removes_the_plan_and_undo_restores_every_row_unchanged(sample):
    before, version = everything(sample), sample.version
    plan = lifecycle.plan(sample, "default", AS_OF)
    out = lifecycle.apply(sample, "default", AS_OF)
    assert out.removed == len(plan.ids) > 100
    after = everything(sample)
    assert set(after.column("id").to_pylist()) == set(before.column("id").to_pylist()) - set(plan.ids)
    assert lifecycle.plan(sample, "default", AS_OF).ids == []  # a second run finds nothing more
    # time travel: the run's tag and the version number open the store as it was; a date is
    # an as-of, a version or a tag is not
    for named in (out.tag, str(version), f"v{version}", version):
        old = MemoryStore.open(sample.uri, version=named)
        assert old.read_only and everything(old).equals(before)
    with pytest.raises(InvalidInput, match="not an ISO date"):
        MemoryStore.open(sample.uri, as_of=f"v{version}")
    with pytest.raises(InvalidInput, match="not both"):
        MemoryStore.open(sample.uri, as_of="2026-10-01", version=version)
    with pytest.raises(InvalidInput, match="no version or tag named 'retention-nope'"):
        MemoryStore.open(sample.uri, version="retention-nope")
    with pytest.raises(StoreError, match="read-only"):
        MemoryStore.open(sample.uri, version=out.tag).delete([plan.ids[0]])
    assert lifecycle.undo(sample, out.run_id) == len(plan.ids)
    restored = everything(sample)
    assert restored.schema == before.schema
    for name in before.schema.names:  # column by column, embeddings included
        assert restored.column(name).equals(before.column(name)), name
    with pytest.raises(InvalidInput, match="already undone"):
        lifecycle.undo(sample, out.run_id)
    statuses = {r["run_id"]: r["status"] for r in lifecycle.runs(sample)}
    assert statuses == {out.run_id: "undone"}


def test_history_of_one_memory_and_of_a_date(sample):
    out = lifecycle.apply(sample, "default", AS_OF)
    memory_id = sample.audit.events(f"action = 'retention_remove' AND run_id = '{out.run_id}'")[0]["subject_id"]
    lifecycle.undo(sample, out.run_id)
    events = sample.audit.events(f"subject_id = '{memory_id}'")
    # build_sample folds its first weeks' recalls into usage (actor "sample"), maintain the rest
    assert all(e["actor"] in ("sample", "maintain") for e in events if e["action"] == "usage")
    assert [e["action"] for e in events if e["action"] != "usage"] == ["write", "retention_remove", "restore"]
    assert events[-1]["run_id"] == out.run_id
    # the sample's history starts with its first day's commit
    first = sample.audit.ledger()[0][1].date()
    with pytest.raises(InvalidInput, match="no version as old as"):
        MemoryStore.open(sample.uri, as_of=(first - timedelta(days=1)).isoformat())
    with pytest.raises(InvalidInput, match="no version 999"):
        MemoryStore.open(sample.uri, version="9999")
    first_day = MemoryStore.open(sample.uri, as_of=first.isoformat())
    assert 0 < first_day.table.count_rows() < sample.table.count_rows()
    assert first_day.version < MemoryStore.open(sample.uri, as_of="2026-10-01").version


def test_purge_deletes_the_archive_of_a_run_for_good(sample):
    before = sample.version
    out = lifecycle.apply(sample, "default", AS_OF)
    archive = f"{sample.uri}/archive.lance"
    size = stored_bytes(archive)
    result = lifecycle.purge(sample, out.run_id)
    assert result["archived_rows_deleted"] == out.removed
    now = stored_bytes(archive)
    assert result["bytes_freed"] == size - now > 0  # measured on disk, not estimated
    (purged,) = lifecycle.runs(sample)
    assert lifecycle.space(purged) == f"purged, {(size - now) / 2**20:,.1f} MB freed on disk"
    # only the run's archive goes: the memories keep their history for time travel
    assert MemoryStore.open(sample.uri, version=before).table.count_rows() == \
        sample.table.count_rows() + out.removed
    cleaned = lifecycle.cleanup_versions(sample, older_than_days=0)
    assert before in cleaned["versions_removed"] and cleaned["bytes_freed"] > 0
    with pytest.raises(InvalidInput, match="no version"):
        MemoryStore.open(sample.uri, version=before)
    assert f"retention-{out.run_id}" not in sample.table.tags.list()
    with pytest.raises(InvalidInput, match="already purged"):
        lifecycle.undo(sample, out.run_id)
    with pytest.raises(NotFound):
        lifecycle.purge(sample, "no-such-run")


# -- never dropped -------------------------------------------------------------------------

def _old_insight(tree, **fields):
    return Insight(project_id=tree["project"].id, content=fields.pop("content", "an old thought"),
                   ttl_days=fields.pop("ttl_days", 30), created_at=T0 - timedelta(days=400), **fields)


@pytest.mark.parametrize("fields, policy", [
    ({}, "default"),  # the control: this one is dropped
    ({"manual_promote_flag": True}, "default"),
    ({"ttl_days": -1}, "default"),
    ({"tags": ["keep"]}, "default"),
    ({}, {"name": "p", "protected_kinds": ["insight"]}),
    ({"tags": ["legal"]}, {"name": "p", "protected_tags": ["legal"]}),
])
def test_never_drop_rules(store, tree, fields, policy):
    kept = _old_insight(tree, **fields)
    store.add([kept])
    ids = lifecycle.plan(store, policy, T0).ids
    assert (kept.id in ids) == (fields == {} and policy == "default")


def test_a_memory_recalled_within_the_grace_window_is_kept(store, tree):
    old = _old_insight(tree, content="ledger retries idempotent old thought")
    store.add([old])
    assert old.id in lifecycle.plan(store, "default", datetime.now(timezone.utc)).ids
    hits = store.recall("ledger retries idempotent old thought", k=20, agent="a",
                        scope=None)
    assert old.id not in [h.memory.id for h in hits]  # expired: search does not return it
    store.recalls.append([{"event_id": "e1", "query_id": "q", "query_text": "x", "memory_id": old.id,
                           "rank": 1, "score": 1.0, "mode": "vector", "agent": "a",
                           "recalled_at": datetime.now(timezone.utc) - timedelta(days=3)}])
    assert old.id not in lifecycle.plan(store, "default", datetime.now(timezone.utc)).ids


def test_old_iterations_lose_their_detail_but_keep_their_summaries(store, tree):
    from memlib import Summary

    project = tree["project"].id
    policy = {"name": "p", "keep_iterations": 2, "min_decay_score": 0.0, "drop_expired": False}
    memories = []
    for n in range(4):
        when = T0 - timedelta(days=100 - n)
        memories += [Insight(project_id=project, iteration_id=f"it{n}", content=f"detail {n}",
                             created_at=when),
                     Summary(project_id=project, iteration_id=f"it{n}", content=f"summary {n}",
                             created_at=when)]
    store.add(memories)
    ids = set(lifecycle.plan(store, policy, T0).ids)
    details = {m.id for m in memories if m.kind.value == "insight" and m.iteration_id in ("it0", "it1")}
    assert ids == details


# -- runs that were cut short ------------------------------------------------------------------

@pytest.mark.parametrize("step", ["started", "tagged", "archived", "deleted", "events"])
def test_a_run_cut_short_is_finished_by_the_next(sample, step):
    before = everything(sample)
    plan = lifecycle.plan(sample, "default", AS_OF)
    seen = []

    def cut(at: str) -> None:  # the run stops dead after this step, as a crash there would
        seen.append(at)
        if at == step:
            raise _Killed()

    with pytest.raises(_Killed):
        lifecycle.apply(sample, "default", AS_OF, on_step=cut)
    assert seen[-1] == step
    all_ids = set(before.column("id").to_pylist())
    # the cut run left its promise (store/journal.py): the next open finishes it as the next
    # apply did, rolled forward once its rows were archived, else abandoned
    store = MemoryStore.open(sample.uri)
    ((cut_run, status),) = [(r["run_id"], r["status"]) for r in lifecycle.runs(store)]
    ids = set(everything(store).column("id").to_pylist())
    if step in ("started", "tagged"):  # nothing had been archived: abandoned
        assert status == "abandoned" and ids == all_ids
    else:
        assert status == "done" and ids == all_ids - set(plan.ids)
    out = lifecycle.apply(store, "default", AS_OF)  # nothing left to resume; runs what remains of the plan
    assert out.resumed == [] and set(everything(store).column("id").to_pylist()) == all_ids - set(plan.ids)
    remover = out.run_id if step in ("started", "tagged") else cut_run
    assert out.removed == (len(plan.ids) if step in ("started", "tagged") else 0)
    assert lifecycle.undo(store, remover) == len(plan.ids)
    assert everything(store).equals(before)


class _Killed(BaseException):
    pass


# -- promotion, flags, confidence ----------------------------------------------------------

def test_promotion_keeps_a_link_and_titles_are_unique_per_project(store, tree):
    project = tree["project"].id
    insight = Insight(project_id=project, iteration_id="it3", content="Retries need idempotency keys")
    learning = Learning(project_id=project, title="Outbox", content="Publish events from an outbox table")
    store.add([insight, learning])
    decision = curation.promote(store, insight.id)
    assert (decision.kind.value, decision.promoted_from, decision.iteration_id) == ("decision", insight.id, "it3")
    assert decision.title == "Retries need idempotency keys" and decision.decision == insight.content
    pattern = curation.promote(store, learning.id)
    assert (pattern.kind.value, pattern.name, pattern.promoted_from) == ("pattern", "Outbox", learning.id)
    with pytest.raises(InvalidInput, match="already promoted"):
        curation.promote(store, insight.id)
    other = Insight(project_id=project, content="Something else")
    store.add([other])
    with pytest.raises(InvalidMemory, match="already exists in project"):
        curation.promote(store, other.id, title="  use postgres ")  # tree's decision, any case
    with pytest.raises(InvalidInput, match="only insights and learnings"):
        curation.promote(store, tree["decision"].id)
    history = [e["action"] for e in store.audit.events(f"subject_id = '{insight.id}'")]
    assert history == ["write", "promote"]


def test_finalizing_an_iteration_promotes_its_critical_insights(store, tree):
    project = tree["project"].id
    critical = Insight(project_id=project, iteration_id="it9", content="Never retry payouts", importance="critical")
    normal = Insight(project_id=project, iteration_id="it9", content="Logs are noisy")
    elsewhere = Insight(project_id=project, iteration_id="it8", content="Cache warms slowly", importance="critical")
    store.add([critical, normal, elsewhere])
    promoted = curation.finalize_iteration(store, project, "it9")
    assert [m.promoted_from for m in promoted] == [critical.id]
    assert curation.finalize_iteration(store, project, "it9") == []  # once only


def test_flag_and_confidence_changes_are_audited(store, tree):
    insight = tree["insight"]
    assert curation.set_flag(store, insight.id, True).manual_promote_flag
    assert not curation.set_flag(store, insight.id, False).manual_promote_flag
    assert curation.adjust_confidence(store, insight.id, -30, "contradicted by the incident").confidence == 70
    assert curation.adjust_confidence(store, insight.id, +80, "confirmed twice").confidence == 100
    events = store.audit.events(f"subject_id = '{insight.id}'")
    assert [e["action"] for e in events] == ["write", "flag", "flag", "confidence", "confidence"]
    assert events[3]["details"] == {"before": {"confidence": 100}, "after": {"confidence": 70},
                                    "reason": "contradicted by the incident"}
    with pytest.raises(InvalidInput, match="reason"):
        curation.adjust_confidence(store, insight.id, 5, " ")


def test_maintain_keeps_the_as_of_window_and_cleans_up_the_rest(tmp_path):
    from datetime import timedelta

    from memlib import Insight, MemoryStore, Project, analytics
    from memlib.embeddings import HashEmbedder
    from memlib.lifecycle import retention
    from memlib.store.versions import AS_OF_TAG

    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    start = datetime(2026, 9, 1, 12, tzinfo=timezone.utc)
    project = Project(name="p", created_at=start)
    store.clock.set(start)
    store.add([project])
    for day in range(1, 41):  # a change a day for 40 days, two on even days
        store.clock.set(start + timedelta(days=day))
        store.add([Insight(project_id=project.id, content=f"day {day}", created_at=start + timedelta(days=day))])
        if day % 2 == 0:
            store.clock.set(start + timedelta(days=day, hours=3))
            store.add([Insight(project_id=project.id, content=f"day {day} again",
                               created_at=start + timedelta(days=day, hours=3))])
    store.clock.set(start + timedelta(days=41))  # a retention run, then a change after it
    first = store.dataset().to_table(columns=["id"], filter="content = 'day 1'").column("id")[0].as_py()
    run = retention.remove(store, [first], {"why": "test"})
    store.add([Insight(project_id=project.id, content="after the run", created_at=start + timedelta(days=41))])
    now = start + timedelta(days=41, hours=12)
    store.clock.set(now)
    before = {d: analytics.connect(store, as_of=(now - timedelta(days=d)).date()).execute(
        "select count(*) from stg_memories").fetchone()[0] for d in (0, 10, 30)}
    n_versions = len(store.table.list_versions())
    out = store.maintain(history_days=30, grace=timedelta(0))
    kept = store.table.list_versions()
    assert out["versions_removed"] > 0 and len(kept) < n_versions
    assert len(kept) <= out["as_of_versions_kept"] + 2  # the window's, the run's tag and the latest
    tags = store.table.tags.list()
    assert len([t for t in tags if t.startswith(AS_OF_TAG)]) == 31
    for d, count in before.items():  # every as-of day of the window reads what it read before
        assert analytics.connect(store, as_of=(now - timedelta(days=d)).date()).execute(
            "select count(*) from stg_memories").fetchone()[0] == count
    with pytest.raises(InvalidInput, match="were cleaned up"):
        analytics.connect(store, as_of=(now - timedelta(days=35)).date())
    assert retention.undo(store, run.run_id) == 1  # the run's tagged version survived the clean up
    store.clock.set(now + timedelta(days=10))
    store.maintain(history_days=30, grace=timedelta(0))  # the window moves on: old tags go
    assert min(t for t in store.table.tags.list() if t.startswith(AS_OF_TAG)) == \
        f"{AS_OF_TAG}{(now + timedelta(days=10) - timedelta(days=30)).date().isoformat()}"
    with pytest.raises(InvalidInput, match="history_days must be"):
        store.maintain(history_days=-1)


def test_a_bulk_load_maintained_keeps_only_the_compacted_files(tmp_path):
    """Today's as-of tag holds the version after compaction, so the fragments compaction
    replaced are cleaned up with the other old versions."""
    from memlib import Project

    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    project = Project(name="p")
    store.add([project])
    for chunk in range(5):  # five appends, five fragments
        store.add([Insight(project_id=project.id, content=f"insight {chunk}-{i}") for i in range(50)])
    out = store.maintain(grace=timedelta(0))
    assert out["compacted"]
    dataset = store.dataset()
    live = {f.path for fragment in dataset.get_fragments() for f in fragment.data_files()}
    on_disk = {p.name for p in (tmp_path / "s" / "memories.lance" / "data").iterdir()}
    assert len(live) < 6 and {Path(p).name for p in live} == on_disk  # nothing else kept
    tags = store.table.tags.list()
    assert {info["version"] for name, info in tags.items() if name.startswith("memlib-as-of-")} == {dataset.version}


def test_maintain_merges_only_small_fragments_and_indexes_every_row(tmp_path, monkeypatch):
    """Fragments of COMPACT_ROWS rows or more are left as they are; the small ones between
    them are merged; every row ends up in the indexes. Lance's vector index is built only
    when asked below the size that needs it."""
    import memlib.store.store as store_module
    from memlib import Project

    monkeypatch.setattr(store_module, "COMPACT_ROWS", 100)
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    project = Project(name="p")
    store.add([project])
    for chunk in range(3):  # large: left alone
        store.add([Insight(project_id=project.id, content=f"large {chunk}-{i}") for i in range(150)])
    for chunk in range(5):  # small: merged into one
        store.add([Insight(project_id=project.id, content=f"small {chunk}-{i}") for i in range(10)])

    def fragments():
        return [(f.metadata.physical_rows, tuple(d.path for d in f.data_files()))
                for f in store.dataset().get_fragments()]
    before = fragments()
    out = store.maintain(grace=timedelta(0))
    after = fragments()
    assert [f for f in before if f[0] == 150] == [f for f in after if f[0] == 150]  # the same files
    assert sorted(rows for rows, _ in after if rows != 150) == [1, 50]
    assert all(ix.num_unindexed_rows == 0 for ix in store.table.list_indices())
    assert not out["vector_index_built"] and not store.has_vector_index()
    assert store.maintain(vector_index=True)["vector_index_built"] and store.has_vector_index()
    assert len(store.search("small 3-4", k=3, mode="fts")) == 3
