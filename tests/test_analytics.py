"""The DuckDB views against independent computations in plain Python on the same store."""

from __future__ import annotations

import collections
from pathlib import Path
from datetime import date, datetime, timedelta, timezone

import pytest

from memlib.clock import Clock
from memlib import MemoryStore, Project, RootTask, analytics
from memlib.embeddings import HashEmbedder
from memlib.sample import build_sample

import expected
from memlib.analytics.views import ordered_views

ANCHOR = datetime(2026, 11, 1, tzinfo=timezone.utc)
AS_OF = datetime(2026, 10, 20, 23, 59, 59, 999999, tzinfo=timezone.utc)  # end of 2026-10-20
WINDOW = 30


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    store = MemoryStore.open(str(tmp_path_factory.mktemp("a") / "store"), embedder=HashEmbedder())
    # the history alone: the computations below read the latest rows, which the sample's
    # corrections and forgets of its last fortnight change (memlib/sample/quality.py)
    build_sample(store, size=800, seed=3, anchor=ANCHOR, findings=False)
    store.recall("ledger writer timeouts", k=5, agent="tester")  # stays in the spool
    return (store, *expected.raw(store))


# The lance backend reads the latest version only (the extension has no time travel): its
# tests are as of the end of the sample's history.
LATEST = datetime(2026, 11, 1, 23, 59, 59, 999999, tzinfo=timezone.utc)


def _at(backend):
    return LATEST if backend == "lance" else AS_OF


def _con(store, backend="auto", **kw):
    return analytics.connect(store, backend=backend, **({"as_of": AS_OF, "window_days": WINDOW} | kw))


def _rows(con, sql, params=None):
    cur = con.execute(sql, params or [])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


@pytest.mark.parametrize("backend", ["lance", "arrow"])
def test_time_filters_return_the_right_rows(sample, backend):
    store, memories, events = sample
    as_of = _at(backend)
    con = _con(store, backend, as_of=as_of)
    for bound in (ANCHOR - timedelta(days=90), ANCHOR - timedelta(days=30, microseconds=1),
                  datetime(2026, 9, 1, tzinfo=timezone.utc)):
        want = sum(bound <= m["created_at"] <= as_of for m in memories)
        got = con.execute("select count(*) from stg_memories where created_at >= ?", [bound]).fetchone()[0]
        assert got == want
        want = sum(e["recalled_at"] < bound for e in events)
        got = con.execute("select count(*) from stg_recall_events where recalled_at < ?", [bound]).fetchone()[0]
        assert got == want
    ids = {m["id"] for m in memories if m["expires_at"] is not None and m["expires_at"] <= AS_OF
           and m["created_at"] <= as_of}
    got = {r["id"] for r in _rows(con, "select id from stg_memories where expires_at <= ?", [AS_OF])}
    assert got == ids


def test_views_read_current_usage_including_unfolded_events(sample):
    store, memories, events = sample
    rows = {r["id"]: r for r in _rows(_con(store, as_of=None), "select id, usage_count from v_memory")}
    by_id = {m["id"]: m for m in memories}
    unfolded = collections.Counter(
        e["memory_id"] for e in events
        if e["flushed_at"] is None or by_id[e["memory_id"]]["recalls_folded_until"] is None
        or e["flushed_at"] > by_id[e["memory_id"]]["recalls_folded_until"])
    assert sum(unfolded.values()) > 5  # the fixture really has unfolded and spooled events
    for memory_id, row in rows.items():
        assert row["usage_count"] == by_id[memory_id]["usage_count"] + unfolded.get(memory_id, 0)
    assert sum(r["usage_count"] for r in rows.values()) == len(events)


def test_level_views_have_the_promised_columns(sample):
    con = _con(sample[0])
    promised = {
        "v_project_memory": "id, name, description, source, created_at, ttl, usage_count, last_accessed_at, confidence",
        "v_root_task_memory": "id, project_id, objective, source, created_at, ttl, usage_count, last_accessed_at, manual_promote_flag, confidence",
        "v_sub_task_memory": "id, root_task_id, details, metadata, source, created_at, ttl, usage_count, last_accessed_at, manual_promote_flag, confidence",
    }
    kinds = {"v_project_memory": "project", "v_root_task_memory": "root_task", "v_sub_task_memory": "sub_task"}
    for view, columns in promised.items():
        rows = _rows(con, f"select {columns} from {view}")
        assert len(rows) == sum(m["kind"] == kinds[view] and m["created_at"] <= AS_OF for m in sample[1])


