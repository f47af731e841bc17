"""What memlib guarantees to many processes writing one store, and how.

- A change of a memory (update, flag, confidence, the usage fold) is a compare-and-set. Each
  row carries a `revision` that every change bumps; a change reads the row, computes the new
  values and writes them with a LanceDB merge_insert whose condition is "the revision is still
  the one I read". When another process got there first, nothing is written: the change is
  recomputed from a fresh read and tried again (bounded, with backoff). Every writer of a row
  (an import's upsert and the usage fold too) bumps its revision, so none overwrites another.
- What must stay unique (a new memory's id, a promotion, an undo's restored rows) and what
  must not orphan (a delete and the children added meanwhile) is checked and committed under
  the store's writer lock, a file lock beside a local store: Lance appends never conflict, so
  two processes inserting one id would both succeed. Embedding happens before the lock.
- A commit that Lance refuses as a retryable conflict (an index build preempted by an
  append, a compaction beside a delete) is retried with backoff; index creation after a
  write is best effort and never fails the write it follows.
- The audit event of a change is written after its commit, for the rows that changed.

Object storage has no file lock: there, unique inserts by concurrent processes are not
guaranteed (the scale-out issue's).
"""

from __future__ import annotations

import fcntl
import os
import random
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from memlib.errors import StoreError, first_line
from memlib.store.storage import is_local

T = TypeVar("T")
ATTEMPTS = 40           # compare-and-set rounds before giving up (each has lost to another writer)
COMMIT_ATTEMPTS = 10    # retries of a commit Lance calls retryable
_RETRYABLE = ("retryable commit conflict", "was preempted", "commit conflict", "too many concurrent writers")


def retryable(exc: BaseException) -> bool:
    """A commit Lance refused because another commit got in first; trying again is safe."""
    text = str(exc).lower()
    return any(marker in text for marker in _RETRYABLE)


def in_words(exc: BaseException) -> str:
    """What Lance (or anything under memlib) said, as a person reads it: one line, without
    the source file it was raised in; a lost commit race said in memlib's words."""
    if retryable(exc):
        return "another process committed to the store at the same moment"
    return first_line(exc)


def pause(attempt: int, base: float = 0.01, cap: float = 0.5) -> None:
    """Exponential backoff with full jitter, so racing processes spread out."""
    time.sleep(random.uniform(0, min(cap, base * 2 ** attempt)))


def committing(fn: Callable[[], T], attempts: int = COMMIT_ATTEMPTS) -> T:
    """Run one commit, retrying the conflicts Lance calls retryable."""
    for attempt in range(attempts):
        try:
            return fn()
        except Exception as exc:
            if not retryable(exc) or attempt == attempts - 1:
                raise
            pause(attempt)
    raise AssertionError("unreachable")


class Contended(StoreError):
    """A change lost to other writers more times than it may retry."""


class WriterLock:
    """The store's writer lock: re-entrant within a process, exclusive across processes.
    A no-op for object storage (no file to lock)."""

    def __init__(self, uri: str, name: str = "writer"):
        """`name`: which of the store's locks (the writer's; the judge's reader, judges.reading)."""
        self.path = Path(uri.removeprefix("file://")) / "_lock" / name if is_local(uri) else None
        self._thread = threading.RLock()
        self._depth = 0
        self._fh = None

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._thread:
            if self._depth == 0 and self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "a")
                fcntl.flock(self._fh, fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fh is not None:
                    fcntl.flock(self._fh, fcntl.LOCK_UN)
                    self._fh.close()
                    self._fh = None


    @contextmanager
    def tried(self) -> Iterator[bool]:
        """Held if it is free now (True), else not waited for (False): for work that another
        process busy on the store may as well leave to a later turn (a tidy after a write)."""
        with self._thread:
            if self._depth == 0 and self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fh = open(self.path, "a")
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    fh.close()
                    yield False
                    return
                self._fh = fh
            self._depth += 1
            try:
                yield True
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fh is not None:
                    fcntl.flock(self._fh, fcntl.LOCK_UN)
                    self._fh.close()
                    self._fh = None


def writable_dir(uri: str) -> str | None:
    """Why a local store cannot be written (one line), or None if it can."""
    if not is_local(uri):
        return None
    path = uri.removeprefix("file://")
    probe = Path(path) / "_lock"
    try:
        probe.mkdir(parents=True, exist_ok=True)
        test = probe / f".probe-{os.getpid()}"
        test.write_text("")
        test.unlink()
    except OSError as exc:
        return f"the store {uri!r} is read-only here ({exc.strerror or exc})"
    return None
