"""The in-memory vectors answer exactly as the Lance path does, scope for scope."""

from __future__ import annotations

import random
import time
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memlib import MemoryStore, Scope
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput
from memlib.sample import generate
from memlib.search.search import SearchConfig, fts_candidates, neighbour_links, vector_candidates
from memlib.search.cache_slot import CacheSlot
from memlib.search.vector_cache import VectorCache

from conftest import T0


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("cache") / "store"
    store = MemoryStore.open(str(path), embedder=HashEmbedder(), vector_cache="off")
    sample = generate(1500, seed=5, anchor=T0 + timedelta(days=200))
    store.add(sample.memories)
    return store


def random_scopes(store, count: int, seed: int = 1):
    rows = store.dataset().to_table(columns=["project_id", "root_task_id", "tags", "source",
                                             "created_at", "iteration_id"]).to_pylist()
    rng = random.Random(seed)
    tags = sorted({t for r in rows for t in (r["tags"] or [])})
    for _ in range(count):
        row = rng.choice(rows)
        fields = {}
        if rng.random() < 0.5:
            fields["project_id"] = row["project_id"] or "no-such-project"
        if rng.random() < 0.2:
            fields["root_task_id"] = row["root_task_id"] or "o'brien"
        if rng.random() < 0.3:
            fields["level"] = rng.choice([0, 1, 2])
        if rng.random() < 0.3:
            fields["kinds"] = tuple(rng.sample(["decision", "insight", "sub_task", "root_task",
                                                "learning", "manual", "conversation"], 2))
        if rng.random() < 0.3 and tags:
            fields["tags"] = tuple(rng.sample(tags, min(2, len(tags)))) + ("missing-tag",)
        if rng.random() < 0.2:
            fields["source"] = row["source"]
        if rng.random() < 0.2 and row["tags"]:
            fields["all_tags"] = tuple(row["tags"][:2]) + (("missing-tag",) if rng.random() < 0.3 else ())
        if rng.random() < 0.2:
            # a row of no iteration asks for knowledge of none too (the smart query's part)
            fields["iteration_ids"] = (row["iteration_id"] or "no-such-iteration", "o'brien") + (
                (None,) if row["iteration_id"] is None else ())
        if rng.random() < 0.3:
            fields["created_after"] = row["created_at"]
        if rng.random() < 0.3:
            fields["created_before"] = row["created_at"] + timedelta(days=rng.randint(0, 30))
        if rng.random() < 0.3:
            fields["min_confidence"] = rng.randint(0, 100)
        if rng.random() < 0.25:  # one of two alternatives, as the agents' smart query asks
            fields["any_of"] = (Scope(kinds=tuple(rng.sample(["decision", "pattern", "insight"], 2))),
                                Scope(kinds=("insight", "issue", "learning", "conversation"),
                                      iteration_ids=(row["iteration_id"] or "no-such-iteration",),
                                      level=rng.choice([None, 2])))
        if rng.random() < 0.3:
            fields["include_expired"] = True
        else:
            fields["as_of"] = row["created_at"] + timedelta(days=rng.randint(0, 200))
        yield Scope(**fields)


def synthetic_table(points: np.ndarray, projects: list, expired: np.ndarray, kinds: list | None = None):
    """A cache's columns for these vectors: `projects` per row, rows `expired` in 1970."""
    import pyarrow as pa

    n, dims = points.shape
    return pa.table({
        "id": [f"m{i:05d}" for i in range(n)],
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(points.ravel()), dims),
        "level": pa.array([1] * n, pa.int64()), "confidence": pa.array([100] * n),
        "created_at": pa.array([0] * n, pa.timestamp("us", tz="UTC")),
        "expires_at": pa.array([1_000_000 if e else None for e in expired], pa.timestamp("us", tz="UTC")),
        "tags": pa.array([[]] * n, pa.list_(pa.string())),
        "project_id": pa.array(projects),
        "kind": pa.array(kinds or ["x"] * n),
        **{c: pa.array(["x"] * n) for c in ("root_task_id", "source")},
        "previous_id": pa.nulls(n, pa.string()), "iteration_id": pa.nulls(n, pa.string()),
        "user_id": pa.nulls(n, pa.string()),
    })


