"""The workspace with real processes: a sync killed with SIGKILL at each step (and at random
moments) leaves every file whole, old or new, and the next sync completes it; syncs and
saves from several processes never interleave; `memlib workspace watch` syncs on save.
The kills are real: the fault injection lives here, in the child's `on_step` hook."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memlib import MemoryStore
from memlib.embeddings import HashEmbedder
from memlib.workspace import Workspace
from memlib.workspace.sync import STATE
from workers import CHILD_PATH

MEMLIB = str(Path(sys.executable).with_name("memlib"))
FILES = ["MEMORY.md", "memory/2026-02-14.md", "memory/2026-02-15.md"]

CHILD = CHILD_PATH + """
import sys
from memlib import MemoryStore
from memlib.workspace import Workspace
from workers import step_hook

on_step = step_hook()
report = Workspace(sys.argv[2]).sync(MemoryStore.open(sys.argv[1]), on_step=on_step)
print("done", report.added, report.updated, report.deleted, len(report.conflicts), flush=True)
"""

SAVER = """
import sys
from memlib import Insight, Conversation, MemoryStore
store = MemoryStore.open(sys.argv[1], workspace=sys.argv[2])
for i in range(int(sys.argv[3])):
    kind = Insight if i % 2 else Conversation
    store.add([kind(project_id=store.workspace.project_id, content=f"saved {sys.argv[4]} {i}")])
print("saved", flush=True)
"""


def _daily(day: str, n: int) -> str:
    return f"# {day} Log\n\n## Summary\nA day of {n} entries.\n\n## Entries\n\n" + "".join(
        f"### {9 + i // 6:02d}:{(i % 6) * 10:02d} - note\nentry {i} of {day}\n\n" for i in range(n))


@pytest.fixture
def pending(tmp_path):
    """A synced workspace, then changes on both sides that the next sync has to make: an
    edited, a deleted and a new entry in the files; an edited and a deleted memory in the
    store. Returns the folder and the files as they were before that sync."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    ws, _ = Workspace.init(tmp_path / "ws", store)
    for day in ("2026-02-14", "2026-02-15"):
        (tmp_path / "ws" / f"memory/{day}.md").write_text(_daily(day, 12))
    (tmp_path / "ws" / "MEMORY.md").write_text("# Long-term Memory\n\n## Facts\n- the sky is blue\n- water is wet\n")
    ws.sync(store)
    ids = {k: r["id"] for f in json.loads((tmp_path / "ws" / STATE).read_text())["files"].values()
           for k, r in f["entries"].items()}
    daily = tmp_path / "ws" / "memory/2026-02-14.md"
    daily.write_text(daily.read_text().replace("entry 3 of", "entry three of").replace(
        "### 09:40 - note\nentry 4 of 2026-02-14\n\n", "") + "### 18:00 - decision: Ship\nShip on Friday\n")
    store.update(ids["bullet|facts|the sky is blue|1"], content="the sky is blue by day")
    store.delete([ids["heading|entries|09:10 manual|1"]])  # the second entry of one day log
    before = {f: (tmp_path / "ws" / f).read_text() for f in FILES}
    return tmp_path, before


def _copy(base: Path, into: Path) -> Path:
    shutil.copytree(base / "store", into / "store")
    shutil.copytree(base / "ws", into / "ws")
    return into


def _sync(root: Path, **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(root / "store"), str(root / "ws")],
                            env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _memories(root: Path) -> dict[str, str]:
    store = MemoryStore.open(str(root / "store"))
    table = store.dataset().to_table(columns=["id", "text", "kind"], filter="kind != 'project'")
    return dict(zip(table.column("id").to_pylist(), table.column("text").to_pylist()))


def _files(root: Path) -> dict[str, str]:
    return {f: (root / "ws" / f).read_text() for f in FILES}


def _temp_files(root: Path) -> list[Path]:
    return [p for p in (root / "ws").rglob(".*.tmp")]