def test_ttl_mart_and_the_as_of_boundary(tmp_path):
    # written on 2026-06-01 by the store's clock, so the store exists as of the days below
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder(),
                             clock=Clock(datetime(2026, 6, 1, tzinfo=timezone.utc)))
    day_end = datetime(2026, 6, 30, 23, 59, 59, 999999, tzinfo=timezone.utc)
    project = Project(name="p", created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    at_boundary = RootTask(project_id=project.id, objective="expires at the last instant of the day",
                           ttl_days=30, created_at=day_end - timedelta(days=30))
    just_after = RootTask(project_id=project.id, objective="expires a microsecond later",
                          ttl_days=30, created_at=day_end - timedelta(days=30) + timedelta(microseconds=1))
    next_day = RootTask(project_id=project.id, objective="expires the next day", ttl_days=30,
                        created_at=day_end - timedelta(days=29))
    store.add([project, at_boundary, just_after, next_day])
    con = analytics.connect(store, as_of="2026-06-30")
    rows = {r["id"]: r for r in _rows(con, "select id, is_expired, days_left from mart_ttl")}
    assert rows[at_boundary.id]["is_expired"] is True
    assert rows[just_after.id]["is_expired"] is False
    assert rows[next_day.id]["is_expired"] is False
    assert rows[project.id]["is_expired"] is False and rows[project.id]["days_left"] is None
    # days left: calendar days (UTC) from the as-of date to the expiry date, for every memory
    for memory in store.dataset().to_table(columns=["id", "expires_at"]).to_pylist():
        expires = memory["expires_at"]
        want = None if expires is None else (expires.astimezone(timezone.utc).date() - date(2026, 6, 30)).days
        assert rows[memory["id"]]["days_left"] == want
    later = analytics.connect(store, as_of="2026-07-01")
    assert all(r["is_expired"] for r in _rows(later, "select is_expired from mart_ttl where kind = 'root_task'"))


@pytest.mark.parametrize("backend", ["lance", "arrow"])
def test_usage_marts_match_python(sample, backend):
    store, memories, events = sample
    as_of = _at(backend)
    con = _con(store, backend, as_of=as_of)
    usage = expected.usage_as_of(memories, events, as_of)
    window = [e for e in events if as_of - timedelta(days=WINDOW) < e["recalled_at"] <= as_of]
    summary = _rows(con, "select * from mart_usage_summary")[0]
    assert summary["n_recalls_window"] == len(window)
    assert summary["n_queries_window"] == len({e["query_id"] for e in window})
    assert summary["n_memories"] == len(usage)
    assert summary["n_never_recalled"] == sum(v == 0 for v in usage.values())
    by_memory = {r["id"]: r for r in _rows(con, "select * from mart_usage_by_memory")}
    assert {k: v["n_recalls"] for k, v in by_memory.items()} == usage
    per_window = collections.Counter(e["memory_id"] for e in window)
    assert {k: v["n_recalls_window"] for k, v in by_memory.items()} == \
        {k: per_window.get(k, 0) for k in usage}
    daily = _rows(con, "select kind, sum(n_recalls) as n from mart_usage_daily group by kind")
    kind_of = {m["id"]: m["kind"] for m in memories}
    want = collections.Counter(kind_of[e["memory_id"]] for e in events if e["recalled_at"] <= as_of)
    assert {r["kind"]: r["n"] for r in daily} == dict(want)
    by_day = _rows(con, "select recalled_on, sum(n_recalls) as n from mart_usage_daily group by all")
    want = collections.Counter(e["recalled_at"].astimezone(timezone.utc).date() for e in events
                               if e["recalled_at"] <= as_of)
    assert {r["recalled_on"]: r["n"] for r in by_day} == dict(want)  # UTC calendar days


def test_project_filter_scopes_every_mart(sample):
    store, memories, events = sample
    project = collections.Counter(m["project_id"] for m in memories).most_common(1)[0][0]
    con = _con(store, project_id=project)
    in_project = {m["id"] for m in memories if m["project_id"] == project and m["created_at"] <= AS_OF}
    assert {r["id"] for r in _rows(con, "select id from mart_ttl")} == in_project
    n = con.execute("select sum(n_recalls) from mart_usage_daily").fetchone()[0]
    assert n == sum(e["memory_id"] in in_project and e["recalled_at"] <= AS_OF for e in events)


def test_decay_matches_python(sample):
    store, memories, events = sample
    half_lives = {"default": 45, "level:2": 20, "decision": 200}
    con = _con(store, policies=analytics.policies([{"name": "mine", "half_life_days": half_lives}]))
    usage = expected.usage_as_of(memories, events, AS_OF)
    decay = {r["id"]: r["decay_score"] for r in _rows(con, "select id, decay_score from mart_decay")}
    assert decay.keys() == usage.keys()
    for m in memories:
        if m["id"] in decay:
            assert decay[m["id"]] == pytest.approx(
                expected.decay(m, usage[m["id"]], events, AS_OF, half_lives), rel=1e-9)


def test_retention_candidates_match_python(sample):
    store, memories, events = sample
    project = collections.Counter(m["project_id"] for m in memories).most_common(1)[0][0]
    tag = collections.Counter(t for m in memories for t in (m["tags"] or [])).most_common(1)[0][0]
    policies = analytics.policies([
        {"name": "strict", "drop_expired": True, "min_decay_score": 0.3, "min_confidence": 60, "grace_days": 3},
        {"name": "expired-only", "drop_expired": True, "min_decay_score": 0.0, "min_confidence": 0, "grace_days": 0},
        {"name": "shaped", "min_decay_score": 0.1, "grace_days": 5, "keep_iterations": 2,
         "protected_kinds": ["decision"], "protected_tags": [tag],
         "ttl_days": {"insight": 20, "level:2": 40},
         "half_life_days": {"default": 30, "level:1": 50, "learning": 10},
         "projects": {project: {"min_confidence": 70, "keep_iterations": 1, "ttl_days": {"issue": 5}}}},
        "default", "conservative", "aggressive",
    ])
    con = _con(store, policies=policies)
    got = collections.defaultdict(dict)
    for r in _rows(con, "select policy, id, reasons from mart_retention_candidates"):
        got[r["policy"]][r["id"]] = sorted(r["reasons"])
    reasons = collections.Counter()
    for policy in policies:
        want = expected.retention_candidates(memories, events, AS_OF, policy)
        assert want and got[policy.name] == want, policy.name
        reasons.update(r for rs in want.values() for r in rs)
    assert set(reasons) == {"expired", "decayed", "low_confidence", "old_iteration"}  # all exercised


def test_decay_report_and_retention_judge_by_one_definition(sample):
    """What decays (mart_decay, under the decay policy) is what retention judges by: the
    same decay score for every memory, from int_memory_policy."""
    store, _, _ = sample
    con = _con(store, policies=analytics.policies(["aggressive", "default"]))
    assert con.execute("select decay_policy from memlib_params").fetchone()[0] == "aggressive"
    decay = {r["id"]: r["decay_score"] for r in _rows(con, "select id, decay_score from mart_decay")}
    judged = {r["id"]: r["decay_score"] for r in _rows(
        con, "select id, decay_score from mart_retention_candidates where policy = 'aggressive'")}
    assert judged and all(decay[i] == judged[i] for i in judged)
    low = {i for i, d in decay.items() if d < analytics.policies(["aggressive"])[0].min_decay_score}
    reasons = {r["id"]: r["reasons"] for r in _rows(
        con, "select id, reasons from mart_retention_candidates where policy = 'aggressive'")}
    assert {i for i, rs in reasons.items() if "decayed" in rs} <= low


def test_parameters_are_validated():
    with pytest.raises(Exception, match="half_life_days of default"):
        analytics.policies([{"name": "x", "half_life_days": {"default": -1}}])
    with pytest.raises(Exception, match="min_decay: is not a policy setting"):
        analytics.policies([{"name": "x", "min_decay": 1}])
    with pytest.raises(Exception, match="not a kind"):
        analytics.policies([{"name": "x", "half_life_days": {"default": 3, "thoughts": 3}}])
    with pytest.raises(Exception, match="window_days"):
        analytics.Params(as_of=AS_OF, window_days=0)


def test_views_load_in_dependency_order():
    names = [name for name, _ in ordered_views()]
    assert names.index("stg_memories") < names.index("v_memory") < names.index("mart_retention_candidates")
    assert names.index("decay_score") < names.index("mart_decay")


def test_a_view_declares_what_it_reads_and_the_declaration_is_checked(monkeypatch, tmp_path):
    """The order comes from each file's `-- reads:` line; a file whose SQL names a view it
    does not declare (or declares one it does not name) is refused in one line."""
    from importlib import resources

    from memlib.analytics import views
    from memlib.errors import StoreError

    ordered = dict(ordered_views())
    assert views.reads(ordered, "mart_usage_summary") == ["int_recall_events_as_of", "mart_usage_by_memory"]
    assert views.reads(ordered, "stg_memories") == []
    real = resources.files("memlib.sql")
    for case, (name, change, message) in enumerate([
            ("mart_usage_summary", (", mart_usage_by_memory\n", "\n"),
             "reads mart_usage_by_memory but its SQL does not declare it"),
            ("mart_usage_summary", ("-- reads: ", "-- reads: mart_ttl, "), "declares mart_ttl but its SQL does not name it"),
            ("stg_memories", ("-- reads: nothing\n", ""), "must declare what it reads")]):
        folder = tmp_path / str(case)
        folder.mkdir(parents=True)
        for path in real.iterdir():
            if path.name.endswith(".sql"):
                (folder / path.name).write_text(path.read_text())
        broken = folder / f"{name}.sql"
        assert change[0] in broken.read_text()
        broken.write_text(broken.read_text().replace(change[0], change[1], 1))
        monkeypatch.setattr(views.resources, "files", lambda package, folder=folder: folder)
        views.ordered_views.cache_clear()
        with pytest.raises(StoreError, match=message):
            views.ordered_views()
    monkeypatch.undo()
    views.ordered_views.cache_clear()
    assert dict(views.ordered_views()) == ordered


def test_effective_confidence_matches_python(sample):
    store, memories, events = sample
    weights = {"default": 0.7, "manual": 1.0, "agent": 0.5}
    con = _con(store, source_weights=weights)
    got = {r["id"]: r["effective_confidence"] for r in
           _rows(con, "select id, effective_confidence from mart_effective_confidence")}
    want = expected.effective_confidence(memories, events, AS_OF, weights)
    assert got.keys() == want.keys() and len(set(round(v, 3) for v in want.values())) > 50
    for memory_id, value in want.items():
        assert got[memory_id] == pytest.approx(value, rel=1e-9)


def test_the_audit_log_is_a_view(sample):
    store, memories, _ = sample
    con = _con(store)
    writes = con.execute("select count(*) from stg_audit_log where action = 'write'").fetchone()[0]
    # build_sample adds every memory once, on its day: as of a date, the log ends there too
    assert writes == sum(m["created_at"] <= AS_OF for m in memories) < len(memories)
    later = _con(store, as_of=None)
    assert later.execute("select count(*) from stg_audit_log where action = 'write'").fetchone()[0] == len(memories)


def test_cached_materializations_are_shared_by_what_they_read_and_change_no_number(sample, tmp_path, monkeypatch):
    store = sample[0]
    cache = tmp_path / "cache"
    plain = _con(store)
    first = _con(store, cache_dir=cache)
    built = sorted(p.name for p in cache.glob("*.duckdb"))
    assert [b.split("-")[0] for b in built] == sorted(
        name for name, sql in ordered_views() if "-- materialize: table" in sql or "-- materialize: cache" in sql)
    # the same store by a relative path reads the same files
    monkeypatch.chdir(Path(store.uri).parent)
    _con(Path(store.uri).name, cache_dir=cache)
    assert sorted(p.name for p in cache.glob("*.duckdb")) == built
    # another policy: only what reads the policies is built again
    other = analytics.policies([{"name": "mine", "half_life_days": {"default": 10}}])
    second = _con(store, cache_dir=cache, policies=other)
    again = sorted(p.name for p in cache.glob("*.duckdb"))
    new = [a.split("-")[0] for a in again if a not in built]
    assert sorted(new) == ["int_memory_policy", "mart_retention_candidates"]
    unshared = _con(store, policies=other)
    for view in ("mart_usage_summary", "mart_retention_candidates", "mart_decay", "mart_usage_daily"):
        query = f"select * from {view} order by all"
        assert first.execute(query).fetchall() == plain.execute(query).fetchall(), view
        assert second.execute(query).fetchall() == unshared.execute(query).fetchall(), view


def test_a_cached_view_is_read_again_only_while_the_store_is_unchanged(sample, tmp_path):
    import shutil
    import time

    from memlib.analytics.connection import prune_cache

    shutil.copytree(sample[0].uri, tmp_path / "store")
    LATER = datetime(2099, 1, 1, tzinfo=timezone.utc)  # a fixed date after every write (now is a new key each time)
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), create=False)
    cache = tmp_path / "cache"
    _con(store, as_of=LATER, cache_dir=cache)
    built = {p.name: p.stat().st_mtime_ns for p in cache.glob("*.duckdb")}
    read_from = time.time()
    _con(store, as_of=LATER, cache_dir=cache)  # nothing written: the same files, read again
    assert {p.name for p in cache.glob("*.duckdb")} == set(built)
    assert all(p.stat().st_mtime_ns > built[p.name] for p in cache.glob("*.duckdb"))  # touched
    assert prune_cache(cache, before=read_from - 1) == 0

    store.add([Project(name="later", description="one more memory")])
    assert store.search("later", k=3)  # a recall event, in the spool
    time.sleep(0.05)
    rebuilt_from = time.time()
    after = _con(store, as_of=LATER, cache_dir=cache)
    rebuilt = {p.name for p in cache.glob("*.duckdb")} - set(built)
    assert {name.split("-")[0] for name in rebuilt} == {
        name for name, sql in ordered_views() if "-- materialize: table" in sql or "-- materialize: cache" in sql}
    plain = _con(store, as_of=LATER)
    for view in ("mart_usage_summary", "mart_usage_daily", "mart_retention_candidates", "mart_agent_activity"):
        query = f"select * from {view} order by all"
        assert after.execute(query).fetchall() == plain.execute(query).fetchall(), view
    # what the last connection did not read goes, the rest stays
    gone = prune_cache(cache, before=rebuilt_from)
    assert gone >= len(built) and {p.name for p in cache.glob("*.duckdb")} == rebuilt


