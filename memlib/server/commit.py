"""Group commit: the writes of many clients in one commit per short window.

A request's memories are validated in the request's own thread, then queued; one committer
thread takes what is queued (waiting `window` seconds after the first for more, up to
`max_rows`), embeds it in one batch and writes it in one `store.add`, with each memory's
writer in the audit log; each request is answered only once its rows are committed, with the
ids saved. A batch that is refused as a whole (one request names a parent that is not there,
say) is written again request by request, so only the request at fault gets the error.

Every write a request makes is one of its ids: a request carrying an idempotency key gets ids
made from the key and its agent, so a retry after a lost answer (a killed server, a dropped
connection) finds its rows committed and is answered with them instead of writing them again.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

from memlib.errors import InvalidInput, MemlibError, Refused
from memlib.interface import MemoryInterface
from memlib.models import Memory, parse_memory, record_label, stable_id

WINDOW = 0.004   # seconds the committer waits for more writes after the first (bench/server.py)
MAX_ROWS = 1024  # memories in one commit at most


def keyed_id(agent: str, key: str, position: int) -> str:
    """The id of the `position`th memory of a write with idempotency key `key` by `agent`:
    the same on every retry, a valid UUID4 (random-looking bits from the key's hash)."""
    return stable_id("idempotency", agent, key, str(position))


@dataclass
class Write:
    """One request's memories on their way to a commit."""

    memories: list[Memory]
    agent: str
    duplicates: str
    labels: list[str]
    done: Future = field(default_factory=Future)


class GroupCommit:
    """The committer of one store (one per server process)."""

    def __init__(self, store: MemoryInterface, lock: threading.RLock, window: float = WINDOW,
                 max_rows: int = MAX_ROWS):
        self.store, self.lock, self.window, self.max_rows = store, lock, window, max_rows
        self.queue: queue.Queue[Write | None] = queue.Queue()
        self.commits = 0  # how many commits it made, for the bench and the tests
        self._thread = threading.Thread(target=self._run, name="memlib-group-commit", daemon=True)
        self._thread.start()

    def write(self, memories: list, agent: str, duplicates: str = "merge", key: str | None = None,
              labels: list[str] | None = None) -> dict:
        """Validate, queue and wait until committed: {"ids": [...], "merged": {id: the memory
        it repeats}, "replayed": whether a retry found them committed already}."""
        labels = labels or [record_label(i, m) for i, m in enumerate(memories)]
        items = [m if isinstance(m, Memory) else parse_memory(m, label) for m, label in zip(memories, labels)]
        if not items:
            raise InvalidInput("give at least one memory")
        for i, memory in enumerate(items):
            if memory.agent not in (None, agent):
                raise Refused(f"{labels[i]}: agent {memory.agent!r} is not this token's ({agent!r}); "
                                      "an agent writes as itself")
            memory.agent = agent
            if key is not None:
                memory.id = keyed_id(agent, key, i)
        if key is not None:
            stored = self.store.lookup([m.id for m in items], ["id"])
            if len(stored) == len(items):
                return {"ids": [m.id for m in items], "merged": {}, "replayed": True}
        pending = Write(items, agent, duplicates, labels)
        self.queue.put(pending)
        return {**pending.done.result(), "replayed": False}

    def close(self, timeout: float = 30.0) -> None:
        """Commit what is queued, then stop (SIGTERM drains the writes in flight)."""
        self.queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            first = self.queue.get()
            if first is None:
                return
            batch, rows, stop = [first], len(first.memories), False
            deadline = time.monotonic() + self.window
            while rows < self.max_rows:
                try:
                    more = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
                rows += len(more.memories)
            for policy in dict.fromkeys(w.duplicates for w in batch):
                self._commit([w for w in batch if w.duplicates == policy])
            if stop:
                return

    def _commit(self, writes: list[Write]) -> None:
        """One commit for `writes`, or one each when the batch is refused as a whole."""
        memories = [m for w in writes for m in w.memories]
        labels = [f"{w.agent}'s {label}" if len(writes) > 1 else label for w in writes for label in w.labels]
        actor = {m.id: w.agent for w in writes for m in w.memories}
        try:
            with self.lock:
                ids = self.store.add(memories, labels=labels, actor=actor, duplicates=writes[0].duplicates)
                self.commits += 1
        except MemlibError as exc:
            if len(writes) > 1:
                for w in writes:
                    self._commit([w])
                return
            writes[0].done.set_exception(exc)
            return
        except BaseException as exc:  # not the request's fault: every waiting request is told
            for w in writes:
                w.done.set_exception(exc)
            return
        at = 0
        for w in writes:
            mine = ids[at:at + len(w.memories)]
            at += len(w.memories)
            w.done.set_result({"ids": mine, "merged": {m.id: i for m, i in zip(w.memories, mine) if m.id != i}})