def test_selection_equals_the_lance_filter(sample_store):
    cache = VectorCache.load(sample_store.dataset(), sample_store.table.version, sample_store.dims)
    checked = nonempty = 0
    for scope in random_scopes(sample_store, 150):
        expected = set(sample_store.dataset().to_table(columns=["id"], filter=scope.where())
                       .column("id").to_pylist())
        mask = cache.mask(scope)
        assert (set(cache.ids) if mask is None else set(cache.ids[mask])) == expected, scope
        rows = cache.select(scope)  # from a project's or root task's rows, as search does
        assert (set(cache.ids) if rows is None else set(cache.ids[rows])) == expected, scope
        assert rows is None or (np.diff(rows) > 0).all()
        checked += 1
        nonempty += bool(expected) and len(expected) < len(cache)
    assert checked == 150 and nonempty > 50  # the scopes really filtered


def test_cached_search_equals_the_lance_search(sample_store):
    cache = VectorCache.load(sample_store.dataset(), sample_store.table.version, sample_store.dims)
    embedder = sample_store.embedder
    queries = ["ledger retries", "payment rollout plan", "flaky test in CI", "index the vectors"]
    linked = 0
    turns = sample_store.dataset().to_table(columns=["id"], filter="previous_id IS NOT NULL") \
        .column("id").to_pylist()[:30]
    for scope, text in zip(random_scopes(sample_store, 40, seed=9), queries * 10):
        vector = embedder.embed([text])[0]
        expected = vector_candidates(sample_store, vector, 10, scope, SearchConfig())
        got = cache.search(vector, 10, scope)
        assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-5)
        # the same memories, up to the order of float near-ties
        last = expected[-1][1] if expected else 0.0
        assert {i for i, s in got if s > last + 1e-5} == {i for i, s in expected if s > last + 1e-5}
        assert len(got) == len(expected)
        # the conversation turns adjacent to the hits, in scope, are the same on both paths
        now = datetime.now(timezone.utc)
        ids = [i for i, _ in expected] + turns  # hits, and turns that surely have neighbours
        pairs = sorted(cache.links(ids, scope, now))
        assert pairs == sorted(neighbour_links(sample_store, ids, scope, now)), scope
        linked += len(pairs)
    assert linked > 10


def test_partitioned_search_finds_the_exact_neighbours():
    rng = np.random.default_rng(3)
    topics = rng.normal(size=(40, 32)).astype(np.float32)
    points = topics[rng.integers(0, 40, 6000)] + rng.normal(0, 0.35, (6000, 32)).astype(np.float32)
    import pyarrow as pa
    table = pa.table({
        "id": [f"m{i:05d}" for i in range(len(points))],
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(points.ravel()), 32),
        "level": pa.array([1] * len(points), pa.int64()), "confidence": pa.array([100] * len(points)),
        "created_at": pa.array([0] * len(points), pa.timestamp("us", tz="UTC")),
        "expires_at": pa.nulls(len(points), pa.timestamp("us", tz="UTC")),
        "tags": pa.array([[]] * len(points), pa.list_(pa.string())),
        **{c: pa.array(["p"] * len(points)) for c in ("project_id", "root_task_id", "kind", "source")},
        "previous_id": pa.nulls(len(points), pa.string()),
        "iteration_id": pa.nulls(len(points), pa.string()),
        "user_id": pa.nulls(len(points), pa.string()),
    })
    flat = VectorCache(1, table, 32, ivf_above=10**9, approx_above=10**9)
    split = VectorCache(1, table, 32, ivf_above=1000)
    assert split.offsets is not None and len(split.offsets) - 1 >= 4
    assert sorted(split.ids) == sorted(flat.ids)
    recalls = []
    for q in rng.normal(size=(50, 32)).astype(np.float32) + topics[rng.integers(0, 40, 50)]:
        exact = {i for i, _ in flat.search(q, 10, Scope(include_expired=True))}
        probed = {i for i, _ in split.search(q, 10, Scope(include_expired=True), nprobe=3)}
        recalls.append(len(exact & probed) / 10)
    assert np.mean(recalls) >= 0.9
    # probing every partition is exact
    q = points[0]
    assert split.search(q, 10, Scope(include_expired=True), nprobe=10**6) == \
        flat.search(q, 10, Scope(include_expired=True))
    # scanned in fewer principal components than the vectors have, the best rows of that
    # scan are ranked by their exact cosine
    reduced = VectorCache(1, table, 32, ivf_above=1000, reduced=8)
    assert reduced.partitioned.shape == (len(points), 8)
    unit = flat.matrix
    recalls = []
    for q in rng.normal(size=(50, 32)).astype(np.float32) + topics[rng.integers(0, 40, 50)]:
        exact = flat.search(q, 10, Scope(include_expired=True))
        got = reduced.search(q, 10, Scope(include_expired=True), nprobe=10**6)
        recalls.append(len({i for i, _ in exact} & {i for i, _ in got}) / 10)
        exact_scores = [float(unit[flat.position[i]] @ (q / np.linalg.norm(q))) for i, _ in got]
        assert np.allclose([s for _, s in got], exact_scores, atol=1e-5)
    assert 0.9 <= np.mean(recalls) < 1.0  # approximate, and close


