"""Turn-level evidence recall@k on LoCoMo through memlib's public API.

Every turn of a conversation becomes one `conversation` memory ("speaker: text", the session
date as created_at, the dia_id in metadata, TTL -1: an archive that does not expire) in a
project of its own; each question is searched within its conversation's project with the
default settings of each mode. recall@k is the share of a question's evidence turns among the
top k, averaged over questions (the paper's definition, see the README beside the data).
Evidence ids that name no turn are skipped, and so are questions left with no evidence.

    .venv/bin/python bench/locomo.py [--check] [--model DIR] [--data ../shared/bench/locomo/locomo10.json]

Conversations 0-4 are for tuning: each is a fold (a change is taken only if it raises R@10
with that conversation held out, on every fold). 5-9 are the check, measured with --check
only, once a change is decided. The data stays where it is (CC BY-NC): it is read from the
path, never copied.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memlib import Conversation, MemoryStore, Project, Scope
from memlib.search.search import SearchConfig

KS = (5, 10, 25, 50)
MODES = ("vector", "fts", "hybrid")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def stable_id(*parts: str) -> str:
    """A UUIDv4 made from `parts`: every run gives a turn the same id. Equal scores are
    ranked in id order, and full-text scores tie often, so random ids moved R@10 of one
    conversation by up to 2.8 points from run to run."""
    return str(uuid.UUID(bytes=hashlib.md5("/".join(parts).encode()).digest(), version=4))


SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")


def pieces(text: str, caption: str | None) -> list[str]:
    """A turn as a person sends it in a chat app: each sentence a message of its own, a photo
    a message after them (`--burst`)."""
    out = [p for p in SENTENCE.split(text.strip()) if p]
    return out + ([f"[shares a photo: {caption}]"] if caption else [])


def load(sample: dict, burst: bool = False, named: bool = True, default_ttl: bool = False,
         ends: datetime | None = None, sessions_apart: bool = True) -> tuple[Project, list[Conversation], list[dict]]:
    """A conversation's project, turns and questions. `burst`: every turn sent as several
    messages (its sentences, then its photo), as in real chats, where one speaker's bursts of
    short messages are the rule; a turn's evidence is found when one of its messages is.
    `default_ttl`: turns given no TTL (a conversation's default) rather than -1; `ends`: its
    sessions moved in time, keeping their spacing, so that the last one is then (a chat
    imported the day it ended). `sessions_apart`: each session an iteration of its own (else the
    whole conversation is one thread, as a writer who gives no iteration_id writes it)."""
    conv = sample["conversation"]
    project = Project(id=stable_id(sample["sample_id"]), name=f"locomo {sample['sample_id']}",
                      description=f"conversation between {conv['speaker_a']} and {conv['speaker_b']}")
    turns = []
    sessions = sorted(int(m.group(1)) for key in conv if (m := re.fullmatch(r"session_(\d+)", key)))
    times = {n: session_time(conv[f"session_{n}_date_time"]) for n in sessions}
    shift = ends - max(times.values()) if ends is not None else timedelta(0)
    for n in sessions:
        when = times[n] + shift
        for turn in conv[f"session_{n}"]:
            if burst:
                texts = pieces(turn["text"], turn.get("blip_caption"))
            else:
                texts = [turn["text"] + (f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")]
            for k, text in enumerate(texts):
                turns.append(Conversation(
                    id=stable_id(sample["sample_id"], turn["dia_id"], *([str(k)] if k else [])), project_id=project.id,
                    iteration_id=f"session_{n}" if sessions_apart else None, speaker=turn["speaker"],
                    content=f"{turn['speaker']}: {text}" if named else text,
                    **({} if default_ttl else {"ttl_days": -1}), source="import", created_at=when, updated_at=when,
                    metadata={"dia_id": turn["dia_id"]}))
    known = {t.metadata["dia_id"] for t in turns}
    questions = []
    for qa in sample["qa"]:
        evidence = {e.strip() for raw in qa.get("evidence", []) for e in raw.split(";")} & known
        if evidence:
            questions.append({"question": qa["question"], "evidence": evidence, "category": qa["category"]})
    return project, turns, questions


def writes(before: list, turns: list, singly: bool) -> list[list]:
    """The add() calls that write `before` (a project, or nothing) and then `turns`: one, or
    with `singly` one per turn, as an agent logging a chat or an import message by message
    writes them (the turns of a session share its time)."""
    return [*([before] if before else []), *([t] for t in turns)] if singly else [[*before, *turns]]


TUNING = range(0, 5)  # the only conversations any choice of memlib's search was made on
CHECK = range(5, 10)


def evaluate(data: list[dict], convs: list[int], store: MemoryStore, projects: dict[int, str],
             dia_of: dict[str, str]) -> dict[str, dict]:
    """Per mode: (conversation, category, {k: recall}) for every question, and the time."""
    results = {}
    for mode in MODES:
        per_q = []
        started = time.perf_counter()
        for i in convs:
            scope = Scope(project_id=projects[i], kinds=("conversation",))
            for q in data[i]["_questions"]:
                hits = store.search(q["question"], k=max(KS), mode=mode, scope=scope)
                ranked = [dia_of[h.memory.id] for h in hits]
                per_q.append((i, q["category"], {k: len(q["evidence"] & set(ranked[:k])) / len(q["evidence"])
                                                 for k in KS}))
        results[mode] = {"questions": per_q, "seconds": time.perf_counter() - started}
    results["plain cosine (baseline)"] = plain_cosine(data, convs, store, projects, dia_of)
    return results


def plain_cosine(data: list[dict], convs: list[int], store: MemoryStore, projects: dict[int, str],
                 dia_of: dict[str, str]) -> dict:
    """The baseline vector mode must reach: the store's model's cosine between the question
    and each turn's own words (its content alone, no context), exact, within the conversation."""
    import numpy as np

    per_q, started = [], time.perf_counter()
    for i in convs:
        rows = store.rows(f"project_id = '{projects[i]}' AND kind = 'conversation'", limit=100_000,
                          columns=["id", "content"])
        vectors = store.embedder.embed([r["content"] for r in rows])
        questions = data[i]["_questions"]
        asked = store.embedder.embed([q["question"] for q in questions])
        for q, v in zip(questions, asked):
            order = np.argsort(-(vectors @ v), kind="stable")[:max(KS)]
            ranked = [dia_of[rows[j]["id"]] for j in order]
            per_q.append((i, q["category"], {k: len(q["evidence"] & set(ranked[:k])) / len(q["evidence"])
                                             for k in KS}))
    return {"questions": per_q, "seconds": time.perf_counter() - started}


def _row(label: str, qs: list[tuple]) -> str:
    overall = [100 * sum(r[k] for _, _, r in qs) / len(qs) for k in KS]
    by_cat = collections.defaultdict(list)
    for _, cat, r in qs:
        by_cat[cat].append(r[10])
    cats = ", ".join(f"{100 * sum(by_cat[c]) / len(by_cat[c]):.1f}" if by_cat[c] else "-" for c in CATEGORIES)
    return f"| {label} | {len(qs)} | " + " | ".join(f"{x:.1f}" for x in overall) + f" | {cats} |"


def table(title: str, results: dict[str, dict], folds: bool) -> str:
    """Per mode, every conversation as a fold (leave that conversation out: the figure a
    change decided on the others must not lower), then all of them, then each category."""
    lines = [f"### {title}", "", "| mode, conversations | questions | " + " | ".join(f"R@{k}" for k in KS)
             + " | R@10 by category (" + ", ".join(CATEGORIES.values()) + ") |",
             "|---|---|" + "---|" * len(KS) + "---|"]
    for mode, res in results.items():
        qs = res["questions"]
        convs = sorted({c for c, _, _ in qs})
        if folds:
            lines += [_row(f"{mode}, fold {c} (conversation {c} held out)", [q for q in qs if q[0] == c])
                      for c in convs]
        lines.append(_row(f"**{mode}, {convs[0]}-{convs[-1]}** ({1000 * res['seconds'] / len(qs):.0f} ms/query)", qs))
        lines += [_row(f"{mode}, {convs[0]}-{convs[-1]}, {name} only", [q for q in qs if q[1] == c])
                  for c, name in CATEGORIES.items() if any(q[1] == c for q in qs)]
    return "\n".join(lines)


def search_settings(values: list[str]) -> SearchConfig | None:
    """`--search KEY=VALUE` options as the settings a store is created with (None: the default)."""
    return SearchConfig.model_validate(dict(v.split("=", 1) for v in values)) if values else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "bench"
                                              / "locomo" / "locomo10.json"))
    parser.add_argument("--check", action="store_true",
                        help="also measure conversations 5-9, the check (look once, at the end)")
    parser.add_argument("--burst", action="store_true",
                        help="every turn sent as several messages (its sentences, then its photo), as in real chats")
    parser.add_argument("--singly", action="store_true", help="each turn written by an add() of its own (writes())")
    parser.add_argument("--unnamed", action="store_true",
                        help="a turn's content is its words alone, the speaker only in its speaker field (as a "
                             "harness that maps LoCoMo's text to content writes it)")
    parser.add_argument("--default-ttl", action="store_true",
                        help="turns written with no TTL (a conversation's default, 30 days) instead of -1, as a "
                             "harness that leaves it out writes them")
    parser.add_argument("--recent", action="store_true",
                        help="each conversation's sessions moved in time so that its last one is today (a chat "
                             "imported the day it ended; its spacing kept)")
    parser.add_argument("--one-thread", action="store_true",
                        help="no iteration_id: a conversation's sessions are one thread (a writer who gives none)")
    parser.add_argument("--no-maintain", action="store_true",
                        help="search the store as written, never maintained (a harness that only adds and searches)")
    parser.add_argument("--model", help="an embedder's name (memlib.embeddings.NAMED: minilm, minilm-int8) or "
                                        "a sentence-transformers model directory (default: a new store's default)")
    parser.add_argument("--search", action="append", default=[], metavar="KEY=VALUE",
                        help="a search setting the store is created with (SearchConfig), as in 'memlib init "
                             "--search'; e.g. tokenizer=simple")
    args = parser.parse_args()
    search = search_settings(args.search)
    data = json.loads(Path(args.data).read_text())
    embedder = None
    if args.model:
        from memlib.embeddings import named

        embedder = named(args.model)
    convs = [*TUNING, *CHECK] if args.check else list(TUNING)
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(tmp, embedder=embedder, search=search)
        projects, dia_of = {}, {}
        started = time.perf_counter()
        ends = datetime.now(timezone.utc) if args.recent else None
        for i in convs:
            project, turns, questions = load(data[i], burst=args.burst, named=not args.unnamed,
                                             default_ttl=args.default_ttl, ends=ends,
                                             sessions_apart=not args.one_thread)
            for batch in writes([project], turns, args.singly):
                store.add(batch)
            projects[i] = project.id
            dia_of.update({t.id: t.metadata["dia_id"] for t in turns})
            data[i]["_questions"] = questions
        if not args.no_maintain:
            store.maintain()  # as a user's store would be: compacted, every row in the full-text index
        print(f"ingested {len(dia_of):,} turns of {len(convs)} conversations in "
              f"{time.perf_counter() - started:.0f} s, maintain "
              f"{'not run' if args.no_maintain else 'included'} ({store.model_name}, "
              f"{store.tokenizer} words)\n")
        print(f"seen during tuning: conversations {TUNING[0]}-{TUNING[-1]} (every choice of the search "
              f"was decided on them, fold by fold); conversations {CHECK[0]}-{CHECK[-1]} were not "
              f"looked at while tuning" + ("" if args.check else " and are not measured without --check") + "\n")
        print(table(f"conversations {TUNING[0]}-{TUNING[-1]} (tuning; each fold leaves one out)",
                    evaluate(data, list(TUNING), store, projects, dia_of), folds=True) + "\n", flush=True)
        if args.check:
            print(table(f"conversations {CHECK[0]}-{CHECK[-1]} (check)",
                        evaluate(data, list(CHECK), store, projects, dia_of), folds=False) + "\n", flush=True)


if __name__ == "__main__":
    main()
