"""DuckDB over one version of a memlib store: a connection with every view of sql/.

    con = memlib.analytics.connect("data/store", as_of="2026-11-01")
    con.sql("select * from mart_usage_summary").pl()

"As of" means as of: the connection reads the version of the memories table that was
current at the end of the as-of day (time travel, memlib.store.versions), so a report
re-rendered next month gives the answer it gave this month; recall events and audit events
are filtered by their own times. `memlib_params` says which version was read.

The Lance tables are scanned as Arrow datasets by default: on the 1,000,000-memory sample
that is about twice as fast as DuckDB's `lance` extension (bench/reports.py), which remains
available as backend="lance". A view file marked `-- materialize: table` is built as a table
once per connection (its parameters are fixed for the connection), so the marts that share
it do not recompute it; one marked `-- materialize: cache` is a plain view except on a
connection with a cache directory (a report run), where both kinds are kept in files for the
next run on an unchanged store. Report parameters live in small tables (`memlib_params`,
`memlib_source_weight`, `memlib_policy`, `memlib_policy_rule`) filled with bound values,
never spliced into SQL text, so the views stay plain views an analyst can query.
"""

from __future__ import annotations

import difflib
import fcntl
import glob
import hashlib
import importlib
import json
import os
import re
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from memlib.analytics.views import CACHED, MATERIALIZE, VIEW, closure, ordered_views
from memlib.clock import MAX_DAYS, AsOf
from memlib.consensus import tables as consensus_tables
from memlib.control import db as control_db
from memlib.errors import InvalidInput, StoreError, whole_number
from memlib import policy as policy_module
from memlib.policy import Policy, rule_key
from memlib.models import UNTRUSTED, UNTRUSTED_SOURCES, arrow_schema
from memlib.scope import sql_literal
from memlib.sessions import tables as session_tables
from memlib.store import Store
from memlib.store.audit import SCHEMA as AUDIT_SCHEMA
from memlib.store.recall_log import SCHEMA as RECALL_SCHEMA
from memlib.store.storage import is_local

# The tables the concepts keep beside the memories that the views read, as each declares them
CONCEPT_SOURCES = (*consensus_tables.SOURCES, *session_tables.SOURCES)
DEFAULT_POLICIES = ("default", "conservative", "aggressive")  # the retention report's
# How much each source is trusted, for effective confidence (sql/effective_confidence.sql);
# "default" weighs the sources not listed.
DEFAULT_SOURCE_WEIGHTS: dict[str, float] = {
    "default": 0.8, "manual": 1.0, "user": 0.9, "summarizer": 0.85, "import": 0.8, "agent": 0.75,
}


def policies(specs: list, policy_dir: str | None = None) -> tuple[Policy, ...]:
    """Policies by name, path or inline dict (a report parameter); see memlib.policy."""
    return policy_module.load_all(list(specs), policy_dir)


def check_days(value: Any, name: str = "window_days") -> int:
    """A report's span in days (its recent window, its expiry horizon): a whole number of
    days from 1 to MAX_DAYS."""
    return whole_number(value, name, 1, MAX_DAYS, "days")


def check_rows(value: Any, name: str = "top") -> int:
    """How many rows a report's table shows: a whole number, 0 or more."""
    return whole_number(value, name, 0, unit="rows")


def check_percent(value: Any, name: str = "low_confidence") -> int:
    """A confidence threshold: a whole number from 0 to 100, as a memory's confidence is."""
    return whole_number(value, name, 0, 100)


# the reports' parameters of those kinds, checked before a run starts (analytics/reports.py)
CHECKS = {"window_days": check_days, "horizon_days": check_days, "top": check_rows, "low_confidence": check_percent}


