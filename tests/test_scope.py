"""The one escaping helper and the scope filters, against hostile input."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memlib import InvalidInput, Project, RootTask, Scope
from memlib.scope import sql_literal

# every test with a store fixture runs on local disk, on S3 and through a memory server
pytestmark = [pytest.mark.on_s3, pytest.mark.on_server]

HOSTILE = [
    "o'brien\" OR 1=1 --",
    "x' OR '1'='1",
    "a\\' OR 1=1 --",
    "'); DELETE FROM memories; --",
    "tab\tnew\nline",
    "ünïcødé ' \" ` ; --",
    "%",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_project_id_matches_only_itself(store, value):
    # a root task whose project_id is the hostile string cannot exist (parent check), so the
    # hostile value is stored where users can put anything: a tag and the source.
    target = Project(name="target", source=value, tags=[value])
    store.add([target, Project(name="bystander")])
    assert store.count(Scope(source=value, include_expired=True)) == 1
    assert store.count(Scope(tags=(value,), include_expired=True)) == 1
    assert store.count(Scope(project_id=value, include_expired=True)) == 0
    hits = store.search("target", mode="fts", scope=Scope(source=value))
    assert [h.memory.id for h in hits] == [target.id]


def test_hostile_value_as_project_scope(store):
    hostile = "o'brien\" OR 1=1 --"
    store.add([Project(name="a"), Project(name="b")])
    assert store.search("a", mode="vector", scope=Scope(project_id=hostile)) == []
    assert store.count(Scope(project_id=hostile)) == 0


def test_sql_literal_rejects_nul_and_objects():
    with pytest.raises(InvalidInput):
        sql_literal("a\x00b")
    with pytest.raises(InvalidInput):
        sql_literal(object())
    assert sql_literal("it's") == "'it''s'"


@pytest.mark.parametrize("kwargs", [{"project_id": "\x00"}, {"user_id": "a\x00"}, {"tags": ["ok", "b\x00"]},
                                    {"iteration_ids": ["\x00"]}])
def test_a_scope_with_a_nul_character_is_refused_when_it_is_made(kwargs):
    """Refused where the scope is made, in one line naming the field, not later by the filter."""
    field = next(iter(kwargs)).replace("_", " ")
    with pytest.raises(InvalidInput, match=f"^scope {field} must not contain a NUL character$"):
        Scope(**kwargs)


def test_scope_validates_its_fields():
    with pytest.raises(InvalidInput):
        Scope(kinds=("thought",))
    with pytest.raises(InvalidInput):
        Scope(level=7)
    with pytest.raises(InvalidInput):
        Scope(min_confidence=101)
    with pytest.raises(InvalidInput):
        Scope(created_after="yesterday")


def test_created_at_range_boundaries(store):
    base = datetime(2026, 3, 1, tzinfo=timezone.utc)
    projects = [Project(name=f"p{i}", created_at=base + timedelta(hours=i)) for i in range(48)]
    store.add(projects)
    day2 = datetime(2026, 3, 2, tzinfo=timezone.utc)
    # created_after is inclusive, created_before exclusive
    assert store.count(Scope(created_after=day2)) == 24
    assert store.count(Scope(created_before=day2)) == 24
    assert store.count(Scope(created_after=day2 - timedelta(hours=1))) == 25
    assert store.count(Scope(created_after=day2 + timedelta(microseconds=1))) == 23
    assert store.count(Scope(created_before=day2 + timedelta(microseconds=1))) == 25
    # a non-UTC bound means the same instant
    paris = timezone(timedelta(hours=1))
    assert store.count(Scope(created_after=datetime(2026, 3, 2, 1, tzinfo=paris))) == 24
    assert store.count(Scope(created_after="2026-03-02")) == 24


def test_expired_memories_are_excluded_unless_asked(store):
    now = datetime.now(timezone.utc)
    project = Project(name="p", created_at=now - timedelta(days=200))
    # the TTL given: one left out would count from the write (tests/test_lifetime.py)
    old = RootTask(project_id=project.id, objective="old task", created_at=now - timedelta(days=100), ttl_days=90)
    fresh = RootTask(project_id=project.id, objective="fresh task", created_at=now - timedelta(days=10), ttl_days=90)
    store.add([project, old, fresh])
    assert store.count(Scope(kinds=("root_task",))) == 1
    assert store.count(Scope(kinds=("root_task",), include_expired=True)) == 2
    # as of a past date the old task had not expired yet
    assert store.count(Scope(kinds=("root_task",), as_of=now - timedelta(days=20))) == 2
    # exactly at expires_at it counts as expired
    assert store.count(Scope(kinds=("root_task",), as_of=old.expires_at)) == 1
