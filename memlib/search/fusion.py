"""Fusion of ranked lists (vector and full text) into one, and the neighbour score sharing
of conversation turns. Pure functions over (id, score) lists."""

from __future__ import annotations

from collections.abc import Callable


def rrf(ranked_lists: dict[str, list[tuple[str, float]]], k: int,
        rrf_k: int) -> list[tuple[str, float, dict[str, int]]]:
    """Reciprocal-rank fusion: score = sum over lists of 1 / (rrf_k + rank)."""
    fused: dict[str, list] = {}
    for name, candidates in ranked_lists.items():
        for rank, (memory_id, _) in enumerate(candidates, start=1):
            entry = fused.setdefault(memory_id, [memory_id, 0.0, {}])
            entry[1] += 1.0 / (rrf_k + rank)
            entry[2][f"{name}_rank"] = rank
    ordered = sorted(fused.values(), key=lambda e: (-e[1], e[0]))
    return [(memory_id, score, ranks) for memory_id, score, ranks in ordered[:k]]


def min_max(name: str, scores: list[float]) -> list[float]:
    """A list's scores scaled to [0, 1] over the list (all 1.0 when they are equal)."""
    low, high = min(scores), max(scores)
    return [(score - low) / (high - low) if high > low else 1.0 for score in scores]


def convex(ranked_lists: dict[str, list[tuple[str, float]]], k: int, weights: dict[str, float],
           normalise: Callable[[str, list[float]], list[float]] = min_max) -> list[tuple[str, float, dict[str, int]]]:
    """Score-aware fusion: each list's scores are normalised to [0, 1] (min-max over the
    list, unless `normalise(list name, scores)` is given; a memory missing from a list scores
    0 there) and summed with the lists' weights.

    Unlike reciprocal ranks, a strong keyword match keeps its lead over weak semantic
    neighbours: on LoCoMo (conversations 0-4) R@10 rose from 57.9 (RRF) to 67.6."""
    fused: dict[str, list] = {}
    for name, candidates in ranked_lists.items():
        if not candidates:
            continue
        scaled = normalise(name, [score for _, score in candidates])
        for rank, ((memory_id, _), score) in enumerate(zip(candidates, scaled), start=1):
            entry = fused.setdefault(memory_id, [memory_id, 0.0, {}])
            entry[1] += weights[name] * score
            entry[2][f"{name}_rank"] = rank
    ordered = sorted(fused.values(), key=lambda e: (-e[1], e[0]))
    return [(memory_id, score, ranks) for memory_id, score, ranks in ordered[:k]]


def with_neighbours(ranked: list[tuple[str, float, dict]], links: list[tuple[str, str]],
                    weight: float) -> list[tuple[str, float, dict]]:
    """Each turn adjacent to a candidate gains `weight` times the score of its best adjacent
    candidate (the turn before it or after it in its thread), then all are ranked again; a
    turn that neither list found may enter this way.

    The evidence for a question about a conversation is often an exchange, not one turn: a
    turn next to a strong match is likely part of it. On LoCoMo (conversations 0-4) hybrid
    R@10 rose from 75.6 to 79.5 with weight 0.8."""
    score = {memory_id: s for memory_id, s, _ in ranked}
    sources = {memory_id: src for memory_id, _, src in ranked}
    best: dict[str, float] = {}
    for before, after in set(links):
        for this, other in ((before, after), (after, before)):
            if other in score:
                best[this] = max(best.get(this, 0.0), score[other])
    out = [(memory_id, s, sources[memory_id]) for memory_id, s in score.items() if not best.get(memory_id)]
    out += [(memory_id, score.get(memory_id, 0.0) + weight * b,
             {**sources.get(memory_id, {}), "neighbour": b}) for memory_id, b in best.items() if b]
    return sorted(out, key=lambda e: (-e[1], e[0]))


def with_boost(ranked: list[tuple[str, float, dict]], inside: set[str], weight: float,
               source: str) -> list[tuple[str, float, dict]]:
    """Candidates in `inside` gain `weight` times the best score (recorded as `source`), then
    all are ranked again. Only candidates move; nothing joins the list for the boost alone.

    - `period`: candidates written in the period the query names (search/dates.py). On LoCoMo
      (conversations 0-4) hybrid R@10 rose from 78.7 to 80.5 with weight 1.0, on each of the
      five folds, the weight chosen with each fold left out.
    - `answer`: candidates whose own words hold the kind of thing the query asks for, a time,
      a number or a place (search/answers.py). On LoCoMo 0-4 hybrid R@10 rose from 82.1 to
      82.4 with weight 0.15, on four folds of five and equal on the fifth; with year-less
      periods (search/dates.py), from 81.9 to 82.4, on every fold (bench/README.md).
    - `speaker`: turns by the one participant the query names (search/speakers.py). On LoCoMo
      0-4 hybrid R@10 rose from 80.3 to 81.9 with weight 0.15, on each of the five folds, the
      weight chosen with each fold left out (bench/README.md)."""
    if not inside or not ranked:
        return ranked
    best = ranked[0][1]
    out = [(memory_id, s + weight * best, {**sources, source: weight * best}) if memory_id in inside
           else (memory_id, s, sources) for memory_id, s, sources in ranked]
    return sorted(out, key=lambda e: (-e[1], e[0]))


UNTRUSTED_WEIGHT = 0.5  # the share of its score an untrusted memory keeps (models.trusted)


def with_weight(ranked: list[tuple[str, float, dict]], weighed: set[str], factor: float,
                source: str) -> list[tuple[str, float, dict]]:
    """Candidates in `weighed` keep `factor` of their score (recorded as `source`), then all
    are ranked again. `trust`: untrusted memories keep UNTRUSTED_WEIGHT, so one outranks a
    trusted memory only when it matches twice as well (not measured on recall: no benchmark
    holds untrusted memories; it is a safety margin, not a tuned number)."""
    if not weighed or not ranked:
        return ranked
    out = [(memory_id, s * factor, {**sources, source: factor}) if memory_id in weighed
           else (memory_id, s, sources) for memory_id, s, sources in ranked]
    return sorted(out, key=lambda e: (-e[1], e[0]))
