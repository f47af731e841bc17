"""Scores of clustering and contradiction detection against hand-written truth (sets/, read by fragments.py).

Clustering: per topic, the share of its fragments in its largest cluster (completeness; the
target is at least 0.8) and whether that reaches 0.8; per cluster, the share of its largest
topic (purity, weighted by cluster size; the target is at least 0.9).

Contradictions, per kind (number, negation, choice): a planted pair is found when one
reported disagreement puts its two fragments on opposite sides; a reported disagreement is
right when it separates at least one planted pair of its kind, else it is a false alarm,
counted by what it separated: an update (older against newer), a hard negative, or
something else.
"""

from __future__ import annotations

import collections
import itertools
from dataclasses import dataclass

KIND_OF = {"value": "number", "number": "number", "negation": "negation", "choice": "choice",
           "contradiction": "any"}  # a judge that names no kind (nli): right on a planted pair of any kind
KINDS = ("number", "negation", "choice")
ORDER = (*KINDS, "any")


def negative_kinds(why: str) -> str:
    """A hard negative's kind from its label: scoped, different quantities, paraphrase, a part,
    a goal, agreement."""
    for kind in ("scoped", "different quantities", "paraphrase", "part", "goal", "agree", "deadline",
                 "threshold", "typical", "commitment"):
        if kind in why:
            return kind
    return "other"


def clustering(assigned: dict[tuple[int, int], str]) -> dict[str, float]:
    """`assigned`: (topic, fragment) -> cluster id."""
    by_topic: dict[int, list[str]] = collections.defaultdict(list)
    by_cluster: dict[str, list[int]] = collections.defaultdict(list)
    for (topic, _), cluster in assigned.items():
        by_topic[topic].append(cluster)
        by_cluster[cluster].append(topic)
    shares = [collections.Counter(c).most_common(1)[0][1] / len(c) for c in by_topic.values()]
    pure = sum(collections.Counter(t).most_common(1)[0][1] for t in by_cluster.values())
    return {"topics": len(by_topic), "clusters": len(by_cluster), "fragments": len(assigned),
            "completeness": sum(shares) / len(shares), "kept_whole": sum(s >= 0.8 for s in shares) / len(shares),
            "purity": pure / len(assigned)}


@dataclass
class Tally:
    planted: collections.Counter
    found: collections.Counter
    reported: collections.Counter
    right: collections.Counter
    alarms: collections.Counter  # (kind, why)

    def kinds(self) -> tuple[str, ...]:
        """The labelled kinds, and "any" when a judge flagged pairs without one."""
        return KINDS + (("any",) if self.reported["any"] else ())

    def rows(self, kinds=None) -> list[tuple]:
        out = []
        for kind in kinds or self.kinds():
            p, f = ((sum(self.planted.values()), sum(self.found.values())) if kind == "any"
                    else (self.planted[kind], self.found[kind]))
            r, ok = self.reported[kind], self.right[kind]
            out.append((kind, p, f, f / p if p else float("nan"), r, ok / r if r else float("nan")))
        return out


@dataclass
class Truth:
    """What the topics say of their pairs of fragments, each pair a frozenset of two
    (topic, fragment): contradictions with their kind, updates, hard negatives with theirs."""
    planted: collections.Counter
    contradictions: dict[frozenset, str]
    updates: set[frozenset]
    negatives: dict[frozenset, str]


def truth(topics) -> Truth:
    out = Truth(collections.Counter(), {}, set(), {})
    for t, topic in enumerate(topics):
        for i, j, kind in topic.contradictions:
            out.planted[kind] += 1
            out.contradictions[frozenset({(t, i), (t, j)})] = kind
        out.updates |= {frozenset({(t, i), (t, j)}) for i, j in topic.updates}
        for i, j, why in topic.negatives:
            out.negatives[frozenset({(t, i), (t, j)})] = negative_kinds(why)
    return out


def contradictions(topics, groups: list[list[tuple[int, int]]], detect) -> Tally:
    """`groups`: the fragments compared together (clusters, or the true topics), each a list
    of (topic, fragment); `detect(texts) -> [(kind, side_a, side_b)]` with sides as indexes."""
    known = truth(topics)
    planted, truth_of, updates = known.planted, known.contradictions, known.updates
    negatives, negative_kind = set(known.negatives), known.negatives
    found_pairs: set[frozenset] = set()
    reported, right, alarms = collections.Counter(), collections.Counter(), collections.Counter()
    for group in groups:
        texts = [topics[t].fragments[i][1] for t, i in group]
        for kind, a, b in detect(texts):
            kind = KIND_OF[kind]
            pairs = {frozenset({group[x], group[y]}) for x, y in itertools.product(a, b)}
            hits = {p for p in pairs if truth_of.get(p) == kind or (kind == "any" and p in truth_of)}
            any_truth = {p for p in pairs if p in truth_of}
            found_pairs |= any_truth
            reported[kind] += 1
            if hits:
                right[kind] += 1
            else:
                hard = sorted(pairs & negatives, key=sorted)
                why = ("update" if pairs & updates else f"hard negative ({negative_kind[hard[0]]})" if hard
                       else "other kind" if any_truth else "other")
                alarms[(kind, why)] += 1
    found = collections.Counter(truth_of[p] for p in found_pairs)
    return Tally(planted, found, reported, right, alarms)
