"""The views of sql/, read from the installed package (importlib.resources), each after the
views it reads. The top-level sql/ folder of the repository is mapped into the package as
`memlib.sql` by the build, so a wheel carries it. A missing, unreadable or misnamed view
file is one StoreError naming it, raised when a connection is made.

Each file declares the views and macros it reads, as dbt's ref() does, in one line above its
`create`: `-- reads: stg_memories, day_us` (or `-- reads: nothing`). The order comes from
those lines; a file whose SQL names a view it does not declare, or declares one it does not
name, is refused, so the declarations stay true."""

from __future__ import annotations

import functools
import re
from importlib import resources

from memlib.errors import StoreError

VIEW = re.compile(r"create\s+or\s+replace\s+(?:view|macro)\s+(\w+)", re.IGNORECASE)
# `-- materialize: table`: built as a table once per connection (the marts share it);
# `-- materialize: cache`: a plain view, except on a connection with a cache directory (a
# report run), where it is kept like the tables, for the next run on an unchanged store.
MATERIALIZE = re.compile(r"^--\s*materialize:\s*table\s*$", re.MULTILINE)
CACHED = re.compile(r"^--\s*materialize:\s*cache\s*$", re.MULTILINE)
READS = re.compile(r"^--\s*reads:(.*)$", re.MULTILINE)
# The views memlib's own code reads; a package without one of them is broken.
REQUIRED = ("mart_usage_summary", "mart_usage_by_memory", "mart_usage_daily", "mart_hit_rank",
            "mart_ttl", "mart_decay", "mart_decay_curve", "mart_confidence", "mart_risky_recalls",
            "mart_effective_confidence", "mart_retention_candidates", "int_usage_unfolded",
            "stg_audit_log", "mart_agent_activity")


@functools.cache
def ordered_views() -> tuple[tuple[str, str], ...]:
    """(name, sql) of every view file, each after the views it reads."""
    try:
        folder = resources.files("memlib.sql")
        paths = sorted((p for p in folder.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        raise StoreError("memlib's SQL views (memlib/sql) are missing from this installation") from None
    files = {}
    for path in paths:
        name = path.name.removesuffix(".sql")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"view file sql/{path.name} cannot be read: {exc}") from None
        match = VIEW.search(text)
        if not match or match.group(1) != name:
            raise StoreError(f"view file sql/{path.name} must create the view or macro {name}")
        files[name] = text
    missing = [name for name in REQUIRED if name not in files]
    if missing:
        raise StoreError(f"view sql/{missing[0]}.sql is missing from this installation")
    for name in files:
        declared, named = set(reads(files, name)), set(_named(files, name))
        wrong = sorted(declared ^ named)
        if wrong:
            said = "declares" if wrong[0] in declared else "reads"
            raise StoreError(f"view file sql/{name}.sql {said} {wrong[0]} but its SQL "
                             f"{'does not name it' if said == 'declares' else 'does not declare it (-- reads:)'}")
    order: list[str] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in trail:
            raise StoreError(f"views depend on each other in a cycle: {' -> '.join(trail + (name,))}")
        for other in reads(files, name):
            visit(other, trail + (name,))
        order.append(name)

    for name in files:
        visit(name, ())
    return tuple((name, files[name]) for name in order)


def reads(files: dict[str, str], name: str) -> list[str]:
    """The views a view file declares it reads (its `-- reads:` line)."""
    lines = READS.findall(files[name])
    if len(lines) != 1:
        raise StoreError(f"view file sql/{name}.sql must declare what it reads in one '-- reads:' line "
                         f"(the views and macros it names, or 'nothing')")
    said = [word.strip() for word in lines[0].split(",") if word.strip()]
    return [] if said == ["nothing"] else said


def _named(files: dict[str, str], name: str) -> list[str]:
    """The other views a view's SQL names (comments aside): what its declaration is checked by."""
    body = re.sub(r"--[^\n]*", "", files[name])
    return [other for other in files if other != name and re.search(rf"\b{other}\b", body)]


def closure(names: list[str]) -> list[tuple[str, str]]:
    """The views `names` need (themselves and what they read), in dependency order."""
    ordered = ordered_views()
    files = dict(ordered)
    unknown = [n for n in names if n not in files]
    if unknown:
        raise StoreError(f"no view named {unknown[0]!r}")
    wanted: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name not in wanted:
            wanted.add(name)
            stack.extend(reads(files, name))
    return [(n, sql) for n, sql in ordered if n in wanted]
