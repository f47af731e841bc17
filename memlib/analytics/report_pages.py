"""A report run's pages: each executed notebook as one self-contained HTML page, the
headline numbers it published, and the index of every report of the run (no script, no CDN)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlib.analytics.format import HEADLINE_MIME, cards_html
from memlib.analytics.report_data import REPORTS as DEFINITIONS

if TYPE_CHECKING:
    from memlib.clock import AsOf


@dataclass
class Outcome:
    """One report of a run: whether it rendered, its headline numbers, or its error."""
    name: str
    ok: bool
    headline: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    stale_from: str | None = None  # the previous good output kept, from when


CARDS = 4  # headline numbers per report on the index page
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1100px; color: #1f2328; padding: 0 1rem; }
h1, h2, h3 { font-weight: 600; } h3 { margin-top: 2rem; }
.memlib-headline { display: flex; gap: 1rem; flex-wrap: wrap; margin: 1rem 0 2rem; }
.memlib-card { border: 1px solid #d0d7de; border-radius: 8px; padding: .8rem 1.2rem; min-width: 10rem; }
.memlib-value { font-size: 1.8rem; font-weight: 600; } .memlib-label { color: #59636e; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
.failed { color: #b42318; } .ok { color: #1a7f37; } .stale { color: #9a6700; }
.memlib-report { border-top: 1px solid #d0d7de; padding-top: .5rem; }
.memlib-context { color: #59636e; }
pre { white-space: pre-wrap; }
"""


def headline(nb) -> dict[str, Any]:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if HEADLINE_MIME in out.get("data", {}):
                data = out["data"][HEADLINE_MIME]
                data = json.loads(data) if isinstance(data, str) else dict(data)
                return {key: data["values"][key] for key in data["keys"]}
    return {}


def page_of(nb, title: str, shown: dict[str, str], show_code: bool = False) -> str:
    """The executed notebook as one self-contained page: outputs (and, if asked, the code),
    no script, no CDN, and the parameters it ran with at the bottom."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic", exclude_input=not show_code, exclude_input_prompt=True,
                            exclude_output_prompt=True, anchor_link_text="")
    body, _ = exporter.from_notebook_node(nb)
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in shown.items())
    return page(title, body + f'<h3>Parameters</h3><table class="memlib-params">{rows}</table>')


def page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>")


def write_index(run_dir: Path, as_of: AsOf, store: str, outcomes: list[Outcome]) -> None:
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    summary = {"as_of": str(as_of), "generated_at": generated, "store": store,
               "reports": {o.name: {"ok": o.ok, "error": o.error, "headline": o.headline,
                                    "stale_from": o.stale_from,
                                    "html": f"{o.name}.html", "notebook": f"{o.name}.ipynb"}
                           for o in outcomes}}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    sections = []
    for o in outcomes:
        title = html.escape(DEFINITIONS[o.name].title)
        if o.ok:
            status = '<span class="ok">ok</span>'
        elif o.stale_from:
            status = (f'<span class="failed">failed: {html.escape(o.error or "")}</span> '
                      f'<span class="stale">(showing the previous good output, generated '
                      f'{html.escape(o.stale_from)})</span>')
        else:
            status = f'<span class="failed">failed: {html.escape(o.error or "")}</span>'
        policy = o.headline.get("policy") or o.headline.get("decay_policy")
        shown = [(k, v) for k, v in o.headline.items() if k not in ("policy", "decay_policy")]
        cards = dict(shown[:CARDS])
        link = f'<a href="{o.name}.html">open the report</a>' if (o.ok or o.stale_from) else ""
        judged = f' · policy <b>{html.escape(str(policy))}</b>' if policy else ""
        sections.append(f'<section class="memlib-report"><h2>{title}</h2><p>{status}{judged} {link}</p>'
                        f'{cards_html(cards) if cards else ""}</section>')
    context = (f'<p class="memlib-context">The store <code>{html.escape(store)}</code> as it was at the '
               f'end of {as_of} (UTC); generated {html.escape(generated)}. Each report says '
               f'which version of the store it read and, for decay and retention, which policy.</p>')
    body = f"<h1>memlib reports as of {as_of}</h1>{context}{''.join(sections)}"
    (run_dir / "index.html").write_text(page(f"memlib reports {as_of}", body))


