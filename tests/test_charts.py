"""Chart builders return valid Vega-Lite that renders offline to SVG with one mark per datum."""

from __future__ import annotations

import re
from datetime import date

import polars as pl

from memlib.analytics import charts


def _marks(svg: str, role: str) -> int:
    return len(re.findall(rf'aria-roledescription="{role}"', svg))


def test_bar_chart_draws_one_bar_per_category():
    df = pl.DataFrame({"kind": ["decision", "issue", "learning"], "n_recalls": [5, 9, 2]})
    chart = charts.bar_by(df, "kind", "n_recalls", "Recalls by kind")
    chart.to_dict(validate=True)
    svg = charts.to_svg(chart)
    assert svg.startswith("<svg") and _marks(svg, "bar") == 3


def test_bar_chart_keeps_the_largest_when_limited():
    df = pl.DataFrame({"p": [f"p{i}" for i in range(30)], "n": list(range(30))})
    svg = charts.to_svg(charts.bar_by(df, "p", "n", "top", limit=5))
    assert _marks(svg, "bar") == 5 and "p29" in svg and "p3<" not in svg


def test_every_builder_renders():
    daily = pl.DataFrame({"recalled_on": [date(2026, 1, 1), date(2026, 1, 2)], "kind": ["issue", "issue"],
                          "n_recalls": [3, 4]})
    built = [
        charts.usage_over_time(daily),
        charts.hit_rank(pl.DataFrame({"rank": [1, 2, 3], "mode": ["hybrid"] * 3, "n_recalls": [5, 3, 1]})),
        charts.expiry_calendar(pl.DataFrame({"expires_on": [date(2026, 2, 1)], "kind": ["issue"], "n_memories": [2]})),
        charts.decay_curves(pl.DataFrame({"applies_to": ["default"] * 2, "half_life_days": [60.0] * 2,
                                          "usage": [0, 0], "idle_days": [0, 60], "decay_score": [1.0, 0.5]})),
        charts.decay_histogram(pl.DataFrame({"decay_score": [0.01, 0.5, 0.52, 0.99], "level": [1, 1, 2, 2]})),
        charts.confidence_histogram(pl.DataFrame({"source": ["agent", "manual"], "confidence_bin": [70, 90],
                                                  "n_memories": [4, 2], "kind": ["issue", "issue"]})),
        charts.cohort_heatmap(pl.DataFrame({"cohort": [date(2026, 1, 1)], "months_since": [0],
                                            "share_recalled": [0.5]})),
        charts.policy_comparison(pl.DataFrame({"policy": ["a", "b"], "n_dropped": [3, 5],
                                               "n_recently_recalled_lost": [0, 2]})),
    ]
    vega_mark = {"bar": "rect", "rect": "rect", "area": "area", "line": "line"}
    for chart in built:
        spec = chart.to_dict(validate=True)
        mark = (spec.get("mark") or spec["spec"]["mark"])["type"]  # faceted charts nest it
        svg = charts.to_svg(chart)
        # the mark's group holds at least one drawn datum (axes and legends are other groups)
        group = re.search(rf'<g class="mark-{vega_mark[mark]} role-mark[^>]*>(.*?)</g>', svg, re.S)
        assert group and 'role="graphics-symbol"' in group.group(1), mark


def test_decay_histogram_bins_before_charting():
    df = pl.DataFrame({"decay_score": [i / 1000 for i in range(1000)], "level": [2] * 1000})
    spec = charts.decay_histogram(df).to_dict()
    assert len(spec["data"]["values"]) == 20  # a million memories would still be 20 * levels values
