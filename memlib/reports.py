"""`memlib report run`: execute the report notebooks with papermill and publish them.

Output for one as-of date lands in reports/<as-of>/: each executed notebook, its HTML (code
hidden), index.html linking them and summary.json with every report's headline numbers.
The date's folder is a symlink to a finished run under reports/.runs/, switched with one
atomic rename, so a reader never sees a half-written report and a rerun replaces it whole.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from memlib.errors import InvalidInput, MemlibError

NOTEBOOKS = Path(os.environ.get("MEMLIB_NOTEBOOKS", Path(__file__).resolve().parent.parent / "notebooks"))
REPORTS = ("usage", "ttl_decay", "confidence", "retention")
# The notebooks display their headline under this type; the runner collects it.
HEADLINE_MIME = "application/vnd.memlib.headline+json"

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1100px; color: #1f2328; padding: 0 1rem; }
h1, h2, h3 { font-weight: 600; } h3 { margin-top: 2rem; }
.memlib-headline { display: flex; gap: 1rem; flex-wrap: wrap; margin: 1rem 0 2rem; }
.memlib-card { border: 1px solid #d0d7de; border-radius: 8px; padding: .8rem 1.2rem; min-width: 10rem; }
.memlib-value { font-size: 1.8rem; font-weight: 600; } .memlib-label { color: #59636e; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
.failed { color: #b42318; } .ok { color: #1a7f37; }
pre { white-space: pre-wrap; }
"""


class ReportFailed(MemlibError):
    """A report notebook raised; names the notebook, the cell and the error."""


@dataclass
class Outcome:
    name: str
    ok: bool
    headline: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


@dataclass
class RunResult:
    as_of: str
    path: Path
    outcomes: list[Outcome]

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def index(self) -> Path:
        return self.path / "index.html"


def notebook(name: str) -> Path:
    if name not in REPORTS:
        raise InvalidInput(f"unknown report {name!r}; reports are {', '.join(REPORTS)}")
    return NOTEBOOKS / f"{name}.ipynb"


def parameters(name: str) -> dict[str, dict[str, Any]]:
    """The report's parameters as its tagged `parameters` cell defines them."""
    import papermill

    return {key: {"default": spec["default"], "type": spec["inferred_type_name"], "help": spec["help"]}
            for key, spec in papermill.inspect_notebook(str(notebook(name))).items()}


def coerce(value: str, spec: dict[str, Any], key: str) -> Any:
    """A command-line value typed as the parameter is annotated (JSON for lists and dicts)."""
    kind = spec["type"]
    if value.lower() == "none" and spec["default"] == "None":
        return None
    try:
        if kind == "bool":
            if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return value.lower() in ("true", "1", "yes")
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind in ("list", "dict"):
            parsed = json.loads(value)
            if not isinstance(parsed, list if kind == "list" else dict):
                raise ValueError
            return parsed
    except (ValueError, json.JSONDecodeError):
        raise InvalidInput(f"parameter {key}: {value!r} is not a valid {kind}") from None
    return value


def parse_overrides(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidInput(f"-p takes key=value, not {pair!r}")
        out[key.strip()] = value
    return out


def run(names: list[str], as_of: date, store: str, overrides: dict[str, str] | None = None,
        out_root: Path = Path("reports"), kernel: str = "python3", workers: int = 2,
        show_code: bool = False) -> RunResult:
    """Run the named reports for one date; each report's failure is recorded, not raised."""
    from memlib.store import MemoryStore

    overrides = overrides or {}
    specs = {name: parameters(name) for name in names}
    for key in overrides:
        if not any(key in spec for spec in specs.values()):
            raise InvalidInput(f"no report of {', '.join(names)} has a parameter {key!r}")
    planned = {name: _values(name, specs[name], overrides, store, as_of) for name in names}
    MemoryStore.open(store, create=False)  # a missing store is the user's mistake, before any work
    out_root = Path(out_root)
    runs = out_root / ".runs"
    run_dir = runs / f"{as_of.isoformat()}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
    run_dir.mkdir(parents=True)

    cache = run_dir / ".cache"  # the reports share one build of the materialized views
    _prebuild(as_of, specs[names[0]], planned[names[0]], cache)

    def execute(name: str) -> Outcome:
        values = planned[name] | ({"cache_dir": str(cache)} if "cache_dir" in specs[name] else {})
        shown = {key: spec["default"] for key, spec in specs[name].items() if key != "cache_dir"} | {
            key: json.dumps(value) if not isinstance(value, str) else repr(value)
            for key, value in values.items() if key != "cache_dir"}
        return _execute(name, values, shown, run_dir, kernel, show_code)

    # Two kernels at a time: each report spends much of its time in one-threaded Python.
    with _kernel_stderr_to(run_dir / "kernels.log"), ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(execute, names))
    shutil.rmtree(cache, ignore_errors=True)
    _write_index(run_dir, as_of, store, outcomes)
    _publish(out_root, as_of.isoformat(), run_dir)
    return RunResult(as_of.isoformat(), out_root / as_of.isoformat(), outcomes)


