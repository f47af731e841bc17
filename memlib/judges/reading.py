"""Reading after the write: the store's judge reads the knowledge memories not yet read and
records what it found, so a write pays only for the duplicate checks.

A memory of a kind that states something (consensus.duplicates.KINDS) of a project, or of a
person with no project, is read once per judge: against the CANDIDATES memories nearest it
among those of its project (its iteration and person alike) read before it. Unread ones are
read oldest first, so every pair is judged once, when its later-read side is read. Each
chunk of readings is one commit to the audit log: a 'judged' event per memory read (actor:
the judge, details.found: how many pairs it found), a 'contradiction' event on each side of
a pair flagged (details: the other, which is newer, the kind, the judge) and an 'update'
event of the newer memory when it reports the change (details.of: the older). A reading
killed mid-way loses only its uncommitted chunk, which the next reading reads again; a
memory keeps its id through `memlib reembed`, so it is not read again.

One process reads a local store at a time (the store's judge lock; a second one finds it
taken and leaves the work to the first). On object storage two readers may race: each
drops, before it commits, what the other recorded meanwhile.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import numpy as np
import pyarrow as pa

from memlib.consensus.duplicates import CANDIDATES, KINDS, unit_rows
from memlib.judges import Judge, Option
from memlib.scope import Scope, sql_in, sql_literal
from memlib.store.concurrency import WriterLock
from memlib.store.storage import is_local

log = logging.getLogger("memlib")
NICE = 10  # how much lower a following reader's priority is than its parent's
CHUNK = 512  # memories read per commit: what a kill can cost
BLOCK = 256  # unread memories whose cosines to their group are one matrix product
COLUMNS = ["id", "project_id", "user_id", "iteration_id", "kind", "text", "created_at"]


def judged(store, judge: Judge, ids: list[str] | None = None) -> set[str]:
    """The ids `judge` has read in this store (of `ids`, when given)."""
    data = store.audit_dataset()
    if data is None:
        return set()
    where = f"action = 'judged' AND actor = {sql_literal(judge.spec)}"
    if ids is not None:
        where += " AND " + sql_in("subject_id", ids)
    return set(data.to_table(columns=["subject_id"], filter=where).column("subject_id").to_pylist())


def _readable(store, columns: list[str], where: str | None = None) -> pa.Table:
    """The knowledge memories a judge reads (of a project, or a person's own), live now."""
    scope = Scope(kinds=KINDS).where(store.clock.now())
    filter_ = f"({scope}) AND (project_id IS NOT NULL OR user_id IS NOT NULL)"
    if where:
        filter_ += f" AND ({where})"
    return store.dataset().to_table(columns=columns, filter=filter_)


def unread(store, judge: Judge | None = None) -> int:
    """How many knowledge memories the store's judge (or `judge`) has not read yet."""
    judge = judge or store.judge
    ids = _readable(store, ["id"]).column("id").to_pylist()
    done = judged(store, judge)
    return sum(1 for i in ids if i not in done)


def unread_of(store, ids: list[str], judge: Judge | None = None) -> int:
    """How many of `ids` are knowledge memories not read yet (cheap: for a handful of ids)."""
    if not ids:
        return 0
    judge = judge or store.judge
    knowledge = {r["id"] for r in store.lookup(ids, ["id", "kind"]).values() if r["kind"] in KINDS}
    if not knowledge:
        return 0
    return len(knowledge - judged(store, judge, sorted(knowledge)))


def read(store, judge: Judge | None = None, everything: bool = False, progress: bool = False,
         wait: bool = False) -> dict[str, Any]:
    """Read what the store's judge (or `judge`) has not read; `everything`: read every
    knowledge memory again (a new judge, new rules), a pair it recorded already not twice.
    Returns what it did: memories read, contradictions and updates found, seconds and the
    rate, or `busy` when another process is reading this store (unless `wait`: then after it)."""
    judge = judge or store.judge
    started = time.perf_counter()
    lock = WriterLock(store.uri, "judge")
    with (lock.held() if wait else lock.tried()) as mine:
        if mine is False:
            return {"judge": judge.spec, "read": 0, "busy": True}
        done = set() if everything else judged(store, judge)
        known = _recorded_pairs(store, judge) if everything else set()
        listed = _readable(store, ["id", "project_id", "user_id"]).to_pylist()
        todo = [r for r in listed if r["id"] not in done]
        if not todo:
            return {"judge": judge.spec, "read": 0, "contradictions": 0, "updates": 0,
                    "seconds": round(time.perf_counter() - started, 2), "per_second": None}
        keys = {_key(r) for r in todo}
        projects = sorted({k[1] for k in keys if k[0] == "project"})
        people = sorted({k[1] for k in keys if k[0] == "person"})
        where = " OR ".join(filter(None, (projects and sql_in("project_id", projects),
                                          people and f"(project_id IS NULL AND {sql_in('user_id', people)})")))
        table = _readable(store, [*COLUMNS, "embedding"], where)
        rows = table.select(COLUMNS).to_pylist()
        vectors = table.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, store.dims)
        for n, row in enumerate(rows):
            row["at"] = n  # its embedding's row in `vectors`
        found = {"contradictions": 0, "updates": 0}
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc=f"reading ({judge.spec})", unit="memory", disable=None)
        pending: list[tuple[dict, list[tuple[Option, str]]]] = []
        for group_rows in _groups(rows).values():
            fresh = sorted((r for r in group_rows if r["id"] not in done), key=lambda r: (r["created_at"], r["id"]))
            if not fresh:
                continue
            before = [r for r in group_rows if r["id"] in done]
            for memory, options in _candidates(vectors, before, fresh):
                pending.append((memory, options))
                if len(pending) >= CHUNK:
                    _commit(store, judge, pending, known, found, everything)
                    if bar is not None:
                        bar.update(len(pending))
                    pending = []
        if pending:
            _commit(store, judge, pending, known, found, everything)
            if bar is not None:
                bar.update(len(pending))
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - started
    return {"judge": judge.spec, "read": len(todo), **found, "seconds": round(seconds, 2),
            "per_second": round(len(todo) / seconds, 1) if todo and seconds > 0 else None}


