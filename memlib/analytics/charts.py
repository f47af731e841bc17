"""Altair chart builders: each takes a polars DataFrame and returns a chart.

Reports render charts to inline SVG with vl-convert (`to_svg`), so a report opens offline:
no vega script from a CDN, nothing fetched.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from memlib.analytics.format import label

WIDTH = 640


def _data(df: pl.DataFrame) -> alt.Data:
    return alt.Data(values=df.to_dicts())


def usage_over_time(daily: pl.DataFrame, color: str = "kind") -> alt.Chart:
    """Recalls per day, stacked by kind (or another column of mart_usage_daily)."""
    df = daily.group_by("recalled_on", color).agg(pl.col("n_recalls").sum()).with_columns(
        pl.col("recalled_on").cast(pl.Utf8), pl.col(color).cast(pl.Utf8))
    return alt.Chart(_data(df), title="Recalls per day").mark_area().encode(
        x=alt.X("recalled_on:T", title="day"),
        y=alt.Y("n_recalls:Q", stack=True, title="recalls"),
        color=alt.Color(f"{color}:N", title=label(color)),
    ).properties(width=WIDTH, height=220)


def per_day(df: pl.DataFrame, day: str, value: str, color: str, title: str) -> alt.Chart:
    """`value` per day as stacked bars coloured by `color` (a workspace's entries or changes)."""
    df = df.with_columns(pl.col(day).cast(pl.Utf8), pl.col(color).cast(pl.Utf8))
    return alt.Chart(_data(df), title=title).mark_bar().encode(
        x=alt.X(f"{day}:T", title="day"), y=alt.Y(f"{value}:Q", stack=True, title=label(value)),
        color=alt.Color(f"{color}:N", title=label(color)),
    ).properties(width=WIDTH, height=220)


def bar_by(df: pl.DataFrame, category: str, value: str, title: str, limit: int = 20) -> alt.Chart:
    """A horizontal bar chart of `value` per `category`, largest first."""
    top = df.sort(value, descending=True).head(limit).with_columns(pl.col(category).cast(pl.Utf8))
    return alt.Chart(_data(top), title=title).mark_bar().encode(
        x=alt.X(f"{value}:Q", title=label(value)),
        y=alt.Y(f"{category}:N", sort="-x", title=label(category)),
        tooltip=[alt.Tooltip(f"{category}:N", title=label(category)),
                 alt.Tooltip(f"{value}:Q", title=label(value))],
    ).properties(width=WIDTH, height=max(80, 18 * top.height))


def hit_rank(ranks: pl.DataFrame) -> alt.Chart:
    df = ranks.group_by("rank").agg(pl.col("n_recalls").sum())
    return alt.Chart(_data(df), title="Rank of recalled memories in their result list").mark_bar().encode(
        x=alt.X("rank:O", title="rank"), y=alt.Y("n_recalls:Q", title="recalls"),
    ).properties(width=WIDTH, height=200)


def expiry_calendar(calendar: pl.DataFrame) -> alt.Chart:
    df = calendar.with_columns(pl.col("expires_on").cast(pl.Utf8))
    return alt.Chart(_data(df), title="Memories expiring per day").mark_bar().encode(
        x=alt.X("expires_on:T", title="day"), y=alt.Y("n_memories:Q", stack=True, title="memories"),
        color=alt.Color("kind:N", title="Kind"),
    ).properties(width=WIDTH, height=220)


def decay_curves(curves: pl.DataFrame) -> alt.Chart:
    """Decay score against idle days, one line per half-life rule, a panel per usage level."""
    return alt.Chart(_data(curves), title="Decay score by idle days").mark_line().encode(
        x=alt.X("idle_days:Q", title="days since last use"),
        y=alt.Y("decay_score:Q", title="decay score", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("applies_to:N", title="Half-life rule"),
        column=alt.Column("usage:O", title="recalls so far"),
    ).properties(width=200, height=200)


def decay_histogram(decay: pl.DataFrame) -> alt.Chart:
    """Memories per 0.05-wide decay-score bin, by level (binned here: a million rows in)."""
    df = (decay.select((pl.col("decay_score") * 20).floor().clip(0, 19).truediv(20).alias("bin"),
                       pl.col("level").cast(pl.Utf8))
          .group_by("bin", "level").agg(pl.len().alias("n_memories")))
    return alt.Chart(_data(df), title="Decay scores of memories").mark_bar().encode(
        x=alt.X("bin:Q", bin=alt.Bin(step=0.05), title="decay score"),
        y=alt.Y("n_memories:Q", stack=True, title="memories"), color=alt.Color("level:N", title="Level"),
    ).properties(width=WIDTH, height=200)


def confidence_histogram(confidence: pl.DataFrame) -> alt.Chart:
    """Memories per confidence bin, one row of panels per source (input: mart_confidence)."""
    df = confidence.group_by("source", "confidence_bin").agg(pl.col("n_memories").sum())
    return alt.Chart(_data(df), title="Confidence by source").mark_bar().encode(
        x=alt.X("confidence_bin:O", title="confidence (10-point bins)"),
        y=alt.Y("n_memories:Q", title="memories"),
        color=alt.Color("source:N", title="Source"),
        row=alt.Row("source:N", title=None),
    ).properties(width=WIDTH, height=70)


def cohort_heatmap(cohorts: pl.DataFrame) -> alt.Chart:
    df = cohorts.with_columns(pl.col("cohort").cast(pl.Utf8))
    return alt.Chart(_data(df), title="Share of each creation cohort recalled, by month").mark_rect().encode(
        x=alt.X("months_since:O", title="months after creation"),
        y=alt.Y("cohort:O", title="created in"),
        color=alt.Color("share_recalled:Q", title="share recalled", scale=alt.Scale(scheme="blues")),
    ).properties(width=WIDTH, height=220)


def policy_comparison(totals: pl.DataFrame) -> alt.Chart:
    """Side by side per policy: memories dropped and recently recalled memories lost."""
    df = totals.unpivot(index="policy", on=["n_dropped", "n_recently_recalled_lost"],
                        variable_name="measure", value_name="memories").with_columns(
        pl.col("measure").replace_strict({"n_dropped": label("n_dropped"),
                                          "n_recently_recalled_lost": label("n_recently_recalled_lost")}))
    return alt.Chart(_data(df), title="What each policy would drop").mark_bar().encode(
        x=alt.X("memories:Q", title="memories"), y=alt.Y("measure:N", title=None),
        color=alt.Color("measure:N", title=None), row=alt.Row("policy:N", title="Policy"),
    ).properties(width=WIDTH, height=60)


def cluster_risk(clusters: pl.DataFrame) -> alt.Chart:
    """Clusters by size (fragments) and conflict risk, one point per size and risk."""
    df = clusters.group_by("n_fragments", "conflict_risk").agg(pl.len().alias("n_clusters"))
    return alt.Chart(_data(df), title="Clusters by size and conflict risk").mark_circle().encode(
        x=alt.X("n_fragments:Q", title=label("n_fragments")),
        y=alt.Y("conflict_risk:Q", title=label("conflict_risk"), scale=alt.Scale(domain=[0, 1])),
        size=alt.Size("n_clusters:Q", title="clusters"),
    ).properties(width=WIDTH, height=260)


def agreement_matrix(pairs: pl.DataFrame) -> alt.Chart:
    """Agent against agent: the share of the disagreements they share that put them on one side."""
    return alt.Chart(_data(pairs), title="Agreement between agents").mark_rect().encode(
        x=alt.X("agent_b:N", title="agent"), y=alt.Y("agent_a:N", title="agent"),
        color=alt.Color("agreement_share:Q", title=label("agreement_share"), scale=alt.Scale(domain=[0, 1])),
        tooltip=["agent_a:N", "agent_b:N", "n_agree:Q", "n_disagree:Q"],
    ).properties(width=320, height=320)


def queue_levels(timeline: pl.DataFrame) -> alt.Chart:
    """Queue depth and tasks in flight at the end of each hour (mart_queue_timeline)."""
    df = timeline.select("hour", "queue_depth", "in_flight").unpivot(
        index="hour", variable_name="level", value_name="tasks").with_columns(
        pl.col("hour").cast(pl.Utf8), pl.col("level").replace({"queue_depth": "waiting", "in_flight": "in flight"}))
    return alt.Chart(_data(df), title="Queue depth and tasks in flight").mark_line(interpolate="step-after").encode(
        x=alt.X("hour:T", title="hour"), y=alt.Y("tasks:Q", title="tasks"),
        color=alt.Color("level:N", title="level"),
    ).properties(width=WIDTH, height=220)


def to_svg(chart: alt.TopLevelMixin) -> str:
    """Render a chart to a standalone SVG string, offline. Not validated against the schema
    here (half a second per report at 1M; vl-convert compiles the spec either way): the tests
    validate every report's charts."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(chart.to_dict(validate=False))
