"""Contradictions within the true topics, on many hand-written sets at once, without a store.

Each set's topics are compared one by one (`consensus.conflicts.find` on a topic's fragments,
in the order they were reported), with the lexicon learned from all the set's fragments as
the store learns it (`clustering.features`). The rows equal `run.py`'s "the true topics"
rows, in seconds rather than minutes: a reader change can be measured on every set before
and after (with the code before in a worktree: `PYTHONPATH=WORKTREE`).

    .venv/bin/python bench/judgement/tally.py [--split dev,check,...] [--alarms]

Per set and kind: planted pairs found of planted, and the precision of what was reported
(`score.contradictions`); then the totals, with right reports of all reports. `--alarms` adds
the false alarms by kind and what they were (counts only: no set's text is printed, so it
may run on a set kept as a check).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import score  # noqa: E402
from run import SPLITS, topics_of, within_topics  # noqa: E402

from memlib.consensus import clustering  # noqa: E402
from memlib.consensus.lexicon import Lexicon  # noqa: E402

EVERY = ("dev", "check", "fresh", *(s for s in SPLITS if s not in ("dev", "check", "all", "fresh", "everything", "whole")))


def tally(split: str) -> score.Tally:
    """`split`'s contradictions within its true topics, with the lexicon the store would learn."""
    topics = topics_of(split)
    lexicon = Lexicon()
    for topic in topics:
        for _, text in topic.fragments:
            lexicon.observe(*clustering.features(text))
    return within_topics(topics, lexicon)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default=",".join(EVERY), help="sets, comma-separated (default: every set)")
    parser.add_argument("--alarms", action="store_true", help="the false alarms by kind and what they were")
    args = parser.parse_args()
    splits = args.split.split(",")
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        parser.error(f"no split {unknown[0]!r} (one of {', '.join(SPLITS)})")
    totals = collections.defaultdict(collections.Counter)
    alarms = collections.Counter()
    print("| set | " + " | ".join(score.KINDS) + " |")
    print("|---|" + "---|" * len(score.KINDS))
    for split in splits:
        counted = tally(split)
        cells = []
        for kind, planted, found, _, reported, precision in counted.rows():
            cells.append(f"{found}/{planted} " + (f"{precision:.2f}" if reported else "-"))
            totals[kind].update(found=found, planted=planted, reported=reported, right=counted.right[kind])
        alarms.update(counted.alarms)
        print(f"| {split} | " + " | ".join(cells) + " |", flush=True)
    print("\ntotal: " + "; ".join(f"{kind} {t['found']}/{t['planted']} found, right {t['right']}/{t['reported']}"
                                   for kind, t in totals.items()))
    if args.alarms:
        print("false alarms: " + ", ".join(f"{kind} on {why}: {n}" for (kind, why), n in sorted(alarms.items())))


if __name__ == "__main__":
    main()
