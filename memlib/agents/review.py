"""Review before save (issue 42): memories a lifecycle policy holds for a person's review
instead of writing them (`[write_back] review = "all"` or `"untrusted"`).

Each held memory is a `memory_review` task of the store's control plane, blocked by an
approval whose request shows what would be saved; the memory itself (its id fixed) is the
task's payload and is nowhere in the store, so nothing pending is ever recalled or put in a
context. Accepting writes it (the writer recorded as the agent that proposed it, the
reviewer in a `review_accepted` event) and settles the task; rejecting keeps the rejection
in the store's audit log (`review_rejected`, with the content and the reason) and in the
control plane's approval.
"""

from __future__ import annotations

from typing import Any

from memlib.errors import InvalidInput, NotFound
from memlib.interface import MemoryInterface
from memlib.models import Memory, parse_memory

KIND = "memory_review"  # the control plane's task kind for a held memory
REVIEWS = ("none", "untrusted", "all")  # what a lifecycle policy holds for review


def held(policy_review: str, memory: Memory) -> bool:
    """Whether a policy's review setting holds this memory back."""
    return policy_review == "all" or (policy_review == "untrusted" and not memory.trusted)


def submit(plane, memories: list[Memory], agent: str | None = None, session_id: str | None = None) -> list[str]:
    """Hold `memories` for review: one blocked task each. Returns the approval ids."""
    tasks = plane.queue.enqueue_many([{
        "kind": KIND, "agent": agent, "session_id": session_id,
        "payload": {"memory": m.model_dump(mode="json", exclude={"embedding"})},
        "approval": f"save {m.kind.value} from {m.source}: {' '.join(m.own_text.split())}"[:4_000],
    } for m in memories])
    return [a.approval_id for t in tasks for a in plane.approvals.list(status="pending", task_id=t.task_id)]


def pending(plane) -> list[dict[str, Any]]:
    """The memories waiting for review, oldest first: the approval and the memory."""
    out = []
    for approval in plane.approvals.list(status="pending"):
        task = plane.tasks.get(approval.task_id)
        if task.kind == KIND:
            out.append({"approval_id": approval.approval_id, "requested_by": approval.requested_by,
                        "requested_at": approval.requested_at, "memory": task.payload["memory"]})
    return out


def _held_memory(plane, approval_id: str) -> tuple[Any, Memory]:
    approval = plane.approvals.get(approval_id)
    task = plane.tasks.get(approval.task_id)
    if task.kind != KIND:
        raise NotFound(f"approval {approval_id} is not a memory held for review")
    if approval.status != "pending":
        raise InvalidInput(f"approval {approval_id} is already {approval.status}")
    return approval, parse_memory(task.payload["memory"], f"the memory of approval {approval_id}")


def accept(store: MemoryInterface, plane, approval_id: str, by: str, reason: str | None = None) -> str:
    """Write the held memory (once: its id is fixed) and settle its approval. Returns its id."""
    approval, memory = _held_memory(plane, approval_id)
    if not store.lookup([memory.id], ["id"]):
        store.add([memory], actor=memory.agent or approval.requested_by, duplicates="link")
    plane.approvals.decide(approval_id, True, by, reason, settles=True)
    store.log_event("review_accepted", [memory.id], actor=by,
                    details={"approval_id": approval_id, "reason": reason, "project_id": memory.project_id})
    return memory.id


def reject(store: MemoryInterface, plane, approval_id: str, by: str, reason: str) -> str:
    """Turn the held memory down: never written; the rejection, the content and the reason are
    kept in the audit log. Returns the id it would have had."""
    if not reason or not reason.strip():
        raise InvalidInput("a rejection needs a reason (--reason)")
    _, memory = _held_memory(plane, approval_id)
    plane.approvals.decide(approval_id, False, by, reason)
    store.log_event("review_rejected", [memory.id], actor=by,
                    details={"approval_id": approval_id, "reason": reason, "kind": memory.kind.value,
                             "content": memory.own_text, "source": memory.source,
                             "project_id": getattr(memory, "project_id", None)})
    return memory.id
