"""Clustering and contradiction detection on hand-written fragments (sets/, read by fragments.py), through
memlib's public API with the store's real model: every fragment is added to a fresh store's
Consensus in an interleaved order (agents report on many topics at once), then

- clustering: completeness, topics kept whole (largest cluster >= 80% of the topic), purity;
- contradictions per kind, found within memlib's clusters and within the true topics: recall,
  precision, and the false alarms by what they separated (updates, hard negatives, other);
  and how many planted pairs of each kind clustering put apart (none can be found then), and
  of those how many the lexicon's cannot-link kept apart.

    .venv/bin/python bench/judgement/run.py [--split dev|check|all|fresh|everything|unseen|whole|later|aside|novel|spare|last|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first, or several joined by +: pooled in one store] [--once] [--model NAME|DIR]
        [--batch N] [--arrival interleaved|topic|agent] [--untimed | --one-time] [--random-ids]

`--model NAME|DIR`: the store embeds with that named embedder (minilm, minilm-int8-rows-zh ...) or that
sentence-transformers model (a local folder, such
as all-mpnet-base-v2 unpacked from its PyPI parts) instead of the default.

`dev` topics are what methods are built on; `check` topics are read only to report a figure
once a method is decided (see sets/README.md).
"""

from __future__ import annotations

import argparse
import collections
import functools
import random
import sys
import tempfile
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import score  # noqa: E402
from fragments import FRESH, TOPICS, WRITTEN_LATER  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.consensus import Consensus, conflicts  # noqa: E402

T0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
SPLITS = ("dev", "check", "all", "fresh", "everything", "whole", *WRITTEN_LATER)


def order(topics, arrival: str = "interleaved") -> list[tuple[int, int]]:
    """Every (topic, fragment), interleaved as several agents report at once (or, with
    `arrival`, "topic": a topic's fragments one after another; "agent": each agent's reports
    together, agents in the order they first report): a topic's own fragments stay in their
    order (an update comes after what it updates)."""
    rng = random.Random(11)
    queues = [[(t, i) for i in range(len(topic.fragments))] for t, topic in enumerate(topics)]
    if arrival == "topic":
        return [key for queue in queues for key in queue]
    out = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        out.append(queue.pop(0))
    if arrival == "agent":
        agents = list(dict.fromkeys(topics[t].fragments[i][0] for t, i in out))
        return sorted(out, key=lambda key: agents.index(topics[key[0]].fragments[key[1]][0]))  # stable
    return out


def run(topics, store: MemoryStore) -> tuple[dict, score.Tally, score.Tally]:
    consensus = Consensus(store)
    pointer = consensus.register_input(b"hand-written fragments")
    sequence = order(topics, arguments().arrival)
    stamp = {"timed": lambda n: {"timestamp": T0 + timedelta(minutes=7 * n)},  # the n-th to arrive
             "one-time": lambda n: {"timestamp": T0}, "untimed": lambda n: {}}[arguments().when]
    rng = random.Random(5)  # --random-ids: ids as Fragment's default makes them (uuid4), fixed per run
    name = {key: (str(uuid.UUID(int=rng.getrandbits(128), version=4)) if arguments().random_ids
                  else f"t{key[0]}-f{key[1]}") for key in sequence}
    key_of = {fragment_id: key for key, fragment_id in name.items()}
    fragments = [{"fragment_id": name[(t, i)], "content": topics[t].fragments[i][1],
                  "source_agent": topics[t].fragments[i][0], "trace_pointer": pointer,
                  **stamp(n)} for n, (t, i) in enumerate(sequence)]
    batch = arguments().batch or len(fragments)
    for start in range(0, len(fragments), batch):  # reports arrive in batches
        consensus.add(fragments[start:start + batch])
    placed = {}  # where each fragment is once all are in (a later batch may regroup an earlier one's)
    for cluster in consensus.clusters():
        for fragment_id in cluster.fragment_ids:
            placed[key_of[fragment_id]] = cluster.cluster_id
    clusters: dict[str, list[tuple[int, int]]] = {}
    for key, cluster_id in placed.items():
        clusters.setdefault(cluster_id, []).append(key)
    clusterer = consensus._load()
    lexicon = clusterer.lexicon
    apart = collections.Counter()  # kind -> planted pairs in two clusters; (kind, "distinct") -> by cannot-link
    for t, topic in enumerate(topics):
        for i, j, kind in topic.contradictions:
            a, b = clusterer.members[name[(t, i)]], clusterer.members[name[(t, j)]]
            if placed[(t, i)] != placed[(t, j)]:
                apart[kind] += 1
                apart[(kind, "distinct")] += lexicon.distinct(a.words, b.words)

    return (score.clustering(placed) | {"apart": apart},
            score.contradictions(topics, list(clusters.values()), detector(lexicon)), within_topics(topics, lexicon))


def detector(lexicon):
    """`score.contradictions`' detect: `conflicts.find` on a group's texts, equal weights."""
    def detect(texts):
        return [(f.kind, f.a, f.b) for f in conflicts.find(texts, [1.0] * len(texts), lexicon)]
    return detect


def within_topics(topics, lexicon) -> score.Tally:
    """Contradictions found comparing each true topic's fragments among themselves."""
    by_topic = [[(t, i) for i in range(len(topic.fragments))] for t, topic in enumerate(topics)]
    return score.contradictions(topics, by_topic, detector(lexicon))


