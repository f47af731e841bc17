"""`memlib report run`: execute the report notebooks with papermill and publish them.

Output for one as-of date lands in reports/<as-of>/: each executed notebook, its HTML (code
hidden), index.html (a dashboard of every report's headline cards) and summary.json with
every report's headline numbers. The date's folder is a symlink to a finished run under
reports/.runs/, switched with one atomic rename, so a reader never sees a half-written
report and a rerun replaces it whole. A report that fails keeps its previous good output
(marked as such) and fails the run. The notebooks ship inside the package (memlib.notebooks,
mapped from the repository's notebooks/ by the build). The views the reports share are
built once per run into reports/.cache and kept while the store does not change.

A run is named steps (`run`): `start_kernels` (analytics/report_kernels.py, jupyter_client's
and papermill's public APIs), `plan`, `execute` (each report run, then `render`ed by
analytics/report_pages.py) and `publish`.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from memlib.analytics.connection import CHECKS
from memlib.analytics.report_data import REPORTS as DEFINITIONS
from memlib.analytics.report_kernels import Kernel, kernel_error, skip_unused_imports
from memlib.analytics.report_pages import Outcome, headline, page_of, write_index
from memlib.clock import AsOf
from memlib.extras import REPORTS as REPORTS_EXTRA
from memlib.extras import need
from memlib.errors import InvalidInput, MemlibError, StoreError
from memlib.interface import StoreInterface
from memlib.scope import sql_literal
from memlib.settings import Settings

REPORTS = tuple(DEFINITIONS)  # the reports' names, in the order a run shows them
EXPLORE = "explore.ipynb"  # the analyst's starting point (memlib lab), not a scheduled report
log = logging.getLogger("memlib")
# A run deletes the cached views no run read in this many seconds before it started (a
# concurrent run may be about to read what this one did not).
CACHE_GRACE = 3600



class ReportFailed(MemlibError):
    """A report notebook raised; names the report, the cell and the error."""


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

    def check(self) -> None:
        """Raise ReportFailed, in one line, if any report failed."""
        failed = [o for o in self.outcomes if not o.ok]
        if failed:
            kept = " (its previous output is kept)" if failed[0].stale_from else ""
            more = f"; and {len(failed) - 1} more failed" if len(failed) > 1 else ""
            raise ReportFailed(f"report {failed[0].error}{kept}{more}")


def notebook(name: str):
    """The packaged notebook of a report (a Traversable)."""
    if name not in REPORTS:
        raise InvalidInput(f"unknown report {name!r}; reports are {', '.join(REPORTS)}")
    try:
        path = resources.files("memlib.notebooks") / f"{name}.ipynb"
    except ModuleNotFoundError:
        raise StoreError("memlib's report notebooks (memlib/notebooks) are missing from this installation") from None
    if not path.is_file():
        raise StoreError(f"report notebook {name}.ipynb is missing from this installation")
    return path


def exploration_notebook(folder: str | Path) -> Path:
    """A copy of the exploration notebook in `folder` (an existing copy is kept: it is the
    analyst's now)."""
    target = Path(folder) / EXPLORE
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((resources.files("memlib.notebooks") / EXPLORE).read_bytes())
    return target


def parameters(name: str) -> dict[str, dict[str, Any]]:
    """The report's parameters as its tagged `parameters` cell defines them. The first thing
    to import papermill here (`report list`, `report run`), so the unused imports are skipped
    first."""
    skip_unused_imports()
    papermill = need("reports", "papermill", "the reports")

    path = notebook(name)
    try:
        with resources.as_file(path) as local:
            found = papermill.inspect_notebook(str(local))
    except Exception as exc:
        raise StoreError(f"report notebook {name}.ipynb is broken: {str(exc).splitlines()[0]}") from None
    return {key: {"default": spec["default"], "type": spec["inferred_type_name"], "help": spec["help"]}
            for key, spec in found.items()}


# parameters every report gets from the run itself (cache_dir: the run's views, kept in <--out>/.cache)
RUN_SETS = {"store": "--store", "as_of": "--as-of", "cache_dir": "--out"}


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


@dataclass
class Plan:
    """A run checked before any report starts: the reports, the day, the store (opened, so a
    missing one is the user's mistake before any work) and each report's parameters."""

    names: list[str]
    as_of: AsOf
    store: str
    opened: StoreInterface
    specs: dict[str, dict[str, dict[str, Any]]]
    values: dict[str, dict[str, Any]]


def run(names: list[str], as_of: AsOf | date | str | None, store: str, overrides: dict[str, str] | None = None,
        out_root: Path = Path("reports"), kernel: str = "python3", workers: int = 2,
        show_code: bool = False, progress: bool = False, settings: Settings | None = None) -> RunResult:
    """Run the named reports for one date, in named steps: start the kernels (they warm while
    the rest is checked), `plan`, build the shared views, `execute` (each report run and
    rendered), `publish`. Each report's failure is recorded, not raised (RunResult.check
    raises); problems with the store, the views or the parameters stop the run before any
    report starts. `as_of`: the day the reports are as of (None: today, by the store's
    clock); the store is read as it was at its end. `settings`: what the caller resolved
    (without them, this is the edge: memlib.settings). Each report's kernel is an edge of its
    own, started with this process's environment and given the store."""
    need("reports", REPORTS_EXTRA, "the reports")
    for name in names:
        notebook(name)  # an unknown report is named before anything starts
    kernels, logs, pool, warming = start_kernels(kernel, max(1, min(workers, len(names))))
    run_dir, built = None, False
    try:
        planned = plan(names, as_of, store, overrides or {}, settings)
        out_root = Path(out_root)
        run_dir = out_root / ".runs" / f"{planned.as_of}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
        run_dir.mkdir(parents=True)
        # The reports share one build of the materialized views, kept for the next run: one
        # on a store nobody wrote to since reads it instead of building it again (the key is
        # the state of every table the views read, connection._sources).
        cache = out_root / ".cache"
        started = time.time()
        _prebuild(planned, cache)
        built = True
        for future in warming:  # a kernel that failed to warm is replaced by its first report
            future.result()
        outcomes = execute(planned, kernels, pool, run_dir, cache, show_code, progress)
    finally:
        for k in kernels:
            k.close()  # a kernel still warming is shut down too; its thread then ends
        pool.shutdown(wait=True)
        if built:
            for log_file in logs.iterdir():
                shutil.move(str(log_file), str(run_dir / log_file.name))
        elif run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)
        shutil.rmtree(logs, ignore_errors=True)
    from memlib.analytics.connection import prune_cache

    prune_cache(cache, before=started - CACHE_GRACE)
    return publish(planned, outcomes, run_dir, out_root)


