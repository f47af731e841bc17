"""A question that names a day, a month or a year is answered from what was said then first;
a month or a day named without a year is that month or day of any year."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest
from hypothesis import given, strategies as st

from memlib import Conversation, MemoryStore, Project, Scope
from memlib.embeddings import HashEmbedder
from memlib.search import SearchConfig
from memlib.search.search import search
from memlib.search.dates import Period, named_period


def utc(*parts) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, period", [
    ("What did Caroline do in May 2023?", Period(utc(2023, 5, 1), utc(2023, 6, 1))),
    ("what happened in december, 2023", Period(utc(2023, 12, 1), utc(2024, 1, 1))),
    ("When on 8 May, 2023 did she call?", Period(utc(2023, 5, 8), utc(2023, 5, 9))),
    ("the talk on May 8th 2023", Period(utc(2023, 5, 8), utc(2023, 5, 9))),
    ("the photo shared on December 1,2023", Period(utc(2023, 12, 1), utc(2023, 12, 2))),  # no space after the comma
    ("What did they build in 2022?", Period(utc(2022, 1, 1), utc(2023, 1, 1))),
    ("31 February 2023", Period(utc(2023, 2, 1), utc(2023, 3, 1))),  # no such day: the month
    ("When did she go camping in June?", Period(utc(2000, 6, 1), utc(2000, 7, 1), every_year=True)),
    ("the second week of November", Period(utc(2000, 11, 1), utc(2000, 12, 1), every_year=True)),
    ("what did he do in December", Period(utc(2000, 12, 1), utc(2001, 1, 1), every_year=True)),
    ("his party on 29 February", Period(utc(2000, 2, 29), utc(2000, 3, 1), every_year=True)),
    ("the call on May 8th", Period(utc(2000, 5, 8), utc(2000, 5, 9), every_year=True)),
    ("May I ask what you did?", None),
    ("June was lovely", None),  # a month without a year must follow "in", "on", "of", ...
    ("the 2022 budget", None),  # a year that names no period of the talk
    ("no date at all", None),
])
def test_the_named_period(text, period):
    assert named_period(text) == period


@pytest.mark.parametrize("when, inside", [
    (utc(2023, 6, 1), True), (utc(2021, 6, 30, 23, 59), True), (utc(2023, 7, 1), False), (utc(2024, 5, 31), False),
])
def test_a_month_without_a_year_holds_that_month_of_every_year(when, inside):
    assert (when in named_period("camping in June")) is inside
    assert (when in named_period("camping in June 2023")) is (inside and when.year == 2023)


def test_the_29th_of_february_is_a_day_of_leap_years_and_december_ends_the_year():
    assert utc(2024, 2, 29) in named_period("on 29 February")
    assert utc(2023, 3, 1) not in named_period("on 29 February")
    assert utc(2023, 12, 31, 23) in named_period("in December") and utc(2024, 1, 1) not in named_period("in December")


@given(st.text())
def test_any_text_names_a_period_or_none(text):
    period = named_period(text)
    assert period is None or period.start < period.end


@pytest.mark.parametrize("question", ["Where did we go hiking in May 2023?", "Where did we go hiking in May?"])
def test_a_turn_from_the_named_period_ranks_first(tmp_path, question):
    """Two turns say the same; the one said in the month the question names (with its year
    or without) comes first, though without the period it would come second (ties go by id)."""
    project = Project(name="p")
    july, may = sorted(str(uuid.uuid4()) for _ in range(2))  # without the period, July's comes first
    turns = [Conversation(id=i, project_id=project.id, content="we went hiking in the hills", ttl_days=-1,
                          created_at=when, updated_at=when)
             for i, when in ((july, utc(2023, 7, 2)), (may, utc(2023, 5, 9)))]
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    store.add([project, *turns])
    scope = Scope(project_id=project.id, kinds=("conversation",))
    for vector_cache in ("off", "on"):  # read from Lance, and from the rows in memory
        store.vectors.mode = vector_cache
        hits = store.search(question, k=2, scope=scope)
        assert [h.id for h in hits] == [may, july]
        assert hits[0].sources["period"] > 0
    undated = search(store, question, k=2, scope=scope, config=SearchConfig(dated=0))
    assert [h.id for h in undated] == [july, may]
    assert [h.id for h in store.search("Where did we go hiking?", k=2, scope=scope)] == [july, may]
