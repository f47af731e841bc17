"""The house: each package imports only the packages below it, and importing memlib changes
no global state."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memlib"
SHARED = {"models", "errors", "scope", "clock", "embeddings", "policy"}
# what each part of memlib may import (besides itself and the shared vocabulary)
ALLOWED = {
    "shared": set(),
    "store": set(),
    "search": {"store"},
    "analytics": {"store", "control"},
    # maintain sizes Lance's vector index by what the search cache holds (vector_bytes)
    "lifecycle": {"store", "analytics", "search"},
    "sample": {"store", "lifecycle", "consensus", "control"},
    "workspace": {"store", "lifecycle"},
    "consensus": {"store"},
    "control": {"store"},
    # its write screen judges duplicates with the consensus detectors (consensus.duplicates)
    "memory_store": {"store", "search", "lifecycle", "workspace", "consensus"},
    "agents": {"store", "search", "lifecycle", "memory_store", "control"},
}


def part(module: str) -> str:
    """The part of memlib a dotted module name belongs to."""
    first = module.split(".")[1] if module.count(".") else ""
    return "shared" if first in SHARED else first


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memlib"):
            found.update(f"{node.module}.{a.name}" if node.module == "memlib" else node.module
                         for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("memlib"))
    return found


def test_arrows_point_one_way_towards_the_store():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        name = "memlib." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        here = part(name)
        if here not in ALLOWED:  # memlib/__init__.py and cli/ stand above everything
            continue
        for target in imports(path):
            there = part(target)
            if there not in (here, "shared") and there not in ALLOWED[here]:
                wrong.append(f"{name} imports {target}")
    assert not wrong, wrong
    assert part("memlib.store.store") == "store" and part("memlib.policy") == "shared"


def test_importing_memlib_changes_no_environment_variable():
    code = ("import os; before = dict(os.environ); import memlib, memlib.cli, memlib.analytics, "
            "memlib.lifecycle.retention, memlib.sample; print(before == dict(os.environ))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr
