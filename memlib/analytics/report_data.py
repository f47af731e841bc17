"""What each report shows, computed from the mart views: headline numbers, tables, charts.

A notebook only sets parameters, calls one of these functions and displays the result, so
everything a report shows is reachable from tests without a notebook. Each function is a
report by its `@report(title)` line (REPORTS): its name is the report's and its notebook's
(notebooks/<name>.ipynb); adding a report is that function and that notebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import wraps
from typing import TYPE_CHECKING, Any, Callable

import polars as pl

from memlib.analytics import transforms
from memlib.analytics.connection import CHECKS

if TYPE_CHECKING:  # altair (1.4 s to import) loads when a report is computed, not for the registry
    import altair as alt


@dataclass
class Report:
    """Headline numbers (the three that matter most first), tables and charts, in order,
    under the report's title."""

    headline: dict[str, float | int | None]
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    charts: dict[str, alt.TopLevelMixin] = field(default_factory=dict)
    title: str = ""


@dataclass(frozen=True)
class Definition:
    name: str  # its function's, and its notebook's: notebooks/<name>.ipynb
    title: str  # on its page and on the index of a run
    build: Callable[..., Report]


REPORTS: dict[str, Definition] = {}  # in the order a run shows them


def report(title: str):
    """Register a function of this module as a report; what it returns carries the title. Its
    spans and row counts given by name are checked first (connection.CHECKS: a negative `top`
    was DuckDB's "LIMIT/OFFSET cannot be negative", a negative horizon a headline of
    "expiring within -5 days")."""
    def register(build: Callable[..., Report]) -> Callable[..., Report]:
        @wraps(build)
        def titled(*args, **kwargs) -> Report:
            for key, value in kwargs.items():
                if key in CHECKS:
                    CHECKS[key](value, key)
            return replace(build(*args, **kwargs), title=title)

        REPORTS[build.__name__] = Definition(build.__name__, title, titled)
        return titled
    return register


def _frame(con, sql: str, params: list[Any] | None = None) -> pl.DataFrame:
    return con.execute(sql, params or []).pl()


def _as_of(con):
    return con.execute("select as_of from memlib_params").fetchone()[0]


def read_from(con) -> dict[str, Any]:
    """Which store version the connection reads, for every report's context line."""
    as_of, version, at, policy = con.execute(
        "select as_of, store_version, store_version_at, decay_policy from memlib_params").fetchone()
    return {"as_of": as_of, "store_version": version, "store_version_at": at, "decay_policy": policy}


