"""Processes for tests/test_control_plane.py and bench/control_plane.py: each role opens the
control plane of a store directory in its own process and prints JSON lines of what it did.

    python tests/queue_workers.py ROLE DIR [ARGS...]
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import timedelta

from memlib.clock import Clock
from memlib.control import ControlPlane


class Later(Clock):
    """The system's clock, `offset` seconds ahead (lease expiry without waiting for it)."""

    def __init__(self, offset: float):
        super().__init__()
        self.offset = timedelta(seconds=offset)

    def now(self):
        return super().now() + self.offset


def work(plane: ControlPlane, name: str, lease: str = "30") -> dict:
    """Claim and ack until the queue is empty; print each task acked."""
    done = []
    got = plane.queue.claim(name, lease=float(lease))
    while got is not None or plane.queue.depth()["queued"]:
        if got is None:
            got = plane.queue.claim(name, lease=float(lease))
            continue
        done.append(got.task_id)
        _, got = plane.queue.ack_and_claim(got, {"by": name}, lease_seconds=float(lease))
    return {"worker": name, "acked": done}


def hold(plane: ControlPlane, name: str, count: str) -> dict:
    """Claim `count` tasks, say which, and hang on to them (the test kills this process)."""
    held = [plane.queue.claim(name).task_id for _ in range(int(count))]
    print(json.dumps({"held": held}), flush=True)
    time.sleep(60)
    return {}


def enqueue(plane: ControlPlane, count: str, stall: str = "0") -> dict:
    """Enqueue `count` tasks in one batch; with `stall`, print "inserted" inside the
    transaction, after the rows are written and before the commit, and wait there."""
    if stall == "1":
        import memlib.control.plane as plane_module

        insert = plane_module._insert

        def stalling(*args):
            out = insert(*args)
            print("inserted", flush=True)
            time.sleep(60)
            return out

        plane_module._insert = stalling
    plane.queue.enqueue_many([{"kind": "batch", "payload": {"i": i}} for i in range(int(count))])
    return {"enqueued": int(count)}


ROLES = {"work": work, "hold": hold, "enqueue": enqueue}

if __name__ == "__main__":
    role, directory, *args = sys.argv[1:]
    offset = float(os.environ.get("CLOCK_AHEAD", "0"))
    with ControlPlane.open(directory, clock=Later(offset)) as plane:
        print(json.dumps(ROLES[role](plane, *args)), flush=True)
