"""One sync of a workspace with its store: afterwards both say the same, and the state file
records what they agreed on (`.memlib/state.json`: per file its hash and per entry its key,
memory id and the two fingerprints of convert.py).

Against that state a sync tells, per entry, whether the file changed it, the store changed
it, or both:
- file only: the memory is updated (re-embedded if its text changed), added, or deleted
  (reversibly: a retention run `memlib retention undo` restores, with audit events);
- store only: the entry is rewritten from the memory, or removed from its file;
- both, and they differ: a conflict. The file wins by default (`prefer="store"`: the store),
  the losing version is kept as a `workspace_conflict` audit event, and the report says so.
  Both changed to the same words is no conflict (a sync killed halfway is completed so).

Order: the store's changes commit first, then the state the sync will leave is written
aside (`.memlib/state.next.json`), then each file is replaced atomically, then the state; a
sync killed anywhere is completed by the next one, ids included: a file that already holds
what the killed sync wrote is read with the records it wrote them with (entries that moved
inside a file are not paired again by position), the others with the state before.
A file whose hash matches the state is not parsed (its entries are as recorded) unless the
store changed one of its memories.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from memlib.errors import InvalidInput
from memlib.interface import StoreInterface
from memlib.models import Kind, from_row, title_key
from memlib.scope import sql_in, sql_literal
from memlib.store.journal import gated
from memlib.workspace import convert, markdown
from memlib.workspace.files import MEMORY, STATE_DIR, day_of
from memlib.workspace.markdown import ENTRY_KINDS

STATE = f"{STATE_DIR}/state.json"
NEXT = f"{STATE_DIR}/state.next.json"
JOURNAL = f"{STATE_DIR}/journal.jsonl"
STATE_VERSION = 1
Step = Callable[[str], None]
SAME = object()  # a memory the store did not change since the last sync


def _nothing(step: str) -> None:
    pass


@dataclass
class Report:
    files: int = 0
    parsed: int = 0
    added: int = 0
    updated: int = 0
    embedded: int = 0  # updated entries whose text changed (the rest keep their vectors)
    deleted: int = 0
    written: int = 0  # entries the store changed, written to files
    removed: int = 0  # entries the store deleted, removed from files
    unchanged: int = 0
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    undo: str | None = None  # the retention run that restores the deleted memories
    files_written: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"{self.files} files ({self.parsed} read)", f"{self.added} added",
                 f"{self.updated} updated ({self.embedded} re-embedded)", f"{self.deleted} deleted",
                 f"{self.written} written to files", f"{self.removed} removed from files",
                 f"{self.unchanged} unchanged", f"{len(self.conflicts)} conflicts"]
        line = "; ".join(parts)
        if self.undo:
            line += f"\nundo the deletions: memlib retention undo {self.undo}"
        for c in self.conflicts:
            line += (f"\nconflict in {c['file']} ({c['memory_id']}): both changed since the last sync; "
                     f"kept the {c['kept']}'s version, the other is in the audit log (workspace_conflict)")
        return line

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def file_sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def entries_of(relative: str) -> str:
    return "memory" if relative == MEMORY else "daily"


def _read_state(ws, relative: str) -> dict[str, Any] | None:
    text = ws.files.read(relative)
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise InvalidInput(f"{ws.files.root / relative}: not JSON; delete it and sync again "
                           f"(entries are found again by their place in the files)") from None


def load_state(ws, current: dict[str, str] | None = None) -> dict[str, Any]:
    """The state of the last sync, with the journal of entries appended since folded in, and
    the records of a killed sync for each file that holds what it wrote (`current`: the
    files' texts now)."""
    state = _read_state(ws, STATE) or {"version": STATE_VERSION, "files": {}}
    for line in (ws.files.read(JOURNAL) or "").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash: its entry is found again by its id
        state["files"].setdefault(rec["file"], {"sha": None, "entries": {}})["entries"][rec["key"]] = rec["entry"]
    killed = _read_state(ws, NEXT)
    for relative, record in (killed or {}).get("files", {}).items():
        if current is not None and relative in current and file_sha(current[relative]) == record["sha"]:
            state["files"][relative] = record
    return state


def save_state(ws, state: dict[str, Any]) -> None:
    ws.files.write(STATE, json.dumps(state, ensure_ascii=False, separators=(",", ":")))
    for relative in (JOURNAL, NEXT):
        if ws.files.path(relative).exists():
            ws.files.path(relative).unlink()


def run(ws, store: StoreInterface, prefer: str = "file", actor: str | None = None, on_step: Step = _nothing) -> Report:
    if prefer not in ("file", "store"):
        raise InvalidInput(f"prefer must be 'file' or 'store', not {prefer!r}")
    ws.check()  # a bad folder is refused before the lock is taken (and its file made)
    with ws.files.locked():
        return _Sync(ws, store, prefer, actor, on_step).run()


class _Sync:
    def __init__(self, ws, store: StoreInterface, prefer, actor, on_step):
        self.ws, self.store, self.prefer, self.actor, self.on_step = ws, store, prefer, actor, on_step
        self.zone = ws.zone
        self.now = store.clock.now()
        self.report = Report()
        self.upserts: dict[str, Any] = {}  # memory id -> memory to write
        self.added: set[str] = set()
        self.deletes: list[str] = []
        self.conflicts: list[tuple[str, dict]] = []
        self.taken: dict[tuple[str, str], str] | None = None  # decision and pattern titles in use
        self.stored: dict[str, Any] = {}  # memory id -> the stored memory (None: not stored)
        self.texts: dict[str, str] = {}  # files to write: relative -> new text

    def run(self) -> Report:
        store, ws = self.store, self.ws
        store.refresh()  # what other processes committed until now, saves included
        ws.ensure_project(store)
        paths = ws.entry_files()
        current = {p: ws.files.read(p) or "" for p in paths}
        state = load_state(ws, current)
        back = self._unrecorded(state, current)
        if back:  # in the store and in no file (an undo restored them): written back where they were
            ws.append(store, back, self.actor, back=True)
            self.report.written += len(back)
            paths = ws.entry_files()
            current = {p: ws.files.read(p) or "" for p in paths}
            state = load_state(ws, current)
        gone = [p for p in state["files"] if p not in paths]
        self.report.files = len(paths)
        recorded = {i: rec for f in state["files"].values() for i, rec in _by_id(f).items()}
        changed = self._store_changes(recorded)
        new_state: dict[str, Any] = {"version": STATE_VERSION, "files": {}}
        todo = []
        for relative in paths + gone:
            text = current.get(relative, "")
            sha = file_sha(text)
            old = state["files"].get(relative, {"sha": None, "entries": {}})
            touched = any(rec["id"] in changed for rec in old["entries"].values())
            if old["sha"] == sha and not touched and not _pending(old):
                new_state["files"][relative] = old
                self.report.unchanged += len(old["entries"])
                continue
            self.report.parsed += 1
            doc = markdown.parse(text, entries_of(relative))
            todo.append((relative, sha, doc, *_match(old["entries"], doc.entries)))
        self._prefetch(todo)
        for relative, sha, doc, pairs, fresh, lost in todo:
            entries = self._file(relative, doc, pairs, fresh, lost, changed)
            # a file memlib rewrites gets the hash of what it writes, below
            new_state["files"][relative] = {"sha": None if relative in self.texts else sha, "entries": entries}
        for relative in gone:
            if not new_state["files"][relative]["entries"] and relative not in self.texts:
                del new_state["files"][relative]
        self._commit()
        _fill_revisions(self.store, new_state)
        self.on_step("store")
        for relative, text in self.texts.items():
            new_state["files"][relative]["sha"] = file_sha(text)
        if self.texts:  # what the files will hold, for a sync that completes this one
            ws.files.write(NEXT, json.dumps(new_state, ensure_ascii=False, separators=(",", ":")))
        for relative, text in self.texts.items():
            ws.files.write(relative, text)
            self.report.files_written.append(relative)
            self.on_step(f"file {relative}")
        save_state(ws, new_state)
        self.on_step("state")
        return self.report

    # -- reading both sides -------------------------------------------------------------------

    def _unrecorded(self, state: dict[str, Any], current: dict[str, str]) -> list:
        """The memories that came from the workspace's files and are in the store, but in no
        file and no record of one: put back by an undo of the sync that deleted them. Oldest
        first. (An entry a killed sync added to the store is still in its file, under the
        key its id derives from: not one of these.)"""
        recorded = {rec["id"] for f in state["files"].values() for rec in f["entries"].values()}
        kinds = sorted(k.value for k in ENTRY_KINDS)
        ids = self.store.dataset().to_table(columns=["id"], filter=(
            f"project_id = {sql_literal(self.ws.project_id)} AND source = {sql_literal(convert.SOURCE)} "
            f"AND {sql_in('kind', kinds)}")).column("id").to_pylist()
        missing = [i for i in ids if i not in recorded]
        if not missing:
            return []
        back, in_files = [], {}
        for memory in self._read(missing).values():
            relative = (memory.metadata or {}).get("source_file") if memory is not None else None
            if relative is None or (relative != MEMORY and day_of(relative) is None):
                continue
            if relative not in in_files:  # a file deleted whole is made again
                doc = markdown.parse(current.get(relative, ""), entries_of(relative))
                in_files[relative] = {convert.derived_id(self.ws.project_id, relative, e.key) for e in doc.entries}
            if memory.id not in in_files[relative]:
                back.append(memory)
        return sorted(back, key=lambda m: (m.created_at, m.id))

    def _store_changes(self, recorded: dict[str, dict]) -> dict[str, Any]:
        """The memories whose text changed since the last sync: id -> memory, or None when it
        is gone from the store. Only memories whose revision moved are read."""
        if not recorded:
            return {}
        revisions = _revisions(self.store, list(recorded))
        suspect = [i for i, rec in recorded.items()
                   if i not in revisions or rec.get("rev") is None or revisions[i] != rec["rev"]]
        out: dict[str, Any] = {}
        for i, memory in self._read(suspect).items():
            if memory is None or convert.store_hash(memory) != recorded[i]["store"]:
                out[i] = memory
            else:
                recorded[i]["rev"] = revisions[i]  # usage or a vector changed: not the text
        return out

    def _read(self, ids: list[str]) -> dict[str, Any]:
        """The stored memories of these ids in one lookup (None: not stored), remembered for
        the rest of the sync."""
        todo = [i for i in dict.fromkeys(ids) if i not in self.stored]
        rows = self.store.lookup(todo, self.store.columns())
        self.stored.update({i: from_row(rows[i]) if i in rows else None for i in todo})
        return {i: self.stored[i] for i in ids}

    def _prefetch(self, todo) -> None:
        """The stored memories the files' changes may touch, read in one lookup: entries
        edited in a file, entries new to the state (their derived ids), and saves the state
        expects."""
        ids = []
        for relative, _, _, pairs, fresh, lost in todo:
            ids += [rec["id"] for rec, entry in pairs if convert.file_hash(entry) != rec["file"]]
            ids += [convert.derived_id(self.ws.project_id, relative, entry.key) for entry in fresh]
            ids += [rec["id"] for rec in lost]
        self._read(ids)

    def _memory(self, memory_id: str):
        return self._read([memory_id])[memory_id]

    # -- one file ------------------------------------------------------------------------------

    def _file(self, relative: str, doc, pairs, fresh, lost, changed: dict[str, Any]) -> dict[str, dict]:
        """The file's side of the sync; returns its entries' records by key."""
        kind = entries_of(relative)
        language = doc.language or self.ws.language
        day = day_of(relative)
        kept: list[tuple[markdown.Entry | None, dict]] = []  # (its entry as the file has it now, record)
        edits: list[tuple[markdown.Entry, str | None]] = []  # (entry, its new text, None: remove it)
        appends: list[str] = []

        def rewrite(entry, memory) -> None:
            new_text = convert.entry_text(memory, language, entry.form, self.zone, dated=kind == "memory")
            edits.append((entry, new_text))
            kept.append((None, self._rec(memory.id, _one(new_text, entry.form, kind), memory)))

        for rec, entry in pairs:
            memory_id = rec["id"]
            file_changed = convert.file_hash(entry) != rec["file"]
            store_side = changed.get(memory_id, SAME)
            if store_side is SAME:
                if not file_changed:
                    kept.append((entry, {k: v for k, v in rec.items() if k != "pending"}))
                    self.report.unchanged += 1
                    continue
                memory = self._memory(memory_id)
                if memory is None:  # gone from the store without a trace in the state: add it back
                    self._add(relative, entry, day, memory_id)
                else:
                    self._edit(memory, entry, relative)
                kept.append((entry, self._rec(memory_id, entry)))
                continue
            memory = store_side  # the store changed it (None: deleted it)
            if not file_changed:
                if memory is None:
                    edits.append((entry, None))
                    self.report.removed += 1
                else:
                    rewrite(entry, memory)
                    self.report.written += 1
                continue
            if memory is not None and convert.same(memory, entry):
                kept.append((entry, self._rec(memory_id, entry, memory)))  # both made the same change
                continue
            self._conflict(relative, memory_id, entry, memory)
            if self.prefer == "file":
                if memory is None:
                    self._add(relative, entry, day, memory_id)
                else:
                    self._edit(memory, entry, relative)
                kept.append((entry, self._rec(memory_id, entry)))
            elif memory is None:
                edits.append((entry, None))
            else:
                rewrite(entry, memory)
        kept += [self._fresh(relative, entry, day) for entry in fresh]
        for rec in lost:  # in the state, gone from the file
            self._lost(relative, rec, changed.get(rec["id"], SAME), kind, language, kept, appends)
        if not edits and not appends:
            return {e.key: rec for e, rec in kept}
        for entry, new_text in sorted(edits, key=lambda e: -e[0].start):
            doc = (markdown.removed(doc, entry, kind) if new_text is None
                   else markdown.replaced(doc, entry, new_text, kind))
        for new_text in appends:
            doc = markdown.appended(doc, new_text, kind, "entries" if kind == "daily" else None)
        self.texts[relative] = doc.render()
        return _rekey(doc, [rec for _, rec in kept])

    def _fresh(self, relative: str, entry, day) -> tuple:
        """An entry new to the state: its memory added, or brought to the entry if the store
        already holds one of its id; the entry and its record."""
        memory_id = convert.derived_id(self.ws.project_id, relative, entry.key)
        memory = self._memory(memory_id)
        if memory is None:
            self._add(relative, entry, day, memory_id)
        elif not convert.same(memory, entry):
            self._edit(memory, entry, relative)
        return entry, self._rec(memory_id, entry)

    def _lost(self, relative: str, rec: dict, store_side, kind: str, language: str, kept: list,
              appends: list) -> None:
        """An entry in the state and gone from the file: its memory deleted, unless the file
        never got it (a pending save) or the store changed it and wins, when it is written
        back (into `appends`, its record into `kept`)."""
        memory_id = rec["id"]
        if rec.get("pending") or (store_side is not SAME and store_side is not None
                                 and self.prefer == "store"):
            # a save whose file write never happened, or a conflict the store wins: back in
            memory = self._memory(memory_id)
            if memory is None:
                return
            if not rec.get("pending"):
                self._conflict(relative, memory_id, None, memory)
            new_text = convert.entry_text(memory, language, "heading", self.zone, dated=kind == "memory")
            appends.append(new_text)
            kept.append((None, self._rec(memory_id, _one(new_text, "heading", kind), memory)))
            self.report.written += 1
            return
        if store_side is None:
            return  # deleted on both sides
        if store_side is not SAME:
            self._conflict(relative, memory_id, None, store_side)
        self.deletes.append(memory_id)

    # -- changes -------------------------------------------------------------------------------

    def _rec(self, memory_id: str, entry, memory=None) -> dict:
        """What the state records of an entry: its memory, its file fingerprint and the
        store's (of the memory as this sync leaves it)."""
        if memory is None:
            memory = self.upserts.get(memory_id) or self._memory(memory_id)
        return {"id": memory_id, "file": convert.file_hash(entry),
                "store": convert.store_hash(memory) if memory is not None else None, "rev": None}

    def _add(self, relative: str, entry, day, memory_id: str) -> None:
        memory = convert.new_memory(entry, relative, day, self.ws.project_id, self.zone, self.now, memory_id)
        if memory.kind in convert.TITLED:
            memory = self._free_title(memory)
        self.upserts[memory_id] = memory
        self.added.add(memory_id)
        self.report.added += 1

    def _edit(self, memory, entry, relative: str) -> None:
        new = convert.edited(memory, entry, relative, self.now)
        self.upserts[memory.id] = new
        self.report.updated += 1
        if new.text != memory.text:
            self.report.embedded += 1

    def _free_title(self, memory):
        """A new decision or pattern whose title is taken in its project gets its date and
        time added, then a number (titles are unique per project, models.title_key)."""
        if self.taken is None:
            rows = self.store.dataset().to_table(columns=["id", "kind", "title", "name"], filter=(
                f"kind IN ('decision', 'pattern') AND project_id = {sql_literal(self.ws.project_id)}")).to_pylist()
            self.taken = {(r["kind"], title_key(r["title"] or r["name"] or "")): r["id"] for r in rows}
        name = convert.title_body(memory.kind)[0]
        title, stamp = getattr(memory, name), memory.created_at.strftime("%Y-%m-%d %H:%M")
        candidates = itertools.chain([title, f"{title} ({stamp})"],
                                     (f"{title} ({stamp}, {n})" for n in itertools.count(2)))
        free = next(c for c in candidates
                    if self.taken.get((memory.kind.value, title_key(c)), memory.id) == memory.id)
        self.taken[(memory.kind.value, title_key(free))] = memory.id
        return memory if free == title else memory.model_copy(update={name: free})

    def _conflict(self, relative: str, memory_id: str, entry, memory) -> None:
        title, body = convert.text_of(memory) if memory is not None else (None, None)
        event = {"file": relative, "memory_id": memory_id,
                 "kept": self.prefer,
                 "file_version": None if entry is None else {"title": entry.title, "body": entry.body},
                 "store_version": None if memory is None else {"title": title, "body": body}}
        self.conflicts.append((memory_id, event))
        self.report.conflicts.append(event)

    def _commit(self) -> None:
        """The store's side of the sync: adds and edits in one upsert, deletions as one
        reversible retention run, conflicts as audit events."""
        from memlib.lifecycle import retention

        store = self.store
        if self.upserts:
            memories = list(self.upserts.values())
            labels = [f"{m.metadata.get('source_file', 'workspace')} ({m.kind.value})" for m in memories]
            store.upsert(memories, labels=labels, actor=self.actor, action="workspace_sync",
                         details={"workspace": str(self.ws.files.root)})
        if self.deletes:
            present = set(store.lookup(self.deletes, ["id"]))
            ids = [i for i in self.deletes if i in present]
            if ids:
                run_id = str(uuid.uuid4())
                events = store.event_rows("workspace_delete", ids, actor=self.actor, run_id=run_id,
                                          details={"workspace": str(self.ws.files.root)})
                with store.promising(events=gated(events, ids, [None] * len(ids))):  # logged once they are gone
                    outcome = retention.remove(store, ids, {"reason": "deleted from the workspace files",
                                                            "workspace": str(self.ws.files.root)}, actor=self.actor,
                                               run_id=run_id)
                    store.append_events(events)
                self.report.undo = outcome.run_id
            self.report.deleted = len(ids)
        for memory_id, event in self.conflicts:
            store.log_event("workspace_conflict", [memory_id], actor=self.actor, details=event)


def _one(text: str, form: str, kind: str) -> markdown.Entry:
    """The entry a text memlib writes parses as (its fingerprint is what the file will hold)."""
    doc = markdown.parse(("## Summary\n" if form == "summary" else "") + text, "daily" if form == "summary" else kind)
    return doc.entries[0]


def _rekey(doc: markdown.Document, records: list[dict]) -> dict[str, dict]:
    """After memlib rewrote a file: each entry's record found by its fingerprint (what it
    says, which memlib just wrote or found there), under the key the new text gives it."""
    waiting: dict[str, list[dict]] = {}
    for rec in records:
        waiting.setdefault(rec["file"], []).append(rec)
    out = {}
    for entry in doc.entries:
        recs = waiting.get(convert.file_hash(entry))
        if recs:
            out[entry.key] = recs.pop(0)
    return out


def _by_id(file_state: dict) -> dict[str, dict]:
    return {rec["id"]: rec for rec in file_state["entries"].values()}


def _pending(file_state: dict) -> bool:
    return any(rec.get("pending") for rec in file_state["entries"].values())


def _fill_revisions(store: StoreInterface, state: dict) -> None:
    """Each record's memory revision as the store now has it: the next sync reads the text
    only of memories whose revision moved."""
    records = [rec for f in state["files"].values() for rec in f["entries"].values() if rec.get("rev") is None]
    if not records:
        return
    store.refresh()
    revisions = _revisions(store, [rec["id"] for rec in records])
    for rec in records:
        # -1: not in the store (deleted meanwhile): looked at again next time
        rec["rev"] = revisions.get(rec["id"], -1)


def _revisions(store: StoreInterface, ids: list[str]) -> dict[str, int]:
    """The stored revision of each id the store holds (0 for rows written before revisions):
    a filter on the ids for a few, one scan of two columns for many."""
    table = store.dataset().to_table(columns=["id", "revision"],
                                     filter=sql_in("id", ids) if len(ids) < 2_000 else None)
    return {i: r or 0 for i, r in zip(table.column("id").to_pylist(), table.column("revision").to_pylist())}


def _match(recorded: dict[str, dict], entries: list[markdown.Entry]):
    """Pair the state's entries of a file with the entries found in it now: by key, then
    what is left in order within the same section, kind and time (an edited bullet or a
    retitled heading stays the same memory). Returns (pairs, new entries, lost records)."""
    pairs, fresh = [], []
    left = dict(recorded)
    for entry in entries:
        rec = left.pop(entry.key, None)
        if rec is not None:
            pairs.append((rec, entry))
        else:
            fresh.append(entry)
    if left and fresh:
        by_slot: dict[str, list[str]] = {}
        for key in left:
            by_slot.setdefault(_slot(key), []).append(key)
        still = []
        for entry in fresh:
            keys = by_slot.get(_slot(entry.key), [])
            if keys:
                pairs.append((left.pop(keys.pop(0)), entry))
            else:
                still.append(entry)
        fresh = still
    return pairs, fresh, list(left.values())


def _slot(key: str) -> str:
    """Where an entry sits, without what it says: its form and section, and for a heading
    its date, time and kind (its title may change)."""
    form, section, *rest = key.split("|")
    if form != "heading":
        return f"{form}|{section}"
    name = rest[0] if rest else ""
    words = [w for w in name.split(" ") if w]
    kinds = {k.value for k in Kind}
    head = []
    for w in words:
        head.append(w)
        if w in kinds:
            break
    return f"{form}|{section}|{' '.join(head)}"
