"""The hand-written judgement sets (bench/judgement/sets): they load, their datasheet counts
what they hold, the scorer counts as a hand count does, and every set's contradiction figures
are the recorded ones (bench/judgement/figures.json), so a rule change that finds less or
flags more fails here until its commit records the new figures (`tally.py --record`)."""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

import pytest

JUDGEMENT = Path(__file__).resolve().parent.parent / "bench" / "judgement"
sys.path.insert(0, str(JUDGEMENT))

import fragments  # noqa: E402
import score  # noqa: E402
import tally  # noqa: E402

from memlib.consensus import subjects  # noqa: E402


def test_the_datasheet_counts_what_each_set_holds():
    table = (JUDGEMENT / "sets" / "README.md").read_text()
    rows = {m.group(1): [int(n) for n in re.findall(r"\d+", m.group(2))]
            for m in re.finditer(r"^\| ([a-z -]+(?: \((?:dev|check)\))?) \|((?: \d+ \|)+)$", table, re.M)}
    sets = {"first (dev)": [t for t in fragments.TOPICS if t.split == "dev"],
            "first (check)": [t for t in fragments.TOPICS if t.split == "check"],
            "fresh": fragments.FRESH, **fragments.WRITTEN_LATER}
    for name, topics in sets.items():
        kinds = collections.Counter(kind for t in topics for _, _, kind in t.contradictions)
        counted = [len(topics), sum(len(t.fragments) for t in topics), *(kinds[k] for k in fragments.KINDS),
                   sum(len(t.updates) for t in topics), sum(len(t.negatives) for t in topics)]
        assert rows.get(name) == counted, name
    assert set(rows) == set(sets)
    assert {p.stem for p in (JUDGEMENT / "sets").glob("*.jsonl")} == {"first", "fresh", *fragments.LATER,
                                                                     "duplicates", "changes"}


def test_a_set_naming_a_fragment_its_topic_lacks_is_refused_with_its_line(tmp_path):
    good = {"topic": "t", "fragments": [{"agent": "a", "text": "x is 1"}, {"agent": "b", "text": "x is 2"}],
            "contradictions": [{"a": 0, "b": 1, "kind": "number"}], "updates": [], "negatives": []}
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "updates": [{"older": 0, "newer": 2}]}) + "\n")
    with pytest.raises(ValueError, match=r"mine.jsonl:2: pair \(0, 2\) is not two of the topic's 2 fragments"):
        fragments.load(path)
    path.write_text(json.dumps({**good, "contradictions": [{"a": 0, "b": 1, "kind": "colour"}]}) + "\n")
    with pytest.raises(ValueError, match="mine.jsonl:1: kind 'colour'"):
        fragments.load(path)
    path.write_text(json.dumps(good) + "\n")
    assert fragments.load(path)[0].contradictions == ((0, 1, "number"),)


def test_the_scorer_counts_as_a_hand_count_does():
    topic = fragments.Topic("t", tuple(("a", f"text {i}") for i in range(4)),
                            contradictions=((0, 1, "number"), (0, 2, "choice")), updates=((1, 3),),
                            negatives=((2, 3, "scoped: staging"),))
    flags = [("value", [0], [1]),      # right: the planted number
             ("choice", [1], [3]),     # the update, flagged
             ("negation", [2], [3]),   # a hard negative
             ("choice", [0], [3]),     # nothing labelled
             ("contradiction", [0], [2])]  # no kind, on the planted choice: right as "any"
    counted = score.contradictions([topic], [[(0, i) for i in range(4)]], lambda texts: flags)
    assert (counted.reported, counted.right) == (collections.Counter(number=1, choice=2, negation=1, any=1),
                                                 collections.Counter(number=1, any=1))
    assert counted.found == collections.Counter(number=1, choice=1)
    assert counted.alarms == collections.Counter({("choice", "update"): 1, ("negation", "hard negative (scoped)"): 1,
                                                  ("choice", "other"): 1})
    assert counted.kinds() == ("number", "negation", "choice", "any")
    number, negation, choice, any_kind = counted.rows()
    assert number == ("number", 1, 1, 1.0, 1, 1.0)
    assert negation[:3] + negation[4:] == ("negation", 0, 0, 1, 0.0)  # nothing planted: no recall
    assert choice == ("choice", 1, 1, 1.0, 2, 0.0)
    assert any_kind == ("any", 2, 2, 1.0, 1, 1.0)


@pytest.mark.parametrize("parser", [True, False], ids=["parser", "no parser"])
def test_every_set_finds_and_flags_what_is_recorded(parser, monkeypatch):
    if parser and not subjects.available():
        pytest.skip("the parser extra is not installed (make test installs it)")
    if not parser:
        monkeypatch.setattr(subjects, "available", lambda: False)
    recorded = json.loads(tally.FIGURES.read_text())["parser" if parser else "no parser"]
    now = tally.readings(tally.EVERY, tally.embedder(), tally.judge_for("rules"))
    moved = [f"{split} {reading} {kind}: recorded {recorded[split][reading].get(kind)}, now {figure}"
             for split in now for reading in now[split] for kind, figure in now[split][reading].items()
             if recorded.get(split, {}).get(reading, {}).get(kind) != figure]
    assert not moved, ("the judgement figures moved (record them with bench/judgement/tally.py --record "
                       "and say why in the commit):\n" + "\n".join(moved))
    assert set(recorded) == set(now)
