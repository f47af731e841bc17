"""Search with the real model: vector, full-text and hybrid, within scopes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memlib import Decision, InvalidInput, Issue, Learning, Project, RootTask, Scope, SubTask
from memlib.search.fusion import convex, rrf
from memlib.search.search import TIES_READ, settled

# every test with a store fixture runs on local disk, on S3 and through a memory server
pytestmark = [pytest.mark.on_s3, pytest.mark.on_server]

NOW = datetime.now(timezone.utc)


@pytest.fixture
def corpus(real_store):
    shop = Project(name="shop", description="Online shop backend", created_at=NOW - timedelta(days=60))
    docs = Project(name="docs", description="Documentation site", created_at=NOW - timedelta(days=60))
    cart = RootTask(project_id=shop.id, objective="Speed up the checkout page",
                    created_at=NOW - timedelta(days=20))
    items = [
        shop, docs, cart,
        SubTask(root_task_id=cart.id, details="Cache product prices in Redis to avoid database round trips",
                created_at=NOW - timedelta(days=5)),
        Decision(project_id=shop.id, root_task_id=cart.id, title="Use Stripe for card payments",
                 decision="Payments go through Stripe checkout sessions", tags=["payments"],
                 source="agent", confidence=80, created_at=NOW - timedelta(days=4)),
        Issue(project_id=shop.id, content="The login form rejects passwords containing an apostrophe",
              tags=["auth"], confidence=30, created_at=NOW - timedelta(days=3)),
        Learning(project_id=docs.id, content="Static site generators rebuild faster with incremental builds",
                 created_at=NOW - timedelta(days=2)),
        Learning(project_id=shop.id, content="Caching product prices cut checkout latency in half",
                 source="user", created_at=NOW - timedelta(days=1)),
        Issue(project_id=shop.id, content="Old flaky test in the cart service", ttl_days=1,
              created_at=NOW - timedelta(days=10)),
    ]
    real_store.add(items)
    return {m.kind.value + ":" + m.text.split()[0]: m for m in items} | {"shop": shop, "docs": docs,
                                                                        "cart": cart, "items": items}


def _ids(hits):
    return [h.memory.id for h in hits]


def test_vector_search_finds_meaning_without_shared_words(real_store, corpus):
    hits = real_store.search("how do customers pay with a credit card", k=3, mode="vector")
    assert hits[0].memory.kind.value == "decision" and "Stripe" in hits[0].memory.text
    assert hits[0].score > hits[-1].score


def test_fts_search_matches_keywords(real_store, corpus):
    hits = real_store.search("apostrophe", k=5, mode="fts")
    assert len(hits) == 1 and "apostrophe" in hits[0].memory.text


def test_hybrid_fuses_both_lists(real_store, corpus):
    hits = real_store.search("redis price cache", k=5)
    assert "Redis" in hits[0].memory.text
    assert {"vector_rank", "fts_rank"} <= set(hits[0].sources)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


@pytest.mark.parametrize("mode", ["vector", "fts", "hybrid"])
def test_scopes_filter_every_mode(real_store, corpus, mode):
    query = "checkout prices caching static site"
    in_docs = real_store.search(query, k=10, mode=mode, scope=Scope(project_id=corpus["docs"].id))
    assert in_docs and all(h.memory.project_id == corpus["docs"].id for h in in_docs)
    by_root = real_store.search(query, k=10, mode=mode, scope=Scope(root_task_id=corpus["cart"].id))
    assert by_root and all(h.memory.root_task_id == corpus["cart"].id for h in by_root)
    learnings = real_store.search(query, k=10, mode=mode, scope=Scope(kinds=("learning",)))
    assert learnings and {h.memory.kind.value for h in learnings} == {"learning"}
    level2 = real_store.search(query, k=10, mode=mode, scope=Scope(level=2))
    assert level2 and all(h.memory.level == 2 for h in level2)
    from_user = real_store.search(query, k=10, mode=mode, scope=Scope(source="user"))
    assert [h.memory.source for h in from_user] == ["user"]


def test_scope_by_tag_confidence_and_time(real_store, corpus):
    q = "payments login password stripe"
    tagged = real_store.search(q, k=10, scope=Scope(tags=("auth", "nothing")))
    assert [h.memory.tags for h in tagged] == [["auth"]]
    confident = real_store.search(q, k=10, scope=Scope(min_confidence=50))
    assert confident and all(h.memory.confidence >= 50 for h in confident)
    recent = real_store.search(q, k=10, scope=Scope(created_after=NOW - timedelta(days=3, hours=12)))
    assert recent and all(h.memory.created_at >= NOW - timedelta(days=3, hours=12) for h in recent)
    old = real_store.search(q, k=10, scope=Scope(created_before=NOW - timedelta(days=30)))
    assert {h.memory.kind.value for h in old} == {"project"}


def test_expired_hidden_by_default(real_store, corpus):
    q = "flaky test in the cart service"
    assert all("flaky" not in h.memory.text for h in real_store.search(q, k=10))
    with_expired = real_store.search(q, k=10, scope=Scope(include_expired=True))
    assert "flaky" in with_expired[0].memory.text


def test_fts_query_with_syntax_characters(real_store, corpus):
    for query in ['apostrophe" OR "1', "(login AND", "password*", "o'brien -- ;"]:
        real_store.search(query, k=3, mode="fts")  # no error
        real_store.search(query, k=3)


def test_equal_full_text_scores_come_in_id_order(store):
    """Forty notes that hold the asked word once in as many words score the same BM25: the
    same question gives the same hits every time, the ties in id order at every k."""
    zoo = Project(name="zoo")
    notes = [Learning(project_id=zoo.id, content=f"quokka seen near gate {n:02d}") for n in range(40)]
    store.add([zoo, *notes, Learning(project_id=zoo.id, content="a quokka, and another quokka, seen at the gate")])
    ties = sorted(note.id for note in notes)
    for k in (1, 5, 12):
        for _ in range(3):
            hits = store.search("quokka", k=k + 1, mode="fts")
            assert "another" in hits[0].memory.text
            assert [hit.memory.id for hit in hits[1:]] == ties[:k]


def test_settled_reads_on_until_the_ties_of_the_last_kept_are_in():
    import random

    scores = [9.0, 7.0] + [5.0] * 30 + [4.0] * 5  # the ties: "c00" ... "c29"
    hits = [(f"a{i}", s) for i, s in enumerate(scores[:2])] + [(f"c{i:02d}", s) for i, s in enumerate(scores[2:32])] + \
        [(f"d{i}", s) for i, s in enumerate(scores[32:])]
    asked = []

    def best(limit):  # as Lance: the best `limit`, ties in any order, and any of them at the cut
        asked.append(limit)
        shuffled = hits[:2] + random.Random(limit).sample(hits[2:32], 30) + hits[32:]
        return shuffled[:limit]

    assert settled(best, 2) == hits[:2] and asked == [5]  # the fifth scores below the second
    asked.clear()
    assert settled(best, 5) == hits[:5] and asked == [11, 21, 41]
    asked.clear()
    assert [i for i, _ in settled(best, 1)] == ["a0"] and asked == [3]
    capped = [(f"t{i:04d}", 1.0) for i in range(3 * TIES_READ)]
    asked.clear()
    settled(lambda limit: asked.append(limit) or capped[::-1][:limit], 3)
    assert TIES_READ < max(asked) <= 2 * TIES_READ + 1  # a store of ties reads no more than that


def test_bad_search_arguments(real_store, corpus):
    with pytest.raises(InvalidInput):
        real_store.search("", k=3)
    with pytest.raises(InvalidInput):
        real_store.search("x", mode="semantic")
    with pytest.raises(InvalidInput):
        real_store.search("x", k=0)


def test_rrf_orders_by_summed_reciprocal_ranks():

    fused = rrf({"vector": [("a", .9), ("b", .8)], "fts": [("b", 3.0), ("c", 2.0)]}, k=3, rrf_k=60)
    assert [memory_id for memory_id, _, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)


def test_convex_fusion_weighs_normalised_scores():
    lists = {"vector": [("a", 0.9), ("b", 0.5), ("c", 0.1)], "fts": [("c", 8.0), ("d", 4.0), ("a", 0.0)]}
    fused = convex(lists, k=4, weights={"vector": 0.4, "fts": 0.6})
    scores = {memory_id: score for memory_id, score, _ in fused}
    assert scores == pytest.approx({"a": 0.4, "b": 0.2, "c": 0.6, "d": 0.3})
    assert [memory_id for memory_id, _, _ in fused] == ["c", "a", "d", "b"]
    assert fused[0][2] == {"vector_rank": 3, "fts_rank": 1}
    assert convex({"vector": [("x", 0.3)], "fts": []}, k=1, weights={"vector": 0.4, "fts": 0.6}) == \
        [("x", 0.4, {"vector_rank": 1})]
