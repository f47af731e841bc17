"""Curation of memories by people and agents: promotion (an insight becomes a decision, a
learning a pattern), closing an iteration, flags and confidence, changing a memory in place,
correcting it with a new one, and forgetting memories. Each change is audited, with who and why."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Iterator

from memlib.clock import days_until
from memlib.errors import InvalidInput, NotFound, whole_number
from memlib.interface import StoreInterface
from memlib.models import REVISABLE, Kind, Memory, parse_memory, title_key
from memlib.scope import sql_literal
from memlib.store.journal import audit_what_committed, gated

PROMOTIONS = {Kind.INSIGHT: Kind.DECISION, Kind.LEARNING: Kind.PATTERN}


def _title(memory) -> str:
    if memory.title:
        return memory.title
    first = memory.content.strip().splitlines()[0]
    return first if len(first) <= 80 else first[:77].rstrip() + "..."


def _free_title(store: StoreInterface, project_id: str, kind: Kind, title: str, iteration_id: str | None) -> str:
    """A derived title made unique in its project (titles are, models.title_key): the
    iteration it came from is added, then a number."""
    rows = store.dataset().to_table(columns=["title", "name"], filter=(
        f"kind = {sql_literal(kind.value)} AND project_id = {sql_literal(project_id)}")).to_pylist()
    taken = {title_key(r["title"] or r["name"] or "") for r in rows}
    candidates = [title] + ([f"{title} (iteration {iteration_id})"] if iteration_id else [])
    candidates += [f"{candidates[-1]} ({n})" for n in range(2, 1000)]
    return next(c for c in candidates if title_key(c) not in taken)


def promote(store: StoreInterface, memory_id: str, title: str | None = None, actor: str | None = None,
            reason: str = "manual", fields: dict | None = None, source_kind: Kind | None = None):
    """An insight becomes a project decision, a learning a reusable pattern. The new memory
    links to its source (`promoted_from`) and keeps its project, root task and iteration;
    `fields` sets more of it (a decision's context and consequences, a pattern's examples,
    tags and code). A derived title is made unique in the project; a given one must be.
    `source_kind`: the kind the caller means to promote (a tool that makes decisions), checked
    before anything is written."""
    store.check_writable()
    with store.lock.held():  # checked and done by one process at a time: promoted once
        store.refresh()
        source = store.get(memory_id, with_embedding=False)
        if source.kind not in PROMOTIONS:
            raise InvalidInput(f"only insights and learnings can be promoted, not a {source.kind.value}")
        if source_kind is not None and source.kind is not source_kind:
            raise InvalidInput(f"{memory_id} is {_a(source.kind.value)}, not {_a(source_kind.value)}: "
                               f"{_a(source.kind.value)} becomes {_a(PROMOTIONS[source.kind].value)}")
        done = store.audit_events(f"action = 'promote' AND subject_id = {sql_literal(memory_id)}")
        if done:
            raise InvalidInput(f"{source.kind.value} {memory_id} was already promoted to "
                               f"{done[-1]['details']['to']}")
        new_kind = PROMOTIONS[source.kind]
        name = title or _free_title(store, source.project_id, new_kind, _title(source), source.iteration_id)
        common = {"project_id": source.project_id, "root_task_id": source.root_task_id,
                  "iteration_id": source.iteration_id, "promoted_from": source.id, "tags": source.tags,
                  "confidence": source.confidence, "source": source.source, "agent": source.agent}
        extra = dict(fields or {})
        if "tags" in extra:
            common["tags"] = list(dict.fromkeys([*source.tags, *extra.pop("tags")]))
        data = ({"kind": "decision", "title": name, "decision": source.content} if source.kind is Kind.INSIGHT
                else {"kind": "pattern", "name": name, "description": source.content})
        new = parse_memory({**common, **data, **extra}, record=f"promotion of {memory_id}")
        (new_id,) = store.add([new], actor=actor, duplicates="link")  # its own link says where it came from
        store.log_event("promote", [memory_id], actor=actor,
                        details={"to": new_id, "kind": new.kind.value, "reason": reason})
        store.log_event("promoted", [new_id], actor=actor, details={"from": memory_id, "reason": reason})
    return store.get(new_id)


def finalize_iteration(store: StoreInterface, project_id: str, iteration_id: str, actor: str | None = None) -> list:
    """Close an iteration: its critical insights not yet promoted become decisions. A project
    the store does not hold, or an iteration of which it holds nothing, is refused."""
    store.check_writable()
    where = (f"kind = 'insight' AND importance = 'critical' AND project_id = {sql_literal(project_id)} "
             f"AND iteration_id = {sql_literal(iteration_id)}")
    with store.lock.held():
        store.refresh()
        project = store.lookup([project_id], ["id", "kind"]).get(project_id)
        if project is None or project["kind"] != Kind.PROJECT.value:
            raise NotFound(f"no project {project_id!r} in this store")
        if not store.count_rows(f"project_id = {sql_literal(project_id)} AND iteration_id = {sql_literal(iteration_id)}"):
            raise NotFound(f"project {project_id} has no iteration {iteration_id!r} (no memory names it)")
        ids = store.dataset().to_table(columns=["id"], filter=where).column("id").to_pylist()
        promoted = {e["subject_id"] for e in store.audit_events("action = 'promote'")}
        out = [promote(store, i, actor=actor, reason=f"critical insight of finalized iteration {iteration_id}")
               for i in sorted(ids) if i not in promoted]
        store.log_event("finalize", [iteration_id], actor=actor,
                        details={"project_id": project_id, "promoted": [m.id for m in out]})
    return out


def set_flag(store: StoreInterface, memory_id: str, value: bool, actor: str | None = None):
    store.check_writable()
    return store.update(memory_id, action="flag", actor=actor, manual_promote_flag=value)


def adjust_confidence(store: StoreInterface, memory_id: str, delta: int, reason: str, actor: str | None = None):
    """Raise (delta > 0) or lower a memory's confidence, clamped to 0-100, with a reason."""
    store.check_writable()
    if not reason or not reason.strip():
        raise InvalidInput("a confidence change needs a reason (--reason)")
    whole_number(delta, "a confidence change", -100, 100)
    if delta == 0:
        raise InvalidInput("a confidence change must not be zero")
    with _explained(store, memory_id):
        return store.modify(memory_id, lambda memory: {"confidence": max(0, min(100, memory.confidence + delta))},
                            action="confidence", actor=actor, reason=reason)


