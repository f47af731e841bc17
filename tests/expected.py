"""Independent computations of report numbers in plain Python, from the raw Lance rows.

Nothing here reads the SQL views; tests compare the views and reports against these."""

from __future__ import annotations

import collections
import json
import math
from datetime import datetime, timedelta

from memlib import policy as policies
from memlib.analytics import DEFAULT_POLICIES, DEFAULT_SOURCE_WEIGHTS

DEFAULT_POLICIES = [policies.load(name) for name in DEFAULT_POLICIES]
DEFAULT_HALF_LIVES = policies.load("default").half_life_days  # the decay report's default policy


def raw(store):
    """Every memory row and every recall event (flushed or still spooled). A memory a
    retention run removed (a forget, a correction) is one of them until it was removed: its
    archived row, with `removed_at`."""
    memories = store.dataset().to_table().to_pylist()
    archive = store.concept_table("archive")
    if archive is not None:
        held = {m["id"] for m in memories}
        for row in archive.to_lance().to_table().to_pylist():
            if row["id"] not in held:
                memories.append({k: v for k, v in row.items() if k not in ("run_id", "archived_at")}
                                | {"removed_at": row["archived_at"]})
    events = store.recalls.table.to_lance().to_table().to_pylist()
    for path in store.recalls.segments():
        for line in path.read_text().splitlines():
            event = json.loads(line)
            event["recalled_at"] = datetime.fromisoformat(event["recalled_at"])
            events.append(event | {"flushed_at": None})
    return memories, events


def existing(memories, as_of):
    return [m for m in memories if m["created_at"] <= as_of and (m.get("removed_at") is None or m["removed_at"] > as_of)]


def usage_as_of(memories, events, as_of):
    counts = collections.Counter(e["memory_id"] for e in events if e["recalled_at"] <= as_of)
    return {m["id"]: counts.get(m["id"], 0) for m in existing(memories, as_of)}


def window_events(events, as_of, days):
    return [e for e in events if as_of - timedelta(days=days) < e["recalled_at"] <= as_of]


def last_used(memory_id, events, as_of):
    used = [e["recalled_at"] for e in events if e["memory_id"] == memory_id and e["recalled_at"] <= as_of]
    return max(used) if used else None


def decay(m, usage, events, as_of, half_lives=DEFAULT_HALF_LIVES):
    half_life = half_lives.get(m["kind"]) or half_lives.get(f"level:{m['level']}") or half_lives["default"]
    touched = last_used(m["id"], events, as_of) or m["created_at"]
    idle = (as_of - touched).total_seconds() / 86400
    return 0.5 ** (max(idle, 0) / (half_life * (1 + math.log(1 + usage))))


def is_expired(m, as_of):
    return m["expires_at"] is not None and m["expires_at"] <= as_of


def iteration_recency(memories, as_of):
    """(project, iteration) -> 1 for a project's latest iteration, 2 for the one before, ..."""
    started = {}
    for m in existing(memories, as_of):
        if m["iteration_id"] is not None:
            key = (m["project_id"], m["iteration_id"])
            started[key] = max(started.get(key, m["created_at"]), m["created_at"])  # latest activity
    ranks = {}
    for project in {p for p, _ in started}:
        mine = sorted(((at, it) for (p, it), at in started.items() if p == project), reverse=True)
        ranks.update({(project, it): n for n, (_, it) in enumerate(mine, start=1)})
    return ranks


