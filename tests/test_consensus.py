"""Multi-agent consolidation (seed 001), first part: the records' constraints, trace
pointers, incremental clustering against a rebuild from scratch, and the audit events."""

from __future__ import annotations

import collections
import gc
import hashlib
import weakref
from datetime import datetime, timedelta, timezone

import numpy as np
import pyarrow as pa
import pytest

from memlib import Insight, MemoryStore, Project
from memlib.consensus import Cluster, ClusterMemoryUnit, Consensus, Fragment, RetentionContract
from memlib.consensus import clustering, duplicates
from memlib.consensus.lexicon import Lexicon
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("record, data, message", [
    (Fragment, {"content": "x", "source_agent": "a", "timestamp": T0, "trace_pointer": "p", "confidence": 1.2},
     "fragment: confidence: must be between 0 and 1, not 1.2"),
    (Fragment, {"content": "  ", "source_agent": "a", "timestamp": T0, "trace_pointer": "p"},
     "fragment: content: must not be empty"),
    (Fragment, {"content": "x", "source_agent": "a", "timestamp": T0, "trace_pointer": ""},
     "fragment: trace_pointer: String should have at least 1 character"),
    (Cluster, {"cluster_id": "c", "fragment_ids": [], "centroid": [1.0], "topic_distribution": {},
               "last_updated": T0}, "fragment_ids: List should have at least 1 item"),
    (Cluster, {"cluster_id": "c", "fragment_ids": ["f"], "centroid": [1.0], "topic_distribution": {"a": 0.6, "b": 0.3},
               "last_updated": T0}, "topic_distribution: must sum to 1"),
    (Cluster, {"cluster_id": "c", "fragment_ids": ["f"], "centroid": [1.0], "topic_distribution": {"a": 1.0},
               "conflict_risk": -0.1, "last_updated": T0}, "conflict_risk: must be between 0 and 1"),
    (RetentionContract, {"contract_id": "c", "version": "1", "length_budget": 0}, "length_budget: Input should be greater than 0"),
    (RetentionContract, {"contract_id": "c", "version": "1", "length_budget": 9, "max_rounds": 0}, "max_rounds"),
    (RetentionContract, {"contract_id": "c", "version": "1", "length_budget": 9, "topic_allowlist": ["db"],
                         "topic_blocklist": ["db"]}, "topic 'db' is on both the allow list and the block list"),
    (ClusterMemoryUnit, {"cluster_id": "c", "consensus_summary": "s", "evidence_pointers": []},
     "evidence_pointers: List should have at least 1 item"),
])
def test_the_records_enforce_seed_001s_constraints_in_one_line(record, data, message):
    with pytest.raises(InvalidInput, match=message) as info:
        record.parse(data, record.__name__.lower() if record is Fragment else None)
    assert "\n" not in str(info.value)


def test_a_unit_must_cover_every_required_slot_of_its_contract():
    contract = RetentionContract(contract_id="c", version="2", length_budget=400,
                                 slots={"risks": {"min_items": 1}, "notes": {"required": False}})
    unit = ClusterMemoryUnit(cluster_id="c", consensus_summary="s", evidence_pointers=["f"], slot_coverage={"notes": 1})
    with pytest.raises(ValueError, match="lacks the required slot 'risks' of contract c v2"):
        unit.check_contract(contract)


def _found_either_way(older: str, newer: str, kind: str | None) -> None:
    """`conflicts.find` reports `kind` (None: nothing) of the two texts, in either order."""
    for texts in ([older, newer], [newer, older]):
        assert [f.kind for f in conflicts.find(texts, [1.0, 1.0])] == ([kind] if kind else []), texts


def _lexicon_of(*texts: str) -> Lexicon:
    """A lexicon learned from `texts` in order, as clustering learns it."""
    lexicon = Lexicon()
    for text in texts:
        lexicon.observe(*clustering.features(text))
    return lexicon


def _fragments(pointer: str, n_topics: int = 6, per_topic: int = 5):
    """Fragments from a few agents about a few topics (shared words give near vectors with
    the hash embedder)."""
    topics = ["ledger retries", "postgres vacuum", "checkout cache", "image resize", "fraud score", "login rate"]
    out = []
    for t in range(n_topics):
        for i in range(per_topic):
            out.append(Fragment(fragment_id=f"f-{t}-{i}", content=f"{topics[t]} {topics[t]} note {i}",
                                source_agent=f"agent-{i % 3}", timestamp=T0 + timedelta(minutes=7 * i + t),
                                topic_candidates=[topics[t].split()[0]], trace_pointer=pointer))
    return out


@pytest.fixture
def consensus(store):
    c = Consensus(store, threshold=0.5)
    assert c.register_input("a tool's output") == "sha256:" + hashlib.sha256(b"a tool's output").hexdigest()
    return c


def test_fragments_need_a_trace_pointer_memlib_can_follow(consensus, store):
    project = Project(name="p")
    insight = Insight(project_id=project.id, content="retries must be idempotent")
    store.add([project, insight])
    hits = store.recall("retries")
    query_id = store.recalls.spooled()[0]["query_id"]
    pointer = consensus.register_input(b"raw tool output")
    base = {"content": "retries are idempotent", "source_agent": "coder", "timestamp": T0}
    placed = consensus.add([{**base, "fragment_id": "a", "trace_pointer": insight.id},
                            {**base, "fragment_id": "b", "trace_pointer": query_id},
                            {**base, "fragment_id": "c", "trace_pointer": pointer}])
    assert hits and [p[0] for p in placed] == ["a", "b", "c"]
    with pytest.raises(InvalidInput, match=r"^fragment d: trace_pointer 'nowhere' is not a memory, a recall or a registered input"):
        consensus.add([{**base, "fragment_id": "d", "trace_pointer": "nowhere"}])
    with pytest.raises(InvalidInput, match=r"^fragment 'a' is already stored with other values; fragments are immutable$"):
        consensus.add([{**base, "fragment_id": "a", "trace_pointer": pointer}])
    assert [f.fragment_id for f in consensus.fragments()] == ["a", "b", "c"]
    again = consensus.add([{**base, "fragment_id": "a", "trace_pointer": insight.id}])  # a retry, as given
    assert again == [("a", placed[0][1], False)]


def test_a_fragment_may_cite_a_memory_another_handle_wrote_a_moment_ago(store):
    """A handle reads another's commits within max_staleness; a trace pointer it cannot find
    yet is looked for again at the latest version before the fragment is refused."""
    slow = MemoryStore.open(store.uri, embedder=HashEmbedder(), max_staleness=3600)
    assert slow.lookup(["nothing"], ["id"]) == {}  # the handle has read its version
    project = Project(name="p")
    insight = Insight(project_id=project.id, content="retries must be idempotent")
    store.add([project, insight])
    placed = Consensus(slow, threshold=0.5).add([{"fragment_id": "a", "content": "retries are idempotent",
                                                  "source_agent": "coder", "timestamp": T0,
                                                  "trace_pointer": insight.id}])
    assert [p[0] for p in placed] == ["a"]
    with pytest.raises(InvalidInput, match=r"^fragment b: trace_pointer 'nowhere' is not a memory"):
        Consensus(slow, threshold=0.5).add([{"fragment_id": "b", "content": "x", "source_agent": "coder",
                                             "timestamp": T0, "trace_pointer": "nowhere"}])


def test_incremental_clustering_agrees_with_a_rebuild_from_scratch(consensus, store):
    fragments = _fragments(consensus.register_input(b"the agents' tool output"))
    ordered = sorted(fragments, key=clustering.order_key)
    for start in range(0, len(ordered), 7):  # batches in time order
        consensus.add(ordered[start:start + 7], actor="tester")
    incremental = consensus.clusters()
    assert len(incremental) == 6  # one per topic
    by_topic = {tuple(sorted(c.topic_distribution)): sorted(c.fragment_ids) for c in incremental}
    assert all(len(k) == 1 for k in by_topic) and all(len(v) == 5 for v in by_topic.values())
    for c in incremental:
        assert abs(np.linalg.norm(c.centroid) - 1) < 1e-5 and sum(c.topic_distribution.values()) == pytest.approx(1)
    assert consensus.rebuild() == 6
    rebuilt = consensus.clusters()
    assert [(c.cluster_id, c.fragment_ids, c.topic_distribution) for c in rebuilt] == \
        [(c.cluster_id, c.fragment_ids, c.topic_distribution) for c in incremental]
    assert np.allclose([c.centroid for c in rebuilt], [c.centroid for c in incremental], atol=1e-6)
    created = store.audit.events("action = 'cluster_create'")
    assert sorted(e["subject_id"] for e in created) == sorted(c.cluster_id for c in incremental)
    assert all(e["actor"] == "tester" for e in created)
    assert store.audit.events("action = 'cluster_update'")  # later batches joined earlier clusters


def test_a_handle_made_per_call_finds_the_clusters_in_memory(consensus, store, tmp_path, monkeypatch):
    """An agent tool and a server request make a Consensus per call: handles on one store (at
    one threshold) share the clusters in memory, so a new handle does not read every
    fragment's vector again; a rebuild leaves its clusters in memory, and what another
    process adds is read again once. A store let go is not kept alive by what its handles
    shared."""
    fragments = sorted(_fragments(consensus.register_input(b"the agents' tool output")), key=clustering.order_key)
    consensus.add(fragments[:20])
    reads = []  # each time the clusters are made again from what the tables hold
    read = clustering.Clusterer.of
    monkeypatch.setattr(clustering.Clusterer, "of", classmethod(lambda cls, *args: reads.append(1) or read(*args)))
    for f in fragments[20:]:
        Consensus(store, threshold=0.5).add([f])
    cluster_id = consensus.clusters()[0].cluster_id
    Consensus(store, threshold=0.5).disagreements(cluster_id)
    assert reads == []
    Consensus(store, threshold=0.9).disagreements(cluster_id)  # another threshold clusters otherwise
    assert len(reads) == 1
    assert Consensus(store, threshold=0.5).rebuild() == 6 and len(reads) == 1  # it leaves its clusters in memory
    elsewhere = MemoryStore.open(store.uri, embedder=HashEmbedder())  # as another process sees the store

    def late(n: int, handle: Consensus) -> str:
        late = Fragment(fragment_id=f"late-{n}", content=f"ledger retries ledger retries note {n}", source_agent="a",
                        timestamp=T0 + timedelta(days=n), topic_candidates=["ledger"],
                        trace_pointer=fragments[0].trace_pointer)
        return handle.add([late])[0][1]

    assert late(1, Consensus(elsewhere, threshold=0.5)) == late(2, Consensus(store, threshold=0.5))
    assert len(reads) == 3  # the other process's first read, and this one's once the tables moved
    ledger = next(c.fragment_ids for c in consensus.clusters() if "f-0-0" in c.fragment_ids)
    assert {"late-1", "late-2"} <= set(ledger) and len(ledger) == 7

    other = MemoryStore.open(str(tmp_path / "other"), embedder=HashEmbedder())
    handle = Consensus(other)
    handle.add([f.model_copy(update={"trace_pointer": handle.register_input(b"x")}) for f in fragments[:3]])
    gone = weakref.ref(other)
    del other, handle
    gc.collect()
    assert gone() is None

    class Bare:  # a store no weak reference can point to: its handles keep their memory apart
        __slots__ = ("dims",)

    first, second = Consensus(Bare(), threshold=0.6), Consensus(Bare(), threshold=0.6)
    assert first.threshold == second.threshold and first._memory is not second._memory


def test_threads_reporting_through_handles_of_their_own_lose_and_double_nothing(consensus, store):
    """A server's requests run on threads, each with its own handle on the shared clusters:
    every fragment ends in exactly one cluster, and the clusters are those one thread would
    have made (a rebuild from the tables agrees with what the adds left in memory)."""
    from concurrent.futures import ThreadPoolExecutor

    fragments = sorted(_fragments(consensus.register_input(b"the agents' tool output")), key=clustering.order_key)

    def report(k: int) -> None:
        handle = Consensus(store, threshold=0.5)
        for f in fragments[k::4]:
            handle.add([f])
            handle.disagreements(handle.clusters()[0].cluster_id)  # a read beside the others' writes

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(report, range(4)))
    held = [f for c in consensus.clusters() for f in c.fragment_ids]
    assert sorted(held) == sorted(f.fragment_id for f in fragments)
    assert sorted(sorted(c.fragment_ids) for c in consensus.clusters()) == \
        sorted(sorted(ids) for ids in _topics(fragments))
    assert Consensus(store, threshold=0.5).rebuild() == 6


def _topics(fragments) -> list[list[str]]:
    by: dict[str, list[str]] = collections.defaultdict(list)
    for f in fragments:
        by[f.topic_candidates[0]].append(f.fragment_id)
    return list(by.values())


def test_a_topic_said_two_far_ways_becomes_one_cluster_once_a_third_report_bridges_them(store):
    """Average linkage regroups around what arrives: two reports whose cosine is 0.2 stay
    apart, and a third like both (0.78) joins them into one cluster, which keeps the id of
    the earliest; the other cluster is removed (an audit event naming where its fragments went)."""
    consensus = Consensus(store)
    pointer = consensus.register_input(b"runs")
    a = np.zeros(store.dims, dtype=np.float32)
    a[0] = 1.0
    b = np.zeros(store.dims, dtype=np.float32)
    b[0], b[1] = 0.2, np.sqrt(1 - 0.04)
    c = (a + b) / np.linalg.norm(a + b)

    def add(name, vector, minute):
        return consensus.add([{"fragment_id": name, "content": f"report {name}", "source_agent": "agent",
                               "timestamp": T0 + timedelta(minutes=minute), "trace_pointer": pointer,
                               "embedding": vector.tolist()}], actor="tester")

    [(_, first, opened_a)] = add("a", a, 1)
    [(_, second, opened_b)] = add("b", b, 2)
    assert opened_a and opened_b and first != second
    [(_, third, opened_c)] = add("c", c, 3)
    assert (third, opened_c) == (first, False)
    assert [(x.cluster_id, x.fragment_ids) for x in consensus.clusters()] == [(first, ["a", "b", "c"])]
    [removed] = store.audit.events("action = 'cluster_remove'")
    assert removed["subject_id"] == second and removed["details"]["now_in"] == [first]
    assert removed["actor"] == "tester"
    assert [(x.cluster_id, x.fragment_ids) for x in Consensus(store).clusters()] == [(first, ["a", "b", "c"])]


