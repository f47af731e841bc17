"""The usage mart beyond one machine: `mart_usage_daily` (sql/mart_usage_daily.sql) computed
by Daft over the store's Lance tables, on a Ray cluster or in this process.

DuckDB on one machine is the default and the right choice up to what its disk can spill
(bench/README.md, "100 million recall events"). Past that, or when the events live in a
bucket that many machines read faster than one, the same question runs here: Daft reads the
Lance fragments in parallel on every worker, joins each event to its memory and groups. Its
SQL is DuckDB's view translated (Daft's dialect has no macros and no `group by all`): the
rows must equal the view's, which tests/test_distributed.py checks on the same data and
bench/events.py at 100 million events. Use it on Ray (`use_ray`), even on one machine: Daft's
in-process runner does not spill, and ran out of memory (23 GB) on the 100M events that two
Ray workers finished in 7 GB.

Needs the `scale` extra: `pip install 'memlib[scale]'` (daft, daft-lance, ray).
"""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa

from memlib.errors import InvalidInput
from memlib.extras import need
from memlib.settings import Settings
from memlib.store import storage

# One row per UTC day, project, kind, level and agent, as the view: the events up to the as-of
# time of memories the store holds (the view's join to int_memory_as_of), counted.
USAGE_DAILY = """
select cast(e.recalled_at as date) as recalled_on, m.project_id, m.kind, m.level, e.agent,
       count(*) as n_recalls, count(distinct e.query_id) as n_queries,
       count(distinct e.memory_id) as n_memories
from events e
join memories m on m.id = e.memory_id
group by cast(e.recalled_at as date), m.project_id, m.kind, m.level, e.agent
"""
COLUMNS = ["recalled_on", "project_id", "kind", "level", "agent", "n_recalls", "n_queries", "n_memories"]


def use_ray(address: str | None = None) -> None:
    """Run Daft on Ray: the cluster at `address` (ray://... or host:port), else a new local one."""
    daft = _daft()
    daft.set_runner_ray(address=address)


def usage_daily(store_uri: str, as_of: datetime, settings: Settings | None = None) -> pa.Table:
    """mart_usage_daily's rows (without project_name, a lookup of project_id), computed by Daft
    on whichever runner is set (this process by default; `use_ray` for a cluster).
    `settings`: what the caller resolved (without them, this is the edge: memlib.settings)."""
    daft = _daft()
    if as_of.tzinfo is None:
        raise InvalidInput("as_of must be an aware datetime (UTC)")
    options = storage.storage_options(store_uri, Settings.at_edge(settings))
    io_config = _io_config(daft, options) if "://" in store_uri else None
    base = store_uri.rstrip("/")
    events = daft.read_lance(f"{base}/recall_events.lance", io_config=io_config) \
        .select("memory_id", "query_id", "agent", "recalled_at") \
        .where(daft.col("recalled_at") <= daft.lit(as_of))
    memories = daft.read_lance(f"{base}/memories.lance", io_config=io_config) \
        .where(daft.col("created_at") <= daft.lit(as_of)).select("id", "project_id", "kind", "level")
    table = daft.sql(USAGE_DAILY, events=events, memories=memories).to_arrow()
    return table.select(COLUMNS).sort_by([(c, "ascending") for c in COLUMNS[:5]])


def _io_config(daft, options: dict[str, str]):
    """Daft's S3 settings from the options Lance is given (the environment fills the rest)."""
    names = {"endpoint": "endpoint_url", "region": "region_name", "key_id": "key_id",
             "secret": "access_key", "token": "session_token"}
    settings = storage.s3_settings(options)
    s3 = {names[k]: v for k, v in settings.items() if k in names}
    if settings.get("allow_http") == "true":
        s3["use_ssl"] = False
    return daft.io.IOConfig(s3=daft.io.S3Config(**s3)) if s3 else None


def _daft():
    return need("scale", ("daft", "daft_lance"), "the distributed path")