def retention_candidates(memories, events, as_of, policy):
    """What `policy` drops as of `as_of`: {id: sorted reasons}, judged as the policy file says."""
    usage = usage_as_of(memories, events, as_of)
    recency = iteration_recency(memories, as_of)
    out = {}
    for m in existing(memories, as_of):
        rules = policy.for_project(m["project_id"])
        if m["manual_promote_flag"] or m["ttl_days"] == -1:
            continue
        if m["kind"] in rules.protected_kinds or set(m["tags"] or []) & set(rules.protected_tags):
            continue
        touched = last_used(m["id"], events, as_of) or m["created_at"]
        if touched > as_of - timedelta(days=rules.grace_days):
            continue
        reasons = []
        ttl = rules.ttl_days.get(m["kind"]) or rules.ttl_days.get(f"level:{m['level']}")
        if rules.drop_expired and (is_expired(m, as_of) or
                                   (ttl is not None and m["created_at"] + timedelta(days=ttl) <= as_of)):
            reasons.append("expired")
        if decay(m, usage[m["id"]], events, as_of, rules.half_life_days) < rules.min_decay_score:
            reasons.append("decayed")
        if m["confidence"] < rules.min_confidence:
            reasons.append("low_confidence")
        if m["kind"] != "summary" and recency.get((m["project_id"], m["iteration_id"]), 0) > rules.keep_iterations:
            reasons.append("old_iteration")
        if reasons:
            out[m["id"]] = sorted(reasons)
    return out