@dataclass(frozen=True)
class Params:
    """Everything a report is parameterised by. Decay is judged by the first policy."""

    as_of: datetime  # an AsOf's end: the instant the views read the store as of
    window_days: int = 30
    project_id: str | None = None
    user_id: str | None = None  # one person's memories (Memory.user_id), or everyone's
    low_confidence: int = 50
    policies: tuple[Policy, ...] = field(default_factory=lambda: policy_module.load_all(list(DEFAULT_POLICIES)))
    source_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_SOURCE_WEIGHTS))

    def __post_init__(self):
        check_days(self.window_days)
        check_percent(self.low_confidence)
        if not self.policies:
            raise InvalidInput("give at least one policy")
        for source, weight in self.source_weights.items():
            if not 0 <= weight <= 2:
                raise InvalidInput(f"source weight of {source} must be between 0 and 2, not {weight}")
        if "default" not in self.source_weights:
            raise InvalidInput("source weights need a 'default' entry")

    @classmethod
    def of(cls, values: dict[str, Any]) -> "Params":
        """Params from keywords; an unknown one is named in one line, not a TypeError."""
        known = [f.name for f in fields(cls)]
        for name in values:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise InvalidInput(f"unknown report parameter {name!r}{hint}; the parameters are "
                                   f"{', '.join(known)}")
        return cls(**values)

    @property
    def decay_policy(self) -> Policy:
        return self.policies[0]


