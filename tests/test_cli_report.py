"""`memlib report`: papermill runs on a fixture store, checked against plain Python, and
rendered in headless Chromium with the network cut off."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

import expected
from memlib import MemoryStore
from memlib.analytics import reports
from memlib.embeddings import HashEmbedder
from memlib.sample import build_sample

MEMLIB = str(Path(sys.executable).with_name("memlib"))
AS_OF = "2026-10-25"
AS_OF_END = datetime(2026, 10, 25, 23, 59, 59, 999999, tzinfo=timezone.utc)


def run(*args, env=None, cwd=None):
    return subprocess.run([MEMLIB, *map(str, args)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})}, cwd=cwd)


@pytest.fixture(scope="module")
def store_uri(tmp_path_factory):
    uri = str(tmp_path_factory.mktemp("reports") / "store")
    store = MemoryStore.open(uri, embedder=HashEmbedder())
    build_sample(store, size=500, seed=4, anchor=datetime(2026, 11, 1, tzinfo=timezone.utc))
    return uri


@pytest.fixture(scope="module")
def published(store_uri, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    proc = run("--store", store_uri, "report", "run", "--all", "--as-of", AS_OF, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_report_list_shows_parameters_and_defaults():
    proc = run("report", "list")
    assert proc.returncode == 0
    for name in reports.REPORTS:
        assert re.search(rf"^{name}$", proc.stdout, re.M)
    for line in ('store = "data/store"', "as_of = None", "window_days = 30", "top = 20",
                 "horizon_days = 30", "low_confidence = 50", "policies = [", 'policy = "default"'):
        assert line in proc.stdout


@pytest.mark.parametrize("name, key, value", [
    ("usage", "top", -1), ("quality", "top", 2.5), ("ttl_decay", "horizon_days", 0), ("ttl_decay", "horizon_days", -5),
])
def test_a_report_function_refuses_a_negative_span_or_row_count(name, key, value):
    """An analyst calling a report's function in JupyterLab gets the run's one line, before
    any SQL (a negative `top` was DuckDB's "LIMIT/OFFSET cannot be negative")."""
    from memlib import InvalidInput
    from memlib.analytics import report_data

    with pytest.raises(InvalidInput, match=f"^{key} must be a whole number"):
        getattr(report_data, name)(None, **{key: value})


def test_a_report_is_defined_once_by_its_function_and_its_notebook():
    """report_data's `@report` functions are the reports: each has its notebook, which calls
    it; no other notebook is a report; a run shows them in that order under those titles."""
    from importlib import resources

    from memlib.analytics import report_data

    folder = resources.files("memlib.notebooks")
    notebooks = {p.name.removesuffix(".ipynb") for p in folder.iterdir() if p.name.endswith(".ipynb")}
    assert notebooks - {Path(reports.EXPLORE).stem} == set(report_data.REPORTS) == set(reports.REPORTS)
    for name, definition in report_data.REPORTS.items():
        code = "".join(c.source for c in nbformat.read(folder / f"{name}.ipynb", as_version=4).cells)
        assert f"report_data.{name}(con" in code, name
        assert definition.build is getattr(report_data, name) and definition.title
    assert report_data.Report({}).title == ""  # the title comes from the registration alone
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    table = readme.split("| report | opens with | then |")[1].split("\n\n")[0]
    assert re.findall(r"^\| `(\w+)` \|", table, re.M) == list(reports.REPORTS)


def test_run_all_writes_notebooks_html_index_and_summary(published):
    out, proc = published
    day = out / AS_OF
    assert f"reports: {day / 'index.html'}" in proc.stdout
    for name in reports.REPORTS:
        nb = nbformat.read(day / f"{name}.ipynb", as_version=4)
        assert nb.cells[1].metadata["tags"] == ["parameters"]
        assert "window_days" in (day / f"{name}.html").read_text()
        assert f'href="{name}.html"' in (day / "index.html").read_text()
        assert f">{reports.DEFINITIONS[name].title}<" in (day / "index.html").read_text()
    summary = json.loads((day / "summary.json").read_text())
    assert summary["as_of"] == AS_OF
    assert all(r["ok"] and r["error"] is None for r in summary["reports"].values())
    html = (day / "usage.html").read_text()
    assert "show_headline" not in html and "report_data.usage" not in html  # code is hidden


def test_headline_numbers_equal_an_independent_computation(published, store_uri):
    out, _ = published
    summary = json.loads((out / AS_OF / "summary.json").read_text())["reports"]
    memories, events = expected.raw(MemoryStore.open(store_uri))
    want = expected.headlines(memories, events, AS_OF_END)
    for report, numbers in want.items():
        for key, value in numbers.items():
            got = summary[report]["headline"][key]
            assert got == (pytest.approx(value) if isinstance(value, float) else value), (report, key)
    assert want["ttl_decay"]["expired"] > 0 and want["retention"]["candidates[conservative]"] > 0


def _broken(monkeypatch, tmp_path, cell: str) -> None:
    """The usage report's notebook with `cell` inserted after the display cells start."""
    source = reports.notebook("usage")
    nb = nbformat.reads(source.read_text(), as_version=4)
    nb.cells.insert(3, nbformat.v4.new_code_cell(cell))
    broken = tmp_path / "usage.ipynb"
    nbformat.write(nb, broken)
    real = reports.notebook
    monkeypatch.setattr(reports, "notebook", lambda name: broken if name == "usage" else real(name))


def test_a_failed_cell_fails_the_run_in_one_line_and_keeps_the_previous_output(
        store_uri, tmp_path, monkeypatch, capsys):
    from memlib.cli import main

    out = tmp_path / "out"
    good = reports.run(list(reports.REPORTS), datetime(2026, 10, 25).date(), store_uri, out_root=out)
    assert good.ok
    before = (out / AS_OF / "usage.html").read_text()
    _broken(monkeypatch, tmp_path, "raise RuntimeError('boom in the usage report')")
    with pytest.raises(SystemExit) as exit:
        main(["--store", store_uri, "report", "run", "--all", "--as-of", AS_OF, "--out", str(out)])
    assert exit.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    # the cell counts as the output notebook shows it, after papermill's injected parameters
    assert err == ["memlib: error: report usage: cell 4 (raise RuntimeError('boom in the usage report')): "
                   "RuntimeError: boom in the usage report (its previous output is kept)"]
    summary = json.loads((out / AS_OF / "summary.json").read_text())["reports"]
    assert not summary["usage"]["ok"] and summary["usage"]["stale_from"]
    assert summary["usage"]["headline"]["memories"] > 0  # the previous good numbers
    assert all(summary[n]["ok"] for n in ("ttl_decay", "confidence", "retention"))
    assert (out / AS_OF / "usage.html").read_text() == before
    index = (out / AS_OF / "index.html").read_text()
    assert "showing the previous good output" in index and "boom in the usage report" in index


def test_a_kernel_that_logs_an_error_fails_its_report(store_uri, tmp_path, monkeypatch):
    _broken(monkeypatch, tmp_path, "import os\nos.write(2, b'[IPKernelApp] ERROR | something broke\\n')")
    result = reports.run(["usage", "confidence"], datetime(2026, 10, 25).date(), store_uri,
                         out_root=tmp_path / "out")
    outcome = {o.name: o for o in result.outcomes}
    assert outcome["confidence"].ok and not outcome["usage"].ok
    assert "its kernel logged an error: [IPKernelApp] ERROR | something broke" in outcome["usage"].error
    with pytest.raises(reports.ReportFailed, match="usage: its kernel logged an error"):
        result.check()


def test_a_kernel_error_that_does_not_recur_in_a_fresh_kernel_is_run_again(store_uri, tmp_path, monkeypatch, caplog):
    once = tmp_path / "logged-once"
    _broken(monkeypatch, tmp_path, "import os, pathlib, time\n"
            f"if not pathlib.Path({str(once)!r}).exists():\n"
            f"    pathlib.Path({str(once)!r}).write_text(repr(time.time()))\n"
            "    os.write(2, b'ERROR:tornado.general:Uncaught exception in ZMQStream callback\\n')\n"
            "    time.sleep(8)")
    with caplog.at_level("WARNING", logger="memlib"):
        result = reports.run(["usage"], datetime(2026, 10, 25).date(), store_uri, out_root=tmp_path / "out")
    ended = time.time()
    (outcome,) = result.outcomes
    assert once.exists() and outcome.ok and outcome.error is None
    # Its time counts both attempts: it began before the first attempt's cell (and its 8 s)
    # and ended before the run returned (after the kernels were shut down, within 4 s).
    assert outcome.seconds > ended - float(once.read_text()) - 4
    assert outcome.headline["memories"] > 0
    assert "usage: its kernel logged an error: ERROR:tornado.general" in caplog.text
    assert "running it again in a fresh kernel" in caplog.text


def test_a_warm_kernel_holds_what_reports_import_and_none_of_the_unused(tmp_path):
    from memlib.analytics.report_kernels import Kernel

    kernel, seen = Kernel("python3", tmp_path / "kernel.log"), tmp_path / "seen.json"
    try:
        kernel.warm()
        kernel.cell(f"import json, pathlib, sys\npathlib.Path({str(seen)!r}).write_text(json.dumps("
                     "{m: repr(sys.modules.get(m, 'absent'))[:12] for m in "
                     "['memlib.analytics.report_data', 'altair', 'jsonschema', 'rfc3987_syntax']}))")
        # Its sockets are files of its own, not TCP ports another process can take first.
        sockets = Path(kernel.sockets)
        assert kernel.km.transport == "ipc" and len(list(sockets.iterdir())) == 5
    finally:
        kernel.close()
    assert not sockets.exists()
    modules = json.loads(seen.read_text())
    assert modules.pop("rfc3987_syntax") == "None"  # marked missing before anything imported it
    assert all(shown.startswith("<module") for shown in modules.values()), modules


def test_reading_a_reports_parameters_skips_the_unused_imports():
    code = ("import sys\nfrom memlib.analytics import reports\nreports.parameters('usage')\n"
            "print('nbformat' in sys.modules, repr(sys.modules.get('rfc3987_syntax', 'absent')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["True", "None"], proc.stderr


def test_rerun_replaces_the_date_atomically(store_uri, tmp_path, monkeypatch):
    out = tmp_path / "out"
    first = reports.run(["confidence"], datetime(2026, 10, 25).date(), store_uri, out_root=out)
    target = os.readlink(out / AS_OF)
    second = reports.run(["confidence"], datetime(2026, 10, 25).date(), store_uri,
                         {"low_confidence": "70"}, out_root=out)
    shown = reports.run(["confidence"], datetime(2026, 10, 25).date(), store_uri,
                        {"low_confidence": "70"}, out_root=out, show_code=True)
    assert "show_headline" in (out / AS_OF / "confidence.html").read_text()  # the code is shown
    second = reports.run(["confidence"], datetime(2026, 10, 25).date(), store_uri,
                         {"low_confidence": "70"}, out_root=out)
    assert shown.ok
    assert first.ok and second.ok and os.readlink(out / AS_OF) != target
    assert "show_headline" not in (out / AS_OF / "confidence.html").read_text()
    assert not (out / target).exists()  # the replaced run is gone
    assert len(list((out / ".runs").iterdir())) == 1
    done = json.loads((out / AS_OF / "summary.json").read_text())
    assert done["reports"]["confidence"]["headline"]["low_confidence_threshold"] == 70

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reports, "write_index", crash)
    with pytest.raises(KeyboardInterrupt):
        reports.run(["confidence"], datetime(2026, 10, 25).date(), store_uri, out_root=out)
    # the interrupted run left the published date untouched and complete
    assert json.loads((out / AS_OF / "summary.json").read_text()) == done


@pytest.mark.parametrize("args, message", [
    (["report", "run", "nonsense", "--as-of", AS_OF], "unknown report"),
    (["report", "run", "--as-of", AS_OF], "--all"),
    (["report", "run", "--all", "--as-of", "2026-13-01"], "ISO date"),
    (["report", "run", "--all", "--as-of", AS_OF, "-p", "nokey=1"], "parameter 'nokey'"),
    (["report", "run", "--all", "--as-of", AS_OF, "-p", "window_days=soon"], "window_days"),
    (["report", "run", "--all", "--as-of", AS_OF, "-p", "justakey"], "key=value"),
    (["report", "run", "retention", "--as-of", AS_OF, "-p", "policies={\"a\": 1}"], "policies"),
    (["report", "run", "retention", "--as-of", AS_OF, "-p", 'policies=[{"name": "x", "bogus": 1}]'],
     "bogus: is not a policy setting"),
    (["report", "run", "ttl_decay", "--as-of", AS_OF, "-p", "policy=nonesuch"], "no policy named 'nonesuch'"),
    (["report", "run", "--all", "--as-of", AS_OF, "-p", "window_days=0"], "window_days"),
    (["report", "run", "--all", "--as-of", "2020-01-01"], "no version as old as"),
    (["report", "run", "usage", "--as-of", AS_OF, "-p", "project_id=nosuch"], "no project 'nosuch' in the store"),
    (["report", "run", "usage", "--as-of", AS_OF, "-p", "as_of=2026-01-01"], "-p as_of: the run sets it"),
    (["report", "run", "usage", "--as-of", AS_OF, "-p", "cache_dir=/elsewhere"], "-p cache_dir: the run sets it"),
    (["report", "run", "usage", "--as-of", AS_OF, "-p", "top=-1"], "top must be a whole number of rows"),
    (["report", "run", "ttl_decay", "--as-of", AS_OF, "-p", "horizon_days=-5"], "horizon_days must be"),
    (["report", "run", "confidence", "--as-of", AS_OF, "-p", "low_confidence=500"], "low_confidence must be"),
    (["report", "run", "usage", "--as-of", AS_OF, "-p", "project_id="], "no project '' in the store"),
    (["report", "run", "usage", "--as-of", AS_OF, "-p", "user_id="], "no memory of user ''"),
])
def test_bad_input_is_one_line_and_writes_nothing(store_uri, tmp_path, args, message):
    proc = run("--store", store_uri, *args, "--out", tmp_path / "out")
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memlib: error:") and message in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()


def test_missing_store_is_one_line(tmp_path):
    proc = run("--store", tmp_path / "none", "report", "run", "--all", "--as-of", AS_OF,
               "--out", tmp_path / "out")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "no memlib store" in proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "none").exists()


