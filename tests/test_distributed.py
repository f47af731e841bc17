"""The usage mart by Daft (memlib.analytics.distributed) equals memlib's DuckDB view, row for
row, on the same store: on disk and in a bucket of the S3 server. Daft runs in this process
here; bench/events.py runs it on a two-worker Ray cluster at 100 million events."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memlib import MemoryStore, analytics
from memlib.analytics import distributed
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput
from memlib.sample import build_sample

pytestmark = pytest.mark.on_s3
pytest.importorskip("daft_lance", reason="the distributed path's engine (pip install -e '.[dev]')")

ANCHOR = datetime(2026, 11, 1, tzinfo=timezone.utc)


def test_daft_gives_the_rows_of_mart_usage_daily(store_uri, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLIB_CONTROL_PLANE", str(tmp_path / "control-plane.db"))
    store = MemoryStore.open(store_uri, embedder=HashEmbedder())
    build_sample(store, size=500, seed=4, anchor=ANCHOR)
    store.recalls.flush()  # Daft reads the Lance table; spooled events are the view's alone
    for as_of in ("2026-10-15", "2026-11-01"):
        con = analytics.connect(store, as_of=as_of, views=["mart_usage_daily"], time_travel=False)
        view = con.execute(f"select {', '.join(distributed.COLUMNS)} from mart_usage_daily order by all").fetchall()
        end = datetime.fromisoformat(as_of).replace(hour=23, minute=59, second=59, microsecond=999999,
                                                    tzinfo=timezone.utc)
        daft = distributed.usage_daily(store.uri, end)
        assert len(view) > 100 and [tuple(r.values()) for r in daft.to_pylist()] == view, as_of


def test_a_naive_time_is_refused_in_one_line(tmp_path):
    with pytest.raises(InvalidInput, match="aware"):
        distributed.usage_daily(str(tmp_path), datetime(2026, 11, 1))
