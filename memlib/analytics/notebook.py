"""Display helpers for the report notebooks: the context line, headline cards, tables and
offline SVG charts, every number through `format` (the index page uses it too)."""

from __future__ import annotations

import html
import json

import polars as pl

from memlib.analytics import charts, format
from memlib.analytics.format import HEADLINE_MIME, cards_html
from memlib.analytics.report_data import Report


def headline_html(report: Report) -> str:
    return f'<h2>{html.escape(report.title)}</h2>' + cards_html(report.headline)


def show_context(con, store: str) -> None:
    """Which store, which version of it and which date the report reads."""
    from IPython.display import HTML, display

    from memlib.analytics.report_data import read_from

    seen = read_from(con)
    display(HTML(
        f'<p class="memlib-context">As of the end of {seen["as_of"]:%Y-%m-%d} (UTC), reading '
        f'store <code>{html.escape(store)}</code> at version {seen["store_version"]:,} '
        f'(written {seen["store_version_at"]:%Y-%m-%d %H:%M} UTC).</p>'))


def show_headline(report: Report) -> None:
    """The report's numbers, also as JSON the report runner collects into summary.json."""
    from IPython.display import display

    # keys in the report's order: the notebook file stores JSON objects with sorted keys
    data = {"keys": list(report.headline), "values": json.loads(json.dumps(report.headline, default=str))}
    display({"text/html": headline_html(report), HEADLINE_MIME: data}, raw=True)


def table_html(df: pl.DataFrame, max_rows: int = 50) -> str:
    headers, rows = format.table(df.head(max_rows))
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    more = f"<p>{df.height - max_rows:,} more rows not shown</p>" if df.height > max_rows else ""
    return f'<table class="memlib-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'


def show_tables(report: Report) -> None:
    from IPython.display import HTML, display

    for title, df in report.tables.items():
        display(HTML(f"<h3>{html.escape(title)}</h3>" + table_html(df)))


def show_charts(report: Report) -> None:
    """Each chart as inline SVG rendered by vl-convert: draws with no script and no network."""
    from IPython.display import HTML, display

    for title, chart in report.charts.items():
        display(HTML(f'<h3>{html.escape(title)}</h3><div class="memlib-chart">{charts.to_svg(chart)}</div>'))
