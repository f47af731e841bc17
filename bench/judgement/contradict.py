"""Contradictions among ordinary memories, read after the write: every hand-written fragment
(sets/) is written as an insight of one project, one at a time in the interleaved
order of run.py (several agents at once), through memlib's public API with the store's real
model; then the store's judge reads them (memlib.judges.reading) and records a
'contradiction' event for each pair it finds (and an 'update' when the newer reports the
change). Compared with the truth, pair by pair:

- recall per kind (number, negation, choice): planted pairs flagged as a contradiction;
- precision: flagged pairs that are planted contradictions (of any kind), with the false
  alarms by what they were: an update, a hard negative (by its kind), another pair of one
  topic, or two topics (every memory of the project is a candidate, not only its topic's);
- updates: planted updates recorded as updates, and flagged as contradictions; pairs recorded
  as updates that are none, by what they were.

    .venv/bin/python bench/judgement/contradict.py [--split dev|check|all|fresh|everything|unseen|whole|later|aside|novel|spare|last|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first, or several joined by +] [--once] [--model DIR] [--alarms] [--no-parser]

`--alarms` prints the texts of each false alarm: it reads the set, so never on a set kept as a check.

The detector (consensus.conflicts.contradiction) was built on the dev topics for issue 39;
the gate that makes it work without clusters (conflicts.CLOSE, and whether to require shared
subject words as well) was chosen on the dev topics by this bench, six settings tried. The
check topics are read only to report.
"""

from __future__ import annotations

import collections
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import score  # noqa: E402
from run import T0, chosen, open_store, order  # noqa: E402

from memlib import Insight, Project  # noqa: E402
from memlib.clock import Clock  # noqa: E402
from memlib.consensus import subjects  # noqa: E402


def main() -> None:
    shown = "--alarms" in sys.argv  # print each false alarm's texts (this reads the set: keep it off a check)
    if shown:
        sys.argv.remove("--alarms")
    if "--no-parser" in sys.argv:  # the rules judge as it reads without the parser extra
        sys.argv.remove("--no-parser")
        subjects.available = lambda: False
    split, topics = chosen()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp, clock=Clock(T0))
        project = Project(name="hand-written")
        store.add([project])
        where: dict[str, tuple[int, int]] = {}
        for n, (t, i) in enumerate(order(topics)):
            store.clock.set(T0 + timedelta(minutes=7 * n))
            memory = Insight(project_id=project.id, content=topics[t].fragments[i][1], agent=topics[t].fragments[i][0])
            (memory_id,) = store.add([memory], duplicates="link")
            where[memory_id] = (t, i)
        store.read_unread()  # the store's judge reads them after the writes, oldest first
        flagged, updated, kinds = set(), set(), {}
        for event in store.audit.events("action IN ('contradiction', 'update')"):
            other = event["details"].get("with") or event["details"].get("of")
            pair = frozenset({where[event["subject_id"]], where[other]})
            (flagged if event["action"] == "contradiction" else updated).add(pair)
            kinds[pair] = event["details"]["kind"]
    known = score.truth(topics)
    planted, truth, updates, negatives = known.planted, known.contradictions, known.updates, known.negatives
    found = collections.Counter(truth[p] for p in flagged if p in truth)
    def why(pair: frozenset) -> str:
        (t1, _), (t2, _) = sorted(pair) if len(pair) == 2 else (next(iter(pair)),) * 2
        return ("an update" if pair in updates else "a planted contradiction" if pair in truth
                else f"a hard negative ({negatives[pair]})" if pair in negatives
                else "another pair of one topic" if t1 == t2 else "two topics")

    alarms = collections.Counter(why(pair) for pair in flagged - set(truth))
    wrong_updates = collections.Counter(why(pair) for pair in updated - updates)
    print(f"### contradictions on write, {split} topics: {len(where)} memories, {len(topics)} topics\n")
    print("| kind | planted | flagged | recall |\n|---|---|---|---|")
    for kind in score.KINDS:
        print(f"| {kind} | {planted[kind]} | {found[kind]} | {found[kind] / planted[kind]:.2f} |"
              if planted[kind] else f"| {kind} | 0 | 0 | - |")
    right = sum(found.values())
    print(f"\nflagged {len(flagged)} pairs, {right} planted: precision {right / max(1, len(flagged)):.2f}")
    said = collections.Counter(kinds[p] for p in flagged)
    print("precision by the kind flagged: " + ", ".join(
        f"{kind} {sum(kinds[p] == kind for p in flagged if p in truth)}/{n}" for kind, n in sorted(said.items())))
    print("false alarms: " + (", ".join(f"{why}: {n}" for why, n in alarms.most_common()) or "none"))
    if shown:
        text = lambda t, i: topics[t].fragments[i][1]  # noqa: E731
        for pair in sorted(flagged - set(truth), key=sorted):
            (t1, i1), (t2, i2) = sorted(pair)
            print(f"  false alarm, {why(pair)}: {text(t1, i1)!r} / {text(t2, i2)!r}")
    print(f"updates: {len(updates)} planted, {len(updates & updated)} recorded as updates, "
          f"{len(updates & flagged)} flagged as contradictions")
    print(f"recorded as updates, {len(updated)} pairs: {len(updated - updates)} not a planted update"
          + "".join(f"; {why}: {n}" for why, n in wrong_updates.most_common()))


if __name__ == "__main__":
    main()
