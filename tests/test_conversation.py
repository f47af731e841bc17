"""A conversation turn is indexed with the turn before it in its thread."""

from __future__ import annotations

from datetime import timedelta

from memlib import Conversation, Scope
from memlib.store import CONTEXT_CHARS

from conftest import T0


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
    reply = store.get(ids[1])
    assert reply.text == "Yes, last Tuesday!\nDid you go to the support group?"
    assert reply.own_text == "Yes, last Tuesday!"


def test_the_turn_before_may_already_be_stored(store, tree):
    project = tree["project"].id
    store.add([turn(project, "first", minutes=1), turn(project, "second", minutes=2)])
    store.add([turn(project, "elsewhere", minutes=3, iteration=None)])  # a thread of its own
    later, earliest, loose = store.add([turn(project, "third", minutes=3),
                                        turn(project, "zeroth", minutes=0, iteration="s0"),
                                        turn(project, "after elsewhere", minutes=4, iteration=None)])
    assert contexts(store, [later, earliest, loose]) == ["second", None, "elsewhere"]
    # a turn that is earlier than every stored one has nothing before it
    (early,) = store.add([turn(project, "before all", minutes=-5)])
    assert store.get(early).context is None


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
