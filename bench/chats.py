"""Turn-level evidence recall@k on chats written by hand as people text (`bench/chats/`), the
same measure as `bench/locomo.py` and through the same code, on text memlib was never tuned
on: short messages, one speaker's bursts, replies that name nothing, questions that say it in
other words than the turn that answers.

Each file is one chat: a `# description` line, then `@ YYYY-MM-DD HH:MM` opening each
session, `Speaker: text` for each message (a `{tag}` at its end names it as evidence), and
questions as `Q<category>: question = tag, tag` (categories as LoCoMo's: 1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop).

    .venv/bin/python bench/chats.py [--check] [--later] [--pooled] [--model NAME] [--search KEY=VALUE ...]

`--pooled`: every chat in one project, each question searched among all chats' messages (the
others are distractors, as a long history's other weeks are); threads stay apart.

DEV chats may be read to find what memlib misses; ASIDE chats are measured with --check only,
once a change is decided, and LATER chats with --later. All were written on 2026-11-27: the
first two of DEV and ASIDE before any chat was run; the last two of DEV and LATER after
ASIDE had checked one change (search/chatter.py), and before any of them was run.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import locomo  # noqa: E402

from memlib import MemoryStore  # noqa: E402

HERE = Path(__file__).parent / "chats"
DEV = ("maya-jon", "team", "nina-omar", "dana-assistant")
ASIDE = ("rosa-luis", "kit-sam")
LATER = ("june-tariq", "ops")
_SESSION = re.compile(r"@ (\d{4}-\d{2}-\d{2} \d{2}:\d{2})$")
_QUESTION = re.compile(r"Q([1-4]): (.+?) = (.+)$")
_MESSAGE = re.compile(r"([A-Z][\w ]*?): (.+?)(?: \{(\w+)\})?$")


def parse(path: Path) -> dict:
    """A chat file as a LoCoMo sample (conversation, sessions, qa), so locomo.load reads it."""
    conversation: dict = {}
    qa, tags, speakers, session = [], {}, [], 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if m := _SESSION.match(line):
            session += 1
            when = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M")
            conversation[f"session_{session}_date_time"] = when.strftime("%I:%M %p on %d %B, %Y")
            conversation[f"session_{session}"] = []
        elif m := _QUESTION.match(line):
            wanted = [t.strip() for t in m.group(3).split(",")]
            unknown = [t for t in wanted if t not in tags]
            if unknown:
                raise SystemExit(f"{path.name}:{number}: no message is tagged {', '.join(unknown)}")
            qa.append({"question": m.group(2), "evidence": [tags[t] for t in wanted], "category": int(m.group(1))})
        elif (m := _MESSAGE.match(line)) and session:
            turns = conversation[f"session_{session}"]
            dia_id = f"D{session}:{len(turns) + 1}"
            turns.append({"speaker": m.group(1), "dia_id": dia_id, "text": m.group(2)})
            if m.group(3):
                tags[m.group(3)] = dia_id
            if m.group(1) not in speakers:
                speakers.append(m.group(1))
        else:
            raise SystemExit(f"{path.name}:{number}: not a session, a message or a question: {line!r}")
    conversation["speaker_a"], conversation["speaker_b"] = speakers[0], speakers[1]
    return {"sample_id": f"chat-{path.stem}", "conversation": conversation, "qa": qa}


def ingest(store: MemoryStore, data: list[dict], pooled: bool, singly: bool = False,
           named: bool = True) -> tuple[dict[int, str], dict[str, str]]:
    """Each chat into the store, in a project of its own or (`pooled`) all in the first one's
    with their threads kept apart and their dia ids made unique. Returns (chat -> project id,
    memory id -> dia id); the questions go into each chat's "_questions". `singly`: one add()
    a message (locomo.writes). `named`: as locomo.load."""
    projects, dia_of = {}, {}
    for i, sample in enumerate(data):
        project, turns, questions = locomo.load(sample, named=named)
        joins = pooled and bool(projects)  # a chat after the first, into the first one's project
        if pooled:  # dia ids made unique across chats; a joining chat's threads kept apart
            moved = lambda t: {"project_id": projects[0], "iteration_id": f"{i}-{t.iteration_id}"} if joins else {}  # noqa: E731
            turns = [t.model_copy(update={"metadata": {"dia_id": f"{i}/{t.metadata['dia_id']}"}, **moved(t)})
                     for t in turns]
            questions = [{**q, "evidence": {f"{i}/{e}" for e in q["evidence"]}} for q in questions]
        for batch in locomo.writes([] if joins else [project], turns, singly):
            store.add(batch)
        projects[i] = projects[0] if joins else project.id
        dia_of.update({t.id: t.metadata["dia_id"] for t in turns})
        sample["_questions"] = questions
    return projects, dia_of


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="also measure the chats kept aside (look once)")
    parser.add_argument("--later", action="store_true", help="also measure the chats written later (look once)")
    parser.add_argument("--pooled", action="store_true", help="all chats in one project, the others distractors")
    parser.add_argument("--singly", action="store_true", help="one add() a message, as bench/locomo.py --singly")
    parser.add_argument("--unnamed", action="store_true", help="a message's content without its speaker's name, "
                                                                "as bench/locomo.py --unnamed")
    parser.add_argument("--model", help="an embedder's name (memlib.embeddings.NAMED) or a model directory")
    parser.add_argument("--search", action="append", default=[], metavar="KEY=VALUE",
                        help="a search setting the store is created with (SearchConfig), as in bench/locomo.py")
    args = parser.parse_args()
    names = [*DEV, *(ASIDE if args.check else ()), *(LATER if args.later else ())]
    data = [parse(HERE / f"{name}.txt") for name in names]
    embedder = None
    if args.model:
        from memlib.embeddings import named

        embedder = named(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(tmp, embedder=embedder, search=locomo.search_settings(args.search))
        started = time.perf_counter()
        projects, dia_of = ingest(store, data, args.pooled, args.singly, named=not args.unnamed)
        store.maintain()
        print(f"ingested {len(dia_of):,} messages of {len(data)} chats in {time.perf_counter() - started:.0f} s "
              f"({store.model_name}{', pooled in one project' if args.pooled else ''})\n")
        print("folds: " + ", ".join(f"{i} is {name}" for i, name in enumerate(names)) + "\n")
        for split, title in ((DEV, "dev; each fold is one chat"), (ASIDE, "aside"), (LATER, "written later")):
            chosen = [i for i, name in enumerate(names) if name in split]
            if chosen:
                print(locomo.table(f"chats {', '.join(split)} ({title})",
                                   locomo.evaluate(data, chosen, store, projects, dia_of), folds=True) + "\n",
                      flush=True)


if __name__ == "__main__":
    main()