def start_kernels(name: str, n: int) -> tuple[list[Kernel], Path, ThreadPoolExecutor, list]:
    """`n` kernels (each report spends much of its time in one-threaded Python), each to run
    its share of the reports one after another, started and warmed in the background (they
    import what the reports need, about 5 s, while the run is checked and the shared views
    are built); they log to a folder of their own until the run has one."""
    # papermill (and under it jupyter_client) imported here, before the threads that start the
    # kernels import jupyter_client too: two threads importing one package at once can meet
    # it half-initialised ("cannot import name 'AsyncKernelManager' from partially initialized
    # module", seen once in a full test run)
    skip_unused_imports()
    import jupyter_client.manager  # noqa: F401
    import papermill  # noqa: F401

    logs = Path(tempfile.mkdtemp(prefix="memlib-kernels-"))
    kernels = [Kernel(name, logs / f"kernel-{i}.log") for i in range(n)]
    pool = ThreadPoolExecutor(max_workers=n)
    return kernels, logs, pool, [pool.submit(k.warm) for k in kernels]


def plan(names: list[str], as_of: AsOf | date | str | None, store: str, overrides: dict[str, str],
         settings: Settings | None = None) -> Plan:
    """Check everything a run needs before any report starts, in one line each: the store
    and the day (one its history reaches), each override (a parameter some report has, of
    its type), the policies, projects and people named, and the view files."""
    from memlib.analytics.views import ordered_views
    from memlib.store import Store

    settings = Settings.at_edge(settings, store=store)
    opened = Store.open(store, create=False, settings=settings)
    as_of = AsOf.of(as_of, opened.clock, "--as-of").whole_day()
    specs = {name: parameters(name) for name in names}
    for key in overrides:
        if key in RUN_SETS:  # else the notebook would read another store or day than the one checked here
            raise InvalidInput(f"-p {key}: the run sets it; give {RUN_SETS[key]}")
        if not any(key in spec for spec in specs.values()):
            raise InvalidInput(f"no report of {', '.join(names)} has a parameter {key!r}")
    values = {name: _values(name, specs[name], overrides, store, as_of, settings.policy_dir) for name in names}
    opened.version_at(as_of)  # a date before the store's history
    projects = {v["project_id"] for v in values.values() if v.get("project_id") is not None}
    for project_id in sorted(projects):  # a project the store does not hold
        if not opened.rows(f"id = {sql_literal(project_id)} AND kind = 'project'", limit=1, columns=["id"]):
            raise InvalidInput(f"parameter project_id: no project {project_id!r} in the store")
    users = {v["user_id"] for v in values.values() if v.get("user_id") is not None}
    for user_id in sorted(users):  # a person none of its memories belongs to
        if "user_id" not in opened.dataset().schema.names or not opened.rows(
                f"user_id = {sql_literal(user_id)}", limit=1, columns=["id"]):
            raise InvalidInput(f"parameter user_id: no memory of user {user_id!r} in the store")
    ordered_views()  # a missing or broken view file is named now, not in a kernel
    return Plan(list(names), as_of, store, opened, specs, values)


