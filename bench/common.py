"""Shared bench helpers: the sample corpus with real embeddings, cached under data/bench/."""

from __future__ import annotations

import statistics
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from memlib.embeddings import default_embedder
from memlib.sample import generate

CACHE = Path(__file__).resolve().parent.parent / "data" / "bench"
ANCHOR = datetime(2026, 11, 1, tzinfo=timezone.utc)


def corpus(size: int, seed: int = 11):
    """The sample memories of this size and seed, deterministic."""
    return generate(size, seed, ANCHOR).memories


def real_vectors(memories, size: int, seed: int = 11, embedder=None) -> np.ndarray:
    """Real all-MiniLM-L6-v2 embeddings of the memories' texts, computed once and cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"minilm-{size}-{seed}.npy"
    if path.exists():
        return np.load(path)
    embedder = embedder or default_embedder()
    texts = [m.text for m in memories]
    started = time.perf_counter()
    vectors = np.concatenate([embedder.embed(texts[i:i + 4096]) for i in range(0, len(texts), 4096)])
    print(f"embedded {len(texts):,} texts in {time.perf_counter() - started:.0f} s (cached to {path})")
    np.save(path, vectors)
    return vectors


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def percentile(samples: list[float], q: float) -> float:
    """The nearest-rank `q` quantile (0-1) of the samples; NaN for none."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def p95_ms(samples: list[float]) -> float:
    return percentile(samples, 0.95) * 1000


def maintained_store(size: int, embedder, prefix: str):
    """A new store in a temporary directory holding the sample corpus of `size` with its real
    embeddings, maintained (compacted, indexed) as a user's would be. Returns (store, uri)."""
    import tempfile

    from memlib import MemoryStore

    memories = corpus(size)
    vectors = real_vectors(memories, size, embedder=embedder)
    uri = str(Path(tempfile.mkdtemp(prefix=prefix)) / "store")
    store = MemoryStore.open(uri, embedder=embedder)
    store.add(memories, vectors=vectors, progress=True)
    store.maintain(progress=True, read=False)  # search speed needs no reading
    return store, uri


RESULTS = Path(__file__).resolve().parent / "results"


def save_results(name: str, figures: dict, table: list[str]) -> None:
    """Print a bench's table and keep it with its figures: results/NAME.md and NAME.json."""
    import json

    print("\n".join(table))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text("\n".join(table) + "\n")


def collect(proc) -> dict:
    """The JSON a bench's role process printed last (a subprocess.Popen with pipes), or its
    error: the exit code and its stderr's last line."""
    import json

    out, err = proc.communicate()
    lines = out.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"}
    return json.loads(lines[-1])