def _prebuild(as_of: date, spec: dict[str, dict], values: dict[str, Any],
              cache: Path) -> None:
    """Build the shared materialization with the reports' common parameters, before the
    kernels start; a report whose own parameters differ builds its own."""
    import ast

    from memlib import analytics

    def value(key: str) -> Any:
        return values[key] if key in values else ast.literal_eval(spec[key]["default"])

    try:
        analytics.connect(values["store"], as_of=as_of.isoformat(), project_id=value("project_id"),
                          window_days=value("window_days"), cache_dir=cache).close()
    except (MemlibError, KeyError, ValueError):
        pass  # each report then meets (and names) the problem itself


def _values(name: str, spec: dict[str, dict], overrides: dict[str, str], store: str,
            as_of: date) -> dict[str, Any]:
    """The parameters papermill injects into one report, typed and checked up front."""
    from memlib import analytics

    values: dict[str, Any] = {"store": store if "://" in store else str(Path(store).resolve()),
                              "as_of": as_of.isoformat()}
    for key, value in overrides.items():
        if key in spec:
            values[key] = coerce(value, spec[key], key)
    if values.get("policies") is not None:
        analytics.policies(values["policies"])
    if values.get("half_lives") is not None:
        analytics.Params(as_of=analytics.as_of_end(as_of), half_lives=values["half_lives"])
    return values


def _execute(name: str, values: dict[str, Any], shown: dict[str, str], run_dir: Path,
             kernel: str, show_code: bool) -> Outcome:
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    output = run_dir / f"{name}.ipynb"
    error = None
    started = time.perf_counter()
    try:
        papermill.execute_notebook(str(notebook(name)), str(output), parameters=values,
                                   kernel_name=kernel, progress_bar=False, log_output=False,
                                   cwd=os.getcwd())
    except PapermillExecutionError as exc:
        first = (exc.source or "").strip().splitlines()[0][:60] if exc.source else ""
        error = f"{name}.ipynb cell {exc.exec_count} ({first}): {exc.ename}: {exc.evalue}"
    except Exception as exc:  # the kernel died, the notebook is unreadable, ...
        error = f"{name}.ipynb: {type(exc).__name__}: {exc}"
    if not output.exists():
        return Outcome(name, False, error=error, seconds=time.perf_counter() - started)
    nb = nbformat.read(output, as_version=4)
    (run_dir / f"{name}.html").write_text(_html(nb, name, shown, show_code), encoding="utf-8")
    return Outcome(name, error is None, headline=_headline(nb), error=error,
                   seconds=time.perf_counter() - started)


@contextmanager
def _kernel_stderr_to(path: Path):
    """Kernels inherit our stderr and chat on it; keep that in a log beside the reports."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _headline(nb) -> dict[str, Any]:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if HEADLINE_MIME in out.get("data", {}):
                data = out["data"][HEADLINE_MIME]
                return json.loads(data) if isinstance(data, str) else dict(data)
    return {}


def _html(nb, title: str, shown: dict[str, str], show_code: bool = False) -> str:
    """The executed notebook as one self-contained page: outputs (and, if asked, the code),
    no script, no CDN, and the parameters it ran with at the bottom."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic", exclude_input=not show_code, exclude_input_prompt=True,
                            exclude_output_prompt=True, anchor_link_text="")
    body, _ = exporter.from_notebook_node(nb)
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in shown.items())
    return _page(title, body + f'<h3>Parameters</h3><table class="memlib-params">{rows}</table>')


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>")


def _write_index(run_dir: Path, as_of: date, store: str, outcomes: list[Outcome]) -> None:
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    summary = {"as_of": as_of.isoformat(), "generated_at": generated, "store": store,
               "reports": {o.name: {"ok": o.ok, "error": o.error, "headline": o.headline,
                                    "html": f"{o.name}.html", "notebook": f"{o.name}.ipynb"}
                           for o in outcomes}}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    items = []
    for o in outcomes:
        status = ('<span class="ok">ok</span>' if o.ok else
                  f'<span class="failed">failed: {html.escape(o.error or "")}</span>')
        numbers = "".join(f"<li>{html.escape(k.replace('_', ' '))}: {html.escape(str(v))}</li>"
                          for k, v in list(o.headline.items())[:3])
        items.append(f'<li><a href="{o.name}.html">{o.name}</a> ({status})<ul>{numbers}</ul></li>')
    body = (f"<h1>memlib reports as of {as_of.isoformat()}</h1><p>store {html.escape(store)}, "
            f"generated {generated}</p><ul>{''.join(items)}</ul>")
    (run_dir / "index.html").write_text(_page(f"memlib reports {as_of.isoformat()}", body))


def _publish(out_root: Path, as_of: str, run_dir: Path) -> None:
    """Point reports/<as-of> at the finished run in one atomic rename; drop older runs."""
    link = out_root / as_of
    if link.exists() and not link.is_symlink():
        shutil.move(str(link), str(out_root / ".runs" / f"{as_of}-legacy-{uuid.uuid4().hex[:6]}"))
    tmp = out_root / f".{as_of}.{uuid.uuid4().hex[:6]}.tmp"
    os.symlink(os.path.relpath(run_dir, out_root), tmp)
    os.replace(tmp, link)
    for old in (out_root / ".runs").glob(f"{as_of}-*"):
        if old != run_dir:
            shutil.rmtree(old, ignore_errors=True)
