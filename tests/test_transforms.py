"""The polars transforms, on small frames whose answers are worked out by hand."""

from __future__ import annotations

from datetime import date, datetime, timezone

import polars as pl

from memlib.analytics import transforms

UTC = timezone.utc


def test_expiry_calendar_counts_upcoming_expiries_per_day_and_kind():
    ttl = pl.LazyFrame({
        "kind": ["issue", "issue", "decision", "issue", "learning", "summary"],
        "expires_at": [datetime(2026, 7, 2, 10, tzinfo=UTC), datetime(2026, 7, 2, 23, tzinfo=UTC),
                       datetime(2026, 7, 2, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC),
                       datetime(2026, 12, 1, tzinfo=UTC), None],
        "is_expired": [False, False, False, True, False, False],
    })
    out = transforms.expiry_calendar(ttl, datetime(2026, 7, 1, tzinfo=UTC), days=30).collect()
    assert out.to_dicts() == [
        {"expires_on": date(2026, 7, 2), "kind": "decision", "n_memories": 1},
        {"expires_on": date(2026, 7, 2), "kind": "issue", "n_memories": 2},
    ]


def test_recall_cohorts_share_of_cohort_recalled_by_month():
    memories = pl.LazyFrame({
        "id": ["a", "b", "c", "d"],
        "created_at": [datetime(2026, 1, 5, tzinfo=UTC), datetime(2026, 1, 20, tzinfo=UTC),
                       datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 2, 9, tzinfo=UTC)],
    })
    events = pl.LazyFrame({
        "memory_id": ["a", "a", "b", "c", "a"],
        "recalled_at": [datetime(2026, 1, 6, tzinfo=UTC), datetime(2026, 1, 7, tzinfo=UTC),
                        datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 2, 2, tzinfo=UTC),
                        datetime(2026, 3, 3, tzinfo=UTC)],
    })
    out = transforms.recall_cohorts(memories, events).collect()
    rows = {(r["cohort"], r["months_since"]): r["share_recalled"] for r in out.to_dicts()}
    assert rows == {(date(2026, 1, 1), 0): 0.5, (date(2026, 1, 1), 2): 1.0, (date(2026, 2, 1), 0): 0.5}


def _candidates():
    return pl.LazyFrame({
        "policy": ["p1", "p1", "p1", "p2"],
        "project_id": ["x", "x", "y", "x"],
        "est_bytes": [100, 50, 10, 100],
        "n_recalls_window": [0, 3, 0, 0],
        "reasons": [["expired"], ["decayed", "expired"], ["low_confidence"], ["expired"]],
    })


def test_policy_impact_and_totals():
    population = pl.LazyFrame({"project_id": ["x"] * 4 + ["y"] * 2, "project_name": ["X"] * 4 + ["Y"] * 2,
                               "n_recalls_window": [0, 3, 1, 0, 0, 2]})
    impact = transforms.policy_impact(_candidates(), population).collect()
    rows = {(r["policy"], r["project_id"]): r for r in impact.to_dicts()}
    assert rows[("p1", "x")]["n_dropped"] == 2 and rows[("p1", "x")]["archived_bytes"] == 150
    assert rows[("p1", "x")]["n_recently_recalled_lost"] == 1 and rows[("p1", "x")]["share_dropped"] == 0.5
    assert rows[("p1", "y")]["n_recalled_in_window"] == 1
    totals = transforms.policy_totals(impact.lazy()).collect().to_dicts()
    assert totals == [
        {"policy": "p1", "n_dropped": 3, "archived_bytes": 160, "n_recently_recalled_lost": 1},
        {"policy": "p2", "n_dropped": 1, "archived_bytes": 100, "n_recently_recalled_lost": 0},
    ]


def test_reason_counts():
    out = transforms.reason_counts(_candidates()).collect().to_dicts()
    assert out == [
        {"policy": "p1", "reason": "decayed", "n_memories": 1},
        {"policy": "p1", "reason": "expired", "n_memories": 2},
        {"policy": "p1", "reason": "low_confidence", "n_memories": 1},
        {"policy": "p2", "reason": "expired", "n_memories": 1},
    ]
