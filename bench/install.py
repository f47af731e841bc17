"""memlib as a user installs it: the wheel built from this checkout, installed into a fresh
virtual environment with pip (no extra index: what PyPI alone gives), and the size on disk
of what that brought. The install test and bench/startup.py share these steps."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_wheel(out: Path) -> Path:
    """memlib's wheel, built from this checkout into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, text=True)
    (wheel,) = out.glob("memlib-*.whl")
    return wheel


def fresh_venv(path: Path, requirement: str) -> float:
    """A new virtual environment at `path` with `requirement` installed (a wheel's path,
    with extras as `path[extra]`); the seconds pip took."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    started = time.perf_counter()
    done = subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           requirement], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"pip install {requirement} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def size_mb(path: Path) -> float:
    """What the environment takes on disk, in MB (files counted once, as du does)."""
    seen, total = set(), 0
    for file in path.rglob("*"):
        if file.is_file() and not file.is_symlink():
            stat = file.stat()
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total / 1e6
