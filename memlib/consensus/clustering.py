"""Semantic clustering of fragments (seed 001), grown a chunk at a time: average linkage
with a cannot-link rule, redone around each chunk of new fragments.

How: a chunk of at most CHUNK new fragments, and every fragment of the CANDIDATES clusters
whose centroids are nearest to each of them, are clustered again from scratch: each
fragment's vector is first drawn toward its NEIGHBOURS nearest there (`augmented`), then
average linkage joins groups (two groups are one while the mean cosine between their members'
drawn vectors is at least `threshold`, the closest pair first), where two groups never join if any member of one is
`distinct` from any member of the other (each names a thing the other does not, as the
lexicon learned it: consensus/lexicon.py), and a fragment left alone joins the group its
nearest fragment is in when that pair is within `threshold` and that group is also the nearest
on average (`_attached`). Clusters outside that neighbourhood are left as
they were; a cluster inside it may grow, merge with another or split. A cluster's topic
distribution is the share of its fragments' topic candidates (a fragment's weight split among
its topics).

Why average linkage: people say one thing in many words. Over hand-written fragments the
cosine of two fragments of one topic has median 0.61 (bench/judgement's dev topics; 0.45 on
the issue's held-out set), of two topics 0.13 (0.15), but each fragment's single nearest
cluster is often another topic's; the mean over all members
is what separates them, and a topic first reported in two far phrasings joins once a third
bridges them (a rule that places one fragment for good cannot). Why the cannot-link: agents
that report many things in one template ("The timeout of the ledger writer is 30 seconds",
"The timeout of the pricing queue is 30 seconds") write different things closer than one
thing said twice, and nothing in a cosine tells the two apart; the lexicon knows which words
name the thing. The figures: bench/README.md, "Judgement on real writing".

Order decides: chunks are taken in clustering order (`order_key`: timestamp, arrival,
fragment_id), and the lexicon learns from each fragment when its chunk is placed. A cluster's
id derives from its earliest fragment, so it stays while that fragment stays in it, and the
same groups have the same ids however they were reached. `rebuild` clusters every fragment
from scratch in chunks, the same result as adds whose batches were those chunks.
"""

from __future__ import annotations

import heapq
import uuid
from dataclasses import dataclass, field

import numpy as np

from memlib.consensus import conflicts, statements
from memlib.consensus.lexicon import NAMED, Lexicon, value_keys

# The mean cosine between two groups' members at which they are one topic, each fragment's
# vector first drawn toward its NEIGHBOURS nearest (`augmented`). Chosen on the four
# hand-written sets written first (dev, check, fresh, unseen; bench/README.md, "A fragment
# drawn toward its nearest"): 0.55 and 0.6 both kept every topic whole (>= 80 % in one cluster)
# at purity >= 0.9 there, 0.6 with the wider margin (as 0.4 was chosen for the cosine alone).
DEFAULT_THRESHOLD = 0.6
# How many nearest fragments each one's vector is drawn toward before the linkage (0: the
# cosine alone, threshold 0.4 then). Two: topics of three to six fragments are the common case.
NEIGHBOURS = 2
# The name of how fragments are placed, recorded with a store's clusters (with NEIGHBOURS, the
# threshold and the model: Consensus.rule). Give it a new name whenever a change here would
# place stored fragments otherwise: `memlib maintain` then makes every store's clusters again.
METHOD = "average linkage of vectors drawn toward their nearest, with cannot-link"
CANDIDATES = 4  # clusters nearest to each new fragment that are clustered again with it (8: no better, 2x slower)
CHUNK = 32  # new fragments clustered again together (a batch is taken in chunks of this)
# Past POOL fragments in a neighbourhood its largest clusters take part whole (each one item at
# its members' mean direction: they may grow or merge, not split), so the work of a chunk is
# bounded however large a cluster grows (one thing reported 50,000 times is one cluster)
POOL = 1024
SAMPLE = 64  # members of a whole cluster its cannot-link is read from (its first ones)
_NAMESPACE = uuid.UUID("6f1c1f4e-5a0b-4f57-9d53-6c6f6e73656e")