def test_partition_codes_are_the_principal_coordinates_in_steps_and_rank_as_they_do():
    from memlib.search.kmeans import CODE_MAX, principal, projected, query_code

    rng = np.random.default_rng(11)
    points = rng.normal(size=(3000, 32)).astype(np.float32) * np.linspace(3, 0.2, 32, dtype=np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    mean, basis, step = principal(points, 8, seed=0, sample=500)  # a sample: some rows lie wider
    codes = projected(points, np.arange(len(points)), mean, basis, step)
    assert codes.dtype == np.int8 and codes.shape == (len(points), 8)
    steps = ((points - mean) @ basis.T) / step
    inside = np.abs(steps) <= CODE_MAX
    assert 0 < (~inside).sum() < inside.sum()
    assert np.all(np.abs(codes[inside] - steps[inside]) <= 0.5 + 1e-3)  # rounded to the step
    assert np.array_equal(codes[~inside], np.sign(steps[~inside]) * CODE_MAX)  # clipped
    # a query's 8-bit dot products order the rows as its products with the coordinates do
    for q in rng.normal(size=(20, 32)).astype(np.float32):
        weights = basis @ q
        exact = ((points - mean) @ basis.T) @ weights
        coded = codes.astype(np.int32) @ query_code(weights * step)[0].astype(np.int32)
        assert np.corrcoef(exact, coded)[0, 1] > 0.99
        best = set(np.argsort(-exact)[:10])
        assert len(best & set(np.argsort(-coded)[:40])) >= 9


def test_whole_table_queries_from_sign_codes_rank_exactly_and_never_leave_the_scope():
    import pyarrow as pa

    rng = np.random.default_rng(4)
    n, dims = 30_000, 64
    topics = rng.normal(size=(300, dims)).astype(np.float32)
    points = topics[rng.integers(0, 300, n)] + rng.normal(0, 0.5, (n, dims)).astype(np.float32)
    never = np.iinfo(np.int64).max
    expires = np.where(np.arange(n) % 7 == 0, 1_000_000, never)  # every 7th row expired in 1970
    table = pa.table({
        "id": [f"m{i:05d}" for i in range(n)],
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(points.ravel()), dims),
        "level": pa.array([1] * n, pa.int64()), "confidence": pa.array([100] * n),
        "created_at": pa.array([0] * n, pa.timestamp("us", tz="UTC")),
        "expires_at": pa.array(np.where(expires == never, None, expires).tolist(), pa.timestamp("us", tz="UTC")),
        "tags": pa.array([[]] * n, pa.list_(pa.string())),
        "project_id": pa.array([f"p{i % 3}" for i in range(n)]),
        **{c: pa.array(["x"] * n) for c in ("root_task_id", "kind", "source")},
        "previous_id": pa.nulls(n, pa.string()), "iteration_id": pa.nulls(n, pa.string()),
        "user_id": pa.nulls(n, pa.string()),
    })
    exact = VectorCache(1, table, dims, approx_above=10**9)
    coded = VectorCache(1, table, dims)
    assert exact.signs is None and coded.signs is not None and coded.signs.shape == (1, n)
    recalls = []
    for q in topics[rng.integers(0, 300, 100)] + rng.normal(0, 0.5, (100, dims)).astype(np.float32):
        want = exact.search(q, 10, Scope())
        got = coded.search(q, 10, Scope())
        recalls.append(len({i for i, _ in want} & {i for i, _ in got}) / 10)
        assert all(int(i[1:]) % 7 for i, _ in got)  # no expired row
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)  # exact cosines, best first
        scoped = Scope(project_id="p1")  # scoped queries stay exact
        assert coded.search(q, 10, scoped) == exact.search(q, 10, scoped)
    assert np.mean(recalls) >= 0.9
    q = points[3]  # a row finds itself, with its exact score
    assert coded.search(q, 1, Scope(include_expired=True))[0][0] == "m00003"


