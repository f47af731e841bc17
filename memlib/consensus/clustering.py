"""Incremental semantic clustering of fragments (seed 001): a fragment joins the cluster whose
centroid is nearest (cosine) if it is at least `threshold` similar, else it opens a cluster of
its own. A centroid is the unit-length mean of its fragments' vectors; a topic distribution is
the share of its fragments' topic candidates (a fragment's weight split among its topics).

Order decides: fragments are taken in (timestamp, fragment_id) order, the same whether they
arrive one batch at a time or are clustered again from scratch (`rebuild`), so the two give
the same clusters with the same ids (a cluster's id derives from its first fragment's).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import numpy as np

DEFAULT_THRESHOLD = 0.55  # cosine; chosen on the generator's development seeds (bench/consensus.py)
_NAMESPACE = uuid.UUID("6f1c1f4e-5a0b-4f57-9d53-6c6f6e73656e")


def cluster_id_of(first_fragment_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, first_fragment_id))


def order_key(fragment) -> tuple:
    return (fragment.timestamp, fragment.fragment_id)


@dataclass
class State:
    """One cluster as clustering keeps it: the sum of its unit vectors, its topic weights."""

    cluster_id: str
    fragment_ids: list[str]
    total: np.ndarray
    topics: dict[str, float] = field(default_factory=dict)

    @property
    def centroid(self) -> np.ndarray:
        norm = float(np.linalg.norm(self.total))
        return self.total / norm if norm else self.total

    def distribution(self) -> dict[str, float]:
        mass = sum(self.topics.values())
        if not mass:
            return {}
        out = {t: w / mass for t, w in sorted(self.topics.items())}
        last = max(out, key=out.get)  # the rounding error goes to the largest share
        out[last] += 1.0 - sum(out.values())
        return out


class Clusterer:
    """Clusters held in memory: a matrix of unit centroids for the nearest-cluster search."""

    def __init__(self, dims: int, threshold: float = DEFAULT_THRESHOLD):
        self.dims, self.threshold = dims, threshold
        self.clusters: list[State] = []
        self.index: dict[str, int] = {}
        self._centroids = np.zeros((16, dims), dtype=np.float32)

    @classmethod
    def of(cls, states: list[State], dims: int, threshold: float = DEFAULT_THRESHOLD) -> "Clusterer":
        clusterer = cls(dims, threshold)
        for state in states:
            clusterer._put(state)
        return clusterer

    def _put(self, state: State) -> int:
        i = self.index.get(state.cluster_id)
        if i is None:
            i = len(self.clusters)
            self.clusters.append(state)
            self.index[state.cluster_id] = i
            if i >= len(self._centroids):
                grown = np.zeros((2 * len(self._centroids), self.dims), dtype=np.float32)
                grown[:i] = self._centroids[:i]
                self._centroids = grown
        self._centroids[i] = state.centroid
        return i

    def nearest(self, vector: np.ndarray) -> tuple[int, float]:
        """The nearest cluster's index and its similarity (-1, -inf without clusters)."""
        n = len(self.clusters)
        if not n:
            return -1, float("-inf")
        sims = self._centroids[:n] @ vector
        best = int(np.argmax(sims))
        return best, float(sims[best])

    def assign(self, fragment_id: str, vector: np.ndarray, topics: list[str]) -> tuple[str, bool]:
        """Put one fragment in its cluster; returns the cluster's id and whether it is new."""
        vector = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        unit = vector / norm if norm else vector
        best, similarity = self.nearest(unit)
        created = best < 0 or similarity < self.threshold
        if created:
            state = State(cluster_id_of(fragment_id), [], np.zeros(self.dims, dtype=np.float64))
        else:
            state = self.clusters[best]
        state.fragment_ids.append(fragment_id)
        state.total = state.total + unit
        for topic in topics:
            state.topics[topic] = state.topics.get(topic, 0.0) + 1.0 / len(topics)
        self._put(state)
        return state.cluster_id, created


def rebuild(fragments, vectors: np.ndarray, dims: int, threshold: float = DEFAULT_THRESHOLD) -> Clusterer:
    """All clusters again from scratch, in (timestamp, fragment_id) order."""
    clusterer = Clusterer(dims, threshold)
    for i in sorted(range(len(fragments)), key=lambda i: order_key(fragments[i])):
        clusterer.assign(fragments[i].fragment_id, vectors[i], fragments[i].topic_candidates)
    return clusterer
