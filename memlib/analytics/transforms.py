"""Pure polars transforms for what SQL does awkwardly: calendars, cohorts, policy what-ifs.

Each takes and returns LazyFrames (chain them with `.pipe`, collect once); the inputs are
the mart views of sql/, read through `memlib.analytics`.
"""

from __future__ import annotations

from datetime import datetime

import polars as pl


def expiry_calendar(ttl: pl.LazyFrame, as_of: datetime, days: int = 90) -> pl.LazyFrame:
    """Memories that expire in the next `days` days, counted per day and kind.

    Input: mart_ttl (expires_at, is_expired, kind)."""
    start = as_of.date() if isinstance(as_of, datetime) else as_of
    return (
        ttl.filter(~pl.col("is_expired") & pl.col("expires_at").is_not_null())
        .with_columns(pl.col("expires_at").dt.date().alias("expires_on"))
        .filter((pl.col("expires_on") - pl.lit(start)).dt.total_days() <= days)
        .group_by("expires_on", "kind")
        .agg(pl.len().alias("n_memories"))
        .sort("expires_on", "kind")
    )


def recall_cohorts(memories: pl.LazyFrame, events: pl.LazyFrame) -> pl.LazyFrame:
    """Share of each creation-month cohort recalled in each month after creation.

    Inputs: memories (id, created_at) and recall events (memory_id, recalled_at)."""
    cohorts = memories.select(
        pl.col("id").alias("memory_id"),
        pl.col("created_at").dt.truncate("1mo").dt.date().alias("cohort"),
    )
    sizes = cohorts.group_by("cohort").agg(pl.len().alias("cohort_size"))
    months = pl.col("recalled_at").dt.year() * 12 + pl.col("recalled_at").dt.month() - (
        pl.col("cohort").dt.year() * 12 + pl.col("cohort").dt.month())
    active = (
        events.select("memory_id", "recalled_at")
        .join(cohorts, on="memory_id")
        .with_columns(months.alias("months_since"))
        .group_by("cohort", "months_since")
        .agg(pl.col("memory_id").n_unique().alias("n_recalled"))
    )
    return (
        active.join(sizes, on="cohort")
        .with_columns((pl.col("n_recalled") / pl.col("cohort_size")).alias("share_recalled"))
        .sort("cohort", "months_since")
    )


def policy_impact(candidates: pl.LazyFrame, memories: pl.LazyFrame) -> pl.LazyFrame:
    """Per policy and project: what a policy would drop, the space its rows take (archived by
    apply, freed only by a purge), and how many of the memories recalled in the window it
    would lose.

    Inputs: mart_retention_candidates and mart_usage_by_memory (the population)."""
    population = memories.group_by("project_id", "project_name").agg(
        pl.len().alias("n_memories"),
        (pl.col("n_recalls_window") > 0).sum().alias("n_recalled_in_window"),
    )
    dropped = candidates.group_by("policy", "project_id").agg(
        pl.len().alias("n_dropped"),
        pl.col("est_bytes").sum().alias("archived_bytes"),
        (pl.col("n_recalls_window") > 0).sum().alias("n_recently_recalled_lost"),
    )
    return (
        dropped.join(population, on="project_id", how="left")
        .with_columns((pl.col("n_dropped") / pl.col("n_memories")).alias("share_dropped"))
        .sort("policy", "n_dropped", descending=[False, True])
    )


def policy_totals(impact: pl.LazyFrame) -> pl.LazyFrame:
    """The policy comparison in one row per policy (sums over projects)."""
    return (
        impact.group_by("policy")
        .agg(pl.col("n_dropped").sum(), pl.col("archived_bytes").sum(),
             pl.col("n_recently_recalled_lost").sum())
        .sort("policy")
    )


def reason_counts(candidates: pl.LazyFrame) -> pl.LazyFrame:
    """How many candidates each reason names, per policy (a memory can have several)."""
    return (
        candidates.select("policy", "reasons").explode("reasons")
        .group_by("policy", "reasons").agg(pl.len().alias("n_memories"))
        .rename({"reasons": "reason"})
        .sort("policy", "reason")
    )
