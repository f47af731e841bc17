"""Consensus units (seed 001): what a cluster's agents agree on, as an extractive summary
within a retention contract, with every disagreement kept beside it.

The summary is chosen from the fragments that are on no losing side of a disagreement, best
first by `weight`: confidence x the contract's weight of the agent (1 when it names none) x
(1 + log(1 + citations)) x agreement (the share of the cluster's fragments that claim what it
claims: its side's size over the cluster's for a fragment in a disagreement, else 1).
Fragments saying the same words again, or the same fact in other words (the same numbers and
nothing stated differently), are left out, and so is a fragment about a blocked
topic (its topic candidates, or the topic's words in its text); with an allow list, only
fragments about an allowed topic count.

A contract's slot is filled by the fragments tagged with it (a topic candidate or
metadata["slot"] of that name). Its coverage is the share of those the summary may use whose
statement it holds (chosen, or saying the words of one chosen); a slot is met when the summary holds at least `min_items` of them and its coverage is
at least `min_coverage_ratio`. The compression loop fills the length budget best first, then
(up to `max_rounds` rounds) reserves room for the slots still unmet, records every round, and
reports a contract it cannot meet as "unmet" with the slots, never silently.
"""

from __future__ import annotations

import math
import re
from typing import Callable

from memlib.consensus.conflicts import MONTHS, STOP_WORDS
from memlib.consensus.duplicates import same_fact
from memlib.consensus.records import ClusterMemoryUnit, Disagreement, RetentionContract

DEFAULT_BUDGET = 1_000  # characters, when no contract is given
REPEAT = 0.8  # word overlap at which a fragment says nothing new
_WORD = re.compile(r"[^\W_][\w+#.-]*[^\W_]|[^\W_]")


def words(text: str) -> frozenset[str]:
    """The words two statements are compared by: lower case, no stop words, no numbers."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(text))
                     if w not in STOP_WORDS and w not in MONTHS and not w[0].isdigit())


def weight(fragment: dict, agreement: float, contract: RetentionContract | None) -> float:
    source = contract.source_weights.get(fragment["source_agent"], 1.0) if contract else 1.0
    return fragment["confidence"] * source * (1 + math.log1p(fragment["citation_count"] or 0)) * agreement


def slots_of(fragment: dict) -> set[str]:
    return set(fragment["topic_candidates"] or []) | ({fragment["metadata"]["slot"]}
                                                      if fragment["metadata"].get("slot") else set())


def _allowed(fragment: dict, contract: RetentionContract | None) -> bool:
    if contract is None:
        return True
    topics = set(fragment["topic_candidates"] or [])
    text = words(fragment["content"])
    for topic in contract.topic_blocklist:
        if topic in topics or (words(topic) and words(topic) <= text):
            return False
    return not contract.topic_allowlist or bool(topics & set(contract.topic_allowlist))


def build(cluster_id: str, fragments: list[dict], disagreements: list[Disagreement],
          contract: RetentionContract | None = None,
          summariser: Callable[[list[str]], str] | None = None) -> ClusterMemoryUnit:
    """The unit of one cluster from its fragments (dicts with the fragments table's columns,
    metadata decoded) and their disagreements."""
    n = len(fragments)
    losing = {f for d in disagreements for f in d.b.fragment_ids}
    agreement = {f["fragment_id"]: 1.0 for f in fragments}
    for d in disagreements:
        for f in d.a.fragment_ids:
            agreement[f] = min(agreement[f], len(d.a.fragment_ids) / n)
    pool = [f for f in fragments if f["fragment_id"] not in losing and _allowed(f, contract)]
    pool.sort(key=lambda f: (-weight(f, agreement[f["fragment_id"]], contract), f["fragment_id"]))
    budget = contract.length_budget if contract else DEFAULT_BUDGET
    slots = {name: c for name, c in (contract.slots.items() if contract else [])}
    rounds, chosen, unmet = [], [], list(slots)
    for round_no in range(1, (contract.max_rounds if contract else 1) + 1):
        reserved = [f for name in unmet for f in pool if name in slots_of(f)][:sum(
            max(1, slots[name].min_items) for name in unmet)] if round_no > 1 else []
        chosen = _fill(reserved + [f for f in pool if f not in reserved], budget)
        coverage = _coverage(chosen, pool, slots)
        unmet = [name for name, c in slots.items() if c.required and not _met(name, c, chosen, coverage)]
        rounds.append({"round": round_no, "fragments": [f["fragment_id"] for f in chosen],
                       "length": _length(chosen), "unmet": unmet})
        if not unmet:
            break
    texts = [f["content"].strip() for f in chosen]
    summary = summariser(texts) if summariser and texts else " ".join(texts)
    cut = [f["fragment_id"] for f in pool if f not in chosen]
    evidence = [f["fragment_id"] for f in chosen] + [x for d in disagreements for x in
                                                     d.a.fragment_ids + d.b.fragment_ids]
    return ClusterMemoryUnit(
        cluster_id=cluster_id, consensus_summary=summary, disagreements=disagreements,
        evidence_pointers=list(dict.fromkeys(evidence)) or [fragments[0]["fragment_id"]],
        slot_coverage=_coverage(chosen, pool, slots),
        compression_report={"rounds": rounds, "cut": cut, "budget": budget,
                             "status": "unmet" if unmet else "met", "unmet_slots": unmet,
                             "summariser": getattr(summariser, "__name__", None) if summariser else None},
        contract_id=contract.contract_id if contract else None,
        contract_version=contract.version if contract else None)


def _length(chosen: list[dict]) -> int:
    return sum(len(f["content"].strip()) for f in chosen) + max(0, len(chosen) - 1)


def _fill(candidates: list[dict], budget: int) -> list[dict]:
    """Best first while the budget lasts; a fragment repeating a chosen one is skipped: its
    words again, or the same fact in other words (duplicates.same_fact)."""
    chosen, used, seen = [], 0, []
    for f in candidates:
        size = len(f["content"].strip()) + (1 if chosen else 0)
        if used + size > budget:
            continue
        mine = words(f["content"])
        if _repeats(mine, seen) or any(same_fact(c["content"], f["content"]) for c in chosen):
            continue
        chosen.append(f)
        seen.append(mine)
        used += size
    return chosen


def _coverage(chosen: list[dict], pool: list[dict], slots: dict) -> dict[str, float]:
    """Per slot, the share of its fragments (those the summary may use) whose statement the
    summary holds: chosen, or saying the words of one chosen."""
    said = [words(f["content"]) for f in chosen]
    out = {}
    for name in slots:
        tagged = [f for f in pool if name in slots_of(f)]
        held = sum(f in chosen or _repeats(words(f["content"]), said) for f in tagged)
        out[name] = held / len(tagged) if tagged else 0.0
    return out


def _repeats(mine: frozenset, said: list[frozenset]) -> bool:
    return any(len(mine & w) / max(1, len(mine | w)) >= REPEAT for w in said)


def _met(name: str, constraint, chosen: list[dict], coverage: dict[str, float]) -> bool:
    items = sum(name in slots_of(f) for f in chosen)
    return items >= constraint.min_items and coverage[name] >= constraint.min_coverage_ratio
