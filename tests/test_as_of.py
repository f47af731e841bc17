"""A report as of a day reads the store as it was that day (time travel through the audit
log's version ledger), with the store's clock injected: memories written on day 1, changed
on day 2, one deleted and one removed by a retention run on day 3. Each report as of each
day matches a plain-Python computation of that day's state."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import expected
from memlib import Insight, MemoryStore, Project, analytics
from memlib.analytics import report_data
from memlib.clock import Clock
from memlib.embeddings import HashEmbedder
from memlib.lifecycle import curation, retention
from memlib.models import to_row

DAY = [datetime(2026, 9, d, 12, tzinfo=timezone.utc) for d in (1, 2, 3)]
END = [d.replace(hour=23, minute=59, second=59, microsecond=999999) for d in DAY]
NOW_POLICY = {"name": "now", "grace_days": 0, "min_decay_score": 0.0}  # removes what expired


def _state(memories) -> dict[str, dict]:
    """Rows as the store derives them (level, text, expires_at), from the models alone."""
    return {m.id: to_row(m) for m in memories}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    clock = Clock(DAY[0])
    store = MemoryStore.open(str(tmp_path_factory.mktemp("asof") / "store"), embedder=HashEmbedder(),
                             clock=clock)
    born = DAY[0] - timedelta(hours=2)
    project = Project(name="ledger", created_at=born - timedelta(days=200))
    a, b, c, d = (Insight(project_id=project.id, content=text, created_at=born, ttl_days=90)
                  for text in ("retries must be idempotent", "the cache hides stale prices",
                               "timeouts default to thirty seconds", "the writer batches by account"))
    store.add([project, a, b, c, d])
    store.recall("idempotent retries", k=2, agent="coder")
    states = [_state([project, a, b, c, d])]

    clock.set(DAY[1])
    curation.adjust_confidence(store, a.id, -40, reason="contradicted by an incident")
    store.update(b.id, ttl_days=1)
    store.recall("stale prices cache", k=2, agent="reviewer")
    day2 = _state([project, a.model_copy(update={"confidence": 60}), b.model_copy(update={"ttl_days": 1}), c, d])
    states.append(day2)

    clock.set(DAY[2])
    store.delete([c.id])
    run = retention.apply(store, NOW_POLICY, END[2])
    assert run.removed == 1 and run.plan["candidates"] == 1  # b, expired on day 2
    states.append({k: v for k, v in day2.items() if k not in (b.id, c.id)})
    clock.set(None)
    _, events = expected.raw(store)
    return store, states, events, {"a": a, "b": b, "c": c}


@pytest.mark.parametrize("day", [0, 1, 2])
def test_each_report_as_of_each_day_matches_that_days_state(history, day):
    store, states, events, _ = history
    memories = list(states[day].values())
    want = expected.headlines(memories, events, END[day])
    con = analytics.connect(store, as_of=END[day])
    got = {"usage": report_data.usage(con).headline, "ttl_decay": report_data.ttl_decay(con).headline,
           "confidence": report_data.confidence(con).headline,
           "retention": report_data.retention(con).headline}
    for report, numbers in want.items():
        for key, value in numbers.items():
            assert got[report][key] == (pytest.approx(value) if isinstance(value, float) else value), \
                (day, report, key)
    ids = {r[0] for r in con.execute("select id from mart_ttl").fetchall()}
    assert ids == set(states[day])
    confidence = dict(con.execute("select id, confidence from int_memory_as_of").fetchall())
    assert confidence == {i: m["confidence"] for i, m in states[day].items()}


def test_the_deleted_and_the_removed_memory_are_there_before_day_3(history):
    store, _, _, m = history
    for day, present in ((0, True), (1, True), (2, False)):
        con = analytics.connect(store, as_of=END[day])
        ids = {r[0] for r in con.execute("select id from int_memory_as_of").fetchall()}
        assert (m["c"].id in ids) is present and (m["b"].id in ids) is present, day
    day1 = analytics.connect(store, as_of=END[0])
    ttl = dict(day1.execute("select id, ttl_days from int_memory_as_of").fetchall())
    assert ttl[m["b"].id] == 90  # day 2's change is not visible as of day 1


def test_the_report_says_which_version_it_read(history):
    store, _, _, _ = history
    seen = [report_data.read_from(analytics.connect(store, as_of=END[d])) for d in range(3)]
    assert seen[0]["store_version"] < seen[1]["store_version"] < seen[2]["store_version"] == store.version
    assert [s["store_version_at"].date() for s in seen] == [d.date() for d in DAY]


def test_a_backfill_through_the_store_clock_is_in_reports_dated_after_it(tmp_path):
    """Memories given no created_at, written by a store whose clock says t, are made at t:
    a report as of the day after t counts them (the models' default read the wall clock, so
    they were missing although `history --as-of` showed them)."""
    then = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), clock=Clock(then))
    project = Project(name="backfill")
    notes = [Insight(project_id=project.id, content=f"backfilled note {i}") for i in range(3)]
    store.add([project, *notes])
    assert store.get(notes[0].id).created_at == then == notes[0].updated_at
    con = analytics.connect(store, as_of="2026-03-02")
    (n,) = con.sql("select count(*) from stg_memories where kind = 'insight'").fetchone()
    assert n == 3
    given = Insight(project_id=project.id, content="dated by its writer", created_at=then - timedelta(days=9))
    store.add([given])
    assert store.get(given.id).created_at == then - timedelta(days=9)  # a given time stays


def test_connect_names_an_unknown_parameter_in_one_line(tmp_path):
    from memlib import InvalidInput

    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    with pytest.raises(InvalidInput, match="unknown report parameter 'project'.*project_id"):
        analytics.connect(store, project="nosuch")
