"""`memlib report run`: execute the report notebooks with papermill and publish them.

Output for one as-of date lands in reports/<as-of>/: each executed notebook, its HTML (code
hidden), index.html (a dashboard of every report's headline cards) and summary.json with
every report's headline numbers. The date's folder is a symlink to a finished run under
reports/.runs/, switched with one atomic rename, so a reader never sees a half-written
report and a rerun replaces it whole. A report that fails keeps its previous good output
(marked as such) and fails the run. The notebooks ship inside the package (memlib.notebooks,
mapped from the repository's notebooks/ by the build). The views the reports share are
built once per run into reports/.cache and kept while the store does not change.
"""

from __future__ import annotations

import html
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from memlib.analytics.format import HEADLINE_MIME, cards_html
from memlib.analytics.report_data import REPORTS as DEFINITIONS
from memlib.clock import AsOf
from memlib.errors import InvalidInput, MemlibError, StoreError
from memlib.interface import StoreInterface
from memlib.scope import sql_literal
from memlib.settings import Settings

REPORTS = tuple(DEFINITIONS)  # the reports' names, in the order a run shows them
EXPLORE = "explore.ipynb"  # the analyst's starting point (memlib lab), not a scheduled report
CARDS = 4  # headline numbers per report on the index page
log = logging.getLogger("memlib")
# What a kernel's stderr may say that means its report is not to be trusted.
KERNEL_ERRORS = ("ERROR", "Traceback", "Exception")
# A run deletes the cached views no run read in this many seconds before it started (a
# concurrent run may be about to read what this one did not).
CACHE_GRACE = 3600
# Modules the runner and its kernels would import and never use. jsonschema (under nbformat
# and altair) checks the "iri" string format with rfc3987-syntax when it is installed
# (JupyterLab's jupyter-events asks for it), and that module compiles a Lark grammar as it
# is imported: 1.0-1.4 s in each of the run's three processes, for a check no report asks
# for. Marked missing there, so jsonschema leaves that one format unchecked.
UNUSED_IMPORTS = ("rfc3987_syntax",)

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


class ReportFailed(MemlibError):
    """A report notebook raised; names the report, the cell and the error."""


@dataclass
class Outcome:
    name: str
    ok: bool
    headline: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    stale_from: str | None = None  # the previous good output kept, from when


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
    import papermill

    path = notebook(name)
    try:
        with resources.as_file(path) as local:
            found = papermill.inspect_notebook(str(local))
    except Exception as exc:
        raise StoreError(f"report notebook {name}.ipynb is broken: {str(exc).splitlines()[0]}") from None
    return {key: {"default": spec["default"], "type": spec["inferred_type_name"], "help": spec["help"]}
            for key, spec in found.items()}


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