def test_a_cluster_past_the_pool_takes_part_whole_so_a_chunk_costs_the_same_however_it_grows(monkeypatch):
    """One thing reported 3,000 times is one cluster, and no chunk regroups more than POOL
    fragments one by one (a cluster that large takes part as one item): the work of a chunk
    stays bounded where it grew with the cluster (O(n^2) memory per chunk)."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=32).astype(np.float32)
    vectors = base + 0.05 * rng.normal(size=(3_000, 32)).astype(np.float32)
    sizes = []
    partition = clustering.Clusterer.partition
    monkeypatch.setattr(clustering.Clusterer, "partition",
                        lambda self, ids, whole=(): sizes.append(len(ids)) or partition(self, ids, whole))
    clusterer = clustering.Clusterer(32)
    clusterer.assign_many([(f"f{i}", (i,), v, [], frozenset({"cache", "ttl"}), []) for i, v in enumerate(vectors)])
    (cluster,) = clusterer.clusters
    assert len(cluster.fragment_ids) == 3_000 and cluster.fragment_ids[0] == "f0"
    assert cluster.cluster_id == clustering.cluster_id_of("f0") and max(sizes) <= clustering.POOL
    assert np.allclose(cluster.total, np.sum(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), axis=0),
                       atol=1e-3)


def test_a_lone_fragment_joins_the_cluster_of_its_nearest_when_that_cluster_is_nearest_on_average():
    """A bot line beside a topic's prose is near one of its fragments (0.45) and, on average,
    just under the threshold (0.33): it joins that topic's cluster. A fragment as near that one
    fragment but nearer on average to another group (0.342 against 0.33) stays alone."""
    u = np.eye(8, dtype=np.float32)
    a, b, c = u[0], 0.6 * u[0] + 0.8 * u[1], 0.6 * u[0] + 0.8 * u[2]
    f, h = u[4], 0.9 * u[4] + np.sqrt(1 - 0.81) * u[6]
    bot = 0.45 * u[0] + np.sqrt(1 - 0.45 ** 2) * u[3]
    torn = 0.45 * u[0] + 0.36 * u[4] + np.sqrt(1 - 0.45 ** 2 - 0.36 ** 2) * u[5]
    clusterer = clustering.Clusterer(8, threshold=0.4, neighbours=0)  # the cosine alone
    items = dict(a=a, b=b, c=c, f=f, h=h, bot=bot, torn=torn)
    clusterer.assign_many([(name, (i,), v, [], frozenset(), []) for i, (name, v) in enumerate(items.items())])
    where = clusterer.where
    assert where["a"] == where["b"] == where["c"] == where["bot"] != where["f"] == where["h"]
    assert where["torn"] not in (where["a"], where["f"])


def test_a_topic_said_in_far_words_is_one_cluster_once_each_report_is_drawn_toward_its_nearest():
    """Two topics of five reports, each report 0.55 its topic's direction and the rest words of
    its own: any two of one topic have cosine 0.3, below any threshold the cosine alone keeps
    topics apart with, and two topics' reports 0. Drawn toward their two nearest, each topic is
    one cluster at the default threshold, and the two stay apart."""
    u = np.eye(16, dtype=np.float32)
    reports = {f"{t}{j}": 0.55 * u[t] + np.sqrt(1 - 0.55 ** 2) * u[2 + 5 * t + j] for t in (0, 1) for j in range(5)}
    items = [(name, (i,), v, [], frozenset(), []) for i, (name, v) in enumerate(reports.items())]

    def clusters(clusterer):
        clusterer.assign_many(items)
        return sorted(sorted(f for f in reports if clusterer.where[f] == c) for c in set(clusterer.where.values()))

    assert clusters(clustering.Clusterer(16)) == [["00", "01", "02", "03", "04"], ["10", "11", "12", "13", "14"]]
    assert len(clusters(clustering.Clusterer(16, threshold=0.4, neighbours=0))) == 10


def test_a_vector_is_drawn_toward_its_nearest_by_their_cosine_and_never_toward_a_distinct_one():
    u = np.eye(4)
    units = np.stack([u[0], 0.8 * u[0] + 0.6 * u[1], 0.6 * u[0] + 0.8 * u[2], -u[0]])
    none = np.zeros((4, 4), dtype=bool)
    drawn = clustering.augmented(units, none, 2)
    expected = units[0] + 0.8 * units[1] + 0.6 * units[2]
    assert np.allclose(drawn[0], expected / np.linalg.norm(expected))
    assert np.allclose(np.linalg.norm(drawn, axis=1), 1.0)
    assert np.allclose(drawn[3], units[3])  # its nearest are all opposite: weighed by nothing
    apart = none.copy()
    apart[0, 1] = apart[1, 0] = True  # the lexicon says 0 and 1 name different things
    expected = units[0] + 0.6 * units[2]  # its next nearest (the opposite one) weighs nothing
    assert np.allclose(clustering.augmented(units, apart, 2)[0], expected / np.linalg.norm(expected))
    assert np.allclose(clustering.augmented(units, none, 0), units)
    assert np.allclose(clustering.augmented(units[:1], none[:1, :1], 2), units[:1])  # alone: as it was
    assert np.allclose(clustering.augmented(units, none, 9), clustering.augmented(units, none, 3))
    still = np.vstack([units, np.zeros(4)])  # no direction: nothing is near it, it stays zero
    drawn = clustering.augmented(still, np.zeros((5, 5), dtype=bool), 2)
    assert np.isfinite(drawn).all() and not drawn[4].any() and drawn.dtype == still.dtype


def test_two_things_said_in_one_template_never_share_a_cluster():
    """The cannot-link: fragments that each name a thing the other does not (the lexicon's
    `distinct`) stay apart however alike their vectors, and the matrix clustering computes
    it with is the lexicon's own rule for every pair."""
    from memlib.sample.consensus import generate

    reports = generate(200, seed=11)[1]
    clusterer = clustering.Clusterer(4, threshold=-1.0)  # every other pair would join
    for r in reports:
        clusterer.lexicon.observe(*clustering.features(r.content))
    texts = ["The timeout of the ledger retry queue is 30 seconds.",
             "We measured the ledger retry queue at 45 seconds for its timeout.",
             "The timeout of the pricing retry queue is 30 seconds."]
    same = np.ones(4, dtype=np.float32)
    clusterer.assign_many([(str(i), (i,), same, [], *clustering.features(t)) for i, t in enumerate(texts)])
    assert clusterer.where["0"] == clusterer.where["1"] != clusterer.where["2"]

    words = [clustering.features(r.content)[0] for r in reports[:120]]
    for i, r in enumerate(reports[:120]):
        clusterer.members[r.fragment_id] = clustering.Member(same, [], words[i], (1000 + i,))
    matrix = clusterer._distinct([r.fragment_id for r in reports[:120]])
    expected = np.array([[clusterer.lexicon.distinct(x, y) for y in words] for x in words])
    assert matrix.any() and (matrix == expected).all()


def test_one_thing_reported_thousands_of_times_costs_its_texts_not_its_reports(store, monkeypatch):
    """3,000 reports of one topic in three texts: one cluster, its disagreement found with
    both sides holding every report, and the detector compares texts (a handful of pairs),
    where it compared every pair of reports (4.5 million, minutes per add)."""
    from memlib.embeddings import HashEmbedder
    from memlib import MemoryStore

    calls = collections.Counter()
    contradiction = conflicts.contradiction
    monkeypatch.setattr(conflicts, "contradiction", lambda *a, **k: calls.update(["pair"]) or contradiction(*a, **k))
    hashed = MemoryStore.open(store.uri + "-hashed", embedder=HashEmbedder())
    consensus = Consensus(hashed, threshold=0.5)
    pointer = consensus.register_input(b"runs")
    texts = ["The checkout cache TTL is 30 seconds.", "checkout cache TTL: 30 seconds", "The checkout cache TTL is 45 seconds."]
    rows = [{"fragment_id": f"r{i}", "content": texts[i % 3], "source_agent": f"agent-{i % 7}",
             "timestamp": T0 + timedelta(seconds=i), "trace_pointer": pointer} for i in range(3_000)]
    for start in range(0, len(rows), 1_000):
        consensus.add(rows[start:start + 1_000])
    (cluster,) = consensus.clusters()
    assert len(cluster.fragment_ids) == 3_000 and calls["pair"] < 100
    (found,), risk = consensus.disagreements(cluster.cluster_id)
    assert found.kind == "value" and len(found.a.fragment_ids) == 2_000 and len(found.b.fragment_ids) == 1_000
    assert {texts[int(f[1:]) % 3] for f in found.b.fragment_ids} == {texts[2]} and risk == pytest.approx(2 / 3)


def test_a_text_said_again_is_one_statement_as_of_its_latest_report():
    """Said again after a change, an old statement is not superseded: it stands against the
    change, every report of it on one side."""
    texts = ["Jobs are on RabbitMQ.", "We moved jobs from RabbitMQ to SQS last month.", "Jobs are on RabbitMQ."]
    found = conflicts.find(texts, [1.0, 1.0, 1.0])
    assert [sorted([f.a, f.b]) for f in found] == [[[0, 2], [1]]]
    assert conflicts.find(texts[:2], [1.0, 1.0]) == []  # said once, before the change: superseded


def test_a_fresh_handle_continues_the_clusters_where_the_table_left_them(consensus, store):
    pointer = consensus.register_input(b"the agents' tool output")
    fragments = sorted(_fragments(pointer), key=clustering.order_key)
    consensus.add(fragments[:15])
    Consensus(store, threshold=0.5).add(fragments[15:])  # another process, say
    one_go = Consensus(store, threshold=0.5)
    one_go.rebuild()
    assert [c.fragment_ids for c in one_go.clusters()] == [c.fragment_ids for c in consensus.clusters()]


# -- conflicts -----------------------------------------------------------------------------------

from memlib.consensus import conflicts, statements  # noqa: E402


@pytest.mark.parametrize("texts, kind", [
    (["The checkout timeout is 30 seconds.", "We set the checkout timeout to 30,000 ms.",
      "Checkout's timeout: 45 seconds."], "value"),
    (["The ledger cutover is on 2026-03-14.", "Ledger cutover: March 14, 2026.", "The ledger cutover is 21 March 2026."],
     "value"),
    (["The search backend uses Elasticsearch rather than Solr.", "We went with Elasticsearch for search.",
      "Search runs on OpenSearch."], "choice"),
    (["Request signing is enabled on the partner gateway.", "The partner gateway has request signing enabled.",
      "Request signing is not enabled on the partner gateway."], "negation"),
    # a bot line names in lower case what another fragment uses; "our" before a name; a name
    # that begins with a digit; "prod" is production; all mobile holds on iOS
    (["Search indexing goes through our Elasticsearch cluster.", "search: elasticsearch 3 nodes green, 41M docs",
      "Search indexing runs on Typesense."], "choice"),
    (["Team secrets live in 1Password.", "We keep team secrets in 1Password.", "Team secrets live in Bitwarden."],
     "choice"),
    (["Production runs 6 API replicas.", "The API has 6 replicas in production.", "Prod runs 4 API replicas."],
     "value"),
    (["All mobile push goes through OneSignal.", "We send mobile push via OneSignal.", "iOS push goes out via APNs."],
     "choice"),
])
def test_each_kind_of_contradiction_is_found_with_both_sides(texts, kind):
    found = conflicts.find(texts, [1.0, 1.0, 1.0])
    assert [(f.kind, f.a, f.b) for f in found] == [(kind, [0, 1], [2])]
    assert conflicts.conflict_risk(found, [1.0, 1.0, 1.0]) == pytest.approx(2 / 3)


@pytest.mark.parametrize("texts", [
    ["The checkout timeout is 30 seconds.", "We set the checkout timeout to 30,000 ms."],  # one value, two units
    ["Ledger cutover: 2026-03-14.", "The ledger goes live on 14 March 2026.", "Mar 14 2026 is the ledger cutover."],
    ["The team picked Kafka rather than RabbitMQ for events.", "Kafka is the event bus.", "Events go through Kafka."],
    ["Retries are enabled on the webhook worker.", "The webhook worker has retries switched on."],
    ["The p95 latency of the ledger writer is 120 ms.", "The media resizer's error budget is 3 %."],  # different things
    ["iOS push goes out via APNs.", "Android push uses Firebase."],  # scoped apart
    ["Prod runs 6 API replicas.", "Staging runs 2 API replicas."],
    ["eks cluster prod-1: version 1.29", "The staging cluster already runs 1.30."],  # a hyphenated scope
    ["Build caches are kept on Artifactory.", "We moved our build caches off Artifactory to S3 in May."],  # an update
])
def test_paraphrases_and_different_things_are_not_disagreements(texts):
    assert conflicts.find(texts, [1.0] * len(texts)) == []
    assert conflicts.conflict_risk([], [1.0] * len(texts)) == 0


def test_a_clusters_risk_is_current_after_every_add_and_its_disagreements_name_both_sides(consensus, store):
    pointer = consensus.register_input(b"reports")
    says = [("planner", "The checkout cache TTL is 300 seconds."), ("coder", "Checkout cache TTL: 300 seconds."),
            ("tester", "The checkout cache TTL is 600 seconds.")]
    rows = [{"fragment_id": f"f{i}", "content": text, "source_agent": agent, "confidence": 1.0,
             "timestamp": T0 + timedelta(minutes=i), "trace_pointer": pointer} for i, (agent, text) in enumerate(says)]
    consensus.add(rows[:2])
    assert [c.conflict_risk for c in consensus.clusters()] == [0.0]
    (placed,) = consensus.add(rows[2:])  # the first two are read back from the fragments table
    cluster_id = placed[1]
    (cluster,) = Consensus(store, threshold=-1.0).clusters()
    assert cluster.conflict_risk == pytest.approx(2 / 3)  # before anyone asked for the disagreements
    found, risk = consensus.disagreements(cluster_id)
    assert [(d.kind, d.a.fragment_ids, d.a.agents, d.b.fragment_ids, d.b.agents) for d in found] == [
        ("value", ["f0", "f1"], ["coder", "planner"], ["f2"], ["tester"])]
    assert risk == pytest.approx(2 / 3)
    assert store.audit.events("action = 'cluster_update'")[-1]["details"]["fragments"] == 3


