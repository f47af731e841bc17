"""memlib installed as a wheel, outside the repository: everything it reads at run time (SQL
views, notebooks, policies, the texts its model is calibrated on) ships inside the package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from memlib.analytics.reports import REPORTS

ROOT = Path(__file__).resolve().parent.parent


def _run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=900, **kw)


def test_the_wheel_works_from_any_directory(tmp_path):
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                  "-w", str(wheels), str(ROOT)])
    assert built.returncode == 0, built.stderr
    assert "warning" not in built.stderr.lower(), built.stderr  # a newcomer's install says nothing
    (wheel,) = wheels.glob("memlib-*.whl")

    env_dir = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(env_dir)]).returncode == 0
    python = env_dir / "bin" / "python"
    installed = _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)])
    assert installed.returncode == 0, installed.stderr
    # memlib's dependencies come from the test environment's site-packages (a plain path line
    # in a .pth file: that folder's own .pth files, the editable memlib among them, are not run)
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEMLIB_STORE")}
    # ... and so do their data files (nbconvert's templates live under the environment's share/)
    env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")
    where = _run([str(python), "-c", "import memlib; print(memlib.__file__)"], cwd=elsewhere, env=env)
    assert where.stdout.startswith(str(env_dir)), where.stdout + where.stderr
    calibration = _run([str(python), "-c", "from memlib.embeddings import CALIBRATION as c; print(c.read_text()[:1], c)"],
                       cwd=elsewhere, env=env)  # what the default model is quantized with, read from the wheel
    assert calibration.stdout.startswith("# " + str(env_dir)), calibration.stdout + calibration.stderr
    memlib = str(env_dir / "bin" / "memlib")
    sample = _run([memlib, "--store", "st", "sample", "--size", "500"], cwd=elsewhere, env=env)
    assert sample.returncode == 0, sample.stderr
    report = _run([memlib, "--store", "st", "report", "run", "--all"], cwd=elsewhere, env=env)
    assert report.returncode == 0, report.stderr
    (day,) = (elsewhere / "reports").glob("20*")
    summary = json.loads((day / "summary.json").read_text())
    assert all(r["ok"] for r in summary["reports"].values()) and set(summary["reports"]) == set(REPORTS)
    assert "Median decay score" in (day / "index.html").read_text()
    check = _run([memlib, "policy", "check", "default"], cwd=elsewhere, env=env)
    assert check.returncode == 0 and "default.toml: ok" in check.stdout