def headlines(memories, events, as_of, window=30, horizon=30, low_confidence=50):
    """The headline numbers of the four reports, as the reports define them."""
    alive = existing(memories, as_of)
    usage = usage_as_of(memories, events, as_of)
    # the reports count recalls of the memories the store holds as of the date (a deleted
    # memory's recalls go with it)
    held = {m["id"] for m in alive}
    recent = [e for e in window_events(events, as_of, window) if e["memory_id"] in held]
    recalled_recently = {e["memory_id"] for e in recent}
    expired = [m for m in alive if is_expired(m, as_of)]
    soon = [m for m in alive if m["expires_at"] is not None and not is_expired(m, as_of)
            and (m["expires_at"].date() - as_of.date()).days <= horizon]
    low = [m for m in alive if m["confidence"] < low_confidence]
    first = DEFAULT_POLICIES[0]
    top = sorted(usage.values(), reverse=True)[:max(1, len(alive) // 100)]
    decays = sorted(decay(m, usage[m["id"]], events, as_of) for m in alive)
    effective = effective_confidence(memories, events, as_of, DEFAULT_SOURCE_WEIGHTS)
    middle = len(decays) // 2
    median = decays[middle] if len(decays) % 2 else (decays[middle - 1] + decays[middle]) / 2
    return {
        "usage": {"recalls_in_window": len(recent),
                  "never_recalled_share": sum(v == 0 for v in usage.values()) / len(alive),
                  "top_1pct_share_of_recalls": sum(top) / sum(usage.values()),
                  "memories": len(alive)},
        "ttl_decay": {"expired": len(expired), f"expiring_within_{horizon}_days": len(soon),
                      "median_decay_score": median,
                      "never_expire": sum(m["expires_at"] is None for m in alive)},
        "confidence": {"mean_confidence": sum(m["confidence"] for m in alive) / len(alive),
                       "mean_effective_confidence": sum(effective.values()) / len(effective),
                       "low_confidence_share": len(low) / len(alive),
                       "low_confidence_recalled_in_window": sum(m["id"] in recalled_recently for m in low)},
        "retention": {f"candidates[{p.name}]": len(retention_candidates(memories, events, as_of, p))
                      for p in DEFAULT_POLICIES} | {"policy": first.name},
    }


def effective_confidence(memories, events, as_of, weights):
    """{id: effective confidence}: the formula of sql/effective_confidence.sql, restated."""
    usage = usage_as_of(memories, events, as_of)
    agents = collections.defaultdict(set)
    for e in events:
        if e["recalled_at"] <= as_of and e["agent"] is not None:
            agents[e["memory_id"]].add(e["agent"])
    out = {}
    for m in existing(memories, as_of):
        weight = weights.get(m["source"], weights["default"])
        age = max((as_of - m["created_at"]).total_seconds() / 86400, 0)
        boost = 1 + 0.05 * math.log(1 + usage[m["id"]]) + 0.05 * math.log(1 + len(agents[m["id"]]))
        out[m["id"]] = min(100.0, m["confidence"] * weight * boost * (0.5 + 0.5 * 0.5 ** (age / 365)))
    return out


def consensus_headline(consensus) -> dict:
    """The consensus report's headline from memlib.consensus's own records (its API, not SQL)."""
    from memlib.errors import NotFound

    clusters = consensus.clusters()
    units = []
    for c in clusters:
        try:
            units.append(consensus.unit(c.cluster_id))
        except NotFound:
            pass
    fragments = consensus.fragments()
    evidence = {f for u in units for f in u.evidence_pointers}
    unmet = 0
    for u in units:
        if u.contract_id:
            contract = consensus.contract(u.contract_id, u.contract_version)
            unmet += sum(c.required and u.slot_coverage[s] < c.min_coverage_ratio for s, c in contract.slots.items())
    return {
        "clusters_in_conflict": sum(c.conflict_risk > 0 for c in clusters),
        "disagreements": sum(len(u.disagreements) for u in units),
        "fragments_never_cited": sum(f.citation_count == 0 and f.fragment_id not in evidence for f in fragments),
        "fragments": len(fragments),
        "clusters": len(clusters),
        "mean_conflict_risk": sum(c.conflict_risk for c in clusters) / len(clusters) if clusters else None,
        "slots_unmet": unmet,
    }


STATUS_AFTER = {"enqueued": "queued", "claimed": "running", "acked": "done", "failed": "failed",
                "nacked": "queued", "lease_expired": "queued", "dead_lettered": "dead",
                "approval_requested": "blocked", "approved": "queued", "rejected": "rejected",
                "cancelled": "cancelled", "requeued": "queued"}


def control_plane_headline(plane, as_of: datetime, window_days: int = 30) -> dict:
    """The control_plane report's headline by replaying the control plane's event log in
    Python (its repositories, not SQL), as of `as_of`."""
    import numpy as np

    events = [e for e in plane.events.list(limit=10**9) if e.at <= as_of]
    start = (as_of - timedelta(days=window_days)).replace(minute=0, second=0, microsecond=0)
    status, claimed = {}, {}
    latencies, expiries, nacks = [], 0, 0
    for e in events:  # in event_id order: the order of the changes
        if e.kind not in STATUS_AFTER:
            continue
        if status.get(e.task_id) == "running" and e.kind == "acked" and claimed[e.task_id] >= start:
            latencies.append((e.at - claimed[e.task_id]).total_seconds())
        if e.kind == "claimed":
            claimed[e.task_id] = e.at
        expiries += e.kind == "lease_expired" and e.at >= start
        nacks += e.kind == "nacked" and e.at >= start
        status[e.task_id] = STATUS_AFTER[e.kind]
    tasks = [t for t in plane.tasks.list(limit=10**9) if t.created_at <= as_of]
    counts = collections.Counter(status.get(t.task_id, "queued") for t in tasks)
    approvals = [a for a in plane.approvals.list(status=None) if a.requested_at <= as_of]
    decided = [(a.decided_at - a.requested_at).total_seconds() for a in approvals
               if a.decided_at is not None and a.decided_at <= as_of]
    return {
        "queue_depth": counts["queued"] + counts["blocked"],
        "claim_to_ack_p50_seconds": float(np.quantile(latencies, 0.5)) if latencies else None,
        "dead_letters": counts["dead"],
        "approvals_pending": len(approvals) - len(decided),
        "in_flight": counts["running"],
        "claim_to_ack_p99_seconds": float(np.quantile(latencies, 0.99)) if latencies else None,
        "lease_expiries_in_window": expiries,
        "retries_in_window": expiries + nacks,
        "approval_wait_p50_seconds": float(np.median(decided)) if decided else None,
        "tasks": len(tasks),
        "claims_in_window": sum(1 for e in events if e.kind == "claimed" and e.at >= start),
    }
