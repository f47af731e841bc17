"""Versions of the memories table, and which one a version number, tag or date names.

Time travel reads the Lance version that was current at a date. Which version that was comes
from the audit log's ledger: every change to the memories is recorded with the version it
committed and the store clock's time (store/audit.py). Lance's own commit timestamps are
wall-clock times, so a backfill (`memlib sample` writes a 240-day history) or a test with an
injected clock could not be read back through them; they serve only stores written before
the ledger existed. The versions between two recorded changes (index builds, compaction)
hold the same memories, so a date resolves to the newest of them that is still kept.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

from memlib.clock import AsOf
from memlib.errors import InvalidInput


def kept(table) -> dict[int, datetime]:
    """Every version Lance still keeps, with its commit time (UTC)."""
    # Lance gives naive local times; astimezone() reads a naive time as local
    return {v["version"]: v["timestamp"].astimezone(timezone.utc) for v in table.list_versions()}


def is_number(spec: str | int) -> bool:
    """Whether `spec` names a version by its number (12 or "v12"), not a tag or a date."""
    text = str(spec).strip()
    return isinstance(spec, int) or (text.lstrip("v").isdigit() and not text.startswith("0"))


def named(table, spec: str | int) -> int:
    """The table version a number (12, "12", "v12") or a tag names."""
    versions = kept(table)
    text = str(spec).strip()
    if is_number(spec):
        number = int(text.lstrip("v"))
        if number not in versions:
            raise InvalidInput(f"the store has no version {number} (versions {min(versions)} "
                               f"to {max(versions)} are kept)")
        return number
    tags = table.tags.list()
    if text not in tags:
        raise InvalidInput(f"the store has no version or tag named {text!r}")
    return tags[text]["version"]


def at(table, audit, as_of: AsOf) -> int:
    """The table version current at `as_of`'s instant. The ledger is read before the versions
    are listed: a version the ledger names was committed before it was recorded, so the
    listing has it, even when another process commits in between (listed first, a commit
    recorded after the listing was a version newer than any listed, and a report as of today
    said its versions had been cleaned up)."""
    ledger = audit.ledger()
    return current_at(kept(table), ledger, as_of.end)


def current_at(versions: dict[int, datetime], ledger: list[tuple[int, datetime]],
               when: datetime) -> int:
    """The version whose memories were the store's at `when`."""
    if ledger:
        before = [v for v, at in ledger if at <= when]
        after = [v for v, at in ledger if at > when and v > max(before, default=0)]
        if not before:
            raise InvalidInput(f"the store has no version as old as {when:%Y-%m-%d %H:%M:%S} UTC "
                               f"(its first change is from {ledger[0][1]:%Y-%m-%d %H:%M:%S} UTC)")
        low, high = max(before), (min(after) - 1 if after else max(versions))
        same = [v for v in versions if low <= v <= high]
        if not same:
            raise InvalidInput(f"the versions of the store as of {when:%Y-%m-%d} were cleaned up")
        return max(same)
    then = [v for v, at in versions.items() if at <= when]
    if not then:
        oldest = min(versions.values())
        raise InvalidInput(f"the store has no version as old as {when:%Y-%m-%d %H:%M:%S} UTC "
                           f"(the oldest kept is from {oldest:%Y-%m-%d %H:%M:%S} UTC)")
    return max(then)


def committed_at(versions: dict[int, datetime], ledger: list[tuple[int, datetime]],
                 version: int) -> datetime:
    """When `version`'s memories were written: the ledger's time of the newest recorded
    change at or before it, else Lance's commit time."""
    recorded = [at for v, at in ledger if v <= version]
    return max(recorded) if recorded else versions[version]


# The as-of window: a report as of any of the last HISTORY_DAYS days reads the version that
# was current at that day's end, so maintain keeps exactly those versions (tagged, so Lance's
# cleanup leaves them), the tagged ones of retention runs and the latest, and cleans up every
# other version older than CLEANUP_GRACE (a reader still on an older version has that long).
HISTORY_DAYS = 30
CLEANUP_GRACE = timedelta(hours=1)
AS_OF_TAG = "memlib-as-of-"
NO_CLEANUP = timedelta(days=36_500)  # what Table.optimize is given: cleanup is keep_window's


def keep_window(table, audit, now: datetime, days: int = HISTORY_DAYS) -> dict[str, int]:
    """Tag the version current at the end of each of the last `days` days (today included)
    and drop the as-of tags of days that left the window. Returns {tag: version}."""
    versions = kept(table)
    ledger = audit.ledger()
    wanted = {}
    for back in range(days + 1):
        day = (now - timedelta(days=back)).date()
        try:
            version = current_at(versions, ledger, datetime.combine(day, time.max, tzinfo=timezone.utc))
        except InvalidInput:  # the store is younger than the window, or that day is gone
            continue
        wanted[f"{AS_OF_TAG}{day.isoformat()}"] = version
    tags = table.tags.list()
    for name, info in tags.items():
        if name.startswith(AS_OF_TAG) and wanted.get(name) != info["version"]:
            table.tags.delete(name)
    for name, version in wanted.items():
        if tags.get(name, {}).get("version") != version:
            table.tags.create(name, version)
    return wanted


def clean_up(table, grace: timedelta = CLEANUP_GRACE) -> dict[str, int]:
    """Remove every version older than `grace` that no tag keeps (the latest always stays)."""
    stats = table.to_lance().cleanup_old_versions(older_than=grace, error_if_tagged_old_versions=False)
    return {"versions_removed": stats.old_versions, "bytes_removed": stats.bytes_removed}