def run(names: list[str], as_of: AsOf | date | str | None, store: str, overrides: dict[str, str] | None = None,
        out_root: Path = Path("reports"), kernel: str = "python3", workers: int = 2,
        show_code: bool = False, progress: bool = False, settings: Settings | None = None) -> RunResult:
    """Run the named reports for one date; each report's failure is recorded, not raised
    (RunResult.check raises). Problems with the store, the views or the parameters stop the
    run before any report starts. `as_of`: the day the reports are as of (None: today, by the
    store's clock); the store is read as it was at its end. `settings`: what the caller resolved (without them, this
    is the edge: memlib.settings). Each report's kernel is an edge of its own, started with
    this process's environment and given the store."""
    from memlib.analytics.views import ordered_views
    from memlib.store import Store

    for name in names:
        notebook(name)  # an unknown report is named before anything starts
    # Two kernels at a time (each report spends much of its time in one-threaded Python),
    # each running its share of the reports one after another. They start first, and import
    # what the reports need (about 5 s) while the run is checked and the shared views are
    # built; they log to a folder of their own until the run has one.
    # papermill (and under it jupyter_client) imported here, before the threads that start the
    # kernels import jupyter_client too: two threads importing one package at once can meet
    # it half-initialised ("cannot import name 'AsyncKernelManager' from partially initialized
    # module", seen once in a full test run)
    skip_unused_imports()
    import jupyter_client.manager  # noqa: F401
    import papermill  # noqa: F401

    logs = Path(tempfile.mkdtemp(prefix="memlib-kernels-"))
    kernels = [_Kernel(kernel, logs / f"kernel-{i}.log") for i in range(max(1, min(workers, len(names))))]
    pool = ThreadPoolExecutor(max_workers=len(kernels))
    warming = [pool.submit(k.warm) for k in kernels]
    run_dir, built = None, False
    try:
        settings = settings.given(store=store) if settings else Settings.resolve(store=store)
        opened = Store.open(store, create=False, settings=settings)  # a missing store is the user's mistake, before any work
        as_of = AsOf.of(as_of, opened.clock, "--as-of").whole_day()
        overrides = overrides or {}
        specs = {name: parameters(name) for name in names}
        for key in overrides:
            if not any(key in spec for spec in specs.values()):
                raise InvalidInput(f"no report of {', '.join(names)} has a parameter {key!r}")
        planned = {name: _values(name, specs[name], overrides, store, as_of, settings.policy_dir)
                   for name in names}
        opened.version_at(as_of)  # so is a date before the store's history
        projects = {values["project_id"] for values in planned.values() if values.get("project_id")}
        for project_id in sorted(projects):  # and a project the store does not hold
            if not opened.rows(f"id = {sql_literal(project_id)} AND kind = 'project'", limit=1, columns=["id"]):
                raise InvalidInput(f"parameter project_id: no project {project_id!r} in the store")
        users = {values["user_id"] for values in planned.values() if values.get("user_id")}
        for user_id in sorted(users):  # and a person none of its memories belongs to
            if "user_id" not in opened.dataset().schema.names or not opened.rows(
                    f"user_id = {sql_literal(user_id)}", limit=1, columns=["id"]):
                raise InvalidInput(f"parameter user_id: no memory of user {user_id!r} in the store")
        ordered_views()  # a missing or broken view file is named now, not in a kernel
        out_root = Path(out_root)
        runs = out_root / ".runs"
        run_dir = runs / f"{as_of}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
        run_dir.mkdir(parents=True)
        # The reports share one build of the materialized views, kept for the next run: one
        # on a store nobody wrote to since reads it instead of building it again (the key is
        # the state of every table the views read, connection._sources).
        cache = out_root / ".cache"
        started = time.time()

        def execute(kernel_: _Kernel, name: str) -> Outcome:
            values = planned[name] | ({"cache_dir": str(cache)} if "cache_dir" in specs[name] else {})
            shown = {key: spec["default"] for key, spec in specs[name].items() if key != "cache_dir"} | {
                key: json.dumps(value) if not isinstance(value, str) else repr(value)
                for key, value in values.items() if key != "cache_dir"}
            outcome = _execute(name, values, shown, run_dir, kernel_, show_code)
            if bar is not None:
                bar.update(1)
            return outcome

        def worker(kernel_: _Kernel) -> None:
            while True:
                with lock:
                    if not waiting:
                        return
                    name = waiting.pop(0)
                outcomes[name] = execute(kernel_, name)

        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(names), desc="reports", unit="report", disable=None)
        waiting, outcomes, lock = list(names), {}, threading.Lock()
        _prebuild(opened, as_of, specs[names[0]], planned[names[0]], cache)
        built = True
        for future in warming:  # a kernel that failed to warm is replaced by its first report
            future.result()
        for future in [pool.submit(worker, k) for k in kernels]:
            future.result()
    finally:
        for k in kernels:
            k.close()  # a kernel still warming is shut down too; its thread then ends
        pool.shutdown(wait=True)
        if built:
            for log in logs.iterdir():
                shutil.move(str(log), str(run_dir / log.name))
        elif run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)
        shutil.rmtree(logs, ignore_errors=True)
    outcomes = [outcomes[name] for name in names]
    if bar is not None:
        bar.close()
    from memlib.analytics.connection import prune_cache

    prune_cache(cache, before=started - CACHE_GRACE)
    previous = out_root / str(as_of)
    for outcome in outcomes:
        if not outcome.ok:
            _keep_previous(outcome, previous, run_dir)
    _write_index(run_dir, as_of, store, outcomes)
    _publish(out_root, str(as_of), run_dir)
    return RunResult(str(as_of), out_root / str(as_of), outcomes)