def execute(planned: Plan, kernels: list[Kernel], pool: ThreadPoolExecutor, run_dir: Path, cache: Path,
            show_code: bool = False, progress: bool = False) -> list[Outcome]:
    """Run and render every report of the plan, the kernels taking the next waiting report
    as each finishes one; the outcomes in the plan's order."""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(planned.names), desc="reports", unit="report", disable=None)
    waiting, outcomes, lock = list(planned.names), {}, threading.Lock()

    def worker(kernel_: Kernel) -> None:
        while True:
            with lock:
                if not waiting:
                    return
                name = waiting.pop(0)
            spec = planned.specs[name]
            values = planned.values[name] | ({"cache_dir": str(cache)} if "cache_dir" in spec else {})
            shown = {key: s["default"] for key, s in spec.items() if key != "cache_dir"} | {
                key: json.dumps(value) if not isinstance(value, str) else repr(value)
                for key, value in values.items() if key != "cache_dir"}
            outcomes[name] = _execute(name, values, shown, run_dir, kernel_, show_code)
            if bar is not None:
                bar.update(1)

    for future in [pool.submit(worker, k) for k in kernels]:
        future.result()
    if bar is not None:
        bar.close()
    return [outcomes[name] for name in planned.names]


def publish(planned: Plan, outcomes: list[Outcome], run_dir: Path, out_root: Path) -> RunResult:
    """Keep a failed report's last good output (marked stale), write the index and the
    summary, and point reports/<as-of> at the finished run in one atomic rename."""
    day = str(planned.as_of)
    previous = out_root / day
    for outcome in outcomes:
        if not outcome.ok:
            _keep_previous(outcome, previous, run_dir)
    write_index(run_dir, planned.as_of, planned.store, outcomes)
    _switch(out_root, day, run_dir)
    return RunResult(day, out_root / day, outcomes)


def _keep_previous(outcome: Outcome, previous: Path, run_dir: Path) -> None:
    """Carry a failed report's last good output into the new run, marked stale."""
    try:
        summary = json.loads((previous / "summary.json").read_text())
    except (OSError, ValueError):
        return
    before = summary.get("reports", {}).get(outcome.name, {})
    if not before.get("ok") and not before.get("stale_from"):
        return
    for suffix in (".html", ".ipynb"):
        source = previous / f"{outcome.name}{suffix}"
        if source.exists():
            shutil.copyfile(source, run_dir / f"{outcome.name}{suffix}")
    outcome.headline = before.get("headline", {})
    outcome.stale_from = before.get("stale_from") or summary.get("generated_at")


