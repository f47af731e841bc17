"""The sample's agent sessions and control-plane traffic (issue 16), for the control_plane
report: one session per agent and day of the recall history (the recall events carry it),
and two weeks of tasks enqueued by those sessions and worked by four workers through the
real queue, the clock stepped from event to event. Some attempts fail and retry, some
workers vanish and their leases run out, a few poison tasks become dead letters, and some
tasks wait for a person's approval. Deterministic for a seed (but lease tokens)."""

from __future__ import annotations

import heapq
import random
import uuid
from datetime import datetime, timedelta, timezone

import pyarrow as pa

from memlib.clock import Clock
from memlib.control import ControlPlane
from memlib.interface import StoreInterface
from memlib.sessions.tables import SCHEMAS, SESSIONS

DAYS = 14
TASKS_PER_DAY = 120
WORKERS = 4
LEASE = 600.0        # seconds; every simulated attempt is shorter, unless its worker vanishes
IDLE_POLL = 300.0    # an idle worker looks again after five minutes
KINDS = {"index_repo": 60.0, "summarise_thread": 20.0, "run_tests": 240.0, "review_diff": 90.0,
         "deploy": 120.0}  # mean seconds of work
P_NACK, P_VANISH, P_POISON, P_APPROVAL = 0.06, 0.02, 0.01, 0.04


def session_id(agent: str, day) -> str:
    """The sample's session of an agent on a day (the recall events name it too)."""
    return f"sample-{agent}-{day:%Y%m%d}"


def write_sessions(store: StoreInterface, keys: set[tuple[str, object]]) -> int:
    """One ended session per (agent, day): the whole day, in no project."""
    rows = [{"session_id": session_id(agent, day), "agent": agent, "project_id": None, "status": "ended",
             "started_at": datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc),
             "ended_at": datetime.combine(day, datetime.max.time(), tzinfo=timezone.utc),
             "preferences": "{}"} for agent, day in sorted(keys)]
    if rows:
        store.concept_table(SESSIONS, SCHEMAS[SESSIONS]).add(pa.Table.from_pylist(rows, schema=SCHEMAS[SESSIONS]))
    return len(rows)


def build_control_sample(store: StoreInterface, agents: list[str], seed: int, anchor: datetime) -> dict[str, int]:
    """Two weeks of queue traffic up to `anchor` in the store's control plane."""
    rng = random.Random(seed + 11)
    clock = Clock(anchor - timedelta(days=DAYS))
    plane = ControlPlane.open(store.uri, clock=clock, settings=store.settings)
    start = clock.now()
    heap: list[tuple[datetime, int, str, dict]] = []
    order = 0

    def at(when: datetime, action: str, **data) -> None:
        nonlocal order
        order += 1
        heapq.heappush(heap, (when, order, action, data))

    n_tasks = 0
    for day in range(DAYS):
        for i in range(TASKS_PER_DAY):
            # a third arrive in the morning's burst (the queue backs up), the rest through the day
            seconds = 9 * 3600 + rng.uniform(0, 60) if i < TASKS_PER_DAY // 3 else rng.uniform(6 * 3600, 22 * 3600)
            when = start + timedelta(days=day, seconds=seconds)
            kind = rng.choice(sorted(KINDS))
            agent = rng.choice(agents)
            at(when, "enqueue", task={
                "task_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "kind": kind,
                "payload": {"n": n_tasks}, "agent": agent, "session_id": session_id(agent, when.date()),
                "priority": rng.choice((0, 0, 0, 1, 5)),
                "max_attempts": 3 if rng.random() < P_POISON else 5,
                "approval": "Deploy to production?" if kind == "deploy" and rng.random() < P_APPROVAL * 5 else None})
            n_tasks += 1
    vanished = [0] * (WORKERS + 1)
    for w in range(1, WORKERS + 1):
        at(start + timedelta(seconds=w), "claim", worker=f"worker-{w}")
    poison = set()
    while heap:
        when, _, action, data = heapq.heappop(heap)
        if when > anchor:
            break
        clock.set(when)
        if action == "enqueue":
            task = plane.queue.enqueue(**data["task"])
            if task.max_attempts == 3:
                poison.add(task.task_id)
            if task.status == "blocked":
                at(when + timedelta(minutes=rng.uniform(5, 240)), "decide", task_id=task.task_id)
        elif action == "decide":
            for ticket in plane.approvals.list(task_id=data["task_id"]):
                plane.approvals.decide(ticket.approval_id, rng.random() < 0.9, by="alice",
                                       reason=None if rng.random() < 0.5 else "checked the change window")
        elif action == "claim":
            lease = plane.queue.claim(data["worker"], lease=LEASE)
            if lease is None:
                at(when + timedelta(seconds=IDLE_POLL), "claim", worker=data["worker"])
                continue
            roll = rng.random()
            work = min(LEASE - 1, rng.expovariate(1 / KINDS[lease.task.kind]))
            if lease.task_id in poison or roll < P_NACK:
                at(when + timedelta(seconds=work), "nack", lease=lease)
            elif roll < P_NACK + P_VANISH:  # the worker dies; a new one takes its slot later
                slot = int(data["worker"].split("-")[1].split(".")[0])
                vanished[slot] += 1
                at(when + timedelta(seconds=LEASE + rng.uniform(60, 900)), "claim",
                   worker=f"worker-{slot}.{vanished[slot]}")
            else:
                at(when + timedelta(seconds=work), "ack", lease=lease)
        elif action in ("ack", "nack"):
            lease = data["lease"]
            if action == "ack":
                plane.queue.ack(lease, {"ok": True})
            else:
                plane.queue.nack(lease, "poison payload" if lease.task_id in poison else "tool timed out")
            at(when + timedelta(seconds=rng.uniform(0.5, 5)), "claim", worker=lease.worker)
    plane.close()
    return {"tasks": n_tasks}