def features(text: str) -> tuple[frozenset[str], list[str]]:
    """What clustering reads of a fragment: its content words and the keys of what it states
    and of the names it writes as names (the lexicon learns both)."""
    parsed, read = conflicts.claims(text), statements.read(text)
    return parsed.words, value_keys(parsed) + sorted(NAMED + name for name in read.mentioned | read.names)


def unit_rows(vectors, dtype=np.float32) -> np.ndarray:
    """Each row at unit length, as `dtype` (a zero row stays zero: it has no direction)."""
    vectors = np.asarray(vectors, dtype=dtype)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def augmented(units: np.ndarray, distinct: np.ndarray, k: int) -> np.ndarray:
    """Each unit vector plus its k nearest others (none `distinct` from it), each weighted by
    its cosine (a negative one by nothing), at unit length again: what database-side
    augmentation does for image retrieval. Two fragments of one topic said in far words
    (cosine 0.3) often share their nearest fragments, and their vectors drawn toward them
    meet; two topics' fragments share few. On the hand-written sets, the topics kept whole at
    purity >= 0.9 rose on seven sets of nine and fell on one (bench/README.md)."""
    n = len(units)
    k = min(k, n - 1)
    if k <= 0:
        return units
    sims = units @ units.T
    np.fill_diagonal(sims, -np.inf)
    sims[distinct] = -np.inf
    near = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    weights = np.clip(np.take_along_axis(sims, near, axis=1), 0.0, None)  # -inf (none left): 0
    out = units + np.einsum("nk,nkd->nd", weights, units[near])
    return unit_rows(out, out.dtype)  # a zero row (no direction, nothing near) stays zero


def cluster_id_of(first_fragment_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, first_fragment_id))


def order_key(fragment) -> tuple:
    """Clustering order, of a Fragment or of a fragments-table row: (timestamp, arrival,
    fragment_id). Fragments reported at one time are in the order memlib received them (the
    newer of two statements is the later one: conflicts.find); those stored before arrivals
    were recorded (None) come first, by id among themselves."""
    if isinstance(fragment, dict):
        arrival = fragment.get("arrival")
        return (fragment["timestamp"], -1 if arrival is None else arrival, fragment["fragment_id"])
    return (fragment.timestamp, -1 if fragment.arrival is None else fragment.arrival, fragment.fragment_id)


@dataclass
class Member:
    """One clustered fragment as clustering keeps it."""

    unit: np.ndarray  # its unit vector
    topics: list[str]
    words: frozenset[str]
    order: tuple  # its place in clustering order (order_key)
    word_ids: np.ndarray | None = None  # its words as the clusterer numbers them


