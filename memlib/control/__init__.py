"""The control plane (seed 002): the agent runtime's tasks, their events, approval tickets and
results, and a dispatch queue with leases and backpressure, in a SQLite file in the store's
directory. It shares the memory's session ids, not its semantics: nothing here is embedded,
searched or retained; the control_plane report joins the two."""

from memlib.control.plane import ControlPlane, DispatchQueue, LeaseLost, QueueFull
from memlib.control.records import Approval, Event, Lease, Result, Task

__all__ = ["Approval", "ControlPlane", "DispatchQueue", "Event", "Lease", "LeaseLost", "QueueFull", "Result", "Task"]