@report("Usage")
def usage(con, top: int = 20) -> Report:
    from memlib.analytics import charts

    summary = _frame(con, "select * from mart_usage_summary").row(0, named=True)
    by_memory = _frame(con, "select id, created_at, n_recalls from mart_usage_by_memory")
    total = by_memory["n_recalls"].sum()
    hottest = by_memory["n_recalls"].top_k(max(1, by_memory.height // 100))
    daily = _frame(con, "select * from mart_usage_daily")
    headline = {
        "recalls_in_window": summary["n_recalls_window"],
        "never_recalled_share": summary["never_recalled_share"],
        "top_1pct_share_of_recalls": (hottest.sum() / total) if total else None,
        "memories": summary["n_memories"],
        "queries_in_window": summary["n_queries_window"],
    }
    by = {c: daily.group_by(c).agg(pl.col("n_recalls").sum()).sort("n_recalls", descending=True)
          for c in ("kind", "level", "project_name", "agent")}
    cohorts = transforms.recall_cohorts(
        by_memory.lazy(), _frame(con, "select memory_id, recalled_at from int_recall_events_as_of").lazy()
    ).collect()
    hot = _frame(con, "select kind, project_name, n_recalls, n_recalls_window, last_recalled_at, text, id "
                      "from mart_usage_by_memory order by n_recalls_window desc, n_recalls desc, id limit ?",
                 [top])
    dead = _frame(con, "select kind, project_name, created_at, text, id from mart_usage_by_memory "
                       "where is_never_recalled order by created_at, id limit ?", [top])
    activity = _frame(con, "select agent, activity, tool, n_calls, n_memories, last_at from mart_agent_activity "
                           "order by activity desc, n_calls desc, agent, tool")
    labelled = activity.with_columns((pl.col("agent") + " / " + pl.col("tool")).alias("agent_tool"))
    report = Report(
        headline,
        tables={
            "Recalls by kind": by["kind"], "Recalls by level": by["level"],
            "Recalls by project": by["project_name"].head(top), "Recalls by agent": by["agent"],
            "Hot memories (most recalled in the window)": hot,
            "Dead memories (never recalled, oldest first)": dead,
            "Agent activity by agent and tool (recalls, and changes to memories)": activity,
        },
        charts={
            "Recalls per day by kind": charts.usage_over_time(daily, "kind"),
            "Recalls by level": charts.bar_by(by["level"].with_columns(pl.col("level").cast(pl.Utf8)),
                                              "level", "n_recalls", "Recalls by level"),
            "Recalls by project": charts.bar_by(by["project_name"], "project_name", "n_recalls",
                                                "Recalls by project (top 20)"),
            "Hit rank": charts.hit_rank(_frame(con, "select * from mart_hit_rank")),
            "Cohorts": charts.cohort_heatmap(cohorts),
            "Agent activity": charts.bar_by(labelled.filter(pl.col("activity") == "recall"), "agent_tool",
                                            "n_calls", "Recall calls by agent and tool (top 20)"),
        },
    )
    _workspace_section(con, report, top)
    return report


def _workspace_section(con, report: Report, top: int) -> None:
    """Workspace activity, when the store has a markdown workspace (memlib/workspace):
    entries per day by kind, changes by hand and by agents, entries never recalled."""
    from memlib.analytics import charts

    entries = _frame(con, "select kind, source_file, written_by, created_on, n_recalls, is_never_recalled, "
                          "text, id from mart_workspace_entries")
    if entries.is_empty():
        return
    daily = entries.group_by("created_on", "kind").agg(pl.len().alias("n_entries")).sort("created_on", "kind")
    changes = _frame(con, "select day, changed_by, action, n_changes from mart_workspace_changes")
    report.headline["workspace_entries_never_recalled_share"] = entries["is_never_recalled"].mean()
    report.tables.update({
        "Workspace entries per day by kind": daily,
        "Workspace changes by hand (the files) and by agents": changes,
        "Workspace entries never recalled (oldest first)": entries.filter(pl.col("is_never_recalled")).sort(
            "created_on", "id").select("kind", "source_file", "written_by", "created_on", "text", "id").head(top),
    })
    report.charts.update({
        "Workspace entries per day": charts.per_day(daily, "created_on", "n_entries", "kind",
                                                    "Workspace entries per day by kind"),
        "Workspace changes per day": charts.per_day(
            changes.group_by("day", "changed_by").agg(pl.col("n_changes").sum()), "day", "n_changes",
            "changed_by", "Workspace changes per day, by hand and by agents"),
    })


@report("TTL and decay")
def ttl_decay(con, horizon_days: int = 30, top: int = 20) -> Report:
    """Expiry (the store's TTLs) and decay, judged by the connection's decay policy: the
    same half-lives retention acts on (int_memory_policy)."""
    from memlib.analytics import charts

    ttl = _frame(con, "select kind, expires_at, is_expired, days_left from mart_ttl")
    # a million memories: the histogram's two columns come out, the median and the most
    # decayed are computed in SQL
    decay = _frame(con, "select level, decay_score from mart_decay")
    median_decay = con.execute("select median(decay_score) from mart_decay").fetchone()[0]
    most_decayed = _frame(con, "select kind, level, project_name, last_touched_at, usage_as_of, half_life_days, "
                               "decay_score, id from mart_decay order by decay_score, id limit ?", [top])
    as_of = _as_of(con)
    policy = read_from(con)["decay_policy"]
    upcoming = ttl.filter(~pl.col("is_expired") & pl.col("days_left").is_not_null()
                          & (pl.col("days_left") <= horizon_days))
    headline = {
        "expired": ttl["is_expired"].sum(),
        f"expiring_within_{horizon_days}_days": upcoming.height,
        "median_decay_score": median_decay,
        "never_expire": ttl["expires_at"].is_null().sum(),
        "decay_policy": policy,
    }
    calendar = transforms.expiry_calendar(ttl.lazy(), as_of, days=90).collect()
    expiry_by_kind = ttl.group_by("kind").agg(
        pl.len().alias("n_memories"), pl.col("is_expired").sum().alias("n_expired"),
        pl.col("expires_at").is_null().sum().alias("n_never_expire")).sort("kind")
    return Report(
        headline,
        tables={
            "Expiry by kind": expiry_by_kind,
            f"Most decayed memories (policy {policy})": most_decayed,
        },
        charts={
            "Expiry calendar": charts.expiry_calendar(calendar),
            f"Decay curves (policy {policy})": charts.decay_curves(_frame(con, "select * from mart_decay_curve")),
            "Decay histogram": charts.decay_histogram(decay),
        },
    )


@report("Confidence")
def confidence(con, top: int = 20) -> Report:
    from memlib.analytics import charts

    conf = _frame(con, "select * from mart_confidence")
    memories = _frame(con, "select confidence from int_memory_as_of")
    risky = _frame(con, "select * from mart_risky_recalls order by n_recalls_window desc")
    threshold = con.execute("select low_confidence from memlib_params").fetchone()[0]
    # the mean in SQL and only the lowest rows out: a million rows would cost 0.7 s to move
    mean_effective = con.execute("select avg(effective_confidence) from mart_effective_confidence").fetchone()[0]
    effective = _frame(con, "select kind, project_name, source, confidence, n_recalls, n_agents, "
                            "age_days, source_weight, effective_confidence, id "
                            "from mart_effective_confidence order by effective_confidence, id limit ?", [top])
    headline = {
        "mean_confidence": memories["confidence"].mean(),
        "mean_effective_confidence": mean_effective,
        "low_confidence_share": (memories["confidence"] < threshold).mean() if memories.height else None,
        "low_confidence_recalled_in_window": risky.height,
        "low_confidence_threshold": threshold,
    }

    def by(column: str) -> pl.DataFrame:
        return conf.group_by(column).agg(
            pl.col("n_memories").sum(),
            ((pl.col("avg_confidence") * pl.col("n_memories")).sum() / pl.col("n_memories").sum())
            .alias("avg_confidence")).sort(column)

    return Report(
        headline,
        tables={"By source": by("source"), "By kind": by("kind"),
                "By project": by("project_name").sort("avg_confidence").head(top),
                "Risky recalls (low confidence, recalled in the window)": risky.select(
                    "kind", "project_name", "source", "confidence", "n_recalls_window",
                    "n_agents_window", "last_recalled_at", "text", "id").head(top),
                "Lowest effective confidence": effective.head(top)},
        charts={"Confidence by source": charts.confidence_histogram(conf)},
    )


@report("Retention")
def retention(con, top: int = 20) -> Report:
    from memlib.analytics import charts

    candidates = _frame(con, "select policy, id, kind, project_id, project_name, reasons, decay_score, "
                             "confidence, est_bytes, n_recalls_window from mart_retention_candidates")
    population = _frame(con, "select project_id, project_name, n_recalls_window from mart_usage_by_memory")
    policies = _frame(con, "select policy, version, digest, drop_expired, min_decay_score, min_confidence, "
                           "grace_days, keep_iterations, protected_kinds, protected_tags from memlib_policy "
                           "where project_id is null order by rowid")  # as the user listed them
    impact = transforms.policy_impact(candidates.lazy(), population.lazy()).collect()
    totals = transforms.policy_totals(impact.lazy()).collect()
    totals = policies.select("policy").join(totals, on="policy", how="left").fill_null(0)
    first = totals.row(0, named=True) if totals.height else {}
    headline = {
        "policy": first.get("policy"),
        "candidates": first.get("n_dropped"),
        # nothing is freed until a purge: apply archives the rows
        "archived_megabytes": (first.get("archived_bytes") or 0) / 2**20 if first else None,
        "recently_recalled_lost": first.get("n_recently_recalled_lost"),
    }
    for row in totals.iter_rows(named=True):
        headline[f"candidates[{row['policy']}]"] = row["n_dropped"]
    return Report(
        headline,
        tables={
            "Policies": policies.drop("digest"),
            "Policies side by side": totals.with_columns(
                (pl.col("archived_bytes") / 2**20).alias("archived_bytes")),
            "Reasons": transforms.reason_counts(candidates.lazy()).collect(),
            "By project": impact.head(top * max(1, policies.height)).drop("project_id").with_columns(
                (pl.col("archived_bytes") / 2**20).alias("archived_bytes")),
            "Candidates (sample)": candidates.sort("decay_score", "id").head(top).select(
                "policy", "kind", "project_name", "reasons", "decay_score", "confidence", "id"),
        },
        charts={"Policy comparison": charts.policy_comparison(totals)},
    )


@report("Consensus")
def consensus(con, top: int = 20) -> Report:
    """Multi-agent consolidation (memlib/consensus): clusters by size and conflict risk, the
    disagreements units keep with both sides and their agents, agreement between agents,
    slot coverage against the contracts and the fragments nothing cited."""
    from memlib.analytics import charts

    clusters = _frame(con, "select top_topic, n_fragments, conflict_risk, n_disagreements, contract_status, "
                           "last_updated_at, cluster_id as id from stg_clusters")
    disagreements = _frame(con, "select d.cluster_id, c.top_topic, d.kind, d.point, d.claim_a, d.agents_a, "
                                "d.claim_b, d.agents_b from mart_disagreements d "
                                "join stg_clusters c using (cluster_id) order by c.top_topic, d.cluster_id, d.point")
    pairs = _frame(con, "select agent_a, agent_b, n_agree, n_disagree, agreement_share from mart_agent_agreement "
                        "order by agent_a, agent_b")
    slots = _frame(con, "select top_topic, contract_id, contract_version, slot, coverage, min_coverage_ratio, "
                        "required, met, cluster_id as id from mart_slot_coverage order by met, coverage, id, slot")
    never = _frame(con, "select source_agent, reported_at, confidence, content, fragment_id as id "
                        "from mart_fragments_never_cited order by reported_at, id")
    n_fragments = con.execute("select count(*) from stg_fragments").fetchone()[0]
    headline = {
        "clusters_in_conflict": int((clusters["conflict_risk"] > 0).sum()),
        "disagreements": disagreements.height,
        "fragments_never_cited": never.height,
        "fragments": n_fragments,
        "clusters": clusters.height,
        "mean_conflict_risk": clusters["conflict_risk"].mean(),
        "slots_unmet": int((slots["required"] & ~slots["met"]).sum()),
    }
    matrix = pairs.pivot(on="agent_b", index="agent_a", values="agreement_share", sort_columns=True) \
        if pairs.height else pairs.select("agent_a")
    return Report(
        headline,
        tables={
            "Clusters by conflict risk and size": clusters.sort(
                ["conflict_risk", "n_fragments", "id"], descending=[True, True, False]).head(top),
            "Disagreements by topic, both sides": disagreements.drop("cluster_id").head(top * 5),
            "Agreement between agents (share of shared disagreements on one side)": matrix,
            "Slot coverage against the contracts": slots.head(top * 5),
            "Fragments never cited": never.head(top),
        },
        charts={"Clusters by size and conflict risk": charts.cluster_risk(clusters),
                "Agreement between agents": charts.agreement_matrix(pairs)},
    )


@report("Control plane")
def control_plane(con, top: int = 20) -> Report:
    """The control plane (memlib.control) as of the report's date: queue depth and tasks in
    flight over time, claim-to-ack latency, lease expiries, retries and dead letters,
    approval waits, and each session's tasks beside the memories it wrote and recalled."""
    from memlib.analytics import charts

    tasks = _frame(con, "select status, count(*) as n_tasks from stg_tasks group by status order by n_tasks desc, status")
    timeline = _frame(con, "select * from mart_queue_timeline order by hour")
    window = con.execute("select min(hour) from mart_queue_timeline").fetchone()[0]
    attempts = _frame(con, "select * from mart_task_attempts where claimed_at >= ?", [window])
    latency = _frame(con, """
        select coalesce(t.kind, '(all kinds)') as kind, count(*) as n_acked,
               quantile_cont(a.claim_to_end_seconds, 0.5) as p50_seconds,
               quantile_cont(a.claim_to_end_seconds, 0.9) as p90_seconds,
               quantile_cont(a.claim_to_end_seconds, 0.99) as p99_seconds
        from mart_task_attempts a join stg_tasks t using (task_id)
        where a.outcome = 'acked' and a.claimed_at >= ?
        group by rollup (t.kind) order by t.kind nulls first""", [window])
    outcomes = _frame(con, "select outcome, count(*) as n_attempts from mart_task_attempts where claimed_at >= ? "
                           "group by outcome order by n_attempts desc, outcome", [window])
    dead = _frame(con, "select t.kind, t.attempts, t.created_at, r.last_error, t.task_id as id from stg_tasks t "
                       "join raw_tasks r using (task_id) where t.status = 'dead' order by t.created_at, id")
    approvals = _frame(con, "select status, request, requested_by, requested_at, decided_by, wait_seconds, "
                            "approval_id as id from mart_approval_waits order by requested_at, id")
    sessions = _frame(con, "select * from mart_session_tasks order by n_tasks desc, session_id")
    by_agent = sessions.group_by(pl.col("agent").fill_null("(unknown)")).agg(
        pl.len().alias("n_sessions"), *(pl.col(c).sum() for c in (
            "n_tasks", "n_done", "n_failed", "n_dead", "n_memories_written", "n_recalls"))).sort(
        ["n_tasks", "agent"], descending=[True, False])
    overall = latency.filter(pl.col("kind") == "(all kinds)")
    last = timeline.row(-1, named=True) if timeline.height else {}
    decided = approvals.filter(pl.col("status") != "pending")["wait_seconds"]
    headline = {
        "queue_depth": last.get("queue_depth"),
        "claim_to_ack_p50_seconds": overall["p50_seconds"][0] if overall.height else None,
        "dead_letters": int(tasks.filter(pl.col("status") == "dead")["n_tasks"].sum()),
        "approvals_pending": int((approvals["status"] == "pending").sum()),
        "in_flight": last.get("in_flight"),
        "claim_to_ack_p99_seconds": overall["p99_seconds"][0] if overall.height else None,
        "lease_expiries_in_window": int(timeline["n_lease_expiries"].sum()),
        "retries_in_window": int(timeline["n_nacks"].sum() + timeline["n_lease_expiries"].sum()),
        "approval_wait_p50_seconds": decided.median() if decided.len() else None,
        "tasks": int(tasks["n_tasks"].sum()),
        "claims_in_window": attempts.height,
    }
    return Report(
        headline,
        tables={
            "Tasks by status": tasks,
            "Claim-to-ack latency in the window (seconds)": latency,
            "How attempts in the window ended": outcomes,
            "Queue by hour (busiest hours)": timeline.filter(pl.col("n_claims") > 0).sort(
                ["n_claims", "hour"], descending=[True, False]).head(top),
            "Dead letters": dead.head(top),
            "Approvals and their waits": approvals.sort(["status", "requested_at"]).head(top),
            "Agents: tasks beside the memories their sessions wrote and recalled": by_agent,
            "Sessions with the most tasks": sessions.drop("project_id").head(top),
        },
        charts={"Queue depth and tasks in flight": charts.queue_levels(timeline)},
    )


QUALITY_ACTIONS = {  # audit action -> what the quality report calls it
    "corroborate": "duplicates merged", "duplicate": "duplicates linked", "contradiction": "contradictions flagged",
    "update": "updates recognised", "resolve": "contradictions resolved", "correct": "corrections",
    "forget": "forgotten", "quarantine": "quarantined", "review_accepted": "reviews accepted",
    "review_rejected": "reviews rejected"}


@report("Quality")
def quality(con, top: int = 20) -> Report:
    """Keeping memory right (issue 42): in the window, duplicates merged and linked,
    contradictions flagged and resolved, corrections, forgotten and quarantined memories and
    reviews decided, per agent and per project; as of the report's date, the open
    contradictions with both sides, the untrusted memories and the memories waiting for
    review."""
    from memlib.analytics import charts

    events = _frame(con, "select * from mart_quality_events")
    named = events.with_columns(pl.col("action").replace_strict(QUALITY_ACTIONS).alias("what"))

    def per(column: str) -> pl.DataFrame:
        if not named.height:
            return pl.DataFrame({column: [], "what": [], "n_events": []},
                                schema={column: pl.Utf8, "what": pl.Utf8, "n_events": pl.UInt32})
        return named.group_by(pl.col(column).fill_null("(unknown)"), "what").agg(pl.len().alias("n_events")).sort(
            [column, "n_events", "what"], descending=[False, True, False])

    def count(action: str) -> int:
        return int((events["action"] == action).sum())

    open_pairs = _frame(con, "select * from mart_open_contradictions order by flagged_at, newer_id")
    untrusted = _frame(con, "select * from mart_untrusted_memories order by created_at, id")
    unread = int(con.execute("select count(*) from mart_unread_memories").fetchone()[0])
    waiting = _frame(con, """
        select w.approval_id as id, w.requested_by, w.requested_at, w.request
        from mart_approval_waits w join stg_tasks t using (task_id)
        where t.kind = 'memory_review' and w.status = 'pending' order by w.requested_at, id""")
    daily = named.with_columns(pl.col("at").dt.date().alias("day")).group_by("day", "what").agg(
        pl.len().alias("n_events")).sort("day", "what")
    sources = _frame(con, "select * from mart_memory_trust order by n_memories desc, source, trusted")
    by_source = sources.with_columns(pl.when(pl.col("trusted")).then(pl.col("source")).otherwise(
        pl.col("source") + " (untrusted)").alias("source"))
    headline = {
        "duplicates_merged": count("corroborate"),
        "open_contradictions": open_pairs.height,
        "not_read_yet": unread,
        "untrusted_memories": untrusted.height,
        "duplicates_linked": count("duplicate"),
        "contradictions_flagged": count("contradiction"),
        "updates_recognised": count("update"),
        "corrected": count("correct"),
        "forgotten": count("forget"),
        "quarantined": count("quarantine"),
        "waiting_for_review": waiting.height,
        "reviews_rejected": count("review_rejected"),
    }
    return Report(
        headline,
        tables={
            # as a person reads them: projects by name, memories by their words (one id
            # column where a row is one memory)
            "Open contradictions": open_pairs.select(
                "kind", "project_name", "flagged_at", "newer_text", "newer_support", "older_text",
                "older_support").head(top),
            "By agent": per("actor"),
            "By project": per("project_name"),
            "Untrusted memories": untrusted.drop("project_id").head(top),
            "Memories by source": sources,
            "Waiting for review": waiting.head(top),
        },
        charts={"Memories by source": charts.bar_by(by_source, "source", "n_memories", "Memories by source"),
                # a window with no such event has nothing to draw
                **({"What kept memory right, per day": charts.per_day(
                    daily, "day", "n_events", "what", "What kept memory right, per day")} if daily.height else {})},
    )

