"""A question that names one participant of a conversation is answered from their turns first."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from memlib import Conversation, MemoryStore, Project, Scope
from memlib.embeddings import HashEmbedder
from memlib.search import SearchConfig
from memlib.search.search import search
from memlib.search.fusion import with_boost
from memlib.search.speakers import named_speaker

SPEAKERS = {"Caroline", "Melanie", "Al Smith", None}


@pytest.mark.parametrize("text, speaker", [
    ("What did Caroline paint?", "Caroline"),
    ("When did Melanie's kids go camping?", "Melanie"),   # a possessive is still the name
    ("What does Al think of Caroline?", None),            # two named: neither is favoured
    ("What did Alice say?", None),                        # "Al" is not a word of it
    ("what did caroline paint?", None),                   # a name is written capitalised
    ("Who went hiking?", None),
])
def test_the_named_speaker(text, speaker):
    assert named_speaker(text, SPEAKERS) == speaker


@given(st.text(), st.sets(st.one_of(st.none(), st.text())))
def test_any_text_names_one_of_the_speakers_or_none(text, speakers):
    assert named_speaker(text, speakers) in speakers | {None}


def test_a_boost_moves_only_candidates_and_keeps_the_rest_in_order():
    ranked = [("a", 1.0, {}), ("b", 0.9, {}), ("c", 0.5, {}), ("d", 0.4, {})]
    out = with_boost(ranked, {"c", "z"}, 0.6, "speaker")
    assert [i for i, _, _ in out] == ["c", "a", "b", "d"]
    assert out[0][1] == pytest.approx(1.1) and out[0][2] == {"speaker": 0.6}


def test_the_named_speakers_turns_gain_and_no_other(tmp_path):
    """The hybrid ranking of a question naming Melanie is the ranking without the speaker
    boost, with Melanie's turns raised by 0.15 of the best score (an independent replay), and
    it differs from it: her plainer turns pass Caroline's, which mention her and the hike."""
    project = Project(name="p")
    said = [("Caroline", "Melanie and I went hiking in the hills, hiking all day"),
            ("Melanie", "the hills were lovely"), ("Caroline", "hiking again next week with Melanie?"),
            ("Melanie", "yes, hiking is my favourite"), ("Caroline", "I bought new boots")]
    turns = [Conversation(project_id=project.id, speaker=who, content=text, ttl_days=-1) for who, text in said]
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    store.add([project, *turns])
    scope = Scope(project_id=project.id, kinds=("conversation",))
    question = "Where did Melanie go hiking?"
    unboosted = search(store, question, k=10, scope=scope, config=SearchConfig(speaker=0))
    hers = {t.id for t in turns if t.speaker == "Melanie"}
    replay = with_boost([(h.id, h.score, h.sources) for h in unboosted], hers, 0.15, "speaker")
    for vector_cache in ("off", "on"):  # read from Lance, and from the rows in memory
        store.vectors.mode = vector_cache
        hits = store.search(question, k=10, scope=scope)
        assert [h.id for h in hits] == [i for i, _, _ in replay]
        assert [h.score for h in hits] == pytest.approx([s for _, s, _ in replay])
        assert {h.id for h in hits if "speaker" in h.sources} == hers
    assert [h.id for h in hits] != [h.id for h in unboosted]
    assert [h.id for h in store.search("Where did they go hiking?", k=10, scope=scope)] == \
        [h.id for h in search(store, "Where did they go hiking?", k=10, scope=scope, config=SearchConfig(speaker=0))]
