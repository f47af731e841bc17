"""Turn-level evidence recall@k on LoCoMo through memlib's public API.

Every turn of a conversation becomes one `conversation` memory ("speaker: text", the session
date as created_at, the dia_id in metadata, TTL -1: an archive that does not expire) in a
project of its own; each question is searched within its conversation's project with the
default settings of each mode. recall@k is the share of a question's evidence turns among the
top k, averaged over questions (the paper's definition, see the README beside the data).
Evidence ids that name no turn are skipped, and so are questions left with no evidence.

    .venv/bin/python bench/locomo.py [--data ../shared/bench/locomo/locomo10.json]

Conversations 0-4 are for tuning, 5-9 the check; both are printed. The data stays where it
is (CC BY-NC): it is read from the path, never copied.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from memlib import Conversation, MemoryStore, Project, Scope

KS = (5, 10, 25, 50)
MODES = ("vector", "fts", "hybrid")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def load(sample: dict) -> tuple[Project, list[Conversation], list[dict]]:
    conv = sample["conversation"]
    project = Project(name=f"locomo {sample['sample_id']}",
                      description=f"conversation between {conv['speaker_a']} and {conv['speaker_b']}")
    turns = []
    sessions = sorted(int(m.group(1)) for key in conv if (m := re.fullmatch(r"session_(\d+)", key)))
    for n in sessions:
        when = session_time(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            text = turn["text"] + (f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")
            turns.append(Conversation(
                project_id=project.id, iteration_id=f"session_{n}", speaker=turn["speaker"],
                content=f"{turn['speaker']}: {text}", ttl_days=-1, source="import",
                created_at=when, updated_at=when, metadata={"dia_id": turn["dia_id"]}))
    known = {t.metadata["dia_id"] for t in turns}
    questions = []
    for qa in sample["qa"]:
        evidence = {e.strip() for raw in qa.get("evidence", []) for e in raw.split(";")} & known
        if evidence:
            questions.append({"question": qa["question"], "evidence": evidence, "category": qa["category"]})
    return project, turns, questions


def evaluate(data: list[dict], convs: list[int], store: MemoryStore, projects: dict[int, str],
             dia_of: dict[str, str]) -> dict[str, dict]:
    results = {}
    for mode in MODES:
        per_q = []
        started = time.perf_counter()
        for i in convs:
            for q in data[i]["_questions"]:
                scope = Scope(project_id=projects[i], kinds=("conversation",))
                hits = store.search(q["question"], k=max(KS), mode=mode, scope=scope)
                ranked = [dia_of[h.memory.id] for h in hits]
                per_q.append((q["category"], {k: len(q["evidence"] & set(ranked[:k])) / len(q["evidence"])
                                              for k in KS}))
        results[mode] = {"questions": per_q, "seconds": time.perf_counter() - started}
    return results


def table(title: str, results: dict[str, dict]) -> str:
    lines = [f"### {title}", "", "| mode | questions | " + " | ".join(f"R@{k}" for k in KS)
             + " | R@10 by category (" + ", ".join(CATEGORIES.values()) + ") | ms/query |",
             "|---|---|" + "---|" * len(KS) + "---|---|"]
    for mode, res in results.items():
        qs = res["questions"]
        overall = [100 * sum(r[k] for _, r in qs) / len(qs) for k in KS]
        by_cat = collections.defaultdict(list)
        for cat, r in qs:
            by_cat[cat].append(r[10])
        cats = ", ".join(f"{100 * sum(v) / len(v):.1f}" for c, v in sorted(by_cat.items()))
        lines.append(f"| {mode} | {len(qs)} | " + " | ".join(f"{x:.1f}" for x in overall)
                     + f" | {cats} | {1000 * res['seconds'] / len(qs):.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "bench"
                                              / "locomo" / "locomo10.json"))
    args = parser.parse_args()
    data = json.loads(Path(args.data).read_text())
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(tmp)
        projects, dia_of = {}, {}
        started = time.perf_counter()
        for i, sample in enumerate(data):
            project, turns, questions = load(sample)
            store.add([project, *turns])
            projects[i] = project.id
            dia_of.update({t.id: t.metadata["dia_id"] for t in turns})
            sample["_questions"] = questions
        print(f"ingested {len(dia_of):,} turns of {len(data)} conversations in "
              f"{time.perf_counter() - started:.0f} s ({store.model_name})\n")
        for title, convs in (("conversations 0-4 (tuning)", range(0, 5)), ("conversations 5-9 (check)", range(5, 10))):
            print(table(title, evaluate(data, list(convs), store, projects, dia_of)) + "\n", flush=True)


if __name__ == "__main__":
    main()
