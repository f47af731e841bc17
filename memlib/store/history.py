"""A memory's whole life from the audit log, and the versions a store keeps."""

from __future__ import annotations

from typing import Any

from memlib.errors import NotFound
from memlib.scope import sql_literal

LINKS = ("to", "from")  # detail keys that name another memory (promotions)


def memory_history(store, memory_id: str) -> dict[str, Any]:
    """{"memory": its state in the version the handle reads (or None), "events": every
    audit event about it, oldest first}: events whose subject is the id, and promotions that
    name it. Ids match exactly. On a handle opened as of a version, events after it are left
    out (the audit log is append-only, so its past is a filter)."""
    events = store.audit.events(f"subject_id = {sql_literal(memory_id)} OR details IS NOT NULL")
    own = [e for e in events if e["subject_id"] == memory_id]
    # a change recorded on two memories (a correction: one event on each) is shown once
    once = {(e["action"], e["run_id"], e["at"]) for e in own}
    named = [e for e in events if e["subject_id"] != memory_id and (e["action"], e["run_id"], e["at"]) not in once
             and any((e["details"] or {}).get(key) == memory_id for key in LINKS)]
    events = sorted(own + named, key=lambda r: (r["at"], r["event_id"]))
    if store.read_only:
        until = store.version_time()
        events = [e for e in events if e["at"] <= until]
    try:
        state = store.get(memory_id).model_dump(mode="json", exclude={"embedding"})
    except NotFound:
        state = None
    if not events and state is None:
        raise NotFound(f"no memory or event with id {memory_id!r}")
    return {"memory": state, "events": events}


def versions(store) -> dict[str, Any]:
    """The versions of the memories table still kept, and its tags."""
    return {"versions": store.table.list_versions(), "tags": store.table.tags.list()}
