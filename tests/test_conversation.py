"""A conversation turn is indexed with the turn before it in its thread."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from memlib import Conversation, Scope
from memlib.search.fusion import with_neighbours
from memlib.store.batch import CONTEXT_CHARS

from conftest import T0

pytestmark = pytest.mark.on_s3  # every test with a store fixture runs on local disk and on S3


def turn(project_id: str, content: str, minutes: int = 0, iteration: str | None = "s1", **fields):
    return Conversation(project_id=project_id, iteration_id=iteration, content=content,
                        created_at=T0 + timedelta(minutes=minutes), **fields)


def contexts(store, ids):
    return [store.get(i).context for i in ids]


def test_a_batch_is_taken_in_thread_order(store, tree):
    project = tree["project"].id
    batch = [turn(project, "Did you go to the support group?"),
             turn(project, "Yes, last Tuesday!"),
             turn(project, "A turn of another session", iteration="s2"),
             turn(project, "How was it?"),
             turn(project, "Told by hand", context="what the caller said it answers")]
    ids = store.add(batch)
    assert contexts(store, ids) == [None, "Did you go to the support group?", None,
                                    "Yes, last Tuesday!", "what the caller said it answers"]
    assert [store.get(i).previous_id for i in ids] == [None, ids[0], None, ids[1], None]
    reply = store.get(ids[1])
    assert reply.text == "Yes, last Tuesday!\nDid you go to the support group?"
    assert reply.own_text == "Yes, last Tuesday!"


def test_the_turn_before_may_already_be_stored(store, tree):
    project = tree["project"].id
    store.add([turn(project, "first", minutes=1), turn(project, "second", minutes=2)])
    (elsewhere,) = store.add([turn(project, "elsewhere", minutes=3, iteration=None)])  # its own thread
    later, earliest, loose = store.add([turn(project, "third", minutes=3),
                                        turn(project, "zeroth", minutes=0, iteration="s0"),
                                        turn(project, "after elsewhere", minutes=4, iteration=None)])
    assert contexts(store, [later, earliest, loose]) == ["second", None, "elsewhere"]
    assert store.get(loose).previous_id == elsewhere
    # a turn that is earlier than every stored one has nothing before it
    (early,) = store.add([turn(project, "before all", minutes=-5)])
    assert store.get(early).context is None


def test_turns_of_one_time_added_one_at_a_time_follow_the_one_written_before(store, tree):
    """An import that gives every message of a session one time and adds them one by one (or
    a few at a time) links each to the message written just before it, not to the first of
    that time; then a batch of that time comes after them, in batch order."""
    project = tree["project"].id
    said = [("Mel", "Did you go to the park?"), ("Caroline", "Yes, with the kids!"),
            ("Caroline", "It was sunny"), ("Mel", "Lovely. Which park?"), ("Caroline", "The one by the lake")]
    ids = [store.add([turn(project, f"{who}: {words}", speaker=who)])[0] for who, words in said]
    assert [store.get(i).previous_id for i in ids] == [None, *ids[:-1]]
    assert contexts(store, ids) == [None, "Mel: Did you go to the park?", None, "Caroline: It was sunny",
                                    "Mel: Lovely. Which park?"]
    more = store.add([turn(project, "Mel: nice", speaker="Mel"), turn(project, "Caroline: see you", speaker="Caroline")])
    assert [store.get(i).previous_id for i in more] == [ids[-1], more[0]]


def test_context_is_the_tail_of_a_long_turn(store, tree):
    project = tree["project"].id
    long = "x" * (CONTEXT_CHARS + 500) + " the question at the end?"
    ids = store.add([turn(project, long), turn(project, "an answer")])
    assert store.get(ids[1]).context == long[-CONTEXT_CHARS:]


def test_a_reply_is_found_by_what_it_answers(store, tree):
    project = tree["project"].id
    ids = store.add([turn(project, "Did you go to the lighthouse festival?", ttl_days=-1),
                     turn(project, "Yes, and it was wonderful!", ttl_days=-1)])
    hits = store.search("lighthouse festival", k=5, mode="fts",
                        scope=Scope(project_id=project, kinds=("conversation",)))
    assert {h.memory.id for h in hits} == set(ids)


def test_a_turn_gains_a_share_of_its_best_neighbour():
    ranked = [("a", 1.0, {"fts": 1.0}), ("b", 0.5, {}), ("c", 0.45, {}), ("x", 0.6, {}), ("y", 0.1, {})]
    links = [("a", "b"), ("b", "c"), ("w", "y"), ("c", "d")]  # a -> b -> c -> d; w and d found by neither list
    out = with_neighbours(ranked, links, 0.5)
    scores = {memory_id: score for memory_id, score, _ in out}
    assert scores == pytest.approx({"a": 1.0 + 0.5 * 0.5, "b": 0.5 + 0.5 * 1.0, "c": 0.45 + 0.5 * 0.5,
                                    "x": 0.6, "y": 0.1, "d": 0.5 * 0.45, "w": 0.5 * 0.1})
    assert [memory_id for memory_id, _, _ in out] == ["a", "b", "c", "x", "d", "y", "w"]
    assert dict((m, src) for m, _, src in out)["a"] == {"fts": 1.0, "neighbour": 0.5}


def test_hybrid_search_counts_the_neighbours_on_both_paths(tmp_path, tree):
    from memlib import MemoryStore
    from memlib.embeddings import HashEmbedder

    path = str(tmp_path / "turns")
    store = MemoryStore.open(path, embedder=HashEmbedder(), vector_cache="off")
    store.add([tree["project"]])
    project = tree["project"].id
    ids = store.add([turn(project, text, minutes=i, ttl_days=-1) for i, text in enumerate(
        ["We should plan the lighthouse festival trip", "Which weekend suits you?",
         "The second one in July", "Unrelated: the ledger migration is done"])]
        + [turn(project, "An old turn about the lighthouse festival trip", minutes=-9, iteration="s0"),
           turn(project, "Its reply, expired long ago", minutes=-8, iteration="s0", ttl_days=1)])
    # full-text scores of rows not yet indexed differ between a filter and the cache's row
    # addresses (the same ranking); indexed, they are equal and the fused scores can be compared
    store.maintain()
    scope = Scope(project_id=project, kinds=("conversation",))
    hits = store.search("lighthouse festival trip", k=6, scope=scope)
    reply = next(h for h in hits if h.memory.id == ids[1])
    assert reply.sources["neighbour"] > 0
    assert ids[4] in [h.memory.id for h in hits]  # written without a TTL: found, its default counted from the write
    assert ids[5] not in [h.memory.id for h in hits]  # its expired neighbour stays out
    cached = MemoryStore.open(path, vector_cache="on")
    assert [(h.memory.id, round(h.score, 6)) for h in cached.search("lighthouse festival trip", k=6, scope=scope)] \
        == [(h.memory.id, round(h.score, 6)) for h in hits]


def test_a_message_after_the_same_speakers_own_is_embedded_alone(store, tree):
    """The context is what a turn replies to: another speaker's turn (or either speaker
    unknown). A second message by the same speaker is linked to the first, not mixed with it."""
    project = tree["project"].id
    ids = store.add([turn(project, "ann: Did you go to the game?", 0, speaker="ann"),
                     turn(project, "bob: Yes!", 1, speaker="bob"),
                     turn(project, "bob: Also, my sister moved to Lisbon.", 2, speaker="bob"),
                     turn(project, "a turn nobody signed", 3)])
    assert contexts(store, ids) == [None, "ann: Did you go to the game?", None,
                                    "bob: Also, my sister moved to Lisbon."]
    assert [store.get(i).previous_id for i in ids] == [None, ids[0], ids[1], ids[2]]
    alone = store.get(ids[2])
    assert alone.text == alone.own_text
    stored = store.lookup([ids[2]], ["embedding"])[ids[2]]["embedding"]
    assert np.allclose(stored, store.embedder.embed([alone.own_text])[0])
    # the turn before may be stored: bob again, after bob's own message in another session
    first, = store.add([turn(project, "bob: Lisbon is lovely.", 0, iteration="s2", speaker="bob")])
    (later,) = store.add([turn(project, "bob: She starts work in May.", 1, iteration="s2", speaker="bob")])
    assert store.get(later).context is None and store.get(later).previous_id == first


def test_a_turn_reads_the_same_whether_its_speaker_is_in_its_words_or_beside_them(store, tree):
    """A writer that gives the speaker's name only in `speaker` gets the text, the context and
    the vector of one that opens the content with it ("Maya: ..."); the content stays as given."""
    project = tree["project"].id
    lines = [("maya", "Did the flat in Lisbon work out?"), ("jon", "Yes! We move on the 30th."),
             ("jon", "Elle already packed the kitchen.")]
    named = store.add([turn(project, f"{who}: {words}", n, speaker=who) for n, (who, words) in enumerate(lines)])
    bare = store.add([turn(project, words, n, iteration="s2", speaker=who) for n, (who, words) in enumerate(lines)])
    got = {i: store.get(i, with_embedding=True) for i in named + bare}
    assert [got[i].text for i in bare] == [got[i].text for i in named]
    assert [got[i].context for i in bare] == [None, "maya: Did the flat in Lisbon work out?", None]
    assert [got[i].content for i in bare] == [words for _, words in lines]
    assert got[bare[1]].text == "jon: Yes! We move on the 30th.\nmaya: Did the flat in Lisbon work out?"
    for a, b in zip(named, bare):
        assert np.allclose(got[a].embedding, got[b].embedding, atol=1e-6)


def test_given_vectors_are_kept_and_never_written_into(store, tree):
    """A vector given for a turn whose context the store fills is not the turn's own (its
    text changed), so that turn is embedded; the others keep theirs, and the caller's array
    is left as it was."""
    project = tree["project"].id
    batch = [turn(project, "Where did you go last week?", speaker="a"),
             turn(project, "To the lake, with my sister.", minutes=1, speaker="b"),
             turn(project, "A note by hand", minutes=2, context="given")]
    given = np.random.default_rng(3).standard_normal((3, store.dims)).astype(np.float32)
    before = given.copy()
    first, reply, noted = store.add(batch, vectors=given)
    assert np.array_equal(given, before)
    stored = {i: np.array(store.get(i, with_embedding=True).embedding, np.float32) for i in (first, reply, noted)}
    assert np.array_equal(stored[first], given[0]) and np.array_equal(stored[noted], given[2])
    assert not np.allclose(stored[reply], given[1])
    assert np.allclose(stored[reply], store.embedder.embed([store.get(reply).text])[0], atol=1e-6)
