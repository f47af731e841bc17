"""A retention apply killed with SIGKILL leaves the store as before or as after, and the next
open of the store (or apply) completes it. The kills are real: a child process runs the apply, and the fault
injection lives here, in the child's `on_step` hook, not in the library."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

from memlib import MemoryStore
from memlib.embeddings import HashEmbedder
from memlib.lifecycle import retention as lifecycle
from memlib.sample import build_sample
from workers import CHILD_PATH

AS_OF = "2026-10-20"
PAUSE = 0.3  # seconds the child rests after each step, so a kill always lands inside the run

# The child: `memlib retention apply` through the library, reporting each step on stdout;
# KILL_AT names a step at which it kills itself, PAUSE makes it rest after each step.
CHILD = CHILD_PATH + """
import sys
from memlib import MemoryStore
from memlib.lifecycle import retention
from workers import step_hook

on_step = step_hook()
print("go", flush=True)
retention.apply(MemoryStore.open(sys.argv[1]), "default", sys.argv[2], on_step=on_step)
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("crash") / "store"
    store = MemoryStore.open(str(path), embedder=HashEmbedder())
    build_sample(store, size=3000, seed=7, anchor=datetime(2026, 11, 1, tzinfo=timezone.utc),
                 findings=False)  # the runs here are the tests'
    before = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    return path, before, set(lifecycle.plan(store, "default", AS_OF).ids)


def _apply(path, **env):
    return subprocess.Popen([sys.executable, "-c", CHILD, str(path), AS_OF], env={**os.environ, **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ids(path):
    return set(MemoryStore.open(str(path)).dataset().to_table(columns=["id"]).column("id").to_pylist())


def _check_and_finish(path, before, plan):
    ids = _ids(path)
    assert ids in (before, before - plan), "between before and after"
    done = _apply(path)
    out, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    assert _ids(path) == before - plan
    store = MemoryStore.open(str(path))
    statuses = [r["status"] for r in lifecycle.runs(store)]
    assert "started" not in statuses and statuses.count("done") == 1
    return ids


@pytest.mark.parametrize("step", ["started", "tagged", "archived", "deleted", "events"])
def test_killed_at_each_step(built, tmp_path, step):
    source, before, plan = built
    path = tmp_path / "store"
    shutil.copytree(source, path)
    proc = _apply(path, KILL_AT=step)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    ids = _check_and_finish(path, before, plan)
    # the first open after the kill finishes the run (its promise, store/journal.py): rolled
    # forward once its rows were archived
    assert ids == (before if step in ("started", "tagged") else before - plan)


def test_killed_at_random_moments(built, tmp_path):
    """Killed at a random moment after the run started: inside a Lance commit or between
    two. The child rests PAUSE after each of the four later steps, so every kill lands
    before the run ends."""
    source, before, plan = built
    rng = random.Random(4)
    for n in range(6):
        path = tmp_path / f"store{n}"
        shutil.copytree(source, path)
        proc = _apply(path, PAUSE=str(PAUSE))
        assert proc.stdout.readline().strip() == "go"
        assert proc.stdout.readline().strip() == "started"
        time.sleep(rng.uniform(0.0, 3.5 * PAUSE))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=300)
        assert proc.returncode == -signal.SIGKILL
        _check_and_finish(path, before, plan)