@dataclass
class State:
    """One cluster: its fragments in clustering order, the sum of their unit vectors and
    their topic weights."""

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
    """Clusters held in memory: their members, a matrix of unit centroids for the
    nearest-cluster search, and the lexicon learned so far."""

    def __init__(self, dims: int, threshold: float = DEFAULT_THRESHOLD, lexicon: Lexicon | None = None,
                 neighbours: int = NEIGHBOURS):
        self.dims, self.threshold, self.neighbours = dims, threshold, neighbours
        self.lexicon = lexicon or Lexicon()
        self.clusters: list[State] = []
        self.index: dict[str, int] = {}
        self.members: dict[str, Member] = {}
        self.where: dict[str, str] = {}  # fragment id -> its cluster's id
        self._vocabulary: dict[str, int] = {}  # word -> its number (_word_ids)
        self._words: list[str] = []
        self._centroids = np.zeros((16, dims), dtype=np.float32)
        self.next_arrival = 0  # the arrival the next fragment gets: its store keeps it (Consensus)

    @classmethod
    def of(cls, clusters: list[tuple[str, list[str]]], members: dict[str, Member], dims: int,
           threshold: float = DEFAULT_THRESHOLD, lexicon: Lexicon | None = None) -> "Clusterer":
        """Clusters as stored: (cluster id, fragment ids), with what clustering keeps of each
        fragment."""
        clusterer = cls(dims, threshold, lexicon)
        clusterer.members = dict(members)
        for cluster_id, fragment_ids in clusters:
            clusterer._put(clusterer._state(cluster_id, fragment_ids))
        return clusterer

    def _state(self, cluster_id: str, fragment_ids: list[str], base: State | None = None) -> State:
        """A cluster of these fragments; with `base`, that cluster and these fragments besides
        (its sums extended, not computed again)."""
        order = lambda f: self.members[f].order  # noqa: E731
        added = sorted(fragment_ids, key=order)
        if base is None:
            members, total, topics = added, np.zeros(self.dims, dtype=np.float64), {}
        elif not added or order(added[0]) > order(base.fragment_ids[-1]):
            members, total, topics = base.fragment_ids + added, base.total.copy(), dict(base.topics)
        else:
            members = list(heapq.merge(base.fragment_ids, added, key=order))
            total, topics = base.total.copy(), dict(base.topics)
        if added:
            total += np.sum([self.members[f].unit for f in added], axis=0, dtype=np.float64)
        for f in added:
            mine = self.members[f].topics
            for topic in mine:
                topics[topic] = topics.get(topic, 0.0) + 1.0 / len(mine)
        return State(cluster_id, members, total, topics)

    def _put(self, state: State) -> None:
        i = len(self.clusters)
        self.clusters.append(state)
        self.index[state.cluster_id] = i
        self.where.update(dict.fromkeys(state.fragment_ids, state.cluster_id))
        if i >= len(self._centroids):
            grown = np.zeros((2 * len(self._centroids), self.dims), dtype=np.float32)
            grown[:i] = self._centroids[:i]
            self._centroids = grown
        self._centroids[i] = state.centroid

    def _drop(self, positions: set[int]) -> None:
        """Remove these clusters (the last ones move into their places)."""
        for i in sorted(positions, reverse=True):
            last = len(self.clusters) - 1
            del self.index[self.clusters[i].cluster_id]
            if i != last:
                self.clusters[i] = self.clusters[last]
                self._centroids[i] = self._centroids[last]
                self.index[self.clusters[i].cluster_id] = i
            self.clusters.pop()

    def nearest(self, units: np.ndarray) -> set[int]:
        """The CANDIDATES clusters with the nearest centroids to any of these unit vectors."""
        n = len(self.clusters)
        if not n:
            return set()
        sims = units @ self._centroids[:n].T
        if n > CANDIDATES:
            sims_top = np.argpartition(-sims, CANDIDATES - 1, axis=1)[:, :CANDIDATES]
            return set(sims_top.ravel().tolist())
        return set(range(n))

    def assign(self, fragment_id: str, order: tuple, vector: np.ndarray, topics: list[str],
               words: frozenset[str], keys: list[str]) -> str:
        """Cluster one fragment, after learning from it; returns its cluster's id."""
        self.assign_many([(fragment_id, order, vector, topics, words, keys)])
        return self.where[fragment_id]

    def assign_many(self, items: list[tuple]) -> None:
        """Cluster (fragment_id, order key, vector, topics, words, keys) items, given in
        clustering order, a CHUNK at a time (`where` tells each one's cluster then)."""
        for start in range(0, len(items), CHUNK):
            chunk = items[start:start + CHUNK]
            units = unit_rows(np.asarray([item[2] for item in chunk], dtype=np.float32).reshape(len(chunk), self.dims))
            near = self.nearest(units)
            for unit, (fragment_id, order, _, topics, words, keys) in zip(units, chunk):
                self.lexicon.observe(words, keys)
                self.members[fragment_id] = Member(unit, list(topics), words, order)
            dropped = [self.clusters[i] for i in near]
            whole = self._whole(dropped, len(chunk))
            # in clustering order: the same fragments give the same groups however they are held
            pool = sorted([f for state in dropped if state.cluster_id not in whole for f in state.fragment_ids]
                          + [item[0] for item in chunk], key=lambda f: self.members[f].order)
            wholes = [whole[c] for c in sorted(whole)]
            groups: dict[int, tuple[list[State], list[str]]] = {}  # label -> (whole clusters, other fragments)
            labels = self.partition(pool, wholes)
            for fragment_id, label in zip(pool, labels[:len(pool)]):
                groups.setdefault(int(label), ([], []))[1].append(fragment_id)
            for state, label in zip(wholes, labels[len(pool):]):
                groups.setdefault(int(label), ([], []))[0].append(state)
            before = {state.cluster_id: state for state in dropped}
            unchanged, changed = set(), []
            for cluster_id, (states, loose) in self._named(list(groups.values()), dropped):
                base = max(states, key=lambda s: (len(s.fragment_ids), s.cluster_id), default=None)
                rest = [f for state in states if state is not base for f in state.fragment_ids] + loose
                old = before.get(cluster_id)
                if old is not None and (old is base and not rest or base is None and len(old.fragment_ids) == len(
                        loose) and set(old.fragment_ids) == set(loose)):
                    unchanged.add(cluster_id)  # regrouped as it was: left where it is
                else:
                    changed.append(self._state(cluster_id, rest, base))
            self._drop({self.index[c] for c in before if c not in unchanged})
            for state in changed:
                self._put(state)

    def _whole(self, dropped: list[State], new: int) -> dict[str, State]:
        """The clusters of a neighbourhood that take part whole, by cluster id: its largest,
        until the fragments regrouped one by one are at most POOL."""
        whole, loose = {}, new + sum(len(state.fragment_ids) for state in dropped)
        for state in sorted(dropped, key=lambda s: (-len(s.fragment_ids), s.cluster_id)):
            if loose <= POOL:
                break
            whole[state.cluster_id] = state
            loose -= len(state.fragment_ids)
        return whole

    def _named(self, groups: list[tuple[list[State], list[str]]],
               dropped: list[State]) -> list[tuple[str, tuple[list[State], list[str]]]]:
        """An id for each new group (its whole clusters and its other fragments): the id of a
        cluster it replaces whose first fragment it holds (the earliest such), else one derived
        from its earliest fragment whose id is free. So a cluster keeps its id while its first
        fragment stays in it."""
        order = lambda f: self.members[f].order  # noqa: E731
        first_of = {state.fragment_ids[0]: state.cluster_id for state in dropped}
        chosen, replaced = set(), set(first_of.values())
        taken = lambda c: c in chosen or c in self.index and c not in replaced  # noqa: E731
        out = []
        earliest = lambda g: min(order(f) for f in [s.fragment_ids[0] for s in g[0]] + g[1])  # noqa: E731
        for states, loose in sorted(groups, key=earliest):
            firsts = sorted([s.fragment_ids[0] for s in states] + [f for f in loose if f in first_of], key=order)
            inherited = (first_of[f] for f in firsts if not taken(first_of[f]))
            cluster_id = next(inherited, None)
            if cluster_id is None:
                every = sorted([f for s in states for f in s.fragment_ids] + loose, key=order)
                cluster_id, n = next((cluster_id_of(f) for f in every if not taken(cluster_id_of(f))), None), 0
                while cluster_id is None:  # every fragment's own id is taken
                    candidate, n = str(uuid.uuid5(_NAMESPACE, f"{n}\n" + "\n".join(every))), n + 1
                    cluster_id = None if taken(candidate) else candidate
            chosen.add(cluster_id)
            out.append((cluster_id, (states, loose)))
        return out

    def partition(self, fragment_ids: list[str], whole: list[State] = ()) -> np.ndarray:
        """Average linkage at `threshold` of these fragments and of the `whole` clusters (each
        one item, at its members' mean cosine), never joining a group with a member distinct
        from a member of the other (of a whole cluster, its first SAMPLE members): a flat
        cluster label per fragment, then per whole cluster."""
        from scipy.cluster.hierarchy import fcluster, linkage
        from scipy.spatial.distance import squareform

        m, size = len(fragment_ids), len(fragment_ids) + len(whole)
        if size == 1:
            return np.ones(1, dtype=np.int64)
        points = [self.members[f].unit.astype(np.float64) for f in fragment_ids]
        points += [state.total / len(state.fragment_ids) for state in whole]  # u . mean = mean cosine
        points = np.stack(points)
        samples = [state.fragment_ids[:SAMPLE] for state in whole]
        distinct = self._distinct(fragment_ids + [f for sample in samples for f in sample])
        blocks = np.cumsum([m] + [len(sample) for sample in samples])
        if whole:  # a whole cluster is distinct from what any member of its sample is distinct from
            distinct = np.logical_or.reduceat(distinct, np.r_[np.arange(m), blocks[:-1]], axis=0)
            distinct = np.logical_or.reduceat(distinct, np.r_[np.arange(m), blocks[:-1]], axis=1)
        points[:m] = augmented(points[:m], distinct[:m, :m], self.neighbours)
        distance = 1.0 - points @ points.T
        # a distinct pair is further apart than any mean of size * size cosines can bring back
        distance[distinct] = 2.0 * size * size + 2.0
        np.fill_diagonal(distance, 0.0)
        np.clip(distance, 0.0, None, out=distance)
        tree = linkage(squareform(distance, checks=False), "average")
        return self._attached(fcluster(tree, 1.0 - self.threshold, "distance"), distance, m)

    def _attached(self, labels: np.ndarray, distance: np.ndarray, m: int) -> np.ndarray:
        """A fragment average linkage left alone joins the group of the item nearest it, when
        that one pair is within `threshold` and that group is also the one nearest it on
        average (a distinct pair is far, so never across one). Its nearest fragment was taken
        into a group whose mean is further: a bot line or a terse note beside a topic's prose.
        The second test keeps a fragment out of a group that one member of happens to echo."""
        from scipy import sparse

        sizes = np.bincount(labels)
        alone = np.flatnonzero(sizes[labels[:m]] == 1)
        if not len(alone):
            return labels
        similar = 1.0 - distance[alone]
        similar[np.arange(len(alone)), alone] = -np.inf
        nearest = similar.argmax(axis=1)
        close = similar[np.arange(len(alone)), nearest] >= self.threshold
        alone, similar, nearest = alone[close], similar[close], nearest[close]
        if not len(alone):
            return labels
        similar[np.isinf(similar)] = 0.0  # itself: its own group is left out below
        groups = sparse.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)),
                                   shape=(len(labels), len(sizes)))
        mean = np.asarray(groups.T.dot(similar.T)).T / np.maximum(sizes, 1)
        mean[:, sizes == 0] = -np.inf
        mean[np.arange(len(alone)), labels[alone]] = -np.inf
        out = labels.copy()
        joins = mean.argmax(axis=1) == labels[nearest]  # never another lone fragment: linkage joins those
        out[alone[joins]] = labels[nearest[joins]]
        return out

    def _distinct(self, fragment_ids: list[str]) -> np.ndarray:
        """Lexicon.distinct for every pair of these fragments, as one boolean matrix: each
        holds a naming word the other lacks."""
        from scipy import sparse

        ids = [self._word_ids(f) for f in fragment_ids]
        m, n = len(ids), max(1, len(self._vocabulary))
        rows, cols = np.repeat(np.arange(m), [len(x) for x in ids]), np.concatenate(ids)
        used = np.unique(cols)
        naming = np.zeros(n, dtype=bool)
        naming[used] = [self.lexicon.naming(self._words[j]) for j in used]
        named = naming[cols]
        if not named.any():
            return np.zeros((m, m), dtype=bool)
        uses = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, n))
        names = sparse.csr_matrix((np.ones(int(named.sum())), (rows[named], cols[named])), shape=(m, n))
        lacks = (names @ uses.T).toarray() < np.asarray(names.sum(axis=1))  # i names a word j lacks
        return lacks & lacks.T

    def _word_ids(self, fragment_id: str) -> np.ndarray:
        """A fragment's words as numbers (each word numbered the first time it is seen)."""
        member = self.members[fragment_id]
        if member.word_ids is None:
            for w in member.words - self._vocabulary.keys():
                self._vocabulary[w] = len(self._words)
                self._words.append(w)
            member.word_ids = np.asarray([self._vocabulary[w] for w in member.words], dtype=np.int64)
        return member.word_ids


def rebuild(fragments, vectors: np.ndarray, dims: int, threshold: float = DEFAULT_THRESHOLD) -> Clusterer:
    """All clusters again from scratch, in clustering order (`order_key`), with a new lexicon."""
    clusterer = Clusterer(dims, threshold)
    order = sorted(range(len(fragments)), key=lambda i: order_key(fragments[i]))
    clusterer.assign_many([(fragments[i].fragment_id, order_key(fragments[i]), vectors[i],
                            fragments[i].topic_candidates, *features(fragments[i].content)) for i in order])
    return clusterer
