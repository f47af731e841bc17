"""How long a fresh process takes to answer, and what an install weighs.

Each command runs in a new process, `--runs` times (wall clock, median), on a copy of the
sample store, for the code at `--before` (a git ref, checked out beside this one) and for
this checkout, side by side in one run: what an agent pays for each shell call.

    .venv/bin/python bench/startup.py [--before REF] [--runs 10] [--install]

`--install` also builds memlib's wheel and installs it into fresh virtual environments, core
only and with every extra, reports their size on disk and pip's time (from pip's cache), and
times the commands again in the core install, run from outside the checkout: what a user of
`pip install memlib` pays, without the packages the dev environment adds (pandas among them,
which pyarrow's dataset module imports when it is installed). A target is met when every
column after it is.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import install

ROOT = install.ROOT
PYTHON = sys.executable
# (what, argv after the interpreter, the target in seconds)
COMMANDS = [
    ("memlib --version", ["-m", "memlib.cli", "--version"], 0.5),
    ("memlib --help", ["-m", "memlib.cli", "--help"], 0.5),
    ("import memlib", ["-c", "import memlib"], 0.5),
    ("memlib search", ["-m", "memlib.cli", "--store", "{store}", "search", "price cache"], 1.5),
    ("memlib recall", ["-m", "memlib.cli", "--store", "{store}", "recall", "price cache", "--agent", "bench"], 1.5),
    ("memlib add (one memory)", ["-m", "memlib.cli", "--store", "{store}", "add", "a startup note {i}",
                                 "--user-id", "bench"], 1.5),
]


def timed(code: Path, argv: list[str], store: Path, runs: int, python: str = PYTHON) -> float:
    """The median wall time of `runs` fresh processes of `python` running `argv` in `code`
    (a checkout, first on the path; or any directory, for an installed memlib)."""
    samples = []
    for i in range(runs):
        args = [a.format(store=store, i=i) for a in argv]
        started = time.perf_counter()
        done = subprocess.run([python, *args], cwd=code, capture_output=True, text=True)
        samples.append(time.perf_counter() - started)
        if done.returncode:
            raise SystemExit(f"{' '.join(args)} in {code} failed: {done.stderr.strip()[-500:]}")
    return statistics.median(samples)


def checkout(ref: str, where: Path) -> Path:
    """The code at `ref`, as a detached worktree in `where`."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(where), ref], check=True)
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="df8d123", help="the code to compare with (a git ref)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--store", default=str(ROOT / "data" / "store"), help="the sample store (make run builds it)")
    parser.add_argument("--install", action="store_true", help="also measure fresh installs from the wheel")
    args = parser.parse_args()
    sample = Path(args.store)
    if not (sample / "memories.lance").exists():
        raise SystemExit(f"no sample store at {sample}: build it with `memlib --store {sample} sample`")
    with tempfile.TemporaryDirectory(prefix="memlib-startup-") as tmp:
        tmp = Path(tmp)
        runs = [("before", checkout(args.before, tmp / "before"), PYTHON), ("after", ROOT, PYTHON)]
        installs = []
        try:
            if args.install:
                wheel = install.build_wheel(tmp / "wheel")
                for name, requirement in (("core: pip install memlib", str(wheel)),
                                          ("every extra: pip install 'memlib[all]'", f"{wheel}[all]")):
                    venv = tmp / name.split(":")[0].replace(" ", "-")
                    seconds = install.fresh_venv(venv, requirement)
                    installs.append((name, seconds, install.size_mb(venv)))
                (tmp / "elsewhere").mkdir()
                runs.append(("after, core install", tmp / "elsewhere", str(tmp / "core" / "bin" / "python")))
            rows = []
            for label, code, python in runs:
                store = tmp / f"store-{label.replace(' ', '-')}"
                shutil.copytree(sample, store)
                # one untimed call each: the model's files and the store in the page cache, as for a user's second call
                timed(code, COMMANDS[3][1], store, 1, python)
                rows.append({what: timed(code, argv, store, args.runs, python) for what, argv, _ in COMMANDS})
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(runs[0][1])], check=False)
        labels = [label for label, _, _ in runs]
        print(f"fresh processes, median of {args.runs} (wall, s); before = {args.before}; after = this checkout"
              f"{' in the dev environment, and installed core only from its wheel' if args.install else ''}\n")
        print(f"| command | {' | '.join(labels)} | after/before | target |")
        print("|---|" + "---|" * (len(labels) + 2))
        for what, _, target in COMMANDS:
            seconds = [row[what] for row in rows]
            worst = max(seconds[1:])
            print(f"| {what} | {' | '.join(f'{s:.2f}' for s in seconds)} | {seconds[1] / seconds[0]:.2f}x | "
                  f"{'met' if worst <= target else 'missed'}: <= {target} |")
        if installs:
            print(f"\nwheel: {wheel.stat().st_size / 1e6:.1f} MB\n")
            print("| install | pip (s) | on disk (MB) |")
            print("|---|---|---|")
            for name, seconds, mb in installs:
                print(f"| {name} | {seconds:.0f} | {mb:.0f} |")

if __name__ == "__main__":
    main()
