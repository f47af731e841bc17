"""The hand-written judgement sets (sets/*.jsonl, described in sets/README.md) as topics.

Each set is one JSON object a line, one topic: its fragments in the order they were reported
(agent, text); the pairs that are contradictions (with their kind: number, negation, choice),
updates (a newer fragment supersedes an older one: never a conflict) and hard negatives (pairs
a detector must not flag, with why). Indexes are the fragments' positions in the topic.

`first` holds the dev and check topics (its rows say which); every other set is one split of
its own, named as its file. `load(path)` reads any file of this shape, so a set written
elsewhere is scored as these are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

SETS = Path(__file__).parent / "sets"
KINDS = ("number", "negation", "choice")
# The sets written after the first topics, in the order they were written
LATER = ("unseen", "later", "aside", "novel", "spare", "last", "eighth", "ninth", "tenth", "eleventh", "twelfth",
         "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
         "twentieth", "twenty-first")


@dataclass(frozen=True)
class Topic:
    name: str
    fragments: tuple[tuple[str, str], ...]  # (agent, text), in the order they were reported
    contradictions: tuple[tuple[int, int, str], ...] = ()  # (i, j, kind): number, negation, choice
    updates: tuple[tuple[int, int], ...] = ()  # (older, newer): newer supersedes, no conflict
    negatives: tuple[tuple[int, int, str], ...] = ()  # (i, j, why): must never be flagged
    split: str = field(default="dev")


def load(path: Path | str) -> list[Topic]:
    """The topics of one set file; a row that names a fragment the topic lacks, or a kind not in
    KINDS, is refused with the file and line."""
    topics = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        size = len(row["fragments"])
        pairs = [(c["a"], c["b"]) for c in row["contradictions"]] + [(u["older"], u["newer"]) for u in row["updates"]]
        pairs += [(h["a"], h["b"]) for h in row["negatives"]]
        wrong = [p for p in pairs if not all(isinstance(i, int) and 0 <= i < size for i in p) or p[0] == p[1]]
        kinds = {c["kind"] for c in row["contradictions"]} - set(KINDS)
        if wrong or kinds:
            raise ValueError(f"{path}:{n}: " + (f"pair {wrong[0]} is not two of the topic's {size} fragments"
                                                if wrong else f"kind {sorted(kinds)[0]!r} is not one of {KINDS}"))
        topics.append(Topic(
            name=row["topic"],
            fragments=tuple((f["agent"], f["text"]) for f in row["fragments"]),
            contradictions=tuple((c["a"], c["b"], c["kind"]) for c in row["contradictions"]),
            updates=tuple((u["older"], u["newer"]) for u in row["updates"]),
            negatives=tuple((h["a"], h["b"], h["why"]) for h in row["negatives"]),
            split=row.get("split", "dev")))
    return topics


TOPICS: list[Topic] = load(SETS / "first.jsonl")
FRESH: list[Topic] = load(SETS / "fresh.jsonl")
# The sets written after the first topics, each a split of its own (run.py, offline.py,
# contradict.py, tally.py: --split NAME)
WRITTEN_LATER: dict[str, list[Topic]] = {name: load(SETS / f"{name}.jsonl") for name in LATER}
