"""Which words name the thing a fragment is about and which only phrase it, learned from the
fragments themselves (no language model, no word list).

Why: agents say one thing in many ways ("The timeout of the ledger writer is 30 seconds", "We
measured the ledger writer at 30 seconds for its timeout") and different things in one way
("... of the ledger writer ...", "... of the ledger retry queue ..."). A sentence embedding
sees the second pair as closer than the first, and so does any count of shared words: the
words that tell them apart are the ones that name the thing, and nothing in the words says
which those are.

How: two fragments that state the same rare value (the same date, the same number in the same
unit, the same chosen name) are, nearly always, about the same thing in two phrasings. Over
such pairs, a word that names the thing is used by both; a word of phrasing is used by one.
A word's weight is the share of the pairs it occurs in where both use it (add-one smoothed):
"ledger", "writer", "timeout" come out near 1, "measured", "scheduled", "sits" near 0.1. As
a corpus grows, values collide (a thousand things have a 5 % error budget), so a pair counts
only while its value was stated at most RARE times and only if the two also share OVERLAP of
their words (a phrasing changes a few words; two things said two ways share few); a word
seen in fewer than MIN_SEEN pairs has the UNKNOWN weight.

Two uses: the similarity of two fragments' words (weighted Jaccard), and `distinct`: two
fragments that each use a well-known naming word the other lacks ("compliance" against
"support" in "the ... load balancer config") are about different things however alike the
rest is. Values and chosen names are left out of the words (consensus/conflicts.py), so a
fragment that contradicts the others is still about the same thing.

A third: the names the store's fragments write as names ("RabbitMQ", "Unleash"), so that a
bot line that opens with one in lower case ("rabbitmq vhost orders: 14 queues") is read as
using it (consensus/conflicts.py). Features carry them as NAMED keys, which are no values.

The lexicon is learned in the fragments' clustering order, each fragment after it is placed,
so a rebuild from scratch and the incremental run learn the same weights at every step.
"""

from __future__ import annotations

from collections import Counter

from memlib.consensus.conflicts import Claims
from memlib.consensus.statements import singular

RARE = 3  # a value counts as evidence while at most this many fragments stated it
MIN_SEEN = 3  # pairs a word must occur in before its weight is learned
UNKNOWN = 0.5  # the weight of a word not learned yet
OVERLAP = 0.3  # a pair is evidence if it also shares this share of its words (Jaccard), at least
DISTINCT = 0.4  # a naming word: learned weight at least this (tuned on seeds 1-3; phrasing is near 0.1)
NAMED = "named="  # the key of a name a fragment writes as one (clustering.features), not of a value


def value_keys(c: Claims) -> list[str]:
    """What a fragment states, as keys two fragments share when they state the same."""
    keys = [f"{dimension}={value}" for dimension, values in c.values.items() for value in values]
    keys += [f"name={name.lower()}" for name in c.chosen]
    return sorted(keys)


class Lexicon:
    def __init__(self) -> None:
        self.shared: Counter[str] = Counter()  # pairs in which both fragments use the word
        self.seen: Counter[str] = Counter()  # pairs in which either does
        self.stated: dict[str, list[frozenset[str]]] = {}  # value key -> the first RARE fragments' words
        self.names: dict[str, str] = {}  # a name some fragment writes as one, by its singular: "unleash" -> "unleash"

    def observe(self, words: frozenset[str], keys: list[str]) -> None:
        """Learn from one fragment (its content words, value keys and NAMED keys)."""
        for key in keys:
            if key.startswith(NAMED):
                name = key.removeprefix(NAMED)
                self.names.setdefault(singular(name), name)
                continue
            earlier = self.stated.setdefault(key, [])
            if len(earlier) < RARE:  # stated more often, a value is no longer evidence
                for other in earlier:
                    union = words | other
                    if len(words & other) < OVERLAP * len(union):
                        continue  # the same value about two things (values collide as they grow)
                    for word in union:
                        self.seen[word] += 1
                    for word in words & other:
                        self.shared[word] += 1
                earlier.append(words)

    def weight(self, word: str) -> float:
        n = self.seen.get(word, 0)
        return (self.shared.get(word, 0) + 1) / (n + 2) if n >= MIN_SEEN else UNKNOWN

    def naming(self, word: str) -> bool:
        return self.seen.get(word, 0) >= MIN_SEEN and self.weight(word) >= DISTINCT

    def similarity(self, a: frozenset[str], b: frozenset[str]) -> float:
        """Weighted Jaccard of two fragments' words, in [0, 1]."""
        union = sum(self.weight(w) for w in a | b)
        return sum(self.weight(w) for w in a & b) / union if union else 0.0

    def distinct(self, a: frozenset[str], b: frozenset[str]) -> bool:
        """Each uses a naming word the other lacks: two different things."""
        return any(self.naming(w) for w in a - b) and any(self.naming(w) for w in b - a)