def _uninterrupted(base: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """A copy of `base` synced to the end: its folder and the steps the sync reported."""
    reference = _copy(base, tmp_path / "reference")
    proc = _sync(reference)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return reference, [line for line in out.splitlines() if not line.startswith("done")]


def test_a_sync_killed_at_any_step_leaves_whole_files_and_the_next_sync_completes_it(pending, tmp_path):
    base, before = pending
    reference, steps = _uninterrupted(base, tmp_path)
    assert steps[0] == "store" and steps[-1] == "state" and len(steps) == 4  # and two files
    after = _files(reference)
    assert after != before and "entry three of" in after["memory/2026-02-14.md"]
    assert "the sky is blue by day" in after["MEMORY.md"]
    for step in steps:
        root = _copy(base, tmp_path / f"killed-{steps.index(step)}")
        proc = _sync(root, KILL_AT=step)
        proc.communicate(timeout=300)
        assert proc.returncode == -signal.SIGKILL
        for name, text in _files(root).items():
            assert text in (before[name], after[name]), f"{name} is half-written after a kill at {step}"
        proc = _sync(root)  # the next sync completes the killed one
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.strip().endswith(" 0"), f"a conflict after a kill at {step}: {out}"  # none
        assert _files(root) == after
        assert _memories(root) == _memories(reference)
        assert not _temp_files(root)


def test_a_sync_killed_at_random_moments_never_leaves_half_a_file(pending, tmp_path):
    base, before = pending
    reference = _copy(base, tmp_path / "reference")
    assert _sync(reference).wait(timeout=300) == 0
    after = _files(reference)
    rng = random.Random(14)
    for attempt in range(6):
        root = _copy(base, tmp_path / f"random-{attempt}")
        proc = _sync(root, PAUSE="0.05")
        time.sleep(rng.uniform(0.5, 3.0))  # the child spends about 2 s importing and opening
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        for name, text in _files(root).items():
            assert text in (before[name], after[name])
        assert _sync(root).wait(timeout=300) == 0
        assert _files(root) == after and _memories(root) == _memories(reference)


def test_syncs_and_saves_from_several_processes_never_interleave(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    ws, _ = Workspace.init(tmp_path / "ws", store)
    (tmp_path / "ws" / "memory/2026-02-14.md").write_text(_daily("2026-02-14", 30))
    args = [str(tmp_path / "store"), str(tmp_path / "ws")]
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, *args, "12", tag], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
    procs += [_sync(tmp_path) for _ in range(3)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    ws.sync(store)
    memories = _memories(tmp_path)
    texts = sorted(memories.values())
    assert len(texts) == len(set(texts)) == 31 + 24  # the day's summary and entries, and the saves
    state = json.loads((tmp_path / "ws" / STATE).read_text())
    in_files = [r["id"] for f in state["files"].values() for r in f["entries"].values()]
    assert sorted(in_files) == sorted(memories)  # every memory in a file exactly once
    for tag in ("a", "b"):
        for i in range(12):
            found = [f for f in ("MEMORY.md", *[p for p in state["files"] if p.startswith("memory/")])
                     if f"\nsaved {tag} {i}\n" in (tmp_path / "ws" / f).read_text()]
            assert len(found) == 1
    again = ws.sync(store)
    assert (again.added, again.updated, again.deleted, again.parsed) == (0, 0, 0, 0)


def test_a_sync_waits_for_the_lock_another_process_holds(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    ws, _ = Workspace.init(tmp_path / "ws", store)
    (tmp_path / "ws" / "memory/2026-02-14.md").write_text(_daily("2026-02-14", 3))
    with ws.files.locked():
        proc = _sync(tmp_path)
        time.sleep(4)
        assert proc.poll() is None  # still waiting
        assert not (tmp_path / "ws" / STATE).exists()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and out.startswith("store"), err


def test_watch_syncs_on_every_save(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    ws, _ = Workspace.init(tmp_path / "ws", store)
    proc = subprocess.Popen([MEMLIB, "--store", str(tmp_path / "store"), "workspace", "watch", str(tmp_path / "ws")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("watching")
        assert "0 added" in proc.stdout.readline()  # the first sync
        (tmp_path / "ws" / "memory/2026-03-01.md").write_text(_daily("2026-03-01", 2))
        assert "3 added" in proc.stdout.readline()
        assert {"entry 0 of 2026-03-01", "entry 1 of 2026-03-01"} <= set(_memories(tmp_path).values())
        daily = tmp_path / "ws" / "memory/2026-03-01.md"
        daily.write_text(daily.read_text().replace("entry 1 of", "entry one of"))
        line = proc.stdout.readline()
        assert "1 updated (1 re-embedded)" in line
        assert "entry one of 2026-03-01" in _memories(tmp_path).values()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()


def test_the_cli_inits_and_syncs_and_names_a_bad_folder_in_one_line(tmp_path):
    def run(*args):
        return subprocess.run([MEMLIB, "--store", str(tmp_path / "store"), *args], capture_output=True,
                              text=True, timeout=300)

    assert run("init", "--embedder", "hash").returncode == 0
    out = run("workspace", "init", str(tmp_path / "ws"), "--language", "zh", "--timezone", "Asia/Shanghai")
    assert out.returncode == 0 and "wrote .memlib/workspace.json, SPIRIT.md" in out.stdout
    assert "## 角色定位" in (tmp_path / "ws" / "SPIRIT.md").read_text()
    (tmp_path / "ws" / "memory/2026-02-14.md").write_text("# 2026-02-14 日志\n\n## 记录条目\n\n### 10:30 - 决策\n用 React\n")
    report = json.loads(run("workspace", "sync", str(tmp_path / "ws"), "--json").stdout)
    assert report["added"] == 1
    (row,) = [r for r in MemoryStore.open(str(tmp_path / "store")).dataset().to_table().to_pylist() if r["kind"] == "decision"]
    assert str(row["created_at"]) == "2026-02-14 02:30:00+00:00"  # 10:30 in Shanghai
    project = json.loads((tmp_path / "ws" / ".memlib/workspace.json").read_text())["project_id"]
    added = run("--workspace", str(tmp_path / "ws"), "add", "--kind", "insight", "--project-id", project,
                "--content", "React 需要状态管理")
    assert added.returncode == 0, added.stderr
    assert "\nReact 需要状态管理\n" in (tmp_path / "ws" / "MEMORY.md").read_text()
    for args, message in [
        (("workspace", "sync", str(tmp_path / "nowhere")), "is not a directory"),
        (("workspace", "sync", str(tmp_path)), "is not a memlib workspace"),
        (("workspace", "init", str(tmp_path / "w2"), "--timezone", "Mars/Olympus"), "is not a time zone"),
    ]:
        out = run(*args)
        lines = out.stderr.strip().splitlines()
        assert out.returncode != 0 and len(lines) == 1 and message in lines[0], out.stderr


@pytest.fixture
def tangled(tmp_path):
    """A synced workspace, then changes the next sync must make that move entries around
    inside their files: the store retitles two entries of one day and rewrites two bullets
    of one section, deletes entries on both sides, saves new memories (appended, journaled)
    while the files gain, lose and edit entries. Returns the folder and the files before."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    ws, _ = Workspace.init(tmp_path / "ws", store)
    for day in ("2026-02-14", "2026-02-15"):
        (tmp_path / "ws" / f"memory/{day}.md").write_text(_daily(day, 12))
    facts = "".join(f"- fact {i} holds\n" for i in range(6))
    (tmp_path / "ws" / "MEMORY.md").write_text(f"# Long-term Memory\n\n## Facts\n{facts}\n## Lessons\n- retry with care\n")
    ws.sync(store)
    ids = [r["id"] for f in json.loads((tmp_path / "ws" / STATE).read_text())["files"].values()
           for r in f["entries"].values()]
    by_text = {store.get(i).text: i for i in ids}
    facts = [by_text[f"fact {i} holds"] for i in range(6)]
    for n, memory_id in enumerate(facts[:2]):
        store.update(memory_id, content=f"fact {n} was revised by an agent")
    day = [by_text[f"entry {i} of 2026-02-14"] for i in range(12)]
    for memory_id in day[2:4]:
        memory = store.get(memory_id)
        store.update(memory_id, title=f"retitled {memory.title}", content=memory.content + " (checked)")
    store.delete([day[5], facts[4]])
    saver = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder(), workspace=str(tmp_path / "ws"))
    from memlib import Insight, Conversation
    saver.add([Insight(project_id=ws.project_id, content="saved insight one"),
               Conversation(project_id=ws.project_id, content="saved turn two")])
    daily = tmp_path / "ws" / "memory/2026-02-15.md"
    daily.write_text(daily.read_text().replace("entry 1 of", "entry one of").replace(
        "### 09:30 - note\nentry 3 of 2026-02-15\n\n", "") + "### 19:00 - insight\nlearned late\n")
    memory = tmp_path / "ws" / "MEMORY.md"
    memory.write_text(memory.read_text().replace("- fact 5 holds\n", "- fact 5 holds firmly\n- fact 6 is new\n"))
    before = {f: (tmp_path / "ws" / f).read_text() for f in FILES}
    return tmp_path, before


def _ids_of(root: Path) -> dict[str, str]:
    """Each memory's id by its text, and by the file entry that holds it (the state's)."""
    state = json.loads((root / "ws" / STATE).read_text())
    return {f"{name}#{key}": rec["id"] for name, f in state["files"].items() for key, rec in f["entries"].items()}


def test_a_sync_killed_after_its_files_converges_to_the_uninterrupted_one_ids_included(tangled, tmp_path):
    base, before = tangled
    reference, steps = _uninterrupted(base, tmp_path)
    after, memories, ids = _files(reference), _memories(reference), _ids_of(reference)
    conflicts = len(MemoryStore.open(str(reference / "store")).audit.events("action = 'workspace_conflict'"))
    for step in steps[1:]:  # each file written, the last one just before the state
        root = _copy(base, tmp_path / f"killed-{steps.index(step)}")
        proc = _sync(root, KILL_AT=step)
        proc.communicate(timeout=300)
        assert proc.returncode == -signal.SIGKILL
        proc = _sync(root)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert _files(root) == after, f"killed at {step}"
        assert _memories(root) == memories, f"killed at {step}"
        assert _ids_of(root) == ids, f"killed at {step}"
        store = MemoryStore.open(str(root / "store"))
        assert len(store.audit.events("action = 'workspace_conflict'")) == conflicts, f"killed at {step}"
        assert not store.audit.events("action = 'retention_apply'") or \
            len(store.audit.events("action = 'workspace_delete'")) == 1