def extension(name: str) -> str | None:
    """The file of a DuckDB extension installed from PyPI (duckdb-extension-NAME), for this
    engine version; None if it is not installed (nothing is ever downloaded)."""
    try:
        module = importlib.import_module(f"duckdb_extension_{name}")
    except ImportError:
        return None
    base = Path(module.__file__).parent / "extensions"
    found = glob.glob(str(base / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"))
    return found[0] if found else None


def lance_extension() -> str | None:
    return extension("lance")


def connect(store: Store | str, params: Params | None = None, backend: str = "auto",
            cache_dir: str | Path | None = None, views: list[str] | None = None,
            time_travel: bool = True, **overrides: Any) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection on a store (a Store or its URI) as of `params.as_of`, with every
    view created (or only `views` and what they read).

    A report reads the store as it was at its as-of date (`time_travel`, the default). A
    retention plan reads the store as it is and judges it as of its date
    (`time_travel=False`): it acts on the memories there are now.

    With `cache_dir`, each materialized view is built once into a DuckDB file there, keyed by
    the store's versions and the parameters it reads, and later connections that would build
    the same (the notebooks of one report run) attach it instead. `policies` among the
    overrides may be names, paths or tables (looked for in the store's policy_dir setting)."""
    if not isinstance(store, Store):
        store = Store.open(store, create=False)
    if params is None:
        overrides["as_of"] = AsOf.of(overrides.get("as_of"), store.clock).end
        overrides["policies"] = policies(overrides.get("policies", DEFAULT_POLICIES), store.settings.policy_dir)
        params = Params.of(overrides)
    snapshot = snapshot_at(store, params.as_of) if time_travel else store
    wanted = ordered_views() if views is None else closure(views)
    con = _connection(snapshot, params, backend)
    sources = _sources(snapshot) if cache_dir else None
    for name, sql in wanted:
        try:
            if cache_dir and (MATERIALIZE.search(sql) or CACHED.search(sql)):
                _cached(con, sources, params, name, sql, Path(cache_dir))
            elif not MATERIALIZE.search(sql):
                con.execute(sql)
            else:
                con.execute(VIEW.sub(lambda m: f"create or replace table {m.group(1)}", sql, count=1))
        except duckdb.Error as exc:
            raise StoreError(f"view {name} (sql/{name}.sql) failed: {str(exc).splitlines()[0]}") from None
    return con


def snapshot_at(store: Store, when: datetime) -> Store:
    """A handle on the version of the store that was current at `when`: this one if it reads
    that version already, else a read-only one checked out there."""
    version = store.version_at(when)
    if version == store.version:
        return store
    snapshot = Store.open(store.uri, embedder=store.embedder, create=False, clock=store.clock,
                          settings=store.settings)
    snapshot.checkout(version)
    return snapshot


def _connection(store: Store, params: Params, backend: str) -> duckdb.DuckDBPyConnection:
    try:  # DuckDB's settings from the [duckdb] section of memlib's config (memory_limit,
        # temp_directory, threads ...): how a scheduled run on a big store is held to a memory
        # budget and where it spills. None by default: DuckDB takes 80% of RAM and spills beside it.
        con = duckdb.connect(config={**store.settings.duckdb, "allow_unsigned_extensions": "true"})
    except duckdb.Error as exc:
        raise InvalidInput(f"memlib config [duckdb]: {str(exc).splitlines()[0]}") from None
    con.execute("set TimeZone = 'UTC'")
    bind_params(con, params, store)
    _attach(con, store, backend)
    return con


def _sources(store: Store) -> list:
    """The state of everything the views read: the memories' version, the recall log's (its
    Lance table and the spool files), the audit log's, the tables the concepts declare
    (`CONCEPT_SOURCES`) and the control plane's file. A cached materialization is reused only
    while all are equal, so a report run on a store nobody wrote to since the last run reads
    the last run's."""
    where = os.path.abspath(store.uri.removeprefix("file://")) if is_local(store.uri) else store.uri
    audit = store.audit_dataset()
    state: list = [where, store.version, store.recall_dataset().version,
                   [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in store.recall_segments()],
                   None if audit is None else audit.version]
    for source in CONCEPT_SOURCES:
        table = store.concept_table(source.table)
        state.append(None if table is None else table.version)
    control = control_db.located(store.uri, store.settings)
    state.append([control.stat().st_size, control.stat().st_mtime_ns] if control and control.exists() else None)
    return state


def _cached(con, sources: list, params: Params, name: str, sql: str, cache_dir: Path) -> None:
    """Materialize view `name` into its own DuckDB file in `cache_dir`, keyed by the state of
    the store's tables (`_sources`) and the parameters it reads, unless a connection made it
    already; then read it from there. The notebooks of a report run share what they have in
    common this way, even when one judges decay by another policy, and whether they name the
    store by a relative path or an absolute one; the next run reuses it if nothing changed.
    A file read is touched, so `prune_cache` keeps what the latest run read."""
    reads = " ".join(text for _, text in closure([name]))
    state = [name, sources]
    if "memlib_params" in reads:  # the parameters whose columns it names
        given = {"as_of": params.as_of, "window_days": params.window_days, "project_id": params.project_id,
                 "user_id": params.user_id, "low_confidence": params.low_confidence,
                 "decay_policy": params.decay_policy.name}
        state += [(column, value) for column, value in given.items() if re.search(rf"\b{column}\b", reads)]
    if "memlib_policy" in reads:
        state.append(repr(params.policies))
    if "memlib_source_weight" in reads:
        state.append(params.source_weights)
    key = hashlib.sha256(json.dumps(state, default=str).encode()).hexdigest()[:20]
    path = cache_dir / f"{name}-{key}.duckdb"
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / f"{name}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder; the others wait and attach its file
        if path.exists():
            os.utime(path)
        else:
            tmp = cache_dir / f".{name}-{key}.{os.getpid()}.tmp"
            tmp.unlink(missing_ok=True)  # left by a build this process did not finish
            con.execute(f"attach {sql_literal(str(tmp))} as memlib_out")
            try:
                con.execute(VIEW.sub(lambda m: f"create table memlib_out.{m.group(1)}", sql, count=1))
            finally:
                con.execute("detach memlib_out")
            os.replace(tmp, path)
    con.execute(f"attach {sql_literal(str(path))} as memlib_cache_{name} (read_only)")
    con.execute(f"create or replace view {name} as select * from memlib_cache_{name}.{name}")


def prune_cache(cache_dir: Path, before: float) -> int:
    """Delete the cached materializations (and their lock files) nobody read since `before`
    (a time.time()); returns how many files went."""
    gone = 0
    for path in Path(cache_dir).glob("*"):
        try:
            if path.stat().st_mtime < before:
                path.unlink()
                gone += 1
        except OSError:  # taken by another run's pruning
            pass
    return gone


def _attach(con, store: Store, backend: str) -> None:
    """raw_memories and raw_recall_events over the store's Lance tables, and the spool."""
    if backend == "auto":
        backend = "arrow"
    if backend == "lance":
        extension = lance_extension()
        if not extension:
            raise StoreError("the duckdb lance extension is not installed (duckdb-extension-lance)")
        # ATTACH and LOAD take no bound parameters; the paths go through the one escaping helper.
        con.execute(f"load {sql_literal(extension)}")
        if store.read_only:
            raise InvalidInput("backend lance reads the latest version only; use the arrow backend "
                               "for an as-of date before the store's latest change")
        con.execute(f"attach {sql_literal(os.path.abspath(store.uri))} as memlib_lance (type lance)")
        memories, recalls = "memlib_lance.main.memories", "memlib_lance.main.recall_events"
    elif backend == "arrow":
        con.register("lance_memories", store.dataset())
        con.register("lance_recall_events", store.recall_dataset())
        memories, recalls = "lance_memories", "lance_recall_events"
    else:
        raise InvalidInput(f"backend must be auto, lance or arrow, not {backend!r}")
    con.execute(_raw_view("raw_memories", memories, arrow_schema(store.dims),
                          set(store.columns(embedding=True))))
    con.execute(_raw_view("raw_recall_events", recalls, RECALL_SCHEMA,
                          set(store.recall_dataset().schema.names)))
    _spool_view(con, store)
    # the audit log through Arrow on either backend (a store may not have one yet), as far
    # as the as-of time: it is append-only, so its past is a filter, not a version
    audit = store.audit_dataset()
    con.register("lance_audit_log", audit if audit is not None else AUDIT_SCHEMA.empty_table())
    present = set(AUDIT_SCHEMA.names if audit is None else audit.schema.names)
    con.execute(_raw_view("raw_audit_log", "lance_audit_log", AUDIT_SCHEMA, present)
                + " where \"at\" <= (select as_of from memlib_params)")
    _concept_views(con, store)
    _control_views(con, store)


def _control_views(con, store: Store) -> None:
    """The control plane's views (control/db.py `VIEWS`): its SQLite file (memlib.control)
    through DuckDB's sqlite scanner, as it is now (the views filter by time); empty tables of
    the same layout when the store has no control plane."""
    path = control_db.located(store.uri, store.settings)
    if path is not None and path.exists():
        scanner = extension("sqlite_scanner")
        if not scanner:
            raise StoreError("the duckdb sqlite extension is not installed (duckdb-extension-sqlite-scanner)")
        con.execute(f"load {sql_literal(scanner)}")
        con.execute(f"attach {sql_literal(str(path))} as memlib_control (type sqlite, read_only)")
    else:
        con.execute("attach ':memory:' as memlib_control")
        for name, ddl in control_db.TABLES.items():
            con.execute(ddl.replace(f"exists {name} (", f"exists memlib_control.{name} (", 1)
                        .replace(" integer", " bigint"))
    for view, name in control_db.VIEWS.items():
        con.execute(f"create or replace view {view} as select * from memlib_control.{name}")


def _concept_views(con, store: Store) -> None:
    """The views over the tables the concepts declare (`CONCEPT_SOURCES`: consensus, sessions),
    as they are now (they keep no history to read as of a date; empty when a store has none)."""
    for source in CONCEPT_SOURCES:
        table = store.concept_table(source.table)
        schema = source.schema(store.dims)
        name = f"lance_{source.table}"
        con.register(name, table.to_lance() if table is not None else schema.empty_table())
        con.execute(_raw_view(source.view, name, schema, set((table.schema if table is not None else schema).names)))


def _raw_view(name: str, source: str, schema: pa.Schema, present: set[str]) -> str:
    """A view with every column the current schema has; ones an older store lacks are null."""
    columns = []
    for f in schema:
        if f.name in ("embedding", "centroid", "vector_sum"):  # vectors are not for SQL
            continue
        if f.name in present:
            columns.append(f'"{f.name}"')
        else:
            columns.append(f'cast(null as {_duck_type(f.type)}) as "{f.name}"')
    return f"create or replace view {name} as select {', '.join(columns)} from {source}"


def _duck_type(t: pa.DataType) -> str:
    if pa.types.is_list(t):
        return _duck_type(t.value_type) + "[]"
    if pa.types.is_timestamp(t):
        return "timestamptz"
    return {pa.string(): "varchar", pa.int64(): "bigint", pa.int32(): "integer",
            pa.bool_(): "boolean", pa.float64(): "double"}[t]


def _spool_view(con, store: Store) -> None:
    """Recall events still in the spool (never more than a flush's worth), as a table."""
    schema = pa.schema([f for f in RECALL_SCHEMA if f.name not in ("flush_id", "flushed_at")])
    # Copied into DuckDB, not scanned through Arrow: joins push filters (bloom filters)
    # into scans that Arrow scans do not support.
    con.register("spool_arrow", pa.Table.from_pylist(store.spooled_recalls(), schema=schema))
    con.execute("create or replace table raw_recall_spool as select * from spool_arrow")
    con.unregister("spool_arrow")


def bind_params(con, params: Params, store: Store) -> None:
    """Fill the parameter tables with bound values; the views read them. A connection's
    parameters are fixed (materialized views depend on them): connect again for others."""
    con.execute("create or replace table memlib_params (as_of timestamptz, window_days integer, "
                "project_id varchar, low_confidence integer, embedding_dims integer, "
                "decay_policy varchar, store_version bigint, store_version_at timestamptz, user_id varchar)")
    con.execute("insert into memlib_params values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [params.as_of, params.window_days, params.project_id, params.low_confidence,
                 store.dims, params.decay_policy.name, store.version, store.version_time(), params.user_id])
    # the rule of trust (models.trusted), for the views that count untrusted memories
    con.execute("create or replace table memlib_trust (untrusted_sources varchar[], untrusted_tag varchar)")
    con.execute("insert into memlib_trust values (?, ?)", [list(UNTRUSTED_SOURCES), UNTRUSTED])
    con.execute("create or replace table memlib_source_weight (source varchar, weight double)")
    for source, weight in params.source_weights.items():
        con.execute("insert into memlib_source_weight values (?, ?)",
                    [None if source == "default" else source, float(weight)])
    con.execute("create or replace table memlib_policy (policy varchar, version integer, "
                "digest varchar, project_id varchar, drop_expired boolean, min_decay_score double, "
                "min_confidence integer, grace_days integer, keep_iterations integer, "
                "protected_kinds varchar[], protected_tags varchar[])")
    con.execute("create or replace table memlib_policy_rule (policy varchar, project_id varchar, "
                "kind varchar, level integer, ttl_days integer, half_life_days double)")
    for p in params.policies:
        for project_id in (None, *p.projects):
            s = p.for_project(project_id)
            con.execute("insert into memlib_policy values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [p.name, p.version, p.digest, project_id, s.drop_expired, s.min_decay_score,
                         s.min_confidence, s.grace_days, s.keep_iterations, list(s.protected_kinds),
                         list(s.protected_tags)])
            for key in sorted(set(s.ttl_days) | set(s.half_life_days)):
                con.execute("insert into memlib_policy_rule values (?, ?, ?, ?, ?, ?)",
                            [p.name, project_id, *rule_key(key), s.ttl_days.get(key),
                             s.half_life_days.get(key)])