def skip_unused_imports() -> None:
    """Mark UNUSED_IMPORTS missing in this process (by `parameters`, and first in each kernel)."""
    for module in UNUSED_IMPORTS:
        sys.modules.setdefault(module, None)


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


def _prebuild(store: StoreInterface, as_of: AsOf, spec: dict[str, dict], values: dict[str, Any], cache: Path) -> None:
    """Build the shared materialization with the reports' common parameters, before the
    kernels start; a report whose own parameters differ builds its own. A failure here is
    the run's, named in one line."""
    import ast

    from memlib import analytics

    def value(key: str) -> Any:
        return values[key] if key in values else ast.literal_eval(spec[key]["default"])

    analytics.connect(store, as_of=as_of, project_id=value("project_id"),
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
    if "window_days" in values:
        analytics.check_window_days(values["window_days"])
    return values


def _execute(name: str, values: dict[str, Any], shown: dict[str, str], run_dir: Path,
             kernel: _Kernel, show_code: bool, retry: bool = True, started: float | None = None) -> Outcome:
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
            kernel.run(str(source), str(output), parameters=values)
    except PapermillExecutionError as exc:
        first = (exc.source or "").strip().splitlines()[0][:60] if exc.source else ""
        message = (exc.evalue or "").strip().splitlines()
        error = f"{name}: cell {exc.exec_count} ({first}): {exc.ename}: {message[0] if message else ''}"
    except Exception as exc:  # the kernel died, the notebook is unreadable, ...
        error = f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if error is None:
        error = _kernel_error(name, kernel.log, logged)
        if error is not None and retry:
            log.warning("%s; running it again in a fresh kernel", error)
            kernel.close()
            return _execute(name, values, shown, run_dir, kernel, show_code, retry=False, started=started)
    kernel.reset()
    if not output.exists():
        return Outcome(name, False, error=error, seconds=time.perf_counter() - started)
    import nbformat

    nb = nbformat.read(output, as_version=4)
    try:
        (run_dir / f"{name}.html").write_text(_html(nb, name, shown, show_code), encoding="utf-8")
    except Exception as exc:  # nbconvert without its templates, ...: this report fails, in one line
        error = error or f"{name}: cannot render HTML: {type(exc).__name__}: {str(exc).splitlines()[0]}"
    return Outcome(name, error is None, headline=_headline(nb), error=error,
                   seconds=time.perf_counter() - started)


def _kernel_error(name: str, log: Path, since: int = 0) -> str | None:
    """The first line a kernel wrote to its stderr after byte `since` (while this report
    ran) that reports an error, as the report's error."""
    try:
        with open(log, "rb") as f:
            f.seek(since)
            lines = f.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if any(word in line for word in KERNEL_ERRORS):
            return f"{name}: its kernel logged an error: {line.strip()[:200]}"
    return None


class _Kernel:
    """A kernel that runs reports one after another, so the kernel start and the imports
    (about 4 s on two cores) are paid once per worker, not once per report. Each report
    starts from an empty namespace, its errors are the ones the kernel logs while it runs,
    and a kernel that died is replaced before the next report."""

    # What every report imports (not UNUSED_IMPORTS), with the garbage collector off
    # meanwhile (0.6 s less); then the imported objects leave its view (gc.freeze), so the
    # collection in each %reset takes milliseconds, not 0.3 s.
    WARM = ("import gc; gc.disable()\nfrom memlib.analytics.reports import skip_unused_imports\n"
            "skip_unused_imports()\nfrom memlib.analytics import notebook, report_data\n"
            "gc.freeze(); gc.enable()")
    FIRST_CELL = "\nget_ipython().execution_count = 1"  # the next report's cells count from 1

    def __init__(self, name: str, log: Path):
        self.name, self.log, self.km = name, log, None
        self.starting = threading.Lock()

    def run(self, source, output: str | None = None, **kw) -> None:
        import papermill
        from jupyter_core.utils import run_sync

        if self.km is not None and not run_sync(self.km.is_alive)():
            self.close()
        if self.km is None:
            self.km = _kernel_logging_to(self.log)(kernel_name=self.name)
        papermill.execute_notebook(source, output, kernel_name=self.name, km=self.km, progress_bar=False,
                                   request_save_on_cell_execute=False,
                                   log_output=False, cwd=os.getcwd(), **kw)

    def _cell(self, code: str, timeout: float = 120) -> None:
        """Run `code` in the kernel through a shell channel of its own, not papermill (a
        papermill run of one cell costs about 0.6 s): the request waits in the kernel's queue
        while it starts, and the reply says how it went."""
        import queue

        from jupyter_core.utils import run_sync

        try:
            if self.km is not None and not run_sync(self.km.is_alive)():
                self.close()
            with self.starting:  # close() from another thread waits for a start to finish
                if self.km is None:
                    self.km = _kernel_logging_to(self.log)(kernel_name=self.name)
                    run_sync(self.km.start_kernel)()
                km = self.km
            client = km.blocking_client()
            client.start_channels(iopub=False, stdin=False, hb=False, control=False)
            try:
                sent, waited = client.execute(code, silent=True), 0.0
                while True:
                    try:
                        reply = client.get_shell_msg(timeout=1)
                    except queue.Empty:
                        waited += 1
                        if waited > timeout or not run_sync(km.is_alive)():
                            raise RuntimeError("the kernel did not answer") from None
                        continue
                    if reply["parent_header"].get("msg_id") == sent:
                        break
            finally:
                client.stop_channels()
            if reply["content"]["status"] != "ok":
                raise RuntimeError(reply["content"].get("evalue", "failed"))
        except Exception:  # the next report starts a fresh kernel, or reports the failure
            self.close()

    def warm(self) -> None:
        self._cell(self.WARM + self.FIRST_CELL)

    def reset(self) -> None:
        self._cell("%reset -f" + self.FIRST_CELL)

    def logged(self) -> int:
        return self.log.stat().st_size if self.log.exists() else 0

    def close(self) -> None:
        from jupyter_core.utils import run_sync

        with self.starting:
            km, self.km = self.km, None
        if km is not None:
            try:
                run_sync(km.shutdown_kernel)(now=True)
            except Exception:  # already gone
                pass


def _kernel_logging_to(path: Path):
    """A kernel manager class whose kernels write their stderr to `path` (one log per
    kernel; a report's errors are the lines logged while it ran).

    jupyter_client interrupts a kernel (SIGINT) before it asks it to shut down; a kernel
    idling in an event loop then logs "ERROR | KeyboardInterrupt caught in kernel", which
    is where that line in the reports' kernel log came from. The kernel is done by then,
    so it is asked to shut down without the interrupt, and an ERROR in the log is a real one."""
    from jupyter_client.manager import AsyncKernelManager, KernelManager

    class LoggedKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            with open(path, "ab") as log:  # the kernel process keeps its own copy
                kw.setdefault("stderr", log)
                return await KernelManager._async_start_kernel(self, **kw)

        async def _async_interrupt_kernel(self) -> None:
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

    return LoggedKernelManager


def _headline(nb) -> dict[str, Any]:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if HEADLINE_MIME in out.get("data", {}):
                data = out["data"][HEADLINE_MIME]
                data = json.loads(data) if isinstance(data, str) else dict(data)
                return {key: data["values"][key] for key in data["keys"]}
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


def _write_index(run_dir: Path, as_of: AsOf, store: str, outcomes: list[Outcome]) -> None:
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
    (run_dir / "index.html").write_text(_page(f"memlib reports {as_of}", body))


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