def test_fragments_given_no_time_are_ordered_as_they_arrive_so_an_update_is_no_disagreement(store):
    """Left without a timestamp, the fragments of one add() are reported when they arrive, in
    that order; they were all given one time and ordered by fragment id, which by default is
    random: an update could come before what it updates and read as a contradiction."""
    consensus = Consensus(store, threshold=-1.0)
    pointer = consensus.register_input(b"reports")
    says = [("zz-old", "Jobs are on RabbitMQ."), ("mm-new", "We moved jobs from RabbitMQ to SQS last month."),
            ("aa-newest", "Jobs are on SQS.")]  # ids that sort against the order they arrive in
    placed = consensus.add([{"fragment_id": fragment_id, "content": text, "source_agent": f"agent {i}",
                             "trace_pointer": pointer} for i, (fragment_id, text) in enumerate(says)])
    (cluster_id,) = {p[1] for p in placed}
    (cluster,) = consensus.clusters()
    assert cluster.fragment_ids == ["zz-old", "mm-new", "aa-newest"]
    assert consensus.disagreements(cluster_id) == ([], 0.0)


def test_fragments_given_one_time_are_ordered_as_they_arrive_within_an_add_and_across_adds(store):
    """Fragments their writer gave one and the same time (a report's date on each of its
    lines) are in the order memlib received them, in one add() and across adds; they were
    ordered by fragment id, so a newer statement could come first and an update read as a
    contradiction. A rebuild keeps the order (the arrival is stored)."""
    consensus = Consensus(store, threshold=-1.0)
    pointer = consensus.register_input(b"reports")
    says = [("zz-old", "Jobs are on RabbitMQ."), ("mm-new", "We moved jobs from RabbitMQ to SQS last month."),
            ("aa-newest", "Jobs are on SQS."), ("a-again", "Jobs are on SQS.")]  # ids sort against arrival
    rows = [{"fragment_id": fragment_id, "content": text, "source_agent": f"agent {i}", "timestamp": T0,
             "trace_pointer": pointer} for i, (fragment_id, text) in enumerate(says)]
    consensus.add(rows[:1])
    placed = consensus.add(rows[1:3])
    assert [p[0] for p in placed] == ["mm-new", "aa-newest"]  # in the order given, not by id
    consensus.add([{**rows[3], "arrival": 0}])  # an arrival given is replaced by the store's
    (cluster,) = consensus.clusters()
    assert cluster.fragment_ids == ["zz-old", "mm-new", "aa-newest", "a-again"]
    assert [f.arrival for f in consensus.fragments()] == [0, 1, 2, 3]
    assert consensus.disagreements(cluster.cluster_id) == ([], 0.0)
    consensus.rebuild()
    assert [c.fragment_ids for c in consensus.clusters()] == [cluster.fragment_ids]
    assert Consensus(store, threshold=-1.0).add([rows[1]])[0][0] == "mm-new"  # a retry, as given: no new arrival
    assert [f.arrival for f in consensus.fragments()] == [0, 1, 2, 3]


def test_fragments_stored_before_arrivals_were_come_first_and_the_table_gains_the_column(store):
    """A fragments table written before memlib recorded arrivals gains the column on the next
    add; its fragments (no arrival) come before those received since, by id among themselves."""
    from memlib.consensus.tables import FRAGMENTS, fragment_schema

    old = fragment_schema(store.dims)
    old = old.remove(old.get_field_index("arrival"))
    table = store.concept_table(FRAGMENTS, old)
    consensus = Consensus(store, threshold=-1.0)
    pointer = consensus.register_input(b"reports")
    vector = store.embedder.embed(["Jobs are on RabbitMQ."])[0]
    table.add(pa.Table.from_pylist([
        {"fragment_id": "zz-old", "content": "Jobs are on RabbitMQ.", "source_agent": "a", "timestamp": T0,
         "topic_candidates": [], "confidence": 1.0, "tool_fingerprint": "", "citation_count": 0,
         "trace_pointer": pointer, "metadata": "{}", "words": [], "value_keys": [], "embedding": vector.tolist()}],
        schema=old))  # an add killed before its clusters were written: the next add places it
    consensus.add([{"fragment_id": "aa-new", "content": "We moved jobs from RabbitMQ to SQS last month.",
                    "source_agent": "b", "timestamp": T0, "trace_pointer": pointer}])
    assert "arrival" in store.concept_table(FRAGMENTS).schema.names
    (cluster,) = consensus.clusters()
    assert cluster.fragment_ids == ["zz-old", "aa-new"]
    assert [(f.fragment_id, f.arrival) for f in consensus.fragments()] == [("zz-old", None), ("aa-new", 0)]
    assert consensus.disagreements(cluster.cluster_id) == ([], 0.0)


def test_the_generator_is_deterministic_and_plants_one_contradiction_per_contradicted_topic():
    from memlib.sample.consensus import generate

    topics, reports = generate(40, seed=5)
    again = generate(40, seed=5)
    assert (topics, reports) == again and generate(40, seed=6)[1] != reports
    for topic in topics:
        mine = [r for r in reports if r.topic == topic.index]
        assert 3 <= len(mine) <= 5 and len({r.agent for r in mine}) == len(mine)
        assert sum(r.contradicts for r in mine) == (topic.other is not None)
        assert all(r.value == (topic.other if r.contradicts else topic.truth) for r in mine)
    assert {t.kind for t in topics if t.other} == {"number", "date", "choice", "flag"}


# -- consensus units --------------------------------------------------------------------------------


@pytest.fixture
def ttl_cluster(store):
    """One cluster of reports on a cache (clustering is told to put everything together:
    these tests are about the unit, and the hash embedder does not know paraphrases)."""
    consensus = Consensus(store, threshold=-1.0)
    pointer = consensus.register_input(b"reports")
    says = [("planner", "The checkout cache TTL is 300 seconds.", ["ttl"], 0.9, 3),
            ("coder", "Checkout cache TTL: 300 seconds.", ["ttl"], 0.8, 0),
            ("reviewer", "The checkout cache is invalidated on every price change.", ["invalidation"], 0.7, 1),
            ("ops-bot", "The checkout cache runs in the eu-west Redis cluster.", ["hosting"], 0.6, 0),
            ("tester", "The checkout cache TTL is 600 seconds.", ["ttl"], 1.0, 0)]
    placed = consensus.add([{"fragment_id": f"f{i}", "content": text, "source_agent": agent, "confidence": conf,
                             "citation_count": cites, "topic_candidates": topics,
                             "timestamp": T0 + timedelta(minutes=i), "trace_pointer": pointer}
                            for i, (agent, text, topics, conf, cites) in enumerate(says)])
    (cluster_id,) = {p[1] for p in placed}
    return consensus, cluster_id


def test_a_fragment_added_is_audited_as_every_other_write(store):
    """Consensus.add wrote no audit event; every other write does: one per new fragment, by
    the agent who added it, and none for a fragment already stored (a retry)."""
    consensus = Consensus(store, threshold=-1.0)
    pointer = consensus.register_input(b"notes")
    fragments = [{"fragment_id": f"h{i}", "content": f"The queue holds {i + 1}00 jobs", "source_agent": "ops-bot",
                  "timestamp": T0 + timedelta(minutes=i), "trace_pointer": pointer} for i in range(3)]
    consensus.add(fragments, actor="ops-bot")
    consensus.add(fragments[:1], actor="ops-bot")  # stored already: no second event
    events = store.audit_events("action = 'fragment_add'")
    assert sorted(e["subject_id"] for e in events) == ["h0", "h1", "h2"]
    assert {(e["actor"], e["details"]["source_agent"], e["details"]["trace_pointer"]) for e in events} == {
        ("ops-bot", "ops-bot", pointer)}


def test_a_unit_says_one_fact_once_in_whatever_words(store):
    """The summary repeated a fact: 'The checkout cache TTL is 300 seconds. Checkout cache
    entries expire after 300 seconds.' (another fact beside it stays; so does another number)."""
    consensus = Consensus(store, threshold=-1.0)
    pointer = consensus.register_input(b"reports")
    says = ["The checkout cache TTL is 300 seconds.", "Checkout cache entries expire after 300 seconds.",
            "The checkout cache holds 2,000 carts at most.", "The checkout cache is warmed at 06:00 UTC."]
    placed = consensus.add([{"fragment_id": f"g{i}", "content": text, "source_agent": f"agent-{i}",
                             "confidence": 1.0 - i / 10, "timestamp": T0 + timedelta(minutes=i),
                             "trace_pointer": pointer} for i, text in enumerate(says)])
    (cluster_id,) = {p[1] for p in placed}
    summary = consensus.consolidate(cluster_id, actor="lead").consensus_summary
    assert summary.count("300 seconds") == 1 and "2,000 carts" in summary and "06:00 UTC" in summary
    assert duplicates.same_fact(says[0], says[1]) and not duplicates.same_fact(says[0], says[2])
    assert not duplicates.same_fact("The checkout cache is fast.", "Checkout cache entries are fast.")  # no number


def test_a_unit_states_the_agreement_keeps_the_disagreement_and_its_evidence(ttl_cluster, store):
    consensus, ttl_cluster = ttl_cluster
    unit = consensus.consolidate(ttl_cluster, actor="lead")
    assert "300 seconds" in unit.consensus_summary and "600 seconds" not in unit.consensus_summary
    # one of the two agreeing TTL reports is enough: the second says the same words again
    assert unit.consensus_summary.count("TTL") == 1
    (d,) = unit.disagreements
    assert (d.kind, d.a.fragment_ids, d.b.fragment_ids, d.b.agents) == ("value", ["f0", "f1"], ["f4"], ["tester"])
    assert set(unit.evidence_pointers) >= {"f0", "f1", "f4"} and unit.compression_report["status"] == "met"
    assert consensus.unit(ttl_cluster) == unit
    assert store.audit.events("action = 'unit_write'")[0]["actor"] == "lead"


def test_the_contracts_budget_block_list_and_slots_shape_the_unit(ttl_cluster):
    consensus, ttl_cluster = ttl_cluster
    contract = consensus.save_contract({
        "contract_id": "cache", "version": "1", "length_budget": 120, "max_rounds": 3,
        "topic_blocklist": ["hosting"], "source_weights": {"reviewer": 3.0},
        "slots": {"ttl": {"min_items": 1, "min_coverage_ratio": 0.5}, "invalidation": {"min_items": 1}}})
    unit = consensus.consolidate(ttl_cluster, "cache")
    assert len(unit.consensus_summary) <= 120 and "Redis" not in unit.consensus_summary
    assert unit.consensus_summary.startswith("The checkout cache is invalidated")  # the reviewer weighs 3x
    assert unit.slot_coverage == {"ttl": 1.0, "invalidation": 1.0}  # the second ttl report says the same
    assert (unit.contract_id, unit.contract_version, unit.compression_report["status"]) == ("cache", "1", "met")
    with pytest.raises(InvalidInput, match="already saved with other terms"):
        consensus.save_contract({**contract.model_dump(), "length_budget": 50})
    # a contract that cannot be met is said to be unmet, round by round
    consensus.save_contract({**contract.model_dump(), "version": "2", "length_budget": 60,
                             "slots": {"ttl": {"min_items": 1}, "invalidation": {"min_items": 1}}})
    unit = consensus.consolidate(ttl_cluster, "cache")
    report = unit.compression_report
    assert unit.contract_version == "2" and report["status"] == "unmet" and report["unmet_slots"]
    assert len(report["rounds"]) == 3 and all(r["length"] <= 60 for r in report["rounds"])


def test_a_unit_promoted_is_a_memory_agents_recall_with_its_evidence(ttl_cluster, store):
    consensus, ttl_cluster = ttl_cluster
    project = Project(name="shop")
    store.add([project])
    consensus.consolidate(ttl_cluster)
    memory_id = consensus.promote(ttl_cluster, project.id, kind="decision", title="Checkout cache TTL")
    memory = store.get(memory_id)
    assert memory.kind.value == "decision" and "300 seconds" in memory.decision
    assert memory.metadata["cluster_id"] == ttl_cluster and "f4" in memory.metadata["evidence_pointers"]
    assert memory.metadata["disagreements"][0]["b"]["agents"] == ["tester"]
    assert store.search("checkout cache TTL", k=1)[0].id == memory_id
    with pytest.raises(InvalidInput, match="summary or a decision"):
        consensus.promote(ttl_cluster, project.id, kind="pattern")


def test_the_consensus_views_match_the_units_and_fragments(ttl_cluster, store):
    from collections import Counter

    from memlib import analytics

    consensus, cluster_id = ttl_cluster
    consensus.save_contract({"contract_id": "c", "version": "1", "length_budget": 500, "topic_blocklist": ["hosting"]})
    unit = consensus.consolidate(cluster_id, "c")
    con = analytics.connect(store, analytics.Params(as_of=datetime.now(timezone.utc) + timedelta(minutes=1)))
    (row,) = con.execute("select cluster_id, n_fragments, conflict_risk, n_disagreements from stg_clusters").fetchall()
    (cluster,) = consensus.clusters()
    assert row == (cluster_id, len(cluster.fragment_ids), pytest.approx(cluster.conflict_risk), len(unit.disagreements))
    rows = con.execute("select kind, point, agents_a, agents_b, fragment_ids_b from mart_disagreements").fetchall()
    assert rows == [(d.kind, d.point, d.a.agents, d.b.agents, d.b.fragment_ids) for d in unit.disagreements]
    # independently: agents on the same and on opposite sides of each disagreement
    expected = Counter()
    for d in unit.disagreements:
        for side, other in ((d.a.agents, d.b.agents), (d.b.agents, d.a.agents)):
            for x in side:
                for y in side:
                    expected[(x, y, "agree")] += 1
                for y in other:
                    expected[(x, y, "disagree")] += 1
    got = Counter()
    for a, b, agree, disagree in con.execute("select agent_a, agent_b, n_agree, n_disagree "
                                             "from mart_agent_agreement").fetchall():
        got[(a, b, "agree")] += agree
        got[(a, b, "disagree")] += disagree
    assert +got == +expected
    arrivals = dict(con.execute("select fragment_id, arrival from stg_fragments").fetchall())
    assert arrivals == {f.fragment_id: f.arrival for f in consensus.fragments()}
    assert sorted(arrivals.values()) == list(range(len(arrivals)))  # each its own, in the order received
    never = {r[0] for r in con.execute("select fragment_id from mart_fragments_never_cited").fetchall()}
    assert never == {"f3"} == {f.fragment_id for f in consensus.fragments()
                     if f.citation_count == 0 and f.fragment_id not in unit.evidence_pointers}