def _prebuild(planned: Plan, cache: Path) -> None:
    """Build the shared materialization with the reports' common parameters (the first
    report's), before the reports run; a report whose own parameters differ builds its own.
    A failure here is the run's, named in one line."""
    import ast

    from memlib import analytics

    spec, values = planned.specs[planned.names[0]], planned.values[planned.names[0]]

    def value(key: str) -> Any:
        return values[key] if key in values else ast.literal_eval(spec[key]["default"])

    analytics.connect(planned.opened, as_of=planned.as_of, project_id=value("project_id"),
                      window_days=value("window_days"), cache_dir=cache).close()


def _values(name: str, spec: dict[str, dict], overrides: dict[str, str], store: str,
            as_of: AsOf, policy_dir: str | None) -> dict[str, Any]:
    """The parameters papermill injects into one report, typed and checked up front."""
    from memlib import analytics

    values: dict[str, Any] = {"store": store if "://" in store else str(Path(store).resolve()),
                              "as_of": str(as_of)}
    for key, value in overrides.items():
        if key in spec:
            values[key] = coerce(value, spec[key], key)
    if values.get("policies") is not None:
        analytics.policies(values["policies"], policy_dir)
    if values.get("policy") is not None:
        analytics.policies([values["policy"]], policy_dir)
    for key, check in CHECKS.items():
        if key in values:
            check(values[key], key)
    return values


def _execute(name: str, values: dict[str, Any], shown: dict[str, str], run_dir: Path,
             kernel: Kernel, show_code: bool, retry: bool = True, started: float | None = None) -> Outcome:
    """Run one report in `kernel`. A report whose cells all ran but whose kernel logged an
    error runs once more in a fresh kernel: a kernel's messaging layer can fail on its own
    under load (tornado's "Uncaught exception in ZMQStream callback" in a CI run), and an
    error the report itself causes is logged again and fails it."""
    from papermill.exceptions import PapermillExecutionError

    output = run_dir / f"{name}.ipynb"
    error = None
    started = time.perf_counter() if started is None else started  # a rerun counts both attempts
    logged = kernel.logged()
    try:
        with resources.as_file(notebook(name)) as source:
            kernel.run(str(source), str(output), values)
    except PapermillExecutionError as exc:
        first = (exc.source or "").strip().splitlines()[0][:60] if exc.source else ""
        message = (exc.evalue or "").strip().splitlines()
        error = f"{name}: cell {exc.exec_count} ({first}): {exc.ename}: {message[0] if message else ''}"
    except Exception as exc:  # the kernel died, the notebook is unreadable, ...
        error = f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if error is None:
        error = kernel_error(name, kernel.log, logged)
        if error is not None and retry:
            log.warning("%s; running it again in a fresh kernel", error)
            kernel.close()
            return _execute(name, values, shown, run_dir, kernel, show_code, retry=False, started=started)
    kernel.reset()
    found, error = render(name, output, shown, run_dir, show_code, error)
    return Outcome(name, error is None and found is not None, headline=found or {}, error=error,
                   seconds=time.perf_counter() - started)


def render(name: str, output: Path, shown: dict[str, str], run_dir: Path, show_code: bool = False,
           error: str | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """The executed notebook `output` as `<name>.html` in the run; (its headline numbers, the
    report's error). None for the headline when there is no notebook to render."""
    if not output.exists():
        return None, error
    import nbformat

    nb = nbformat.read(output, as_version=4)
    try:
        (run_dir / f"{name}.html").write_text(page_of(nb, name, shown, show_code), encoding="utf-8")
    except Exception as exc:  # nbconvert without its templates, ...: this report fails, in one line
        error = error or f"{name}: cannot render HTML: {type(exc).__name__}: {str(exc).splitlines()[0]}"
    return headline(nb), error


def _switch(out_root: Path, as_of: str, run_dir: Path) -> None:
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