def test_the_concepts_tables_are_read_as_they_declare_them(tmp_path, monkeypatch):
    """Each table a concept declares (consensus/tables.py, sessions/tables.py) is a view with its
    declared columns, empty on a store without it and its rows once written; a source a concept
    adds is read without a change to analytics."""
    import pyarrow as pa

    from memlib.analytics import connection
    from memlib.interface import TableSource
    from memlib.sessions import Sessions

    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    store.add([Project(name="p")])
    layout = pa.schema([("note", pa.string()), ("n", pa.int64())])
    monkeypatch.setattr(connection, "CONCEPT_SOURCES",
                        (*connection.CONCEPT_SOURCES, TableSource("raw_notes", "notes", lambda dims: layout)))
    declared = {s.view: [f.name for f in s.schema(store.dims) if f.name not in ("embedding", "centroid", "vector_sum")]
                for s in connection.CONCEPT_SOURCES}
    assert {"raw_fragments", "raw_clusters", "raw_cluster_units", "raw_contracts", "raw_sessions", "raw_notes"} <= set(declared)
    con = analytics.connect(store)
    for view, columns in declared.items():
        assert [d[0] for d in con.execute(f"select * from {view}").description] == columns, view
        assert con.execute(f"select count(*) from {view}").fetchone()[0] == 0, view
    Sessions(store).start("coder")
    store.concept_table("notes", layout).add(pa.table({"note": ["a", "b"], "n": [1, 2]}))
    con = analytics.connect(store)
    assert con.execute("select agent from raw_sessions").fetchall() == [("coder",)]
    assert con.execute("select sum(n) from raw_notes").fetchone()[0] == 3
