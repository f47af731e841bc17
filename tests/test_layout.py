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
SHARED = {"vocabulary", "models", "errors", "deferred", "extras", "scope", "clock", "embeddings", "glosses", "policy", "settings", "interface"}


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


BEHIND_THE_DOORS = {"audit", "recalls", "table", "db", "vectors"}  # a store's parts, reached by its methods


def reaches_into_a_store(path: Path, is_memory_store: bool = False) -> list[str]:
    """`store.audit`, `self.store._table`, `snapshot.db` ...: attributes of a store that only
    store/ may touch, read elsewhere (a store is any name or attribute ending in 'store', or
    `self` in MemoryStore, which may use what it defines itself: its cache slot and its own
    private methods)."""
    tree = ast.parse(path.read_text())
    own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)} | {"vectors"} if is_memory_store else set()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        value = node.value
        named = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else ""
        is_store = named.endswith("store") or (named == "self" and is_memory_store)
        private = node.attr.startswith("_") and not node.attr.startswith("__")
        if is_store and (node.attr in BEHIND_THE_DOORS or private) and node.attr not in own:
            found.append((node.lineno, f"{path.name}:{node.lineno} .{node.attr}"))
    return [text for _, text in sorted(found)]


def test_nothing_outside_the_store_reaches_into_it(tmp_path):
    reaches = [r for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] != "store"
               for r in reaches_into_a_store(p, p.name == "memory_store.py")]
    assert reaches == [], "use the store's doors (memlib/store/doors.py, memlib/interface.py)"
    probe = tmp_path / "probe.py"
    probe.write_text("store.audit.record('x', [])\nself.store._table.count_rows()\nsnapshot_store.db\n"
                     "store.count_rows()\nself._judge()\n")
    assert reaches_into_a_store(probe) == ["probe.py:1 .audit", "probe.py:2 ._table", "probe.py:3 .db"]
    assert reaches_into_a_store(probe, is_memory_store=True)[-1] == "probe.py:5 ._judge"


def test_the_store_and_the_memory_store_have_every_door():
    from memlib.interface import MemoryInterface, StoreInterface
    from memlib.memory_store import MemoryStore
    from memlib.store import Store

    for protocol, cls in ((StoreInterface, Store), (MemoryInterface, MemoryStore)):
        doors = {name for name in dir(protocol) if not name.startswith("_")} | set(protocol.__annotations__)
        missing = sorted(n for n in doors if not hasattr(cls, n) and n not in _instance_attributes(cls))
        assert missing == [], f"{cls.__name__} lacks {missing}"


def _instance_attributes(cls) -> set[str]:
    """Names `self.x = ...` sets in the __init__ of cls and its bases."""
    names = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or not hasattr(init, "__code__"):
            continue
        import inspect
        import textwrap

        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
        names |= {t.attr for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))
                  for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                  for t in ([*t.elts] if isinstance(t, ast.Tuple) else [t])
                  if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
    return names


def module_file(module: str) -> Path | None:
    """The file of a dotted memlib module (a package's is its __init__.py), or None."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def file_arrows() -> dict[Path, set[Path]]:
    """Which memlib file imports which, every import counted (at the top, inside a function,
    for type checking only): `from package import module` points at the module's file."""
    arrows = {}
    for path in PACKAGE.rglob("*.py"):
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memlib"):
                for alias in node.names:
                    targets.add(module_file(f"{node.module}.{alias.name}") or module_file(node.module))
            elif isinstance(node, ast.Import):
                targets.update(module_file(a.name) for a in node.names if a.name.startswith("memlib"))
        arrows[path] = {t for t in targets if t is not None and t != path}
    return arrows


def test_no_two_files_import_each_other_round_a_loop():
    arrows, done = file_arrows(), set()
    while len(done) < len(arrows):  # peel off the files that import only peeled ones
        ready = {f for f, targets in arrows.items() if f not in done and targets <= done}
        if not ready:
            left = {f: t - done for f, t in arrows.items() if f not in done}
            while True:  # what is left holds a loop: drop what nothing left imports, until only loops remain
                kept = {f: t & set(left) for f, t in left.items() if any(f in t2 for t2 in left.values())}
                if kept.keys() == left.keys():
                    break
                left = kept
            raise AssertionError("files importing each other round a loop: "
                                 + ", ".join(sorted(str(f.relative_to(ROOT)) for f in left)))
        done |= ready


LONGEST = 80  # lines of a function, its nested functions counted in it


def long_functions() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        nested = {id(inner) for outer in ast.walk(tree) if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for inner in ast.walk(outer) if inner is not outer}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in nested:
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    found.append(f"{path.relative_to(ROOT)}:{node.name} ({lines} lines)")
    return found


def test_no_function_is_longer_than_a_screen():
    assert long_functions() == []
