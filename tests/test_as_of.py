"""One AsOf: a day and its end instant, parsed once at the edge; now by the store's clock."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from memlib.clock import AsOf, Clock
from memlib.errors import InvalidInput

END = datetime(2026, 11, 1, 23, 59, 59, 999999, tzinfo=timezone.utc)


def test_a_date_means_its_end_a_time_itself_and_nothing_the_clocks_now():
    for given in ("2026-11-01", date(2026, 11, 1), " 2026-11-01 "):
        assert AsOf.of(given) == AsOf(date(2026, 11, 1), END)
    noon = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)
    assert AsOf.of(noon) == AsOf(date(2026, 11, 1), noon) == AsOf.of("2026-11-01T12:00:00+00:00")
    assert AsOf.of("2026-11-01T13:00:00+01:00").end == noon
    fixed = Clock(datetime(2025, 3, 4, 5, 6, tzinfo=timezone.utc))
    assert AsOf.of(None, fixed) == AsOf(date(2025, 3, 4), fixed.now())
    assert AsOf.of(None, fixed).whole_day().end == datetime(2025, 3, 4, 23, 59, 59, 999999, tzinfo=timezone.utc)
    parsed = AsOf.of("2026-11-01")
    assert AsOf.of(parsed) is parsed and str(parsed) == "2026-11-01"


@pytest.mark.parametrize("bad, message", [("someday", "--as-of: 'someday' is not an ISO date"),
                                          ("v12", "--as-of: 'v12' is not an ISO date"),
                                          ("1900-01-01", "--as-of: 1900-01-01 is outside 1970 to 2200"),
                                          (12, "--as-of: 12 is not a date")])
def test_anything_else_is_one_line_naming_the_option(bad, message):
    with pytest.raises(InvalidInput) as raised:
        AsOf.of(bad, what="--as-of")
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_a_commit_between_reading_the_ledger_and_listing_the_versions_is_no_error(tmp_path, monkeypatch):
    """A report as of today on a store another process writes to: the version current now was
    looked up from the versions listed and then the ledger, and a commit between the two made
    the ledger name a version newer than every listed one ("the versions of the store as of
    <today> were cleaned up", 28 times in the server's soak)."""
    from memlib import MemoryStore, Project
    from memlib.embeddings import HashEmbedder
    from memlib.store import versions

    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    store.add([Project(name="first")])
    listed, real = [], versions.kept

    def kept_then_another_commit(table):
        found = real(table)
        if not listed:
            listed.append(max(found))
            store.add([Project(name="written meanwhile")])  # as another writer's commit would be
        return found

    monkeypatch.setattr(versions, "kept", kept_then_another_commit)
    today = AsOf.of(store.clock.now().date(), store.clock)  # its end: after the commit meanwhile
    assert store.version_at(today) == listed[0]
