"""Display helpers for the report notebooks: headline, tables and offline SVG charts."""

from __future__ import annotations

import html
import json
from typing import Any

import polars as pl

from memlib import charts
from memlib.report_data import Report
from memlib.reports import HEADLINE_MIME



def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.1%}" if 0 <= value <= 1 else f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def headline_html(report: Report) -> str:
    cards = "".join(
        f'<div class="memlib-card"><div class="memlib-value">{html.escape(_fmt(v))}</div>'
        f'<div class="memlib-label">{html.escape(k.replace("_", " "))}</div></div>'
        for k, v in report.headline.items())
    return f'<h2>{html.escape(report.title)}</h2><div class="memlib-headline">{cards}</div>'


def show_headline(report: Report) -> None:
    """The report's numbers, also as JSON the report runner collects into summary.json."""
    from IPython.display import display

    data = json.loads(json.dumps(report.headline, default=str))
    display({"text/html": headline_html(report), HEADLINE_MIME: data}, raw=True)


def table_html(df: pl.DataFrame, max_rows: int = 50) -> str:
    shown = df.head(max_rows)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>"
        for row in shown.iter_rows())
    more = f"<p>{df.height - max_rows:,} more rows not shown</p>" if df.height > max_rows else ""
    return f'<table class="memlib-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}"
    text = str(value) if value is not None else ""
    return text if len(text) <= 120 else text[:117] + "..."


def show_tables(report: Report) -> None:
    from IPython.display import HTML, display

    for title, df in report.tables.items():
        display(HTML(f"<h3>{html.escape(title)}</h3>" + table_html(df)))


def show_charts(report: Report) -> None:
    """Each chart as inline SVG rendered by vl-convert: draws with no script and no network."""
    from IPython.display import HTML, display

    for title, chart in report.charts.items():
        display(HTML(f'<h3>{html.escape(title)}</h3><div class="memlib-chart">{charts.to_svg(chart)}</div>'))