def _key(row: dict) -> tuple[str, str]:
    """What a judge compares a memory within: its project, or its person's memories of none."""
    return ("project", row["project_id"]) if row["project_id"] else ("person", row["user_id"])


def _groups(rows: list[dict]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for row in rows:
        out.setdefault(_key(row), []).append(row)
    return out


def _candidates(vectors: np.ndarray, before: list[dict], fresh: list[dict]):
    """Each of `fresh` (oldest first) with the CANDIDATES rows nearest it of those read
    before it (`before`, then the fresh ones ahead of it), of its iteration and person:
    (row, [Option]) where the option is older or newer by created_at. A row's embedding is
    the row `at` of `vectors`."""
    ordered = before + fresh
    unit = unit_rows(vectors[[r["at"] for r in ordered]])
    keys = {}
    codes = np.array([keys.setdefault((r["iteration_id"], r["user_id"]), len(keys)) for r in ordered])
    offset = len(before)
    for start in range(0, len(fresh), BLOCK):
        end = min(start + BLOCK, len(fresh))
        rows_at = np.arange(offset + start, offset + end)
        width = offset + end
        if width == 0:
            continue
        cosines = unit[rows_at] @ unit[:width].T
        cosines[np.arange(width)[None, :] >= rows_at[:, None]] = -np.inf  # itself and after it
        cosines[codes[:width][None, :] != codes[rows_at][:, None]] = -np.inf
        k = min(CANDIDATES, width)
        nearest = np.argpartition(-cosines, k - 1, axis=1)[:, :k] if k < width else np.tile(np.arange(width), (len(rows_at), 1))
        for n, at in enumerate(rows_at):
            options = [Option(ordered[c]["id"], ordered[c]["text"], ordered[c]["created_at"], float(cosines[n, c]))
                       for c in nearest[n] if np.isfinite(cosines[n, c])]
            options.sort(key=lambda o: (-o.cosine, o.id))
            yield ordered[at], options


def _commit(store, judge: Judge, pending, known: set, found: dict, again: bool) -> None:
    """Judge `pending` (row, options) and record it all in one commit of the audit log;
    unless reading `again`, what a racing reader recorded meanwhile is left to it."""
    said = judge.read([(row["text"], options) for row, options in pending])
    already = set() if again else judged(store, judge, [row["id"] for row, _ in pending])
    events: list[pa.Table] = []
    judged_ids, judged_details = [], []
    for (row, _), pairs in zip(pending, said):
        if row["id"] in already:
            continue
        judged_ids.append(row["id"])
        judged_details.append({"found": len(pairs), "project_id": row["project_id"]})
        for option, kind in pairs:
            newer_id, older_id = ((row["id"], option.id) if (row["created_at"], row["id"]) >= (option.created_at, option.id)
                                  else (option.id, row["id"]))
            pair = (kind == "update", frozenset((newer_id, older_id)))
            if pair in known:
                continue
            known.add(pair)
            details = {"kind": kind, "cosine": round(option.cosine, 4), "project_id": row["project_id"],
                       "judge": judge.spec}
            if kind == "update":
                found["updates"] += 1
                events.append(store.event_rows("update", [newer_id], actor=judge.spec, details={**details, "of": older_id}))
            else:
                found["contradictions"] += 1
                events.append(store.event_rows("contradiction", [newer_id, older_id], actor=judge.spec, details=[
                    {**details, "with": older_id, "newer": newer_id}, {**details, "with": newer_id, "newer": newer_id}]))
    if judged_ids:
        events.insert(0, store.event_rows("judged", judged_ids, actor=judge.spec, details=judged_details))
    if events:
        store.append_events(pa.concat_tables(events))


def _recorded_pairs(store, judge: Judge) -> set:
    """The pairs `judge` recorded already (an update apart from a contradiction)."""
    out = set()
    for event in store.audit_events(f"action IN ('contradiction', 'update') AND actor = {sql_literal(judge.spec)}"):
        other = event["details"].get("with") or event["details"].get("of")
        out.add((event["action"] == "update", frozenset((event["subject_id"], other))))
    return out


def follow(store, interval: float, parent: int | None = None) -> None:
    """Read what is written, every `interval` seconds, until the process that started this
    one ends (a memory server's reader) or Ctrl-C, at a lower priority than the processes
    that write. A turn with no new commit to the store reads nothing; one that fails is
    logged and tried again at the next. `parent`: the pid of the process that started this
    one, as it said (a server that ended while this one was starting is not mistaken for the
    process this one was then handed to); else the parent as it is now."""
    os.nice(NICE)
    parent, seen = parent or os.getppid(), None
    local = store.uri.removeprefix("file://") if is_local(store.uri) else None
    try:
        while os.getppid() == parent and (local is None or os.path.isdir(local)):
            version = store.refresh()
            if version != seen:
                try:
                    done = store.read_unread()
                    if not done.get("busy"):
                        seen = version
                except Exception as exc:  # the server goes on; so does its reader
                    log.warning("memlib: reading memories for contradictions failed (%s); trying again", exc)
            time.sleep(interval)
    except KeyboardInterrupt:
        pass
