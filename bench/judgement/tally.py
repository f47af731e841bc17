"""Contradictions within the true topics of the hand-written sets (sets/), every set in seconds.

Two readings, each per set and kind: planted pairs found of planted, and the precision of
what was flagged (`score.contradictions`):

- `--judge SPEC` (default `rules`): a store's judge as memlib runs it after the write: each
  fragment, in the order reported, read against the earlier fragments of its topic with the
  cosines of the store's default embedder. Any judge (`rules`, `none`, `nli:DIR`); a judge
  that flags no kind ("contradiction") is scored in its own column, right when it flags any
  planted pair. Updates the judge recorded are counted beside.
- `--grouped`: `consensus.conflicts.find` on each topic's fragments at once, with the lexicon
  learned from the set's fragments as Consensus learns it (`clustering.features`): the rows of
  `run.py`'s "the true topics".

    .venv/bin/python bench/judgement/tally.py [--split dev,check,...] [--judge SPEC [--threshold P] | --grouped] [--alarms] [--no-parser]
    .venv/bin/python bench/judgement/tally.py --record   # both readings of every set into figures.json

`--alarms` adds the false alarms by kind and what they separated (counts only: no set's text
is printed, so it may run on a set kept as a check). `--no-parser`: the rules as they read
without the parser extra. The suite (tests/test_judgement_sets.py) holds every set's figures
to figures.json: a rule change that finds less or flags more fails until the same commit
records the new figures (`--record`) and says why.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import score  # noqa: E402
from run import SPLITS, topics_of, within_topics  # noqa: E402

from memlib.consensus import clustering, subjects  # noqa: E402
from memlib.consensus.lexicon import Lexicon  # noqa: E402
from memlib.judges import Option, judge_for  # noqa: E402

EVERY = ("dev", "check", "fresh", *(s for s in SPLITS if s not in ("dev", "check", "all", "fresh", "everything", "whole")))
FIGURES = Path(__file__).parent / "figures.json"


def grouped(split: str) -> score.Tally:
    """`split`'s contradictions within its true topics read together, with the lexicon the
    store would learn."""
    topics = topics_of(split)
    lexicon = Lexicon()
    for topic in topics:
        for _, text in topic.fragments:
            lexicon.observe(*clustering.features(text))
    return within_topics(topics, lexicon)


def judged(split: str, judge, embed) -> tuple[score.Tally, collections.Counter]:
    """`split`'s contradictions as `judge` reads each fragment against the earlier ones of its
    topic, and the updates it recorded: {"right": of a labelled update, "other": any other pair}."""
    topics = topics_of(split)
    updates = collections.Counter()

    def detect(texts):
        unit = embed(texts)
        flagged = []
        for j in range(1, len(texts)):
            options = sorted((Option(str(i), texts[i], i, float(unit[i] @ unit[j])) for i in range(j)),
                             key=lambda o: -o.cosine)
            for option, kind in judge.read([(texts[j], options)])[0]:
                if kind == "update":
                    updates[(int(option.id), j) in labelled.get(tuple(texts), set())] += 1
                else:
                    flagged.append((kind, [int(option.id)], [j]))
        return flagged

    labelled = {tuple(t for _, t in topic.fragments): set(topic.updates) for topic in topics}
    by_topic = [[(t, i) for i in range(len(topic.fragments))] for t, topic in enumerate(topics)]
    counted = score.contradictions(topics, by_topic, detect)
    return counted, collections.Counter(right=updates[True], other=updates[False])


def embedder():
    """The store's default embedder as unit rows, cached per text."""
    from memlib.embeddings import default_embedder

    model, seen = default_embedder(), {}

    def embed(texts):
        todo = [t for t in texts if t not in seen]
        if todo:
            for text, row in zip(todo, model.embed(todo)):
                seen[text] = row / np.linalg.norm(row)
        return np.stack([seen[t] for t in texts])
    return embed


def figures(counted: score.Tally) -> dict:
    """A tally as recorded: per kind, "F/P found, R/N right": planted pairs found of planted,
    flags right of flags."""
    return {kind: f"{found}/{planted} found, {counted.right[kind]}/{reported} right"
            for kind, planted, found, _, reported, _ in counted.rows()}


def readings(splits, embed, judge) -> dict:
    """Both readings of each of `splits` by `judge`, as figures.json holds them for one way of
    reading (with the parser or without)."""
    return {split: {"judge": figures(judged(split, judge, embed)[0]), "grouped": figures(grouped(split))}
            for split in splits}


def record(splits=EVERY) -> dict:
    """Both readings of every set, with and without the parser, as figures.json holds them."""
    out, available = {}, subjects.available
    embed, judge = embedder(), judge_for("rules")
    try:
        for parser in ((True, False) if available() else (False,)):
            subjects.available = available if parser else (lambda: False)
            out["parser" if parser else "no parser"] = readings(splits, embed, judge)
    finally:
        subjects.available = available
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default=",".join(EVERY), help="sets, comma-separated (default: every set)")
    parser.add_argument("--judge", default="rules", help="the judge to read with: rules, none, nli:DIR (default: rules)")
    parser.add_argument("--threshold", type=float, help="the nli judge's threshold (default: its own)")
    parser.add_argument("--grouped", action="store_true", help="conflicts.find on each topic at once instead of a judge")
    parser.add_argument("--alarms", action="store_true", help="the false alarms by kind and what they were")
    parser.add_argument("--no-parser", action="store_true", help="the rules as they read without the parser extra")
    parser.add_argument("--record", action="store_true", help="write every set's figures, both readings, to figures.json")
    args = parser.parse_args()
    splits = args.split.split(",")
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        parser.error(f"no split {unknown[0]!r} (one of {', '.join(SPLITS)})")
    if args.record:
        FIGURES.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
        print(f"recorded {FIGURES}")
        return
    if args.no_parser:
        subjects.available = lambda: False
    judge = None if args.grouped else judge_for(args.judge, **({} if args.threshold is None else
                                                                 {"threshold": args.threshold}))
    embed = None if args.grouped else embedder()
    totals = collections.defaultdict(collections.Counter)
    alarms, updates = collections.Counter(), collections.Counter()
    rows = []
    for split in splits:
        if judge is None:
            counted = grouped(split)
        else:
            counted, recorded = judged(split, judge, embed)
            updates.update(recorded)
        rows.append((split, counted))
        alarms.update(counted.alarms)
    kinds = sorted({kind for _, counted in rows for kind in counted.kinds()}, key=score.ORDER.index)
    print("| set | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for split, counted in rows:
        cells = []
        for kind, planted, found, _, reported, precision in counted.rows(kinds):
            cells.append(f"{found}/{planted} " + (f"{precision:.2f}" if reported else "-"))
            totals[kind].update(found=found, planted=planted, reported=reported, right=counted.right[kind])
        print(f"| {split} | " + " | ".join(cells) + " |", flush=True)
    print("\ntotal: " + "; ".join(f"{kind} {t['found']}/{t['planted']} found, right {t['right']}/{t['reported']}"
                                   for kind, t in totals.items()))
    if judge is not None:
        planted = sum(len(topic.updates) for split in splits for topic in topics_of(split))
        print(f"updates recorded: {updates['right']} of {planted} labelled, {updates['other']} on other pairs")
    if args.alarms:
        print("false alarms: " + ", ".join(f"{kind} on {why}: {n}" for (kind, why), n in sorted(alarms.items())))


if __name__ == "__main__":
    main()
