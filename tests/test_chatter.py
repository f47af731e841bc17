"""A message that says nothing of its own ("ok", "when", "👍") is ranked after every
candidate that says something (search/chatter.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memlib import Conversation, MemoryStore, Scope
from memlib.embeddings import HashEmbedder
from memlib.search.chatter import said_nothing

from conftest import T0


@pytest.mark.parametrize("words, speaker", [
    ("ok", None), ("lol thanks", None), ("when", None), ("WHAT", None), ("👍", None), ("🎉🎉", None),
    ("Maya: aww", "Maya"), ("oh no", None), ("got it", None), ("what do we get her", None), ("", None)])
def test_what_says_nothing(words, speaker):
    assert said_nothing(words, speaker)


@pytest.mark.parametrize("words, speaker", [
    ("the riverside one, 19 april", None), ("2pm", None), ("28k", None), ("我们明天见", None),
    ("Maya: boiler fixed", "Maya"), ("Maya: ok", None), ("v2_final", None), ("Lisbon!!", None),
    ("ok so the lamb was unreal", None), ("Maya", None)])
def test_what_says_something(words, speaker):
    """A number, a word of another script, or a word that is not a function word or an
    interjection; a leading name counts unless it is the speaker's own."""
    assert not said_nothing(words, speaker)


def test_a_reply_that_says_nothing_is_ranked_after_the_message_that_answers(tmp_path, tree):
    """"when" is embedded with what it replies to, so without the rule it stands in front of
    the answer in vector and hybrid mode; with it, it comes after in every mode, and it is still
    found."""
    store = MemoryStore.open(str(tmp_path / "chat"), embedder=HashEmbedder(), vector_cache="off")
    store.add([tree["project"]])
    project = tree["project"].id
    said = [("jon", "we booked the Lisbon trip with Elle"), ("maya", "when"),
            ("jon", "first week of may, flying out the 2nd"), ("maya", "nice"),
            ("jon", "unrelated: the boiler is fixed"), ("maya", "finally")]
    ids = store.add([Conversation(project_id=project, iteration_id="s1", speaker=who, content=f"{who}: {words}",
                                  created_at=T0 + timedelta(minutes=i), ttl_days=-1)
                     for i, (who, words) in enumerate(said)])
    scope = Scope(project_id=project, kinds=("conversation",))
    for mode in ("vector", "hybrid", "fts"):
        ranked = [h.memory.id for h in store.search("when is jon flying to lisbon with elle", k=6, mode=mode,
                                                    scope=scope)]
        assert ranked.index(ids[2]) < ranked.index(ids[1]), mode
        assert ids[1] in ranked
    hits = store.search("when", k=3, mode="vector", scope=scope)
    assert len(hits) == 3  # those that say nothing still fill the list when nothing else is left


def test_said_last_ranks_as_a_full_partition_would_within_its_first_k():
    """Read k at a time, the list's first k are those of moving every silent candidate back."""
    import random

    from memlib.search.search import said_last

    rng = random.Random(5)
    for _ in range(300):
        ranked = [(f"m{i}", 1.0 - i / 100, {}) for i in range(rng.randint(0, 40))]
        silent = {i for i, _, _ in ranked if rng.random() < rng.choice([0.1, 0.5, 0.9])}
        k = rng.randint(1, 15)
        asked = []

        def nothing(ids):
            asked.append(len(ids))
            return silent & set(ids)

        full = [e for e in ranked if e[0] not in silent] + [e for e in ranked if e[0] in silent]
        out = said_last(ranked, k, nothing)
        assert out[:k] == full[:k]
        assert sorted(out) == sorted(ranked)  # nothing lost, nothing added
        assert all(n <= k for n in asked)
