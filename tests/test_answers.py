"""A question that asks for a time, a number or a place is answered first from the memories
whose own words hold one."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, strategies as st

from memlib import Conversation, MemoryStore, Project, Scope
from memlib.embeddings import HashEmbedder
from memlib.search import SearchConfig
from memlib.search.search import search
from memlib.search.answers import KINDS, asked_for, holds
from memlib.search.fusion import with_boost


@pytest.mark.parametrize("question, kinds", [
    ("When did Melanie paint a sunrise?", ("time",)),
    ("Ok. When was it?", ("time",)),
    ("What year did John start surfing?", ("time",)),
    ("What did she say when he left?", ()),               # "when" opens no question here
    ("How many kids does Melanie have?", ("number",)),
    ("How long ago was the trip?", ("time", "number")),
    ("Where did Caroline move from?", ("place",)),
    ("In which city was the game?", ("place",)),
    ("What did Caroline paint?", ()),
])
def test_what_a_question_asks_for(question, kinds):
    assert asked_for(question) == kinds


@pytest.mark.parametrize("text, kinds, held", [
    ("I went there yesterday", ("time",), True),
    ("we met last Friday", ("time",), True),
    ("We met in May", ("time",), True),
    ("I may go", ("time",), False),                        # the verb, not the month
    ("I have 3 kids", ("number",), True),
    ("a couple of times", ("number",), True),
    ("we went to Paris", ("place",), True),
    ("we met in May", ("place",), False),                  # a month is no place
    ("in the park", ("place",), False),                    # a place is named capitalised
    ("I loved it", ("time", "number", "place"), False),
    ("fine, 2pm then", ("time",), True),                  # a time of day
    ("it sends at 07:00 UTC", ("time",), True),
    ("deadline is the 26th", ("time",), True),             # a day of the month
    ("back on 30/4", ("time",), True),
    ("secret scanning on 212/230 repos", ("time",), False),  # a share, not a date
    ("we have 40k for contractors", ("number",), True),    # digits that open a word
    ("3h20 this time", ("number",), True),
    ("the v2 flow on S3", ("number",), False),             # digits inside a name
])
def test_what_a_text_holds(text, kinds, held):
    assert holds(text, kinds) is held


@given(st.text())
def test_any_text_asks_for_known_kinds_and_holds_or_not(text):
    assert set(asked_for(text)) <= set(KINDS)
    assert holds(text, tuple(KINDS)) in (True, False)


def test_turns_that_hold_the_asked_for_kind_gain_and_no_other(tmp_path):
    """The hybrid ranking of a "when" question is the ranking without the answer boost, with
    the turns whose own words say when raised by 0.15 of the best score (an independent
    replay), and it differs from it. A reply whose context says when, but not its own words,
    gains nothing."""
    project = Project(name="p")
    when = datetime(2023, 5, 8, tzinfo=timezone.utc)
    said = [("a", "Melanie", "I went hiking yesterday"),      # says when
            ("a", "Caroline", "hiking with you was fun"),     # its context (the turn before) says when
            ("b", "Caroline", "we went hiking in the hills"),
            ("c", "Melanie", "hiking in the rain is fun"), ("d", "Caroline", "I bought new boots")]
    turns = [Conversation(project_id=project.id, iteration_id=thread, speaker=who, content=text, ttl_days=-1,
                          created_at=when, updated_at=when) for thread, who, text in said]
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    store.add([project, *turns])
    assert "yesterday" in store.lookup([turns[1].id], ["context"])[turns[1].id]["context"]
    scope = Scope(project_id=project.id, kinds=("conversation",))
    question = "When did they go hiking?"
    plain = search(store, question, k=10, scope=scope, config=SearchConfig(answer=0))
    replay = with_boost([(h.id, h.score, h.sources) for h in plain], {turns[0].id}, 0.15, "answer")
    for vector_cache in ("off", "on"):  # read from Lance, and from the rows in memory
        store.vectors.mode = vector_cache
        hits = store.search(question, k=10, scope=scope)
        assert [h.id for h in hits] == [i for i, _, _ in replay]
        assert [h.score for h in hits] == pytest.approx([s for _, s, _ in replay])
        assert {h.id for h in hits if "answer" in h.sources} == {turns[0].id}
    assert [h.id for h in hits][:2] == [turns[0].id, turns[1].id] != [h.id for h in plain][:2]
    unasked = "Did they go hiking?"  # asks for no kind: ranked as without the boost
    assert [h.id for h in store.search(unasked, k=10, scope=scope)] == \
        [h.id for h in search(store, unasked, k=10, scope=scope, config=SearchConfig(answer=0))]
