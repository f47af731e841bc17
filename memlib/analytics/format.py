"""One formatter and one label per measure, for everything a person reads: the headline
cards, the index page, the tables. A column or headline key is looked up by name; names
memlib does not list are read by their suffix (`n_*` counts, `*_share` shares, `*_at`
times, `*_days` days)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl


@dataclass(frozen=True)
class Measure:
    label: str
    kind: str  # count, share, score, confidence, megabytes, days, datetime, date, text, id, number


MEASURES: dict[str, Measure] = {
    # headline numbers
    "recalls_in_window": Measure("Recalls in the window", "count"),
    "never_recalled_share": Measure("Never recalled", "share"),
    "top_1pct_share_of_recalls": Measure("Recalls going to the top 1% of memories", "share"),
    "memories": Measure("Memories", "count"),
    "queries_in_window": Measure("Queries in the window", "count"),
    "expired": Measure("Expired", "count"),
    "never_expire": Measure("Never expire", "count"),
    "median_decay_score": Measure("Median decay score", "score"),
    "decay_policy": Measure("Decay policy", "text"),
    "mean_confidence": Measure("Mean confidence", "confidence"),
    "mean_effective_confidence": Measure("Mean effective confidence", "confidence"),
    "low_confidence_share": Measure("Below the confidence threshold", "share"),
    "low_confidence_recalled_in_window": Measure("Low-confidence memories recalled in the window", "count"),
    "low_confidence_threshold": Measure("Confidence threshold", "confidence"),
    "policy": Measure("Policy", "text"),
    "candidates": Measure("Retention candidates", "count"),
    "archived_megabytes": Measure("Archived on apply (freed by purge)", "megabytes"),
    "recently_recalled_lost": Measure("Recently recalled memories it would remove", "count"),
    "fragments": Measure("Fragments", "count"),
    "clusters": Measure("Clusters", "count"),
    "clusters_in_conflict": Measure("Clusters with a disagreement", "count"),
    "mean_conflict_risk": Measure("Mean conflict risk", "score"),
    "disagreements": Measure("Disagreements kept", "count"),
    "fragments_never_cited": Measure("Fragments never cited", "count"),
    "slots_unmet": Measure("Required slots below their contract", "count"),
    # columns
    "conflict_risk": Measure("Conflict risk", "score"),
    "top_topic": Measure("Topic", "text"),
    "point": Measure("Point", "text"),
    "claim_a": Measure("Side A says", "text"),
    "claim_b": Measure("Side B says", "text"),
    "agents_a": Measure("Side A agents", "text"),
    "agents_b": Measure("Side B agents", "text"),
    "agreement_share": Measure("Agree", "share"),
    "coverage": Measure("Coverage", "score"),
    "min_coverage_ratio": Measure("Contract minimum", "score"),
    "contract_status": Measure("Contract", "text"),
    "content": Measure("Content", "text"),
    "source_agent": Measure("Agent", "text"),
    "id": Measure("id", "id"),
    "kind": Measure("Kind", "text"),
    "level": Measure("Level", "text"),
    "source": Measure("Source", "text"),
    "agent": Measure("Agent", "text"),
    "reason": Measure("Reason", "text"),
    "reasons": Measure("Reasons", "text"),
    "text": Measure("Text", "text"),
    "project_name": Measure("Project", "text"),
    "version": Measure("Version", "number"),
    "digest": Measure("Digest", "text"),
    "confidence": Measure("Confidence", "confidence"),
    "avg_confidence": Measure("Mean confidence", "confidence"),
    "effective_confidence": Measure("Effective confidence", "confidence"),
    "source_weight": Measure("Source weight", "score"),
    "decay_score": Measure("Decay score", "score"),
    "min_decay_score": Measure("Minimum decay score", "score"),
    "min_confidence": Measure("Minimum confidence", "confidence"),
    "drop_expired": Measure("Drops expired", "text"),
    "keep_iterations": Measure("Iterations kept", "count"),
    "protected_kinds": Measure("Protected kinds", "text"),
    "protected_tags": Measure("Protected tags", "text"),
    "usage_as_of": Measure("Recalls so far", "count"),
    "n_recalls": Measure("Recalls", "count"),
    "n_recalls_window": Measure("Recalls in the window", "count"),
    "n_agents": Measure("Agents", "count"),
    "n_agents_window": Measure("Agents in the window", "count"),
    "n_dropped": Measure("Would remove", "count"),
    "n_recently_recalled_lost": Measure("Recently recalled it would remove", "count"),
    "archived_bytes": Measure("Archived on apply (MB)", "megabytes"),
    "share_dropped": Measure("Share removed", "share"),
    "n_memories": Measure("Memories", "count"),
    "n_expired": Measure("Expired", "count"),
    "n_never_expire": Measure("Never expire", "count"),
    "half_life_days": Measure("Half-life (days)", "days"),
    "age_days": Measure("Age (days)", "days"),
    "grace_days": Measure("Grace (days)", "days"),
    "last_touched_at": Measure("Last used or created", "datetime"),
    "last_recalled_at": Measure("Last recalled", "datetime"),
    "created_at": Measure("Created", "datetime"),
}
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def measure(name: str) -> Measure:
    if name in MEASURES:
        return MEASURES[name]
    candidates = re.fullmatch(r"candidates\[(.+)\]", name)
    if candidates:
        return Measure(f"Candidates under {candidates.group(1)}", "count")
    expiring = re.fullmatch(r"expiring_within_(\d+)_days", name)
    if expiring:
        return Measure(f"Expiring within {expiring.group(1)} days", "count")
    words = name.removeprefix("n_").replace("_", " ")
    words = words[:1].upper() + words[1:]
    if name.startswith("n_"):
        return Measure(words, "count")
    if name.endswith("_share"):
        return Measure(words.removesuffix(" share"), "share")
    if name.endswith("_at"):
        return Measure(words.removesuffix(" at"), "datetime")
    if name.endswith("_on"):
        return Measure(words.removesuffix(" on"), "date")
    if name.endswith("_days"):
        return Measure(words.removesuffix(" days") + " (days)", "days")
    if name.endswith("_id"):
        return Measure(words.removesuffix(" id") + " id", "id")
    return Measure(words, "number")


def label(name: str) -> str:
    return measure(name).label


def value(name: str, raw: Any) -> str:
    """`raw` as a person reads this measure: thousands separators, %, MB, at most 3 decimals."""
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return "–"
    kind = measure(name).kind
    if isinstance(raw, bool):
        return "yes" if raw else "no"
    if isinstance(raw, (list, tuple)):
        return ", ".join(str(v).replace("_", " ") for v in raw) or "–"
    if isinstance(raw, datetime):
        return f"{raw:%Y-%m-%d %H:%M}"
    if isinstance(raw, date):
        return raw.isoformat()
    if isinstance(raw, (int, float)):
        if kind == "share":
            return f"{raw:.1%}"
        if kind == "score":
            return f"{raw:.3f}"
        if kind == "megabytes":
            return f"{raw:,.1f} MB"
        if kind in ("confidence", "days"):
            return f"{raw:,.1f}" if isinstance(raw, float) else f"{raw:,}"
        if isinstance(raw, float):
            return f"{raw:,.0f}" if raw.is_integer() else f"{raw:,.2f}"
        return f"{raw:,}"
    text = str(raw)
    if kind == "text" and name in ("kind", "reason", "reasons"):
        text = text.replace("_", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def table(df: pl.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of a frame as a person reads them."""
    headers = [label(c) for c in df.columns]
    rows = [[value(c, v) for c, v in zip(df.columns, row)] for row in df.iter_rows()]
    return headers, rows


def is_uuid(text: str) -> bool:
    return bool(_UUID.match(text))


# The notebooks display their headline under this type; the report runner collects it.
HEADLINE_MIME = "application/vnd.memlib.headline+json"


def cards_html(headline: dict[str, Any]) -> str:
    """Headline numbers as cards (a report's top, and the index page of a run)."""
    import html

    cards = "".join(
        f'<div class="memlib-card"><div class="memlib-value">{html.escape(value(k, v))}</div>'
        f'<div class="memlib-label">{html.escape(label(k))}</div></div>'
        for k, v in headline.items())
    return f'<div class="memlib-headline">{cards}</div>'