# -- offline rendering -------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(page: Path, png: Path, size: str = "1000,800") -> None:
    """Load a page in headless Chromium with every network request sent to a dead proxy."""
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                    f"--user-data-dir={png.parent / 'chromium-profile'}", f"--window-size={size}",
                    f"--screenshot={png}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)


def dump_dom(page: Path, tmp: Path) -> str:
    """The page's DOM after Chromium has rendered it (network cut off as above)."""
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--proxy-server=127.0.0.1:9", f"--user-data-dir={tmp / 'chromium-dom'}",
                           "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=True).stdout


class Visible(HTMLParser):
    """What a person sees on a page: table headers, and every other piece of text with the
    header of the table column it stands in (None outside tables)."""

    def __init__(self):
        super().__init__()
        self.headers: list[str] = []
        self.texts: list[tuple[str | None, str]] = []
        self._stack: list[str] = []
        self._table: list[str] = []
        self._col = -1
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script", "title"):
            self._skip += 1
        if tag == "table":
            self._table = []
        if tag == "tr":
            self._col = -1
        if tag in ("td", "th"):
            self._col += 1
        self._stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("style", "script", "title"):
            self._skip -= 1
        while self._stack and self._stack.pop() != tag:
            pass

    def handle_data(self, data):
        text = data.strip()
        if not text or self._skip:
            return
        if "th" in self._stack:
            self.headers.append(text)
            self._table.append(text)
        elif "td" in self._stack and 0 <= self._col < len(self._table):
            self.texts.append((self._table[self._col], text))
        else:
            self.texts.append((None, text))


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def test_reports_read_as_a_person_reads_them(published, tmp_path):
    """No UUID outside an id column, no number with more than 3 decimals, no snake_case
    column header: in the DOM Chromium renders, charts' text included."""
    assert CHROMIUM, "chromium is needed for this test (make test installs it)"
    out, _ = published
    for name in (*reports.REPORTS, "index"):
        seen = Visible()
        seen.feed(dump_dom(out / AS_OF / f"{name}.html", tmp_path))
        assert seen.texts and (seen.headers or name == "index"), name
        snake = [h for h in seen.headers if re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", h)]
        assert not snake, (name, snake)
        ids = [t for column, t in seen.texts if UUID.search(t) and column != "id"]
        assert not ids, (name, ids[:3])
        long = [t for _, t in seen.texts if re.search(r"\d\.\d{4,}", t)]
        assert not long, (name, long[:3])
    index = Visible()
    index.feed(dump_dom(out / AS_OF / "index.html", tmp_path))
    shown = [t for _, t in index.texts]
    for title in ("Usage", "TTL and decay", "Confidence", "Retention", "Median decay score"):
        assert title in shown
    assert shown.count("default") >= 2  # the policy that judged decay and retention


def colored_pixels(png: Path) -> int:
    """Pixels with clear colour: chart marks are coloured, text and page are grey."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(png).convert("RGB")).astype(int)
    return int(((rgb.max(axis=2) - rgb.min(axis=2)) > 60).sum())


def test_reports_render_offline_in_chromium(published, tmp_path):
    assert CHROMIUM, "chromium is needed for this test (make test installs it)"
    out, _ = published
    n_charts = 0
    for name in reports.REPORTS:
        page = (out / AS_OF / f"{name}.html")
        text = page.read_text()
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), f"{name} loads from the network"
        assert "<script" not in text.lower() and "@import" not in text
        charts = re.findall(r'<div class="memlib-chart">(.*?)</div>', text, re.S)
        assert charts, f"{name} has no charts"
        for i, svg in enumerate(charts):
            assert svg.lstrip().startswith("<svg") and re.search(r"<(path|rect|line)\b", svg)
            chart_page = tmp_path / f"{name}-{i}.html"
            chart_page.write_text(f"<!DOCTYPE html><html><body style='margin:0;background:#fff'>{svg}</body></html>")
            png = tmp_path / f"{name}-{i}.png"
            screenshot(chart_page, png)
            assert colored_pixels(png) > 200, f"chart {i} of {name} drew nothing"
            n_charts += 1
        whole = tmp_path / f"{name}.png"
        screenshot(page, whole, "1200,2400")
        assert colored_pixels(whole) > 1000
    assert n_charts >= 10


def test_the_exploration_notebook_runs_on_a_store(store_uri, tmp_path, monkeypatch):
    """`memlib lab` opens explore.ipynb: it connects, lists every view and draws a chart."""
    import papermill

    from memlib.analytics.views import ordered_views

    copy = reports.exploration_notebook(tmp_path / "nb")
    assert copy.exists() and reports.exploration_notebook(tmp_path / "nb") == copy  # kept
    monkeypatch.setenv("MEMLIB_STORE", store_uri)
    done = papermill.execute_notebook(str(copy), str(tmp_path / "out.ipynb"), kernel_name="python3",
                                      progress_bar=False, cwd=str(tmp_path))
    outputs = [o for cell in done.cells for o in cell.get("outputs", [])]
    text = "".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
    assert all(name in text for name, _ in ordered_views())  # every view, one line each
    assert any("image/svg+xml" in o.get("data", {}) for o in outputs)  # the chart, drawn offline


def test_memlib_lab_starts_as_root_and_says_so(tmp_path):
    """As root (the default in containers) JupyterLab refused to start ('Running as root is
    not recommended. Use --allow-root') and memlib exited 1 with no line of its own."""
    import os
    import re
    import signal
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    memlib = str(Path(sys.executable).with_name("memlib"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    proc = subprocess.Popen([memlib, "--store", str(tmp_path / "store"), "lab", "--dir", str(tmp_path / "nb"),
                             "--no-browser", "--ip", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
    seen, deadline = "", time.monotonic() + 120
    try:
        while time.monotonic() < deadline and not re.search(rf"http://127\.0\.0\.1:{port}/lab", seen):
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
        assert re.search(rf"http://127\.0\.0\.1:{port}/lab", seen), seen
        assert proc.poll() is None, seen
        if os.geteuid() == 0:
            assert "JupyterLab is started with --allow-root" in seen
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    if os.geteuid() == 0:  # refused on request: memlib's own line after Jupyter's
        done = subprocess.run([memlib, "--store", str(tmp_path / "store"), "lab", "--dir", str(tmp_path / "nb"),
                               "--no-browser", "--no-allow-root", "--port", str(port)],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert done.returncode == 1 and done.stderr.strip().splitlines()[-1].startswith(
            "memlib: error: JupyterLab stopped with status 1"), done.stderr
