"""A retention apply killed with SIGKILL leaves the store as before or as after, and the next
apply completes it. The kills are real: a child process runs `memlib retention apply`."""

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

from memlib import MemoryStore, lifecycle
from memlib.embeddings import HashEmbedder
from memlib.sample import build_sample

AS_OF = "2026-10-20"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("crash") / "store"
    store = MemoryStore.open(str(path), embedder=HashEmbedder())
    build_sample(store, size=3000, seed=7, anchor=datetime(2026, 11, 1, tzinfo=timezone.utc))
    before = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    return path, before, set(lifecycle.plan(store, "default", AS_OF).ids)


def _apply(path, **env):
    return subprocess.Popen([sys.executable, "-m", "memlib.cli", "--store", str(path), "retention", "apply",
                             "--as-of", AS_OF], env={**os.environ, **env},
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
    proc = _apply(path, MEMLIB_KILL_AT=step)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    ids = _check_and_finish(path, before, plan)
    assert ids == (before if step in ("started", "tagged", "archived") else before - plan)


def test_killed_at_random_moments(built, tmp_path):
    source, before, plan = built
    path = tmp_path / "timing"
    shutil.copytree(source, path)
    started = time.perf_counter()
    proc = _apply(path)
    proc.communicate(timeout=300)
    whole = time.perf_counter() - started
    rng = random.Random(4)
    outcomes = set()
    for n in range(6):
        path = tmp_path / f"store{n}"
        shutil.copytree(source, path)
        proc = _apply(path)
        time.sleep(rng.uniform(0.3, 1.0) * whole)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=300)
        outcomes.add("finished" if proc.returncode == 0 else "killed")
        _check_and_finish(path, before, plan)
    assert "killed" in outcomes
