"""The house: the map memlib/__init__.py and the README draw is the code's imports, those
arrows make no loop, and importing memlib changes no global state."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memlib"
ROOT = PACKAGE.parent
SHARED = {"models", "errors", "scope", "clock", "embeddings", "policy", "settings"}


def drawn_in_init() -> dict[str, set[str]]:
    """The arrows memlib/__init__.py draws: `    part -> a, b` lines."""
    text = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text()))
    return {m[1]: {t for t in m[2].replace(",", " ").split()}
            for m in re.finditer(r"^    (\w+) +->(.*)$", text, re.M)}


def drawn_in_readme() -> dict[str, set[str]]:
    """The arrows of the README's layout table: its package column and its imports column."""
    section = (ROOT / "README.md").read_text().split("## Layout: the map of the house")[1].split("\n## ")[0]
    rows = re.findall(r"^\| `(\w+)(?:/|\.py)` \|.*\| ([^|]+) \|$", section, re.M)
    return {name: set() if cell.strip() == "shared vocabulary" else {t.strip() for t in cell.split(",")}
            for name, cell in rows}


def real_arrows() -> dict[str, set[str]]:
    """Which part imports which other part (the shared vocabulary and memlib/__init__.py aside)."""
    arrows: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        name = "memlib." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        here = part(name)
        if here in ("shared", "__init__"):
            assert not {part(t) for t in imports(path)} - {"shared", here, "memory_store"}, name
            continue
        arrows.setdefault(here, set()).update(t for t in map(part, imports(path)) if t not in (here, "shared"))
    return arrows


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


def test_the_map_in_init_and_in_the_readme_is_the_code():
    real = real_arrows()
    assert drawn_in_init() == real, "memlib/__init__.py's arrows are not the imports"
    assert drawn_in_readme() == real, "README.md's layout table is not the imports"
    assert part("memlib.store.store") == "store" and part("memlib.policy") == "shared"


def test_the_arrows_make_no_loop():
    arrows, done = real_arrows(), set()
    while len(done) < len(arrows):  # peel off the parts that point only at peeled ones
        ready = {p for p, targets in arrows.items() if p not in done and targets <= done}
        assert ready, f"a loop among {sorted(set(arrows) - done)}"
        done |= ready


def test_importing_memlib_changes_no_environment_variable():
    code = ("import os; before = dict(os.environ); import memlib, memlib.cli, memlib.analytics, "
            "memlib.lifecycle.retention, memlib.sample; print(before == dict(os.environ))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


EDGES = ("memlib/settings.py", "memlib/cli/")  # where the environment is read (memlib/settings.py)


def environment_reads(path: Path) -> list[int]:
    """Lines of `path` that read or write the process environment."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "unsetenv"):
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                a.name in ("environ", "getenv", "putenv") for a in node.names):
            found.append(node.lineno)
    return found


def test_only_the_edges_read_the_environment():
    below = {str(p.relative_to(ROOT)): lines for p in PACKAGE.rglob("*.py")
             if not str(p.relative_to(ROOT)).startswith(EDGES) and (lines := environment_reads(p))}
    assert below == {}, "read the setting in memlib/settings.py and pass it down"
    assert environment_reads(PACKAGE / "settings.py"), "the check would not see a read"