def revise(store: StoreInterface, memory_id: str, reason: str, actor: str | None = None, **changes):
    """Change what a memory says in place (re-embedded if its text changed; the same id), with
    the reason in the audit event beside the fields' old and new values. Only REVISABLE
    fields; the reason is required (an agent says why it changes a memory)."""
    _check_change(reason, changes)
    with _explained(store, memory_id):
        return store.update(memory_id, action="revise", actor=actor, reason=reason.strip(), **changes)


@contextmanager
def _explained(store: StoreInterface, memory_id: str) -> Iterator[None]:
    """A change of a memory that is gone says where it went: superseded by a correction
    (which one to change instead), or forgotten (which run brings it back)."""
    try:
        yield
    except NotFound:
        if not isinstance(memory_id, str):
            raise
        why = gone(store, memory_id)
        if why is None:
            raise
        raise NotFound(f"memory {memory_id} {why}") from None


def gone(store: StoreInterface, memory_id: str) -> str | None:
    """Why a memory the store no longer holds is gone, with what to do, or None if the audit
    log does not say."""
    events = store.audit_events(f"subject_id = {sql_literal(memory_id)} AND action IN ('correct', 'uncorrect', "
                                "'forget', 'quarantine', 'retention_remove', 'delete')")
    undone = {e["run_id"] for e in events if e["action"] == "uncorrect"}
    corrections = [e for e in events if e["action"] == "correct" and e["run_id"] not in undone
                   and (e["details"] or {}).get("from") == memory_id]
    if corrections:
        details = corrections[-1]["details"]
        newer = details["to"]
        later = gone(store, newer) if not store.lookup([newer], ["id"]) else None
        return (f"was superseded by memory {newer} (corrected: {details.get('reason', '')}); "
                + (f"that one {later}" if later else f"change that one instead (memlib update {newer})"))
    last = next((e for e in reversed(events) if e["action"] not in ("correct", "uncorrect")), None)
    if last is None:
        return None
    if last["action"] == "delete":
        return "was deleted"
    return (f"was {'quarantined' if last['action'] == 'quarantine' else 'forgotten'} by run {last['run_id']} "
            f"(memlib retention undo {last['run_id']} brings it back)")


def _reason(reason: str, what: str) -> str:
    """The reason a change is made, required (the audit log keeps it)."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput(f"say why {what} (a reason)")
    return reason.strip()


def _check_change(reason: str, changes: dict) -> None:
    """A change of what a memory says names its reason and only REVISABLE fields."""
    _reason(reason, "the memory changes")
    if not changes:
        raise InvalidInput(f"give at least one field to change ({', '.join(REVISABLE)})")
    wrong = sorted(set(changes) - set(REVISABLE))
    if wrong:
        raise InvalidInput(f"{wrong[0]} cannot be changed; these can: {', '.join(REVISABLE)}")


def forget(store: StoreInterface, memory_ids: list[str], reason: str, actor: str | None = None, action: str = "forget"):
    """Remove memories as one retention run: archived first, so `memlib retention undo RUN`
    brings them back unchanged until `memlib retention purge RUN`; each gets a `forget`
    event with the reason. `action` "quarantine": a memory found harmful (a poisoned page, a
    tool's output telling the agent to do something else) is taken out the same way, its
    event saying so; it is never returned until released with the undo. Returns the run's
    outcome."""
    from memlib.lifecycle import retention

    reason = _reason(reason, "the memories are forgotten" if action == "forget" else "they are quarantined")
    ids = list(dict.fromkeys(memory_ids))
    if not ids:
        raise InvalidInput("give at least one memory id to forget")
    store.check_writable()
    with store.lock.held():
        store.refresh()
        found = store.require(ids, ["project_id"])
        children = store.children(ids)
        if children:
            raise InvalidInput(f"{children} memories hang off these; forget them too, or delete with cascade")
        run_id = str(uuid.uuid4())
        events = store.event_rows(action, ids, actor=actor, run_id=run_id,
                                  details=[{"reason": reason, "project_id": found[i]["project_id"]} for i in ids])
        with store.promising(events=gated(events, ids, [None] * len(ids))):  # each logged once it is gone
            outcome = retention.remove(store, ids, {"policy": action, "reason": reason, "candidates": len(ids)},
                                       actor, run_id=run_id)
            store.append_events(events)
    return outcome


def correct(store: StoreInterface, memory_id: str, reason: str, actor: str | None = None,
            new_id: str | None = None, **changes):
    """Replace a memory with a corrected one: a new memory (a new id; `metadata.corrects`
    names the old) says what the old said with `changes` and, unless they change its TTL,
    expires when the old would have (to the day); the old one leaves recall and
    context as a retention run (archived whole: its history, `memlib history OLD`, ends in a
    `correct` event naming the new one, and `uncorrect` puts it back). Both get a `correct`
    event with the reason. A correction of a correction works the same. `new_id`: the
    correction's id, when the caller chooses it (a deterministic sample). Returns the new
    memory and the run's id."""
    from memlib.lifecycle import retention

    _check_change(reason, changes)
    store.check_writable()
    with store.lock.held(), _explained(store, memory_id):
        store.refresh()
        old = store.get(memory_id)
        children = store.children([memory_id])
        if children:
            raise InvalidInput(f"{children} memories hang off {memory_id}: revise it in place (memlib update)")
        data = old.model_dump(exclude={"id", "embedding", "created_at", "updated_at", "usage_count",
                                       "last_accessed_at", "recalls_folded_until"})
        data.update(changes)
        data["metadata"] = {**(data.get("metadata") or {}), "corrects": memory_id}
        if new_id is not None:
            data["id"] = new_id
        if "ttl_days" not in changes:
            data["ttl_days"] = _remaining_days(old, store.clock.now())
        new = parse_memory(data, record=f"correction of {memory_id}")
        if all(getattr(new, k) == getattr(old, k) for k in changes):
            raise InvalidInput(f"memory {memory_id} says that already: nothing to correct")
        run_id = str(uuid.uuid4())
        events = store.event_rows("correct", [memory_id, new.id], actor=actor, run_id=run_id,
                                  details={"from": memory_id, "to": new.id, "reason": reason.strip()})
        # killed before the correction is written, the next open puts the old memory back
        with store.promising("memlib.lifecycle.curation:finish_correct", {"run_id": run_id, "new": new.id},
                             gated(events, [new.id, new.id], [0, 0])):
            retention.remove(store, [memory_id], {"policy": "correct", "reason": reason.strip(),
                                                  "corrected_by": new.id, "candidates": 1}, actor, run_id=run_id)
            (new_id,) = store.add([new], actor=actor, duplicates="link")  # its own link says where it came from
            store.append_events(events)
    return store.get(new_id), run_id


def finish_correct(store: StoreInterface, promise) -> None:
    """Keep a killed correction's promise: with the correction written, its events; without,
    the old memory back (the run that took it out undone)."""
    from memlib.lifecycle import retention

    if store.lookup([promise.details["new"]], ["id"]):
        audit_what_committed(store, promise)
        return
    retention.finish_unfinished(store)
    run_id = promise.details["run_id"]
    if any(r["run_id"] == run_id and r["status"] == "done" for r in retention.runs(store)):
        retention.undo(store, run_id, actor="recovery")


def _remaining_days(old: Memory, now) -> int:
    """The TTL that gives a correction made `now` the expiry of the memory it corrects (-1 if
    that never expires; 0 if it already has): correcting what a memory says neither lengthens
    nor shortens its life, and a TTL counted from an earlier write (store/batch.py
    `lifetime`) is not counted twice."""
    if old.expires_at is None:
        return -1
    return max(0, days_until(now, old.expires_at))


def uncorrect(store: StoreInterface, run_id: str, actor: str | None = None) -> str:
    """Undo a correction: the corrected memory comes back unchanged and the correction goes
    (refused while the correction has a correction of its own: undo that one first). Returns
    the id of the memory back."""
    from memlib.lifecycle import retention

    events = store.audit_events(f"action = 'correct' AND run_id = {sql_literal(run_id)}")
    if not events:
        raise NotFound(f"no correction {run_id!r} (a correction's run id, as memlib correct printed it)")
    old, new = events[0]["details"]["from"], events[0]["details"]["to"]
    later = {e["run_id"] for e in store.audit_events(f"action = 'correct' AND subject_id = {sql_literal(new)}")
             if e["details"]["from"] == new}  # corrections of the correction ...
    later -= {e["run_id"] for e in store.audit_events(f"action = 'uncorrect' AND subject_id = {sql_literal(new)}")}
    if later:  # ... that were not undone
        raise InvalidInput(f"the correction {new} was corrected again: undo that correction first")
    events = store.event_rows("uncorrect", [old, new], actor=actor, run_id=run_id, details={"from": old, "to": new})
    with store.promising(events=gated(events, [old, new], [0, None])):
        retention.undo(store, run_id, actor=actor)
        if store.lookup([new], ["id"]):
            store.delete([new], actor=actor)
        store.append_events(events)
    return old


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"