def report(name: str, clustered: dict, within_clusters: score.Tally, within_topics: score.Tally) -> str:
    lines = [f"### {name}", "",
             f"clustering: {clustered['fragments']} fragments, {clustered['topics']} topics -> "
             f"{clustered['clusters']} clusters; completeness {clustered['completeness']:.3f}, "
             f"topics kept whole {clustered['kept_whole']:.3f}, purity {clustered['purity']:.3f}", "",
             "| compared within | kind | planted | found | recall | reported | precision |",
             "|---|---|---|---|---|---|---|"]
    for label, tally in (("memlib's clusters", within_clusters), ("the true topics", within_topics)):
        for kind, planted, found, recall, reported, precision in tally.rows():
            lines.append(f"| {label} | {kind} | {planted} | {found} | {recall:.2f} | {reported} | {precision:.2f} |")
    apart = clustered["apart"]
    lines += ["", "planted pairs clustering put apart: " + ", ".join(
        f"{kind} {apart[kind]} (cannot-link {apart[(kind, 'distinct')]})" for kind in score.KINDS)]
    alarms = within_topics.alarms
    if alarms:
        lines += ["", "false alarms within the true topics: " + ", ".join(
            f"{kind} on {why}: {n}" for (kind, why), n in sorted(alarms.items()))]
    return "\n".join(lines)


@functools.cache  # read by chosen() and open_store(): parsed once
def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", type=split_name, default="dev", metavar="SPLIT[+SPLIT...]",
                        help=f"one of {', '.join(SPLITS)}; several joined by '+' are pooled in one store, as a "
                             "team's store holds every topic at once (the held-out sets' shape)")
    parser.add_argument("--once", action="store_true",
                        help="each subject once: a topic named as an earlier topic of the pool is left out (the "
                             "held-out sets have 60 distinct topics; the sets here repeat some subjects)")
    parser.add_argument("--model", help="an embedder's name (memlib.embeddings.NAMED) or a local sentence-transformers "
                        "model folder (default: the store's default)")
    parser.add_argument("--batch", type=int, default=25,
                        help="fragments per Consensus.add (default 25; 1: one at a time; 0: all in one)")
    parser.add_argument("--arrival", choices=("interleaved", "topic", "agent"), default="interleaved",
                        help="the order reports arrive in (default: agents reporting on many topics at once)")
    parser.add_argument("--random-ids", action="store_true",
                        help="fragment ids as Fragment's default makes them (random), not t<topic>-f<n>")
    times = parser.add_mutually_exclusive_group()
    times.add_argument("--untimed", dest="when", action="store_const", const="untimed", default="timed",
                       help="fragments given no timestamp (Consensus.add stamps them when they arrive)")
    times.add_argument("--one-time", dest="when", action="store_const", const="one-time",
                       help="every fragment given one and the same timestamp (a report's date on each line)")
    return parser.parse_args()


def open_store(folder: str, **options) -> MemoryStore:
    """A new store in `folder`, embedding with the model --model names, if any."""
    model = arguments().model
    if model:
        from memlib.embeddings import named
        options["embedder"] = named(model)
    return MemoryStore.open(str(Path(folder) / "store"), **options)


def chosen() -> tuple[str, list]:
    """The split named by --split and its topics (topics_of)."""
    split = arguments().split
    topics = topics_of(split)
    if arguments().once:
        named = {}
        for topic in topics:
            named.setdefault(topic.name.casefold(), topic)
        topics = list(named.values())
    return split, topics


def split_name(value: str) -> str:
    """`value` if it names a split or a pool of splits ("ninth+tenth"), for argparse."""
    unknown = [part for part in value.split("+") if part not in SPLITS]
    if unknown:
        raise argparse.ArgumentTypeError(f"no split {unknown[0]!r} (one of {', '.join(SPLITS)}, or several joined by '+')")
    return value


def topics_of(split: str) -> list:
    """A split's topics: dev, check, all (the 40 of both), fresh (the 16 written after the
    clustering was chosen), everything (those 56 in one store), unseen (the 19 written on
    2026-11-26, see sets/README.md), whole (all 75 in one store), later (the 21 written on
    2026-11-27), aside (the 25 written after LATER was read), novel (the 20 written after
    ASIDE was read), spare (the 26 written after NOVEL was read), last (the 26 written
    after SPARE was run), eighth (the 18 written after the scoped false alarms were read),
    ninth (the 17 written after EIGHTH was run, 2026-11-28), tenth (the 21 written after the
    bound rule was built, 2026-11-28), eleventh (the 20 written before the fifteenth session's
    rules, 2026-11-28), twelfth (the 20 written before the sixteenth session's rules,
    2026-11-29), thirteenth (the 14 of five fragments written before the seventeenth session's
    rules, 2026-11-29), fourteenth (the 14 of five written before the eighteenth session's
    rules, 2026-11-29), fifteenth (the 14 of five written after them, 2026-11-29) or
    sixteenth (the 14 of five written before the nineteenth session's rules, 2026-11-29), seventeenth
    (the 14 of five written after them, 2026-11-29), eighteenth (the 14 of five written after
    the twentieth session's first rule, 2026-11-29), nineteenth (the 14 of five written after
    its rules, 2026-11-29), twentieth (the 14 of five written before the twenty-first session's
    reader changes, 2026-11-29) or twenty-first (the 14 of five written after them). Splits joined by "+" are pooled: every topic of each, in that order."""
    if "+" in split:
        return [topic for part in split.split("+") for topic in topics_of(part)]
    if split in WRITTEN_LATER:
        return WRITTEN_LATER[split]
    if split in ("fresh", "everything", "whole"):
        return (TOPICS if split != "fresh" else []) + FRESH + (WRITTEN_LATER["unseen"] if split == "whole" else [])
    return [t for t in TOPICS if split == "all" or t.split == split]


def main() -> None:
    split, topics = chosen()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        print(report(f"hand-written fragments, {split} topics", *run(topics, store)))


if __name__ == "__main__":
    main()
