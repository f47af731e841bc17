"""The README's Python examples run as written, in order, in a fresh folder, so none goes
stale: each block is executed with the names the prose leaves to the reader given (the
store of the first example, a session id, a tool's output, a project id, an agent's goals
and model). Only what cannot run here is swapped: the Ray cluster's address (the example
says to omit it to run in this process) and the bucket, for the store of the first example."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memlib import MemoryStore, Project
from memlib.clock import Clock

README = Path(__file__).resolve().parent.parent / "README.md"
SWAPPED = {'distributed.use_ray("ray://head:10001")': "pass",
           '"s3://team-bucket/memlib"': '"data/store"'}


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_every_python_example_of_the_readme_runs(tmp_path, monkeypatch, model):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMLIB_CONTROL_PLANE", str(tmp_path / "control-plane.db"))
    found = blocks()
    assert len(found) >= 6
    namespace: dict = {}
    for number, code in enumerate(found, start=1):
        for old, new in SWAPPED.items():
            code = code.replace(old, new)
        if number == 1:  # the example's store, with the suite's model and a first memory a month old
            first = MemoryStore.open("data/store", embedder=model, clock=Clock(datetime(2026, 10, 1, tzinfo=timezone.utc)))
            first.add([Project(name="older")])
        shop = namespace.get("shop")
        namespace.update({
            "sid": "session-1", "tool_output": b"pytest: 12 passed", "PROJECT_ID": getattr(shop, "id", None),
            "project_id": getattr(shop, "id", None), "goals": ["cache prices"],
            "my_llm": lambda context, goal: f"Done: {goal}",
        })
        try:
            exec(compile(code, f"README.md, example {number}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure names the example
            pytest.fail(f"README example {number} failed: {type(exc).__name__}: {exc}")
    assert namespace["unit"].cluster_id and namespace["result"].status == "succeeded"
    assert namespace["rows"] is not None and namespace["hits"]