def test_the_consensus_report_equals_an_independent_computation(store):
    import expected
    from memlib import analytics
    from memlib.analytics import report_data
    from memlib.sample.consensus import build_consensus_sample

    built = build_consensus_sample(store, n_topics=40, seed=3, anchor=T0)
    consensus = Consensus(store)
    # a contract no cluster can meet: its unmet slots are counted
    consensus.save_contract({"contract_id": "strict", "version": "1", "length_budget": 100,
                             "slots": {"measure": {"min_items": 3, "min_coverage_ratio": 1.0}}})
    strict = [c.cluster_id for c in consensus.clusters() if len(c.fragment_ids) >= 3][:2]
    for cluster_id in strict:
        consensus.consolidate(cluster_id, "strict")
    # conflict risk is current after the adds: the detector run on each cluster now, with a
    # lexicon learned again from the fragments' texts in order, agrees
    lexicon = _lexicon_of(*(f.content for f in consensus.fragments()))
    fragments = {f.fragment_id: f for f in consensus.fragments()}
    for cluster in consensus.clusters():
        mine = [fragments[f] for f in cluster.fragment_ids]
        weights = [f.confidence for f in mine]
        found = conflicts.find([f.content for f in mine], weights, lexicon)
        assert cluster.conflict_risk == pytest.approx(conflicts.conflict_risk(found, weights))
    report = report_data.consensus(analytics.connect(store))
    want = expected.consensus_headline(consensus)
    assert report.headline == pytest.approx(want)
    assert want["fragments"] == built["fragments"] and want["disagreements"] > 0 and want["slots_unmet"] > 0
    assert 0 < want["clusters_in_conflict"] < want["clusters"] and want["fragments_never_cited"] > 0
    coverage = report.tables["Slot coverage against the contracts"]
    assert coverage.height == sum(len(consensus.unit(c.cluster_id).slot_coverage) for c in consensus.clusters()
                                  if len(c.fragment_ids) >= 2)
    unmet = set()  # independently: a slot below its contract's minimum ratio
    for c in consensus.clusters():
        unit = consensus.unit(c.cluster_id) if len(c.fragment_ids) >= 2 else None
        if unit is not None and unit.contract_id is not None:
            contract = consensus.contract(unit.contract_id, unit.contract_version)
            if any(value < contract.slots[slot].min_coverage_ratio for slot, value in unit.slot_coverage.items()):
                unmet.add(c.cluster_id)
    assert set(coverage.filter(~coverage["met"])["id"]) == unmet and set(strict) <= unmet
    # the agreement matrix, independently: per pair, the sides of each disagreement both are on
    together = collections.Counter()
    for c in consensus.clusters():
        if len(c.fragment_ids) >= 2:
            for d in consensus.unit(c.cluster_id).disagreements:
                for side, other in ((d.a.agents, d.b.agents), (d.b.agents, d.a.agents)):
                    together.update((x, y, True) for x in side for y in side)
                    together.update((x, y, False) for x in side for y in other)
    matrix = report.tables["Agreement between agents (share of shared disagreements on one side)"]
    assert matrix.columns == ["agent_a", *sorted(matrix["agent_a"])]
    for row in matrix.iter_rows(named=True):
        for other in matrix.columns[1:]:
            agree, disagree = together[(row["agent_a"], other, True)], together[(row["agent_a"], other, False)]
            assert row[other] == (pytest.approx(agree / (agree + disagree)) if agree + disagree else None)


# -- the lexicon --------------------------------------------------------------------------------


def test_the_lexicon_learns_which_words_name_the_thing_and_which_only_phrase_it():
    from memlib.sample.consensus import generate

    lexicon = _lexicon_of(*(r.content for r in generate(200, seed=11)[1]))
    for phrasing in ("measured", "scheduled", "cutover", "planned"):
        assert lexicon.weight(phrasing) < 0.25 and not lexicon.naming(phrasing), phrasing
    for naming in ("timeout", "latency", "ledger", "pricing"):
        assert lexicon.weight(naming) > 0.6 and lexicon.naming(naming), naming
    assert lexicon.weight("never-seen-before") == 0.5  # not learned: unknown

    def words(text):
        return clustering.features(text)[0]

    one = words("The timeout of the ledger retry queue is 30 seconds.")
    said_again = words("We measured the ledger retry queue at 45 seconds for its timeout.")
    other = words("The timeout of the pricing retry queue is 30 seconds.")
    assert not lexicon.distinct(one, said_again) and lexicon.distinct(one, other)
    assert lexicon.similarity(one, said_again) > lexicon.similarity(one, other)


def test_clusters_grown_by_fresh_handles_equal_one_handles_and_a_rebuilds(store, tmp_path):
    """Each batch through a new Consensus: the lexicon and the members are replayed from the
    tables, and the clusters come out as one handle makes them from the same batches; with
    batches of one chunk each, as a rebuild from scratch makes them."""
    from memlib import MemoryStore
    from memlib.sample.consensus import generate

    pointer = Consensus(store).register_input(b"runs")
    reports = sorted(generate(60, seed=12)[1], key=lambda r: (r.timestamp, r.fragment_id))
    rows = [{"fragment_id": r.fragment_id, "content": r.content, "source_agent": r.agent, "timestamp": r.timestamp,
             "confidence": r.confidence, "trace_pointer": pointer} for r in reports]
    one = MemoryStore.open(str(tmp_path / "one"), embedder=store.embedder)
    one_handle = Consensus(one)
    assert one_handle.register_input(b"runs") == pointer
    for start in range(0, len(rows), 40):
        Consensus(store).add(rows[start:start + 40])
        one_handle.add(rows[start:start + 40])
    incremental = [(c.cluster_id, c.fragment_ids) for c in Consensus(store).clusters()]
    assert len(incremental) < len(rows) and any(len(ids) > 1 for _, ids in incremental)
    assert [(c.cluster_id, c.fragment_ids) for c in one_handle.clusters()] == incremental

    chunked = MemoryStore.open(str(tmp_path / "chunked"), embedder=store.embedder)
    Consensus(chunked).register_input(b"runs")
    for start in range(0, len(rows), clustering.CHUNK):
        Consensus(chunked).add(rows[start:start + clustering.CHUNK])
    grown = [(c.cluster_id, c.fragment_ids) for c in Consensus(chunked).clusters()]
    Consensus(chunked).rebuild()
    assert [(c.cluster_id, c.fragment_ids) for c in Consensus(chunked).clusters()] == grown


# -- killed midway (real processes, SIGKILL) ------------------------------------------------------

KILLED = """
import os, signal, sys
from memlib import MemoryStore
from memlib.consensus import Consensus, Fragment
from memlib.consensus import store as consensus_store
from memlib.embeddings import HashEmbedder

def die(*args, **kwargs):  # the fault: killed just before the clusters' commit
    os.kill(os.getpid(), signal.SIGKILL)

store = MemoryStore.open(sys.argv[1], embedder=HashEmbedder())
consensus = Consensus(store, threshold=0.5)
consensus_store.Consensus._write_clusters = die
if sys.argv[2] == "add":
    import json
    consensus.add([Fragment.model_validate_json(line) for line in sys.stdin.read().splitlines()])
else:
    consensus.rebuild()
"""


def _killed(uri: str, what: str, fragments=()) -> None:
    import signal
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", KILLED, uri, what], text=True, capture_output=True,
                          input="\n".join(f.model_dump_json() for f in fragments), timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]


def _clustered(store) -> list[tuple[str, list[str]]]:
    return [(c.cluster_id, c.fragment_ids) for c in Consensus(store, threshold=0.5).clusters()]


def test_an_add_whose_commit_fails_leaves_no_trace_in_the_next_add(monkeypatch):
    """The clusterer an add changed in memory is dropped when its commit fails: a retry on
    the same handle found the failed fragments in its clusters already and put each in a
    cluster twice."""
    import tempfile

    from memlib import MemoryStore
    from memlib.consensus import store as consensus_store
    from memlib.embeddings import HashEmbedder

    store = MemoryStore.open(tempfile.mkdtemp() + "/store", embedder=HashEmbedder())
    consensus = Consensus(store, threshold=0.5)
    fragments = _fragments(consensus.register_input(b"runs"))
    consensus.add(fragments[:10])
    committing = consensus_store.committing

    def fail(write):
        raise OSError("the disk is full")

    monkeypatch.setattr(consensus_store, "committing", fail)
    with pytest.raises(OSError):
        consensus.add(fragments[10:20])
    monkeypatch.setattr(consensus_store, "committing", committing)
    consensus.add(fragments[10:20])  # the caller retries
    consensus.add(fragments[20:])
    held = [f for c in consensus.clusters() for f in c.fragment_ids]
    assert sorted(held) == sorted(f.fragment_id for f in consensus.fragments()) == sorted(f.fragment_id for f in fragments)


def test_an_add_killed_after_its_fragments_commit_is_completed_by_the_next_call(store, tmp_path):
    """Killed between the fragments' commit and the clusters': the fragments were left in no
    cluster, a retry was refused ('already stored') and the next add clustered only its own.
    Now the retry (or any next add) completes it, as an uninterrupted run leaves it."""
    from memlib.embeddings import HashEmbedder
    from memlib import MemoryStore

    reference = MemoryStore.open(str(tmp_path / "reference"), embedder=HashEmbedder())
    pointer = Consensus(store).register_input(b"tool output")
    assert Consensus(reference).register_input(b"tool output") == pointer
    batches = [sorted(_fragments(pointer), key=clustering.order_key)[i::3] for i in range(3)]
    for batch in batches:
        Consensus(reference, threshold=0.5).add(batch)
    Consensus(store, threshold=0.5).add(batches[0])
    _killed(store.uri, "add", batches[1])
    assert len(Consensus(store).fragments()) == 20  # committed, in no cluster
    retried = Consensus(store, threshold=0.5).add(batches[1])  # the caller retries: done, not refused
    assert {f for f, _, _ in retried} == {f.fragment_id for f in batches[1]} and all(c for _, c, _ in retried)
    Consensus(store, threshold=0.5).add(batches[2])
    assert _clustered(store) == _clustered(reference)
    completed = store.audit.events("action = 'cluster_update' OR action = 'cluster_create'")
    assert any((e["details"] or {}).get("completed") for e in completed)
    # killed again, then a different batch comes first: the orphans are placed before it
    _killed(store.uri, "add", [f.model_copy(update={"fragment_id": f.fragment_id + "-x"}) for f in batches[0]])
    Consensus(store, threshold=0.5).add([f.model_copy(update={"fragment_id": f.fragment_id + "-y"}) for f in batches[0]])
    held = {f for _, ids in _clustered(store) for f in ids}
    assert held == {f.fragment_id for f in Consensus(store).fragments()}


def test_a_rebuild_killed_before_its_commit_leaves_the_clusters_as_they_were(consensus, store):
    fragments = _fragments(consensus.register_input(b"tool output"))
    consensus.add(fragments)
    before = _clustered(store)
    _killed(store.uri, "rebuild")
    assert _clustered(store) == before  # the old rebuild deleted them all in a commit of its own
    assert Consensus(store, threshold=0.5).rebuild() == len(before) and _clustered(store) == before


# -- real writing (statements read as people write them) ---------------------------------------

@pytest.mark.parametrize("older, newer, kind", [
    ("The nightly export keeps 7 days of snapshots.", "snapshots from the nightly export are kept for 30 days", "value"),
    ("Checkout times out after 2 min.", "checkout timeout: 45 s, not two minutes", "value"),
    ("Billing goes live on 3 June.", "billing launch: 2027-06-10", "value"),
    ("Queue workers: max attempts 4", "The queue workers give up after 6 attempts.", "value"),
    ("Two-factor login is on for every admin.", "admins still don't have two-factor login", "negation"),
    ("The mailer uses Mailgun.", "mailer goes through SES, we never used Mailgun", "choice"),
    ("Feature flags live in LaunchDarkly.", "We keep feature flags in Unleash.", "choice"),
    # how often, as a period of its own: "once a day" is not "every 12 hours"
    ("The sitemap is regenerated every 12 hours.", "sitemap regeneration runs once a day", "value"),
    # a decimal with its unit is a quantity (it was read as a name's number and compared with nothing)
    ("Report p95 latency is 1.5 s.", "report p95 latency: 900 ms", "value"),
    ("Checkout's availability SLO is 99.9%.", "checkout SLO: 99.5%", "value"),
    # a number with a kind of hours or days between it and its unit; an SLA is a target as "within" is
    ("Support replies within 8 business hours.", "The support reply SLA is 24 hours.", "value"),
    ("Invite links die after a 7-day window.", "invite links expire after 3 days", "value"),
    # a denial meets what it denies in another form of the word
    ("Exports are sampled at 5%.", "we never sample exports, every row goes out", "negation"),
    ("The search v2 dark launch is on for all staff.", "search v2 dark launch is turned off for staff", "negation"),
    # a name where it comes from; one name in two versions
    ("Uploads are scanned by ClamAV.", "upload scanning comes from Sophos, I checked the logs", "choice"),
    ("The worker image is built on Python 3.12.", "worker image runs Python 3.11", "choice"),
    # a number in a name is not the value ("wh-2"), the value beside it still is
    ("Orders from wh-2 ship within 24 hours.", "wh-2 orders ship within 48 hours", "value"),
    ("The packing line runs at 90 boxes an hour.", "packing line throughput: 140 boxes per hour", "value"),
    # "over" a span says when, not a target ("retried 3 times over 5 days" is what is done)
    ("Failed renewals are retried 3 times over 4 days.", "failed renewals get retried 6 times", "value"),
    # a time of day, in either clock, and the days of the week a schedule names
    ("The nightly backup starts at 01:00 UTC.", "nightly backup kicked off at 03:10 UTC today", "value"),
    ("Standup is at 9:30 every weekday.", "standup is at 10am", "value"),
    ("The newsletter goes out on Tuesdays at 10:00.", "newsletter campaign: scheduled Thu 10:00", "value"),
    # a tool one runs, pays for or runs against is the one in use
    ("Our load tests use Locust.", "we run Gatling for the load tests, the scripts are in perf/", "choice"),
    ("The monorepo pipelines run on GitHub Actions.", "We pay CircleCI for the monorepo pipelines.", "choice"),
    ("The orders service keeps its data in MySQL.",
     "the orders service integration tests run against Postgres, like production", "choice"),
])
def test_contradictions_in_real_writing_are_found_with_their_kind(older, newer, kind):
    found = conflicts.find([older, newer], [1.0, 1.0])
    assert [(f.kind, f.a + f.b) for f in found] == [(kind, [0, 1])]


