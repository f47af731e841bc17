"""Clustering's ceiling on the hand-written sets, offline: each set's fragments embedded by a
model, clustered from scratch by average linkage at a range of thresholds (no cannot-link, no
chunks), lone fragments attached by memlib's own `Clusterer._attached`, and scored as run.py scores
(score.clustering). It also measures the vectors centred on the set's mean before the cosine
(the store's mean direction taken out), how well the cosine alone separates a set's
same-topic pairs from its other pairs (ROC AUC), and, in a second table, each fragment's vector
drawn toward its k nearest before the cosine (memlib's `clustering.augmented`, no cannot-link
here) at k 1 and 2. With `--masked`, a third table: the same drawn clustering (k 2) on the
vectors of each fragment's text with what it states taken out (its numbers, dates and the
names it uses or capitalises past a sentence's start: `masked`), and on the sum of both
vectors; measured 2026-11-27 and not taken (bench/README.md).

    .venv/bin/python bench/judgement/offline.py [--model DIR] [--masked]

`--model DIR`: a local sentence-transformers model (such as all-mpnet-base-v2 unpacked from
its PyPI parts) instead of the store's default.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

sys.path.insert(0, str(Path(__file__).parent))
import score  # noqa: E402
from fragments import FRESH, TOPICS, WRITTEN_LATER  # noqa: E402

from memlib.consensus import conflicts  # noqa: E402
from memlib.consensus.clustering import Clusterer, augmented, unit_rows  # noqa: E402

SETS = {"dev": [t for t in TOPICS if t.split == "dev"], "check": [t for t in TOPICS if t.split == "check"],
        "fresh": FRESH, **WRITTEN_LATER}
THRESHOLDS = {"raw": (0.3, 0.35, 0.4, 0.45), "centred": (0.15, 0.2, 0.25, 0.3)}
DRAWN = {1: (0.5, 0.55, 0.6), 2: (0.5, 0.55, 0.6, 0.65)}  # k nearest: thresholds


def clusters(sim: np.ndarray, threshold: float) -> np.ndarray:
    """Average linkage cut at `threshold`, then memlib's own rule for lone fragments
    (Clusterer._attached: each joins the group of its nearest fragment when that pair is within
    the threshold and that group is also the nearest on average)."""
    distance = np.clip(1.0 - (sim + sim.T) / 2, 0.0, None)
    np.fill_diagonal(distance, 0.0)
    labels = fcluster(linkage(squareform(distance, checks=False), "average"), 1.0 - threshold, "distance")
    return Clusterer(dims=0, threshold=threshold)._attached(labels, distance, len(labels))  # keeps no vectors


_VALUE = re.compile(r"\d[\d,.:/-]*\s*(%|[A-Za-z]{1,3}\b)?")  # a number with a short unit, a date
_FIRST = re.compile(r"(?:^|[.!?:]\s+)(\w+)")  # a sentence's first word


def masked(text: str) -> str:
    """`text` without what it states: its numbers and dates, and the names it chooses or
    capitalises past a sentence's first word (statement reader's claims)."""
    read = conflicts.claims(text)
    out = _VALUE.sub(" ", text)
    for name in sorted((read.chosen | read.capitalised) - set(_FIRST.findall(text)), key=len, reverse=True):
        out = re.sub(rf"\b{re.escape(name)}\b", " ", out)
    return re.sub(r"\s+", " ", out).strip() or text


def separation(sim: np.ndarray, topic: np.ndarray) -> float:
    """ROC AUC of the cosine for same-topic pairs against the other pairs."""
    from scipy.stats import rankdata

    upper = np.triu_indices(len(topic), 1)
    same = (topic[:, None] == topic[None, :])[upper]
    ranks = rankdata(sim[upper])
    positives = same.sum()
    return float((ranks[same].sum() - positives * (positives + 1) / 2) / (positives * (~same).sum()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", help="a local sentence-transformers model folder (default: the store's default)")
    parser.add_argument("--masked", action="store_true", help="also the table of vectors with what is stated masked")
    args = parser.parse_args()
    if args.model:
        from memlib.embeddings import SentenceTransformerEmbedder
        embedder = SentenceTransformerEmbedder(args.model)
    else:
        from memlib.embeddings import default_embedder
        embedder = default_embedder()
    vectors_of = {}
    print("| set | AUC raw / centred | " + " | ".join(f"raw {t}" for t in THRESHOLDS["raw"]) + " | "
          + " | ".join(f"centred {t}" for t in THRESHOLDS["centred"]) + " |")
    print("|---|---|" + "---|" * (len(THRESHOLDS["raw"]) + len(THRESHOLDS["centred"])))
    for name, topics in SETS.items():
        keys = [(t, i) for t, topic in enumerate(topics) for i in range(len(topic.fragments))]
        vectors = np.asarray(embedder.embed([topics[t].fragments[i][1] for t, i in keys]), dtype=np.float32)
        topic = np.array([t for t, _ in keys])
        vectors_of[name] = (keys, units := unit_rows(vectors))
        cells, aucs = [], []
        for how, rows in (("raw", units), ("centred", unit_rows(vectors - vectors.mean(axis=0)))):
            sim = rows @ rows.T
            aucs.append(f"{separation(sim, topic):.3f}")
            for threshold in THRESHOLDS[how]:
                got = score.clustering(dict(zip(keys, map(str, clusters(sim, threshold)))))
                cells.append(f"{got['kept_whole']:.2f} / {got['purity']:.2f}")
        print(f"| {name} ({len(topics)}) | {' / '.join(aucs)} | " + " | ".join(cells) + " |", flush=True)
    print("\n| set | " + " | ".join(f"k {k} at {t}" for k, ts in DRAWN.items() for t in ts) + " |")
    print("|---|" + "---|" * sum(map(len, DRAWN.values())))
    for name, (keys, units) in vectors_of.items():
        cells = []
        for k, thresholds in DRAWN.items():
            drawn = augmented(units, np.zeros((len(units), len(units)), dtype=bool), k)
            for threshold in thresholds:
                got = score.clustering(dict(zip(keys, map(str, clusters(drawn @ drawn.T, threshold)))))
                cells.append(f"{got['kept_whole']:.2f} / {got['purity']:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    if args.masked:
        print("\n| set | " + " | ".join(f"{how} at {t}" for how in ("full", "masked", "sum") for t in DRAWN[2][1:])
              + " |")
        print("|---|" + "---|" * (3 * len(DRAWN[2][1:])))
        for name, (keys, units) in vectors_of.items():
            topics = SETS[name]
            hidden = unit_rows(embedder.embed([masked(topics[t].fragments[i][1]) for t, i in keys]))
            cells = []
            for rows in (units, hidden, unit_rows(units + hidden)):
                drawn = augmented(rows, np.zeros((len(rows), len(rows)), dtype=bool), 2)
                for threshold in DRAWN[2][1:]:
                    got = score.clustering(dict(zip(keys, map(str, clusters(drawn @ drawn.T, threshold)))))
                    cells.append(f"{got['kept_whole']:.2f} / {got['purity']:.2f}")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