def test_a_projects_rows_lie_side_by_side_and_its_search_is_exact():
    rng = np.random.default_rng(6)
    n, dims = 3000, 16
    points = rng.normal(size=(n, dims)).astype(np.float32)
    projects = [f"p{i % 5}" if i % 11 else None for i in range(n)]  # interleaved, some without
    expired = np.arange(n) % 4 == 0
    table = synthetic_table(points, projects, expired)
    unit = points / np.linalg.norm(points, axis=1, keepdims=True)
    flat, split = VectorCache(1, table, dims), VectorCache(1, table, dims, ivf_above=500)
    assert flat.offsets is None and len(split.offsets) - 1 >= 3  # partitioned for whole-table queries
    for cache in (flat, split):
        rows = cache.select(Scope(project_id="p2", include_expired=True))
        assert len(rows) == sum(p == "p2" for p in projects)
        assert np.array_equal(rows, np.arange(rows[0], rows[0] + len(rows)))  # one slice of the matrix
        for q in rng.normal(size=(10, dims)).astype(np.float32):
            for project, include_expired in (("p2", True), ("p3", False)):
                inside = [i for i in range(n) if projects[i] == project and (include_expired or not expired[i])]
                scores = unit[inside] @ (q / np.linalg.norm(q))
                want = [f"m{inside[i]:05d}" for i in np.argsort(-scores)[:10]]
                got = cache.search(q, 10, Scope(project_id=project, include_expired=include_expired))
                assert [i for i, _ in got] == want
                assert np.allclose([s for _, s in got], np.sort(scores)[::-1][:10], atol=1e-5)
    q = points[7]  # probing every partition is exact, and never returns an expired row
    assert split.search(q, 10, Scope(), nprobe=10**6) == flat.search(q, 10, Scope())


def test_store_search_uses_the_cache_and_sees_new_writes(tmp_path, tree):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), vector_cache="on")
    first = store.search("ledger idempotent retries", mode="vector")
    assert store.vectors.cache is not None and store.vectors.cache.version == store.table.version
    uncached = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), vector_cache="off")
    again = uncached.search("ledger idempotent retries", mode="vector")
    assert [h.memory.id for h in first] == [h.memory.id for h in again] == [h.id for h in first]
    # texts read alone from the cache are the memories' texts; the typed memories came later
    fresh = store.search("ledger idempotent retries", mode="vector")
    assert fresh[0].rows.memories is None
    assert [h.text for h in fresh] == [h.memory.text for h in again] == [h.memory.text for h in fresh]
    assert uncached.vectors.cache is None
    new = store.add([{"kind": "manual", "content": "ledger idempotent retries explained",
                      "project_id": tree["project"].id,
                      "created_at": T0}])[0]
    hits = store.search("ledger idempotent retries explained", mode="vector", k=1)
    assert hits[0].memory.id == new
    assert store.vectors.cache.version == store.table.version
    # a write straight through the LanceDB table is seen once the handle is refreshed: the
    # search path keeps the version it read
    store.table.delete(f"id = '{new}'")
    store.refresh()
    hits = store.search("ledger idempotent retries explained", mode="vector", k=3)
    assert new not in [h.memory.id for h in hits]
    assert store.vectors.cache.version == store.version == store.table.version


def test_auto_builds_in_the_background_after_a_second_search(tmp_path, tree):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), vector_cache="auto")
    store.search("ledger", mode="vector")
    assert store.vectors.cache is None
    store.search("ledger", mode="vector")
    deadline = time.monotonic() + 30
    while store.vectors.cache is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.vectors.cache is not None and store.vectors.cache.version == store.table.version


def test_cache_respects_its_memory_limit(tree, store):
    assert CacheSlot("on", limit_mb=1).get(store) is not None
    tiny = CacheSlot("on", limit_mb=1)
    tiny.limit_mb = 1e-6
    assert tiny.get(store) is None


def test_bad_cache_mode_and_bad_query_vector_are_refused(tmp_path, tree, store):
    with pytest.raises(InvalidInput, match="vector cache"):
        MemoryStore.open(str(tmp_path / "x"), embedder=HashEmbedder(), vector_cache="sometimes")
    with pytest.raises(InvalidInput, match="384 dimensions"):
        store.search("ledger", vector=np.zeros(3))