@pytest.mark.parametrize("rule, seen, kind", [
    # a measurement beyond a bound said as what holds breaks it, in either order
    ("Page loads stay under 2 s on the storefront.", "storefront page load measured at 3.4 s", "value"),
    ("API keys are at least 32 characters long.", "found a 24-character API key in the partner config", "value"),
    ("The import accepts at most 500 rows per file.", "imported a file with 800 rows just now, it went through", "value"),
    ("Refunds over $200 need a second approver.", "refund of $150 went out with one approver", None),  # says what for
    ("Page loads stay under 2 s on the storefront.", "storefront page load 1.2 s (p50, last 7 days)", None),  # 7 days: a window
    ("Goal: page loads under 2 s by Q3.", "storefront page load measured at 3.4 s", None),  # a goal may be missed
    ("Pages should load in under 2 s.", "storefront page load measured at 3.4 s", None),
    ("Deploys pause when the error budget is below 10%.", "error budget left this month: 34%", None),  # when it applies
    ("Search p95 stays under 300 ms.", "search p99 is 450 ms", None),  # p95 and p99: two quantities
    # a limit against a limit: of one side they must agree, of two sides leave room between
    ("Data exports are ready within 2 hours.", "data exports can take up to 6 hours", "value"),
    ("Passwords must be at least 16 characters.", "password field: max 12 characters", "value"),
    ("Passwords must be at least 8 characters.", "password field: max 64 characters", None),
    ("Card refunds settle within 5 days.", "bank transfer refunds can take up to 10 days", None),  # two subjects
])
def test_an_amount_beyond_a_stated_bound_contradicts_it_and_one_within_or_against_a_goal_does_not(rule, seen, kind):
    _found_either_way(rule, seen, kind)


@pytest.mark.parametrize("text, quantities, denies", [
    ("payments-api env STRIPE_TIMEOUT_MS=10000", [("time", 10_000.0, "")], set()),
    ("RESET_TOKEN_TTL = 3600", [("time", 3_600_000.0, "")], set()),  # a TTL without its unit: seconds
    ("cdn rule /img/*: ttl 86400", [("time", 86_400_000.0, "")], set()),
    ("sentry traces_sample_rate=0.05 (prod)", [("percent", 5.0, "")], set()),  # a rate of 1 as a share
    ("nginx client_max_body_size 25m", [("bytes", 25.0, "max")], set()),  # "m" of a size: megabytes
    ("webhooks-worker config: max_attempts=5 backoff=exponential", [("count:attempt", 5.0, "max")], set()),
    ("github branch protection: required_approving_review_count=2", [("count:review", 2.0, "")], set()),
    ("billing config: payment_terms=net45", [("time", 45 * 86_400_000.0, "")], set()),
    ("backup.retention_days: 14", [("time", 14 * 86_400_000.0, "")], set()),
    ("checkout price cache TTL = 5 min", [("time", 300_000.0, "")], set()),  # its own unit, read as prose
    ("ci image node:18.19-alpine", [], set()),  # a tag, no amount
    ("github org acme: 2fa_requirement_enabled=false", [], {"2fa", "requir"}),
    ("vpn auth policy: mfa=required", [], set()),
])
def test_a_setting_is_read_by_its_key(text, quantities, denies):
    said = statements.read(text)
    assert sorted((q.dimension, q.amount, q.bound) for q in said.quantities) == sorted(quantities)
    assert said.negated == bool(denies) and said.denies == frozenset(denies)


