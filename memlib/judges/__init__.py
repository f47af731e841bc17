"""Judges: what reads the knowledge memories of a project after they are written and says
which of them disagree. A judge is named as an embedder is, and a store records the one it
reads with (MemoryStore.judge):

| name | what it is |
|---|---|
| `rules` | the English statement reader (memlib.consensus.conflicts): another number or date, a negation, another named choice; a reported change is an update |
| `none` | reads nothing: no contradiction is ever flagged |
| `nli:<dir or model id>` | a sentence-transformers CrossEncoder NLI model; its contradiction probability above a threshold flags a pair |

The reading itself (which memories are unread, their candidates, what is recorded) is
memlib.judges.reading; each judge only says, for a memory and the older memories near it,
what it makes of each pair. Consensus asks the store's judge where a cluster's fragments
disagree (`find_many`).
"""

from __future__ import annotations

import importlib
import json
from typing import Any, NamedTuple, Protocol

from memlib.consensus import conflicts
from memlib.errors import InvalidInput

# name -> the module whose `make(argument, **settings)` builds the judge: one line per judge
JUDGES = {
    "rules": "memlib.judges.rules",
    "none": "memlib.judges.none",
    "nli": "memlib.judges.nli",
}
DEFAULT = "rules"
KINDS = ("value", "choice", "negation", "contradiction", "update")  # what a judge may say of a pair


class Option(NamedTuple):
    """A memory a judge reads a newer one against: its id, its text, when it was written and
    the cosine of its embedding to the newer one's."""

    id: str
    text: str
    created_at: Any
    cosine: float


class Judge(Protocol):
    spec: str  # the name it is recorded under ("rules", "nli:cross-encoder/nli-deberta-v3-xsmall")

    def settings(self) -> dict[str, Any]:
        """What the store records of it besides its name (a threshold)."""

    def read(self, items: list[tuple[str, list[Option]]]) -> list[list[tuple[Option, str]]]:
        """For each (newer text, older options near it): the options it contradicts or
        updates, with the kind (one of KINDS)."""

    def find_many(self, groups: list[tuple[list[str], list[float]]], lexicon=None) -> list:
        """For each group of one topic's texts (a Consensus cluster's fragments, oldest first,
        with their weights): where they disagree, as `conflicts.Found` sides (`within_groups`
        for a judge that reads pairs)."""


def judge_for(spec: str | None = None, **settings: Any) -> Judge:
    """The judge `spec` names ("rules", "none", "nli:DIR"), with `settings` (a threshold)."""
    spec = (spec or DEFAULT).strip()
    name, _, argument = spec.partition(":")
    if name not in JUDGES:
        raise InvalidInput(f"no judge {spec!r} (one of: {', '.join(n + (':MODEL' if n == 'nli' else '') for n in JUDGES)})")
    return importlib.import_module(JUDGES[name]).make(argument, **settings)


def recorded(judge: Judge) -> str:
    """A judge as a store records it: its name and settings, as JSON."""
    return json.dumps({"judge": judge.spec, **judge.settings()}, sort_keys=True)


def from_recorded(text: str | None) -> Judge:
    """The judge a store recorded (`recorded`), or the default one for a store that recorded none."""
    if not text:
        return judge_for(DEFAULT)
    data = json.loads(text)
    return judge_for(data.pop("judge"), **data)


def within_groups(judge: Judge, groups: list[tuple[list[str], list[float]]]) -> list:
    """`find_many` for a judge that reads pairs: each text of a group (a Consensus cluster's
    fragments, oldest first, with their weights) read against the older ones of its group, as
    `conflicts.Found` sides. A group is one topic, so every pair is read as close (cosine 1); a
    text reported again is read once (`conflicts.said_once`); an older text a newer one
    updates is superseded, and none of its disagreements stand."""
    said = [conflicts.said_once(texts, weights) for texts, weights in groups]
    items, where = [], []
    for g, (_, texts, _) in enumerate(said):
        for j in range(1, len(texts)):
            items.append((texts[j], [Option(str(i), texts[i], i, 1.0) for i in range(j)]))
            where.append((g, j))
    edges: list[dict[str, list[tuple[int, int]]]] = [{} for _ in groups]
    superseded: list[set[int]] = [set() for _ in groups]
    for (g, j), found in zip(where, judge.read(items) if items else []):
        for option, kind in found:
            if kind == "update":
                superseded[g].add(int(option.id))
            else:
                edges[g].setdefault(kind, []).append((int(option.id), j))
    return [expand(conflicts.sides_found({kind: [(i, j) for i, j in pairs if i not in gone and j not in gone]
                                          for kind, pairs in kinds.items()}, weights))
            for (expand, _, weights), kinds, gone in zip(said, edges, superseded)]
