"""Incremental semantic clustering of fragments (seed 001): a fragment joins the nearest
cluster (cosine to its centroid) that is at least `threshold` similar and whose key words it
shares (`overlap`), else it opens a cluster of its own. A centroid is the unit-length mean of
its fragments' vectors; a cluster's key words are the words at least half its fragments use;
a topic distribution is the share of its fragments' topic candidates (a fragment's weight
split among its topics).

Why the key words: a sentence embedding is dominated by how a thing is said. Two agents'
reports on different things in the same phrasing ("the p95 latency of the ledger writer is
890 ms", "... of the media health checks is 120 ms") embed closer than one thing said two
ways, so cosine alone either merges different things or splits one. Requiring the key words
(here: which component, which measure) keeps a cluster to one thing; the embedding still
decides among the candidates. The figures: bench/consensus.py.

Order decides: fragments are taken in (timestamp, fragment_id) order, the same whether they
arrive one batch at a time or are clustered again from scratch (`rebuild`), so the two give
the same clusters with the same ids (a cluster's id derives from its first fragment's).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

import numpy as np

from memlib.consensus.conflicts import MONTHS

DEFAULT_THRESHOLD = 0.6  # cosine, at least (chosen on the generator's development seeds 1-3)
DEFAULT_OVERLAP = 0.45  # of a fragment's words and a cluster's key words (Jaccard), at least
CANDIDATES = 8  # nearest clusters whose key words are compared
STOP = frozenset("""a an the of for on in at to is are was were be been its it we our and or as by with this that
has have had about from into over than then there their they them he she you your i me my not no so if but""".split())
_WORD = re.compile(r"[^\W_][\w+#.-]*[^\W_]|[^\W_]")


def words(text: str) -> frozenset[str]:
    """The words clustering compares: lower case, no stop words, no numbers."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(text))
                     if w not in STOP and w not in MONTHS and not w[0].isdigit())
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
    terms: dict[str, int] = field(default_factory=dict)  # word -> fragments that use it

    def key_words(self) -> set[str]:
        half = len(self.fragment_ids) / 2
        return {w for w, n in self.terms.items() if n >= half}

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

    def __init__(self, dims: int, threshold: float = DEFAULT_THRESHOLD, overlap: float = DEFAULT_OVERLAP):
        self.dims, self.threshold, self.overlap = dims, threshold, overlap
        self.clusters: list[State] = []
        self.index: dict[str, int] = {}
        self._centroids = np.zeros((16, dims), dtype=np.float32)

    @classmethod
    def of(cls, states: list[State], dims: int, threshold: float = DEFAULT_THRESHOLD,
           overlap: float = DEFAULT_OVERLAP) -> "Clusterer":
        clusterer = cls(dims, threshold, overlap)
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

    def candidates(self, vector: np.ndarray) -> list[int]:
        """The nearest clusters at least `threshold` similar, nearest first (at most CANDIDATES)."""
        n = len(self.clusters)
        if not n:
            return []
        sims = self._centroids[:n] @ vector
        top = np.argpartition(-sims, min(CANDIDATES, n) - 1)[:CANDIDATES] if n > CANDIDATES else np.arange(n)
        top = top[np.argsort(-sims[top], kind="stable")]
        return [int(i) for i in top if sims[i] >= self.threshold]

    def joins(self, state: State, terms: frozenset[str]) -> bool:
        key = state.key_words()
        union = key | terms
        return bool(union) and len(key & terms) / len(union) >= self.overlap

    def assign(self, fragment_id: str, vector: np.ndarray, topics: list[str],
               text: str = "") -> tuple[str, bool]:
        """Put one fragment in its cluster; returns the cluster's id and whether it is new."""
        vector = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        unit = vector / norm if norm else vector
        terms = words(text)
        best = next((i for i in self.candidates(unit) if self.joins(self.clusters[i], terms)), None)
        created = best is None
        if created:
            state = State(cluster_id_of(fragment_id), [], np.zeros(self.dims, dtype=np.float64))
        else:
            state = self.clusters[best]
        state.fragment_ids.append(fragment_id)
        state.total = state.total + unit
        for topic in topics:
            state.topics[topic] = state.topics.get(topic, 0.0) + 1.0 / len(topics)
        for term in terms:
            state.terms[term] = state.terms.get(term, 0) + 1
        self._put(state)
        return state.cluster_id, created


def rebuild(fragments, vectors: np.ndarray, dims: int, threshold: float = DEFAULT_THRESHOLD,
            overlap: float = DEFAULT_OVERLAP) -> Clusterer:
    """All clusters again from scratch, in (timestamp, fragment_id) order."""
    clusterer = Clusterer(dims, threshold, overlap)
    for i in sorted(range(len(fragments)), key=lambda i: order_key(fragments[i])):
        f = fragments[i]
        clusterer.assign(f.fragment_id, vectors[i], f.topic_candidates, f.content)
    return clusterer