def test_a_given_query_vector_replaces_embedding_the_text(tree, store):
    text = "ledger idempotent retries"
    vector = store.embedder.embed([text])[0]
    for mode in ("vector", "hybrid"):
        by_text = [(h.memory.id, round(h.score, 6)) for h in store.search(text, mode=mode)]
        by_vector = [(h.memory.id, round(h.score, 6)) for h in
                     store.search(text, mode=mode, vector=vector)]
        assert by_vector == by_text and by_text
    other = store.embedder.embed(["Postgres 16 stores the ledger"])[0]
    assert store.search(text, mode="vector", vector=other, k=1)[0].memory.id == tree["decision"].id


def test_the_cache_follows_every_kind_of_write_without_reloading(tmp_path, monkeypatch):
    """Appends, updates, deletes, a tidy's compaction and another process's commit: each is
    read into the cache as a change, and the cache then holds exactly the table's rows. This
    handle's own appends join it as written, without reading them back."""
    path = str(tmp_path / "store")
    store = MemoryStore.open(path, embedder=HashEmbedder(), vector_cache="on")
    sample = generate(600, seed=4, anchor=T0 + timedelta(days=200))
    store.add(sample.memories)
    store.search("ledger", mode="vector")
    loaded = store.vectors.cache.segments[0]
    other = MemoryStore.open(path, embedder=HashEmbedder(), vector_cache="off")
    project = sample.memories[0].id
    new = lambda text: {"kind": "manual", "content": text, "project_id": project, "created_at": T0}

    seen: list[int] = []

    def same_as_lance(label):
        cache = store.vectors.current(store)
        assert cache is not None and cache.version == store.version, label
        assert cache.segments[0].matrix is loaded.matrix, f"{label}: reloaded"
        table = store.dataset().to_table(columns=[c for c in store.table.schema.names if c != "embedding"])
        rows = {r["id"]: r for r in table.to_pylist()}
        assert len(cache) == len(rows), label
        assert {r["id"]: r for r in cache.take(sorted(rows))} == rows, label
        # a few rows (a hit list's) are read value by value: the same rows, newest included
        few = sorted(rows)[:2] + sorted(rows, key=lambda i: rows[i]["created_at"])[-2:]
        assert cache.take(few) == [rows[i] for i in few], label
        assert cache.take(few, ["id", "text"]) == [{"id": i, "text": rows[i]["text"]} for i in few], label
        # every live row's address leads to its id (full-text hits come back as addresses)
        held = store.dataset().to_table(columns=["id"], with_row_address=True)
        addresses = held.column("_rowaddr").to_numpy().astype(np.int64)
        assert cache.ids_at(addresses[::-1]) == held.column("id").to_pylist()[::-1], label
        assert cache.ids_at(np.array([addresses.max() + 1, addresses[0]])) is None, label
        for gone in set(seen) - set(addresses.tolist()):  # a row deleted or rewritten since
            assert cache.ids_at(np.array([gone])) is None, label
        seen.extend(addresses.tolist())
        for scope in random_scopes(store, 12, seed=len(label)):
            for text in ("ledger retries", "flaky test"):
                vector = store.embedder.embed([text])[0]
                got = cache.search(vector, 10, scope)
                want = vector_candidates(store, vector, 10, scope, SearchConfig())
                assert [round(s, 5) for _, s in got] == [round(s, 5) for _, s in want], label
                now = datetime.now(timezone.utc)
                ids = [i for i, _ in want]
                assert cache.links(ids, scope, now) == neighbour_links(store, ids, scope, now), label
                where = scope.where(now)
                by_address = fts_candidates(store, text, 10, where, scope, now, cache)
                assert [round(s, 4) for _, s in by_address] == \
                    [round(s, 4) for _, s in fts_candidates(store, text, 10, where)], label

    reads = []
    load = VectorCache.load.__func__
    monkeypatch.setattr(VectorCache, "load", classmethod(lambda cls, *a, **k: reads.append(1) or load(cls, *a, **k)))
    store.add([new("a single append")])
    same_as_lance("append")
    store.add([new(f"batch {i}") for i in range(20)])
    same_as_lance("batch")
    assert reads == []  # both appends were taken as written
    other.add([new("between two of this handle's reads")])
    store.add([new("an append after another process's")])
    same_as_lance("an append the cache is two versions behind")
    assert reads == [1]  # read back: the cache cannot tell which new fragment is whose
    memory_id = sample.memories[5].id
    store.modify(memory_id, lambda m: {"confidence": 17})
    assert store.get(memory_id).confidence == 17
    same_as_lance("update")
    store.delete(sample.memories[7].id, cascade=True)
    same_as_lance("delete")
    for i in range(20):  # enough single writes for a tidy to merge their fragments
        store.add([new(f"single {i}")])
    assert len(store.dataset().get_fragments()) < 20
    same_as_lance("tidy")
    other.add([new("written by another process")])
    store.refresh()
    same_as_lance("another process")