@pytest.mark.parametrize("older, newer, kind", [
    ("Product images are cached at the CDN for 7 days.", "cdn rule /img/*: ttl 86400", "value"),
    ("Sentry traces are sampled at 20% in production.", "sentry traces_sample_rate=0.05 (prod)", "value"),
    ("Customer invoices are due 30 days after issue.", "billing config: payment_terms=net45", "value"),
    ("Two-factor authentication is required for everyone in the GitHub org.",
     "github org acme: 2fa_requirement_enabled=false, 3 members without 2FA", "negation"),
    ("Calls to Stripe time out after 10 seconds.", "payments-api env STRIPE_TIMEOUT_MS=10000", None),  # 10 s both
    ("Image cache TTL at the edge is one week.", "cdn rule /img/*: ttl 604800", None),
    ("uploaded a 40 MB video just now and it went through", "nginx client_max_body_size 25m", "value"),  # beyond
    ("uploaded a 12 MB PDF just now and it went through", "nginx client_max_body_size 25m", None),  # within
    # a time, a try and an attempt count one thing, as a char and a character do
    ("Failed card payments are retried 3 times over 5 days.", "customer was charged after 4 retry attempts", "value"),
    ("Passwords must be at least 12 characters.", "signup accepted an 8-char password just now", "value"),
    ("Failed webhooks are retried 5 times.", "webhooks-worker config: max_attempts=5", None),
    ("Every pull request needs two approvals before merge.", "merged my PR with a single approval today", "value"),
    # an approval is an approving review
    ("Branch protection on main asks for 2 reviews.", "merged my PR with a single approval today", "value"),
    ("Merges to the API repo need 2 approving reviews.", "Every PR in the API repo needs two approvals.", None),
    ("Admin login uses single sign-on through Okta.", "admin login: 2 failed single sign-on attempts today", None),
])
def test_settings_and_counts_are_compared_with_what_prose_says(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("text, rates", [
    ("The search API accepts 50 queries per second per tenant.", [3000.0]),
    ("webhook sender: 1,200 deliveries/min, 3 retries queued", [1200.0]),
    ("ingest peaked at 12k events/min around noon", [12000.0]),
    ("The export endpoint allows 20 calls an hour.", [20 / 60]),
    ("load test: the gateway answered 900 requests in a minute without a single error", [900.0]),
    ("geocoder runs at about 40 rps on one worker", [2400.0]),
    ("envoy ratelimit descriptor login: hour=30", [0.5]),  # a limit's setting by its span
    ("cron for the digest: minute=30, hour=6", []),  # a schedule's fields: no rate
    ("We release 3 times a week.", []),  # how often, a period
    ("Support is staffed 10 hours a day.", []),  # a span of time per day: no count
    ("The design tool costs $15 a month per seat.", []),  # a price
])
def test_a_count_per_span_of_time_is_a_rate(text, rates):
    said = statements.read(text)
    assert sorted(q.amount for q in said.quantities if q.dimension == "rate") == pytest.approx(sorted(rates))


@pytest.mark.parametrize("text, quantities", [
    ("warehouse table page_views: 3.2M rows, 41 GB", [("count:row", 3_200_000.0), ("bytes", 41 * 1024.0)]),
    ("the checkout API answered with 502s for ten minutes", [("time", 600_000.0)]),  # statuses, not seconds
    ("lock wait timeout 50s", [("time", 50_000.0)]),
])
def test_millions_and_status_codes_are_no_minutes_or_seconds(text, quantities):
    assert sorted((q.dimension, q.amount) for q in statements.read(text).quantities) == sorted(quantities)


@pytest.mark.parametrize("text, days, denied", [
    ("Our standard payment terms are Net-30.", [30], []),
    ("agency invoices: net 45, sent on the 1st", [45], []),
    ("supplier_terms=net60", [60], []),
    ("Freelancers are paid net 15, not net 30.", [15], [30]),
    ("the new pricing saves a net 12% on hosting", [], []),  # an amount, no terms
])
def test_payment_terms_are_days_in_prose_and_settings(text, days, denied):
    said = statements.read(text)
    day = statements.UNITS["day"][1]
    assert [q.amount / day for q in said.quantities if q.dimension == "time"] == days
    assert [q.amount / day for q in said.denied] == denied


def test_payment_terms_said_two_ways_are_compared():
    _found_either_way("Supplier invoices are paid net 60.", "ap config: supplier_terms=net30", "value")
    _found_either_way("Supplier invoices are paid net 30.", "ap config: supplier_terms=net30", None)


@pytest.mark.parametrize("text, quantities", [
    ("The team moved to one-week sprints.", [("time", 604_800_000.0)]),
    ("Tenants get a three-month notice period.", [("time", 7_776_000_000.0)]),
    ("Two-factor login is required for admins.", []),  # no span of time: no amount
])
def test_a_number_word_joined_to_its_unit_is_an_amount(text, quantities):
    assert [(q.dimension, q.amount) for q in statements.read(text).quantities] == quantities


@pytest.mark.parametrize("text, minutes", [
    ("Ack window before escalation: a quarter of an hour.", [15.0]),  # not an hour
    ("The call takes three quarters of an hour.", [45.0]),  # not three quarters and an hour
    ("The restore took an hour and a half.", [90.0]),
    ("Onboarding takes two and a half days.", [3600.0]),
    ("The flight is 2 hours and a half.", [150.0]),
    ("It's a half-hour call every Monday.", [30.0]),
    ("The meeting takes half an hour.", [30.0]),
    ("A quarter of the budget is left.", []),  # no span of time
])
def test_a_span_said_in_parts_of_its_unit(text, minutes):
    minute = statements.UNITS["minute"][1]
    assert [q.amount / minute for q in statements.read(text).quantities if q.dimension == "time"] == minutes


def test_a_span_in_parts_is_compared():
    _found_either_way("escalate after 15 min if unacknowledged", "Ack window before escalation: a quarter of an hour.", None)
    _found_either_way("The nightly restore takes 60 minutes.", "the nightly restore took an hour and a half", "value")


@pytest.mark.parametrize("text, dates", [
    ("The SAML cert expires in January 2027.", [(2027, 1, None)]),
    ("We have run it since March, 2025.", [(2025, 3, None)]),
    ("The cert expires on 14 March 2027.", [(2027, 3, 14)]),  # the day is read, not a month as well
    ("The 2027 budget is approved.", []),
])
def test_a_month_of_a_year_is_a_date(text, dates):
    assert list(statements.read(text).dates) == dates


def test_a_month_of_a_year_agrees_with_its_days_only():
    _found_either_way("okta app acme-aws: SAML signing cert expires 2027-03-14", "The AWS SAML cert expires in January 2027.", "value")
    _found_either_way("okta app acme-aws: SAML signing cert expires 2027-03-14", "The AWS SAML cert expires in March 2027.", None)


@pytest.mark.parametrize("older, newer, kind", [
    # "within" a span in a condition is a timeout, one amount of a setting, compared with the setting said plainly
    ("pagerduty policy platform-primary: escalate after 15 min if unacknowledged",
     "If the primary doesn't ack a page within 30 minutes it goes to the secondary.", "value"),
    ("Pages escalate to the secondary after 30 minutes.",
     "If the primary doesn't ack a page within 30 minutes it goes to the secondary.", None),
    # a floor in a condition bounds what is measured: a measurement above it agrees
    ("PRs can't merge if coverage is below 75%.", "Overall coverage is 81% on main.", None),
    # a bound said plainly is no timeout: a measurement within it agrees
    ("Support replies within 4 hours.", "support replied in 2 hours today", None),
])
def test_a_timeout_in_a_condition_is_compared_as_a_setting(older, newer, kind):
    _found_either_way(older, newer, kind)


def test_a_change_of_a_timeout_updates_it():
    """The timeout said as a condition is superseded when it is lowered, not contradicted."""
    said = "If the primary doesn't ack a page within 30 minutes it goes to the secondary."
    assert conflicts.find([said, "We lowered the escalation timeout to 15 minutes."], [1.0, 1.0]) == []
    assert statements.timeout(said) and not statements.timeout("Support replies within 4 hours.")
    assert not statements.timeout("PRs can't merge if coverage is below 75%.")


def test_a_span_said_as_an_adjective_is_compared():
    """Two weeks "as usual" after the change to one-week iterations denies the change; the
    other way round, the change updates the two weeks."""
    change, later = "We switched to one-week iterations in May.", "Iteration 12 runs 3 June to 14 June, two weeks as usual."
    assert [f.kind for f in conflicts.find([change, later], [1.0, 1.0])] == ["value"]
    assert conflicts.find([later, change], [1.0, 1.0]) == []


@pytest.mark.parametrize("older, newer, kind", [
    # a rule of one scope is an exception for it, and says nothing of what names no scope
    ("Contractor logins must use at least 16 characters.", "our signup form took a 10-character password", None),
    ("The SLA for enterprise tickets is 1 hour.", "Our first-response SLA is 8 hours.", None),
    # the general rule holds in every scope: a scoped case can break it
    ("Login passwords must be at least 12 characters.", "a contractor login took a 9-character password", "value"),
])
def test_a_rule_of_one_scope_is_no_rule_of_the_general_case(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("text, days", [
    ("Access reviews happen quarterly.", [90.0]),
    ("Pen tests are done annually, by an outside firm.", [365.0]),
    ("Contractors are paid fortnightly.", [14.0]),
    ("Vendor contracts are reviewed semi-annually.", [180.0]),
    ("Board reports go out half-yearly and are archived.", [180.0]),
    ("The on-call handover is every other week.", [14.0]),
    ("The quarterly business review is on Friday.", []),  # which review, not how often
    ("Annual leave is 25 days.", [25.0]),  # a span: no period
])
def test_how_often_said_in_one_word(text, days):
    day = statements.UNITS["day"][1]
    said = statements.read(text)
    assert [q.amount / day for q in said.quantities if q.dimension in ("period", "time")] == days


def test_a_period_said_in_one_word_is_compared():
    _found_either_way("Access reviews happen quarterly.", "access reviews run every 6 months", "value")
    _found_either_way("Access reviews happen quarterly.", "access reviews run every 3 months", None)


def test_a_rate_per_minute_bounds_nothing_after_it():
    """"/min" is per minute, not a minimum of the next number ("burst 100" is no lower bound)."""
    said = statements.read("search gateway: 3000/min 200/min for anonymous users, burst 100")
    assert sorted((q.dimension, q.amount, q.bound) for q in said.quantities) == [
        ("count:burst", 100.0, ""), ("rate", 200.0, ""), ("rate", 3000.0, "")]


@pytest.mark.parametrize("older, newer, kind", [
    ("The geocoding API allows 50 requests per second.", "geocoder gateway policy: 1,000 req/min per key", "value"),
    ("The geocoding API allows 50 requests per second.", "geocoder gateway policy: 3,000 req/min per key", None),
    ("Login is limited to 30 attempts an hour per IP.", "envoy ratelimit descriptor login: hour=30", None),
    ("Login is limited to 30 attempts an hour per IP.", "I tried 45 logins in an hour from one IP and none was blocked",
     "value"),
    ("The geocoding API allows 50 requests per second.", "geocoding p95 latency is 50 ms", None),  # another quantity
])
def test_rates_are_compared_as_rates(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("older, newer", [
    ("Pages go out through PagerDuty.", "Customer support escalations come through Zendesk, not the paging tool."),
    ("CI runs on GitHub Actions for every repo.", "The Android app builds on Bitrise, not in our main CI."),
    ("Feature flags are managed in LaunchDarkly.",
     "Mobile apps read their flags from Firebase Remote Config, not the web flag service."),
])
def test_a_name_set_apart_from_the_thing_of_its_kind_is_no_rival_choice(older, newer):
    _found_either_way(older, newer, None)


def test_a_name_set_apart_leaves_the_rival_choices_to_meet():
    """The scoped statement was in three conflicts and drew both rivals to one side of the split.
    The reviewer's "PagerDuty was never rolled out" gives up what the planner uses: Opsgenie's side."""
    texts = ["Pages go out through PagerDuty.", "opsgenie: 3 alerts open, escalation policy platform-primary",
             "We page through Opsgenie, PagerDuty was never rolled out to platform.",
             "Customer support escalations come through Zendesk, not the paging tool."]
    choices = [(f.a, f.b) for f in conflicts.find(texts, [1.0] * 4) if f.kind == "choice"]
    assert choices == [([1, 2], [0])]


@pytest.mark.parametrize("text", ["We use Vue, not React.", "Our SSO is Okta, not AWS.", "The image resizer runs on ECS, not a Lambda."])
def test_a_rejected_name_is_no_thing_set_apart(text):
    assert not statements.read(text).outside


@pytest.mark.parametrize("text, names", [
    ("The flaky test shows up only on the self-hosted GitHub runners.", {"github"}),
    ("We evaluate feature flags with our in-house Unleash instance.", {"unleash"}),
    ("CI runs on GitHub Actions.", {"github"}),
    ("Uses the new Redis cluster for sessions.", {"redis"}),
    ("The team is using managed Postgres now.", {"postgres"}),
    ("The worker uses nginx as its proxy.", {"nginx"}),
    ("Deploys go through the old-school way.", set()),
])
def test_a_name_after_a_modifier_is_the_name_chosen(text, names):
    """A hyphenated modifier between "the" and a name ("the self-hosted GitHub runners"), or
    a lower-case word between a choosing verb and a capitalised name ("uses the new Redis"),
    does not hide the name or stand for it."""
    assert statements.read(text).names == frozenset(names)


@pytest.mark.parametrize("older, newer", [
    ("Deploys run on EKS.", "Deploys run on ECS, not on EKS."),
    ("Invoices are rendered by Gotenberg.", "Invoices are rendered with WeasyPrint, not with Gotenberg."),
])
def test_a_name_rejected_after_a_preposition_is_a_rival_choice(older, newer):
    """"not on EKS" rejects EKS: before, "on EKS" chose it, and the two read as one denial."""
    assert statements.read(newer).rejected and not statements.read(newer).names & statements.read(newer).rejected
    _found_either_way(older, newer, "choice")


@pytest.mark.parametrize("text, dates, denied", [
    ("Board meeting is 16 October, not the 9th.", [(None, 10, 16)], [(None, None, 9)]),
    ("The release is on 3 May, not on 10 May.", [(None, 5, 3)], [(None, 5, 10)]),
    ("The release is not until 3 May.", [(None, 5, 3)], []),
    ("No deploys on 24 December.", [(None, 12, 24)], []),
    ("no, the 14th", [(None, None, 14)], []),
])
def test_a_date_said_not_to_be_the_one_is_denied(text, dates, denied):
    read = statements.read(text)
    assert (list(read.dates), list(read.denied_dates)) == (dates, denied)


@pytest.mark.parametrize("older, newer, kind", [
    ("The board meeting is on 9 October.", "Board meeting is 16 October, not the 9th.", "value"),
    ("The board meeting is on 16 October.", "Board meeting is 16 October, not the 9th.", None),
    ("The release is on 3 May.", "Release date: 3 May, not the 10th.", None),
])
def test_a_denied_date_is_compared_as_denied(older, newer, kind):
    """Before, "not the 9th" was a date given like any other, and agreed with 9 October."""
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("text, percent", [
    ("Availability target for the API = three nines", 99.9), ("we promise four 9s", 99.99),
    ("two nines is all the vendor offers", 99.0), ("5 nines uptime", 99.999),
])
def test_availability_said_in_nines_is_a_percentage(text, percent):
    assert [(q.dimension, q.amount) for q in statements.read(text).quantities] == [("percent", percent)]


@pytest.mark.parametrize("older, newer", [
    ("The API's availability SLO is 99.95%.", "availability target for the API = three nines"),
    ("The API's availability SLO is 99.9%.", "The API's SLO is 99.95%, not three nines."),
])
def test_nines_are_compared_with_a_percentage(older, newer):
    _found_either_way(older, newer, "value")


@pytest.mark.parametrize("text, dimension, amount", [
    ("Saw 5 retry attempts in the logs before it gave up.", "count:attempt", 5.0),
    ("Merged 2 PRs today", "count:prs", 2.0),
    ("A 3 node cluster", "count:node", 3.0),
    ("The pool opens at most 50 database connections per pod.", "count:connection", 50.0),
    ("branch protection: 2 required reviews on main", "count:review", 2.0),
    ("1 database connection", "count:database", 1.0),
])
def test_what_a_count_counts(text, dimension, amount):
    """A sentence's first word before a count is no name with its version unless it may be one
    ("Saw 5", "A 3"; "Node 20" stays a version), and a count of a compound counts its plural
    head ("50 database connections")."""
    assert [(q.dimension, q.amount) for q in statements.read(text).quantities] == [(dimension, amount)]


def test_a_name_opening_a_sentence_keeps_its_version():
    read = statements.read("Node 20 is used by every service.")
    assert read.versions == frozenset({("node", (20,))}) and not read.quantities


@pytest.mark.parametrize("older, newer, kind", [
    ("The release is on 3 May.", "The release is not until 3 May.", None),
    ("Deploys start at 9:00.", "Deploys are not before 9:00.", None),
    ("The release is on 3 May.", "The release is not on 3 May.", "value"),
    ("Refunds are paid before the item is back.", "Refunds are not paid before the item is back.", "negation"),
])
def test_not_until_says_when_and_denies_nothing(older, newer, kind):
    _found_either_way(older, newer, kind)


def test_a_name_after_a_modifier_is_compared():
    texts = ["CI is on GitLab CI.", "The flaky test shows up only on the self-hosted GitHub runners."]
    assert [f.kind for f in conflicts.find(texts, [1.0, 1.0])] == ["choice"]


def test_two_disputes_in_one_cluster_are_two_disagreements():
    """Two disagreements that never meet do not share one split: before, "retries: 3"
    against "retries 5 times" went unreported beside the TTL's."""
    def apart(found) -> set[frozenset]:
        return {frozenset({i, j}) for f in found for i in f.a for j in f.b}

    two = ["The export cache TTL is 5 minutes.", "export cache TTL: 10 min", "export retries: 3", "The export retries 5 times."]
    found = conflicts.find(two, [1.0] * 4)
    assert apart(found) == {frozenset({0, 1}), frozenset({2, 3})} and {f.kind for f in found} == {"value"}


@pytest.mark.parametrize("texts, why", [
    (["The nightly export keeps 7 days of snapshots.", "Snapshots of the nightly export now stay 30 days."],
     "an update: the newer says it changed"),
    (["Deploys run on Jenkins.", "We moved deploys from Jenkins to GitHub Actions."], "an update: moved from X to Y"),
    (["The report is emailed every Monday.", "As of March the report is emailed every Friday."], "an update: as of"),
    (["Staging keeps logs 3 days.", "Production keeps logs 30 days."], "scoped: staging and production"),
    (["Search p95 is 120 ms.", "Search p99 is 480 ms."], "two quantities: p95 and p99"),
    (["The cache holds entries for 5 minutes.", "cache TTL: 300 s"], "a paraphrase in other units"),
    (["Invoices total about $12k a month.", "Monthly invoices come to $12,300."], "a paraphrase, approximately"),
    (["The API allows 50 requests a minute.", "The goal is 200 requests a minute by June."], "a goal, not a measurement"),
    (["The AWS bill was $40,000 in May.", "EC2 alone cost $25,000 in May."], "a part and the whole"),
    (["The launch is on 4 May.", "The launch slipped to 18 May."], "an update: slipped to"),
    (["Quarterly planning is on 12 January.", "moved quarterly planning to 19 January, the board asked"],
     "an update: moved it to"),
    (["The ALB idle timeout is 60 s.", "The ALB idle timeout was raised for the websockets: 120 s."],
     "an update: was raised"),
    (["The billing export kicks off after midnight.", "billing export starts after midnight"],
     "'kicks off' denies nothing"),
    (["The index is rebuilt every 6 hours.", "full reindex runs 4x a day"], "a paraphrase: every 6 hours is 4x a day"),
    (["The index is rebuilt every 6 hours.", "A renamed item shows up in the index within a minute."],
     "two quantities: how often and how long"),
    (["Crash-free sessions on Android are 99.1%.", "iOS crash-free sessions are 99.6%, Android trails."],
     "scoped: the number's own clause names iOS"),
    (["The tablet runs iOS 17.2 fine.", "The app requires iOS 16."], "a version in use above the lowest that will do"),
    (["Two-factor login is on for every admin.", "two-factor login is on for admins, checked today"],
     "'two-factor' is no count of factors"),
    (["The us-east-1 cluster runs 12 nodes.", "We have 3 clusters, each with 12 nodes."],
     "'us-east-1' is a name, not one cluster"),
    (["The packing line runs at 90 boxes an hour.", "A packing shift is 8 hours."],
     "the hour of a rate is no duration"),
    (["There are no production deploys on weekends.", "Staging deploys run on weekends too."],
     "scoped apart by environment; the weekend they share divides something else"),
    (["All connections to the production database use TLS.", "Local dev databases run without TLS."],
     "scoped: 'dev' is development"),
    (["Logs are shipped with Fluent Bit running as a DaemonSet.",
      "We ship container logs with Vector, Fluent Bit was removed last year."], "an update: was removed"),
    (["Python code is formatted with Black.", "Frontend code is formatted with Prettier."],
     "said of two things of one kind: the subjects' head is one, each has its own word"),
    (["Application logs are kept for 30 days.", "Audit logs are kept for seven years."],
     "said of two kinds of logs"),
    (["Order events are published to Kafka.", "Clickstream events go to Kinesis."], "said of two kinds of events"),
    (["Failed renewals are retried 3 times over 4 days.", "Unpaid renewals go to collections after 30 days."],
     "'over 4 days' is the span of the retries, no amount of time the statement gives"),
    (["The ETL starts at 2:30 pm UTC.", "ETL log: today's run started 14:31 UTC."],
     "a time read off a clock is about when the schedule says"),
    (["The backup runs at 01:00 UTC.", "The backup runs at 02:00 CET."], "times of two zones are not compared"),
    (["The office is open 08:00-20:00.", "The office opens at 8am."], "a range's times are no time of their own"),
    (["The grocery delivery comes between 7 and 9 pm.", "Groceries arrive at 9pm."], "between 7 and 9 pm: a range"),
    (["Sprint demos are on Thursdays.", "Demo went fine last Friday, the board liked it."],
     "a day that dates an event is no day of the schedule"),
    (["The sync is on Tuesdays at 10:00.", "The sync moved to Wednesdays, still at 10:00."],
     "an update: the day changed, the time did not"),
])
def test_updates_scopes_quantities_and_paraphrases_are_not_conflicts(texts, why):
    assert conflicts.find(texts, [1.0] * len(texts)) == [], why


@pytest.mark.parametrize("texts, kind, why", [
    (["Python code is formatted with Black.", "Python code is formatted with Ruff."], "choice", "one subject"),
    (["Python code is formatted with Black.", "We format Python code with Ruff."], "choice",
     "a pronoun is said of anything"),
    (["All services build with Gradle.", "The payments service builds with Maven."], "choice",
     "said of all services, an exception contradicts it"),
    (["Engineers get MacBooks by default.", "new hires in the platform team get ThinkPads with Ubuntu"], "choice",
     "subjects with two heads are not compared: new hires may be engineers"),
    (["Application logs are kept for 30 days.", "Logs are kept for 14 days."], "value",
     "one subject holds the other's words"),
    (["Application logs are kept for 30 days.", "Application logs are kept for 14 days."], "value", "one subject"),
])
def test_statements_said_of_one_thing_still_conflict(texts, kind, why):
    assert [f.kind for f in conflicts.find(texts, [1.0, 1.0])] == [kind], why


def test_a_shortened_word_is_the_word_and_a_change_is_read_whatever_its_subject():
    from memlib.consensus.subjects import shortens

    assert [shortens(a, b) for a, b in [("db", "database"), ("cert", "certificate"), ("pwd", "password"),
                                        ("bd", "database"), ("python", "frontend"), ("k8s", "kubernetes")]] == \
        [True, True, True, False, False, False]
    # "DB snapshots" is no other thing than "database snapshots"
    assert conflicts.between("Database snapshots are kept for 14 days.", "DB snapshots are kept for 3 days.", 0.9) == "value"
    # two subjects with their own words: apart, unless the newer reports a change
    assert conflicts.between("The team sync is 30 minutes long.", "Weekly sync is 45 minutes.", 0.9) is None
    assert conflicts.between("The team sync is 30 minutes long.", "Weekly sync is 45 minutes now.", 0.9) == "update"


@pytest.mark.parametrize("rule, seen, kind", [
    # one counterexample denies a rule said of every one of a kind, however long it runs
    ("All S3 buckets are encrypted at rest with KMS.",
     "the legacy exports bucket has no default encryption, the config rule flagged it yesterday afternoon", "negation"),
    ("Staging never gets production customer data.",
     "the staging database holds real customer records from production right now, restored from Monday night's "
     "snapshot for the demo", "negation"),
    ("Every customer gets a reminder email three days before an invoice is due.",
     "no reminder went out for invoice 2231, it just went overdue and the customer called us angry", "negation"),
    # not one of what "all" is said of; "has never" tells what was, no rule
    ("All production volumes are encrypted at rest with KMS keys.",
     "The analytics bucket is not encrypted at rest, that's a finding for the audit.", None),
    ("The payments service has never touched Vault, it reads AWS Secrets Manager.",
     "vault: 1,412 secrets, 38 policies, sealed=false", None),
])
def test_a_counterexample_denies_a_rule_said_of_all(rule, seen, kind):
    _found_either_way(rule, seen, kind)


@pytest.mark.parametrize("said, new, confirmed", [
    ("moved the nightly ETL to 02:30 UTC", "ETL log shows today's run started 02:31 UTC.", True),
    ("We moved deploys from Jenkins to GitHub Actions.", "Deploys run on GitHub Actions.", True),
    ("bumped deployment target to iOS 16, dropping 15", "Why does the listing still say it requires iOS 15?", False),
    ("moved the nightly ETL to 02:30 UTC", "The ETL writes to the warehouse.", False),  # says nothing of it
    ("moved the nightly ETL to 02:30 UTC", "the nightly ETL started at 01:00 UTC", False),
])
def test_a_statement_confirms_another_only_by_stating_what_it_states(said, new, confirmed):
    assert conflicts.confirms(said, new) is confirmed


@pytest.mark.parametrize("older, newer", [
    ("The nightly ETL job kicks off at 01:00 UTC.", "moved the nightly ETL to 02:30 UTC so it stops colliding with backups"),
    ("Platform standup is at 9:30 every weekday.", "standup moved to 10:15 so the Lisbon folks can join"),
    ("The sync is on Tuesdays at 10:00.", "The sync moved to Wednesdays, still at 10:00."),
])
def test_a_change_of_time_or_day_updates_what_it_changes(older, newer):
    """A change that gives a time or a day the older one did not updates it: before times of
    day were read, "moved the nightly ETL to 02:30 UTC" gave nothing but "nightly" and was taken
    to repeat the older statement; a change of day with the same time was, once the time was
    read."""
    assert conflicts.between(older, newer, 0.9) == "update"


@pytest.mark.parametrize("text, change", [
    ("Uploads go to Google Cloud Storage since we host the media pipeline on GCP.", False),  # a reason
    ("The bill is lower since it's one contract now", True),  # a reason, but "now" reports a change
    ("Reports are slow since they scan the whole table", False),
    ("Since we hired in Madrid, support also handles Spanish tickets.", True),  # dates a change
    ("we use argon2id for password hashing since the auth rewrite", True),
    ("Staging has been down since this morning.", True),
])
def test_since_that_gives_a_reason_reports_no_change(text, change):
    assert statements.read(text).change is change


def test_a_choice_said_with_a_reason_contradicts_the_other():
    found = conflicts.find(["User uploads are stored in S3, bucket acme-uploads-prod.",
                            "Uploads go to Google Cloud Storage since we host the media pipeline on GCP."], [1.0, 1.0])
    assert [f.kind for f in found] == ["choice"]


def test_a_change_updates_an_older_statement_of_its_thing_even_where_nothing_differs_by_the_words():
    """On write (conflicts.between): a newer memory reporting a change supersedes an older
    plain statement it is close to, though the reader finds no value or name that differs;
    further apart, only one naming what the older names. Two reports of one change agree."""
    # "pods" and "nodes" are counts of two things, so no value differs; the change updates
    assert conflicts.between("The render farm has six nodes.", "Render farm runs on ten machines since the upgrade.",
                             0.6) == "update"
    assert conflicts.between("The render farm has six nodes.", "Render farm runs on ten machines.", 0.6) is None
    # far apart, the change must name what the older statement names
    assert conflicts.between("Invoices are rendered by Puppeteer.", "We replaced Puppeteer with Gotenberg for PDFs.",
                             0.3) == "update"
    assert conflicts.between("Invoices are rendered by Puppeteer.", "We replaced the fonts in every PDF template.",
                             0.3) is None
    assert conflicts.between("Invoices are rendered by Puppeteer.", "We replaced Puppeteer with Gotenberg for PDFs.",
                             conflicts.NAMED_CLOSE - 0.01) is None
    # two reports of one change, or a change scoped elsewhere, update nothing
    assert conflicts.between("We moved the invoices from Puppeteer to Gotenberg.",
                             "Invoices are rendered by Gotenberg now.", 0.7) is None
    assert conflicts.between("Staging runs three workers.", "Production runs eight workers since Friday.", 0.7) is None
    # a change that gives only what the older memory gave repeats it; one away from it updates
    assert conflicts.between("The export job writes 40 files a night.", "Since Monday the export job writes 40 files.",
                             0.8) is None
    assert conflicts.between("The export job writes 40 files a night.",
                             "The export job went from 40 files to 12 after the merge.", 0.8) == "update"


def test_a_subject_is_read_from_the_clause_that_names_the_choice():
    from memlib.consensus import subjects

    def said_of(text):
        return subjects.subject(text, statements.read(text).names)

    assert said_of("Python code is formatted with Black.") == ("code", frozenset({"python", "code"}))
    # the clause hung after the subject is not part of it; the name's own clause is read
    assert said_of("Feature flags are served by LaunchDarkly; the SDK key lives in Vault.")[1] == {"feature", "flag"}
    assert said_of("We use Datadog for metrics.") is None  # a pronoun
    assert said_of("Postmark is the provider for receipts.") is None  # the chosen name itself
    assert said_of("Every service runs on Kubernetes.") is None  # said of all
    assert said_of("ecr repo acme/api: 1,204 images") is None  # no clause with a subject


def test_scopes_are_apart_where_they_never_meet_or_differ_within_one_division():
    """Two statements are scoped apart where their scopes never meet, or where they differ
    within one division (environment, platform, time...) whatever else they share. A scope
    one side names alone keeps them comparable."""
    from memlib.consensus.statements import apart

    f = frozenset
    assert apart(f({"production", "weekend"}), f({"staging", "weekend"}))  # environment
    assert apart(f({"production", "weekend"}), f({"production", "weekday"}))  # time
    assert not apart(f({"production", "weekend"}), f({"production"}))  # one names a time, one not
    assert apart(f({"production"}), f({"weekend"}))  # nothing in common
    assert not apart(f({"ios"}), f({"mobile", "eu"}))  # mobile holds iOS
    assert not apart(f(), f({"staging"}))


def test_us_in_lower_case_is_the_pronoun_not_the_region():
    """"a few of us worked" named the US region, and a statement of the Lisbon office was
    scoped apart from one said on a public holiday."""
    from memlib.consensus.statements import read

    assert read("was in the Lisbon office on the holiday, a few of us worked").scopes == frozenset()
    assert read("US customers are billed in dollars.").scopes == {"us", "customer"}  # a region, and a role
    assert read("the db lives in us-east-1").scopes == {"us"}


@pytest.mark.timeout(120)
def test_a_long_report_is_read_in_one_pass():
    """A 200,000-character report with no digit in it: the clause that gives a number was
    once searched from every position to the end (52 s at 32,000 characters, hours here)."""

    text = "the export job retries " * 9000 + ", and staging keeps its output for 5 days."
    read = statements.read(text)
    assert read.value_scopes == {"staging"} and read.quantities[0].dimension == "time"


def test_a_newer_statement_that_contradicts_a_change_is_a_conflict():
    texts = ["Jobs are on RabbitMQ.", "We moved jobs from RabbitMQ to SQS last month.", "The jobs still run on RabbitMQ."]
    found = conflicts.find(texts, [1.0, 1.0, 1.0])
    assert found and {frozenset((i, j)) for f in found for i in f.a for j in f.b} == {frozenset((1, 2))}


def test_paraphrases_of_one_topic_cluster_together_and_apart_from_another(model):
    """People say one thing in many words (cosine about 0.5, few shared words): fragments
    given one at a time join the cluster whose members they are like on average; another
    topic stays apart."""
    clusterer = clustering.Clusterer(model.dims)
    texts = ["The image uploader rejects files over 20 MB.",
             "uploads bigger than twenty megabytes get refused by the image uploader",
             "Our photo upload limit is 20MB per file.",
             "Password reset links expire after one hour.",
             "reset-password emails contain a link valid for 60 minutes"]
    vectors = model.embed(texts)
    for i, t in enumerate(texts):
        clusterer.assign(str(i), (i,), vectors[i], [], *clustering.features(t))
    placed = [clusterer.where[str(i)] for i in range(len(texts))]
    assert placed[0] == placed[1] == placed[2] and placed[3] == placed[4] and placed[0] != placed[3]


def _record(store, **changes) -> None:
    """Rewrite what the clusters table records of the rule that made them (None: nothing, as
    a memlib before 2026-11-27 left it)."""
    import json

    from memlib.consensus.store import META_RULE
    from memlib.consensus.tables import CLUSTERS

    table = store.concept_table(CLUSTERS)
    made = Consensus(store).made_by()
    if changes.pop("nothing", False):
        table.to_lance().update_schema_metadata({}, replace=True)
    else:
        table.to_lance().update_schema_metadata({META_RULE: json.dumps({**made, **changes})})


def test_a_store_records_the_rule_its_clusters_were_made_by(store, monkeypatch):
    from memlib.lifecycle import maintenance

    monkeypatch.setattr(maintenance, "runs", lambda s: pytest.fail("a recorded store's audit log was read"))
    consensus = Consensus(store)
    consensus.add(_fragments(consensus.register_input("x")))
    assert consensus.made_by() == {"method": clustering.METHOD, "neighbours": clustering.NEIGHBOURS,
                                   "threshold": clustering.DEFAULT_THRESHOLD, "model": store.model_name}
    assert consensus.outdated() is None
    other = Consensus(store, threshold=0.5)
    assert other.outdated() == ("the store's clusters were made otherwise (threshold 0.6, now 0.5): "
                                "Consensus.rebuild() makes them all at this one")
    other.rebuild()
    assert consensus.made_by()["threshold"] == 0.5 and other.outdated() is None
    assert store.maintain()["clusters_made_again"] is None  # a threshold asked for is kept
    assert Consensus(store).threshold == 0.5 and Consensus(store).outdated() is None  # and handles take it
    assert Consensus(store, threshold=0.6).outdated().startswith("the store's clusters were made otherwise")


def test_clusters_a_memlib_before_made_are_made_again_by_maintain(store, tmp_path, caplog):
    """A store from before the rule was recorded, clustered otherwise (here at 0.99, each
    report nearly alone): its next add says so once, in one line, and `maintain` makes the
    clusters this memlib makes of the same fragments, once."""
    fragments = _fragments("sha256:" + hashlib.sha256(b"x").hexdigest())
    old = Consensus(store, threshold=0.99)
    old.register_input("x")
    old.add(fragments[:-2])
    _record(store, nothing=True)
    fresh = MemoryStore.open(str(tmp_path / "fresh"), embedder=HashEmbedder())
    Consensus(fresh).register_input("x")
    Consensus(fresh).add(fragments)
    expected = [(c.cluster_id, c.fragment_ids) for c in Consensus(fresh).clusters()]

    reopened = MemoryStore.open(store.uri, embedder=HashEmbedder())
    assert [(c.cluster_id, c.fragment_ids) for c in Consensus(reopened).clusters()] != expected
    with caplog.at_level("WARNING", logger="memlib"):
        Consensus(reopened).add(fragments[-2:-1])
        Consensus(reopened).add(fragments[-1:])
    said = [r.getMessage() for r in caplog.records if "clusters were made" in r.getMessage()]
    assert said == ["the store's clusters were made by a memlib that recorded no rule: "
                    "'memlib maintain' makes them again"]
    done = reopened.maintain()["clusters_made_again"]
    assert done["made_by"] is None and done["fragments_embedded"] == 0 and done["clusters"] == len(expected)
    assert [(c.cluster_id, c.fragment_ids) for c in Consensus(reopened).clusters()] == expected
    assert Consensus(reopened).outdated() is None and reopened.maintain()["clusters_made_again"] is None


def test_renew_drops_a_threshold_of_another_method_and_embeds_again_for_another_model(store, monkeypatch):
    from memlib.consensus.store import renew
    from memlib.consensus.tables import FRAGMENTS

    consensus = Consensus(store, threshold=0.5)
    fragments = _fragments(consensus.register_input("x"))
    consensus.add(fragments)
    assert renew(store) is None
    _record(store, model="another-model")  # as a `memlib reembed` left it before this memlib
    table = store.concept_table(FRAGMENTS)
    table.update(values={"embedding": [0.0] * store.dims}, where="fragment_id = 'f-0-0'")
    done = renew(store)
    assert done["fragments_embedded"] == len(fragments) and done["now"]["threshold"] == 0.5
    rows = store.concept_table(FRAGMENTS).to_lance().to_table(columns=["fragment_id", "content", "embedding"])
    vectors = np.asarray(rows.column("embedding").to_pylist(), np.float32)
    assert np.allclose(vectors, store.embedder.embed(rows.column("content").to_pylist()), atol=1e-6)
    monkeypatch.setattr(clustering, "METHOD", "a method after today's")
    assert Consensus(store, threshold=0.5).outdated().endswith("'memlib maintain' makes them again")
    done = store.maintain()["clusters_made_again"]
    assert done["made_by"]["threshold"] == 0.5 and done["now"]["threshold"] == clustering.DEFAULT_THRESHOLD
    assert done["fragments_embedded"] == 0 and Consensus(store).made_by()["method"] == "a method after today's"
    _record(store, nothing=True)  # a store from before whose memories a `memlib reembed` run moved
    assert renew(store, reembedded=lambda: True)["fragments_embedded"] == len(fragments)


@pytest.mark.parametrize("text, change", [
    ("The reports service was never moved to Kubernetes.", False),
    ("Billing hasn't been migrated yet.", False),
    ("We haven't switched to the new CDN.", False),
    ("Billing was migrated to the new cluster.", True),
    ("Parking is not free anymore.", True),  # "not" denies "free"; "anymore" reports the change
    ("The API moved to Fly.io last week and never moved back.", True),
])
def test_a_change_said_not_to_have_happened_reports_none(text, change):
    assert statements.read(text).change is change


def test_a_name_never_moved_to_is_rejected_and_a_rival_choice():
    read = statements.read("The batch jobs run on Nomad, they were never moved to Kubernetes.")
    assert read.names == {"nomad"} and read.rejected == {"kubernetes"}
    _found_either_way("Every job runs on Kubernetes.", read.text, "choice")


@pytest.mark.parametrize("older, newer, kind", [
    ("Crash reports go to Bugsnag.", "we report crashes to Sentry, the bugsnag key in .env is dead", "choice"),
    ("The site is deployed with Capistrano.", "site deploys run through Ansible, capistrano.rb was deleted", "choice"),
    ("The Go services build with Bazel.", "the Go services build with Make, there are no bazel files", "choice"),
    ("Raw events are loaded by Stitch.", "raw events are loaded with Meltano, the Stitch trial ended", "choice"),
    # the name it denies is the one it uses, or it uses none: no rival
    ("Errors are reported to Sentry.", "backend errors go to Sentry, the sentry digest emails were removed", None),
    ("Crash reports go to Bugsnag.", "the bugsnag key in .env is dead", None),
])
def test_a_name_the_other_uses_denied_or_retired_in_any_case_is_a_rival_choice(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("older, newer, kind", [
    # a name outside the clause that denies (who found it) does not make the denial of another thing
    ("All database backups are encrypted with KMS.", "The old reports backup has no encryption, Wiz flagged it.",
     "negation"),
    # a name inside it does: each says something of another tool
    ("The Heroku deploys are automated.", "The Fly deploys are not automated.", None),
])
def test_a_denial_is_of_another_thing_only_by_the_names_it_denies(older, newer, kind):
    _found_either_way(older, newer, kind)


def test_an_acronym_may_open_with_a_digit_and_a_number_word_spells_it():
    read = statements.read("logged in to an admin account with a password only, no 2FA prompt, 8GB RAM")
    assert read.acronyms == {"2fa", "gb", "ram"} and "2fa" in read.denies
    assert statements.read("Two-factor authentication is required.").spells(read.acronyms) == {"2fa"}
    _found_either_way("Two-factor authentication is required for every admin account.", read.text, "negation")


@pytest.mark.parametrize("older, newer, kind", [
    ("Transactional mail is sent with Mailgun.", "Transactional mail goes through Postmark.", "choice"),  # not "mail"
    ("The orders service stores its rows in PostgreSQL.", "The orders service runs PgBouncer in front of postgres.",
     None),  # "postgres" is most of "PostgreSQL"
])
def test_a_name_is_said_by_a_word_only_of_most_of_its_letters(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("seen, rule, kind", [
    # a rule of one exact amount, not a goal: what was seen otherwise breaks it, or one is wrong
    ("Application logs are kept for 30 days.", "logs older than two weeks are gone, retention must be 14 days", "value"),
    ("The session timeout is 30 minutes.", "The session timeout must be 15 minutes per the security policy.", "value"),
    ("The session timeout is 15 minutes.", "The session timeout must be 15 minutes per the security policy.", None),
    # a bound is broken only beyond it, and a goal may be missed
    ("The session timeout is 30 minutes.", "The session timeout must be under 60 minutes.", None),
    ("p95 latency is 320 ms.", "Goal: p95 latency of 200 ms.", None),
])
def test_a_rule_of_one_exact_amount_is_compared_with_what_was_seen(seen, rule, kind):
    _found_either_way(seen, rule, kind)


@pytest.mark.parametrize("text, scopes", [
    ("At night the heating drops to 16 degrees.", {"night"}),
    ("Lowered the daytime thermostat to 19 degrees.", {"daytime"}),
    ("Partner keys get 1,000 requests a minute.", {"partner"}),
    ("Customer accounts have optional 2FA.", {"customer"}),
    ("Interns never get write access to production.", {"intern", "production"}),
])
def test_a_part_of_the_day_and_a_role_are_scopes(text, scopes):
    assert statements.read(text).scopes == scopes


@pytest.mark.parametrize("older, newer, kind", [
    ("Lowered the daytime thermostat to 19 degrees.", "At night the heating drops to 16 degrees.", None),
    ("The thermostat is set to 19 degrees at night.", "At night the heating drops to 16 degrees.", "value"),
    ("Customer accounts have optional 2FA.", "staff accounts log in with just a password, no 2FA prompt", None),
    ("The public API allows 100 requests per minute per key.", "Partner keys get 1,000 requests a minute.", None),
    ("Contractors never get VPN access.", "gave the new contractor VPN access today", "negation"),
])
def test_statements_of_two_parts_of_the_day_or_two_roles_are_apart(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("rule, seen, kind", [
    # a kind said by its bare plural, and a requirement, are rules of all: one case denies them
    ("Contractors don't get VPN access, they use the bastion host.",
     "gave the new contractor an account on the contractor VPN gateway", "negation"),
    ("vpn auth policy: mfa=required, exceptions: service accounts",
     "connected to the VPN with only my password, no MFA prompt", "negation"),
    # another kind's case denies nothing of the rule
    ("Contractors don't get VPN access.", "gave the new intern access to the VPN gateway", None),
])
def test_a_bare_plural_or_a_requirement_is_a_rule_of_all(rule, seen, kind):
    _found_either_way(rule, seen, kind)


@pytest.mark.parametrize("text, change", [
    ("pipeline failed on the Jenkins agent again, build #8812", False),  # the failure recurs
    ("Staging crashed again.", False),
    ("Plus-addressed emails can log in again after the validator fix.", True),  # back as it was
    ("The deploy failed, staging is up again now", True),  # the failure's clause is another
    ("the nightly job failed again after we moved it to 02:00", True),  # the move is a change all the same
    ("Missed the bins again, the truck came at 7 on Wednesday.", False),  # a miss recurs as a failure does
    ("Forgot the standup again, sorry", False),
])
def test_a_failure_said_to_happen_again_reports_no_change(text, change):
    assert statements.read(text).change is change


@pytest.mark.parametrize("text, change", [
    # a verb of change where the grammar says it happened
    ("product raised the weekly marketing push cap to 5 for the holidays", True),  # before what it was done to
    ("Artifact retention was cut to 30 days to save storage.", True),  # after "was"
    ("checkout replicas doubled for Black Friday", True),
    ("turned on a rate limit for internal search: 50 req/s per client", True),
    ("added two data nodes to the search cluster last night", True),
    ("we removed the nightly export", True),  # after a person
    ("From next week the office closes at 6pm.", True),
    ("Effective 1 December the nightly backup runs at 03:00 UTC.", True),
    ("From December the all-hands moves to 17:00 CET.", True),  # "to" a time: no span of days
    ("From January to March the office closes at 5pm.", False),  # a span of months
    # the same words that say no change
    ("we saw increased latency after lunch", False),  # a participle before a noun
    ("SSO is enabled for the admin console", False),  # a state
    ("added the TXT record for the domain verification in Cloudflare DNS", False),  # a thing acted on
    ("Support is open from Monday to Friday", False),  # a span of days
    ("Support is open from 9 to 5 on weekdays", False),
    ("Keep the ledger retry policy: backoff doubling from 100 ms.", False),
    ("checkout still runs 4 replicas, nobody changed it for Black Friday", False),  # a change nobody made
])
def test_a_verb_of_change_reports_a_change_where_it_happened(text, change):
    assert statements.read(text).change is change


@pytest.mark.parametrize("older, newer, kind", [
    # a cron schedule is a time of day, in UTC unless its line names another zone
    ("The nightly ETL starts at 01:00 UTC.", "airflow dag nightly_etl schedule: 0 3 * * *", "value"),
    ("The nightly ETL starts at 03:00 UTC.", "airflow dag nightly_etl schedule: 0 3 * * *", None),
    ("The report job runs at 02:00 UTC.", "cronjob report: schedule '0 2 * * *', timeZone: Europe/Berlin", None),
])
def test_a_cron_schedule_is_a_time_of_day(older, newer, kind):
    _found_either_way(older, newer, kind)


def test_a_cron_schedule_reads_no_count():
    (clock, period) = statements.read("airflow dag nightly_etl schedule: 0 3 * * *").quantities
    assert (clock.dimension, clock.amount, period.dimension) == ("clock:utc", 180.0, "period")


@pytest.mark.parametrize("choice, line, kind", [
    # a bot line that opens with a name the store writes as one uses it
    ("Feature flags are managed in LaunchDarkly.", "unleash-proxy: 2 replicas healthy, 14k evals/min", "choice"),
    ("Order events are published to Kafka.", "rabbitmq vhost orders: 14 queues, 0 unacked", "choice"),
    # what only heads a line is no name, nor is a name the line does not open with
    ("All S3 buckets are encrypted at rest with KMS.", "config rule s3-encryption: 41 compliant, 1 noncompliant", None),
    ("Order events are published to Kafka.", "orders vhost on rabbitmq: 14 queues, 0 unacked", None),
])
def test_a_line_that_opens_with_a_name_the_store_knows_uses_it(choice, line, kind):
    store_said = ("The platform cluster runs Unleash for the mobile team.", "RabbitMQ is the broker of the billing system.",
                  "Config Rule names come from the compliance team.")  # "Config" opens its sentence
    lexicon = _lexicon_of(*store_said, choice, line)
    for texts in ([choice, line], [line, choice]):
        assert [f.kind for f in conflicts.find(texts, [1.0, 1.0], lexicon)] == ([kind] if kind else []), texts
    assert conflicts.find([choice, line], [1.0, 1.0], _lexicon_of(choice, line)) == []  # a store that never named it


def test_names_are_no_values_to_the_lexicon():
    texts = ["The ledger writer timeout is 30 seconds, set in Vault.", "We measured the ledger writer at 30 seconds."]
    lexicon, without = _lexicon_of(*texts), Lexicon()
    for text in texts:
        words, keys = clustering.features(text)
        without.observe(words, [k for k in keys if not k.startswith("named=")])
    assert lexicon.names == {"vault": "vault"} and without.names == {}
    assert (lexicon.shared, lexicon.seen) == (without.shared, without.seen)


@pytest.mark.parametrize("older, newer, kind", [
    # a host's name is made of words: billing.acme.io is the billing site
    ("The billing dashboard requires SSO.", "logged into billing.acme.io with a password, no SSO prompt", "negation"),
    ("The status page is hosted on Instatus.", "status.acme.io has no uptime checks configured", None),
])
def test_a_host_name_says_its_words(older, newer, kind):
    _found_either_way(older, newer, kind)


@pytest.mark.parametrize("rule, count, kind", [
    # a share short of the whole denies a rule said of every one
    ("Every repo has secret scanning turned on.", "github advanced security: secret scanning enabled on 212/230 repos",
     "negation"),
    ("All company laptops have FileVault enabled.", "jamf: 38 of 40 laptops have FileVault on", "negation"),
    # the whole, or a share of something else, denies nothing
    ("All company laptops have FileVault enabled.", "jamf: 40 of 40 laptops have FileVault on", None),
    ("Every service exports metrics to Prometheus.", "deploys today: 3/12 services failed health checks", None),
])
def test_a_share_short_of_the_whole_denies_a_rule_of_all(rule, count, kind):
    _found_either_way(rule, count, kind)


def test_a_share_short_of_the_whole_leaves_room_for_the_one_that_lacks_it():
    rule, share = "Every repo has secret scanning turned on.", "secret scanning enabled on 212/230 repos"
    lacking = "the infra-legacy repo has no secret scanning, I checked settings"
    _found_either_way(share, lacking, None)
    _found_either_way("secret scanning enabled on 230/230 repos", lacking, "negation")  # the whole has no room
    (found,) = conflicts.find([rule, share, lacking], [1.0, 1.0, 1.0])
    assert (found.kind, sorted([found.a, found.b])) == ("negation", [[0], [1, 2]])


def test_a_failure_again_leaves_the_rival_choice_to_meet():
    _found_either_way("CI runs on GitHub Actions.", "pipeline failed on the Jenkins agent again, build #8812", "choice")