def test_full_text_candidates_are_lancedbs_answer(sample_store):
    """memlib asks the Lance dataset directly (the scope as a filter, or as the row addresses
    in it when the rows are in memory); LanceDB's query builder gives the same list."""
    cache = CacheSlot("on").build(sample_store)
    checked = 0
    for scope, text in zip(random_scopes(sample_store, 40, seed=3),
                           ["ledger retries", "payment rollout", "flaky CI test", "vector index"] * 10):
        where = scope.where(datetime.now(timezone.utc))
        query = sample_store.table.search(text, query_type="fts", fts_columns="text").select(["id", "_score"]).limit(20)
        rows = (query.where(where, prefilter=True) if where else query).to_arrow()
        want = list(zip(rows.column("id").to_pylist(), rows.column("_score").to_pylist()))
        got = fts_candidates(sample_store, text, 20, where)
        assert [round(s, 4) for _, s in got] == [round(s, 4) for _, s in want], scope
        now = datetime.now(timezone.utc)
        by_address = fts_candidates(sample_store, text, 20, scope.where(now), scope, now, cache)
        assert [round(s, 4) for _, s in by_address] == [round(s, 4) for _, s in want], scope
        assert {i for i, _ in got} == {i for i, _ in want} or got[-1][1] == want[-1][1]
        checked += bool(want)
    assert checked > 10


def test_any_of_takes_only_scopes():
    with pytest.raises(InvalidInput, match="any of"):
        Scope(any_of=Scope(kinds=("decision",)))
    with pytest.raises(InvalidInput, match="any of"):
        Scope(any_of=["decision"])
    union = Scope(project_id="p", any_of=[Scope(kinds=("decision",)), Scope(iteration_ids=("it1",))])
    assert union.where(datetime(2026, 1, 1, tzinfo=timezone.utc)).startswith(
        "project_id = 'p' AND ((kind IN ('decision')) OR (iteration_id IN ('it1'))) AND (expires_at IS NULL")


def test_a_scope_wider_than_the_partition_threshold_is_probed_and_stays_in_scope(monkeypatch):
    from memlib.search import vector_cache

    rng = np.random.default_rng(8)
    n, dims = 4000, 16
    points = rng.normal(size=(n, dims)).astype(np.float32)
    table = synthetic_table(points, [f"p{i % 2}" for i in range(n)], np.arange(n) % 3 == 0,
                            ["decision" if i % 50 == 0 else "note" for i in range(n)])
    flat, split = VectorCache(1, table, dims), VectorCache(1, table, dims, ivf_above=500)
    probed = []
    real_probe = VectorCache._probe
    monkeypatch.setattr(VectorCache, "_probe", lambda self, *a: probed.append(a[2]) or real_probe(self, *a))
    monkeypatch.setattr(vector_cache, "IVF_ABOVE", 1000)  # a project's 2,000 rows are a wide scope
    for q in rng.normal(size=(5, dims)).astype(np.float32):
        for scope in (Scope(project_id="p1"), Scope(project_id="p0", include_expired=True), Scope(),
                      Scope(kinds=["decision"])):
            probed.clear()
            got = split.search(q, 10, scope, nprobe=10**6)
            assert got == flat.search(q, 10, scope)  # every partition probed: exact, in scope
            # a project of 2,000 rows and the whole store are probed; 80 decisions are scanned
            assert len(probed) == (0 if scope.kinds else 1)
            if scope.project_id == "p1":  # the mask handed to the probe is the scope's rows
                assert np.array_equal(np.flatnonzero(probed[0]), split.select(scope))
