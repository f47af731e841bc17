"""Judgement off the write path: a write flags no contradiction; the store's judge reads what
it has not read, each memory once per judge, each pair once, across a kill -9 mid-read,
two readers at once and a reembed; judges by name (rules, none, nli:DIR with a real
CrossEncoder the test builds) recorded by the store; `memlib screen` and what it refuses."""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from memlib import Insight, InvalidInput, MemoryStore, Project
from memlib.embeddings import HashEmbedder
from memlib.errors import StoreError
from memlib.judges import judge_for, reading
from tests.test_cli import fails, run

PAIRS = [("The cache TTL is 300 seconds.", "The cache TTL is 60 seconds."),
         ("Deploys go out on Fridays.", "Deploys never go out on Fridays."),
         ("The frontend uses React.", "The frontend uses Vue."),
         ("Logs are kept for 30 days.", "As of March, logs are kept for 90 days.")]


def events(store, action: str) -> list[dict]:
    store.refresh()
    return store.audit.events(f"action = '{action}'")


@pytest.fixture
def written(tmp_path):
    """A project whose memories disagree in pairs, plus unrelated ones, written one by one."""
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    p = Project(name="shop")
    store.add([p])
    for old, new in PAIRS:
        store.add([Insight(project_id=p.id, content=old)])
        store.add([Insight(project_id=p.id, content=new)])
    store.add([Insight(project_id=p.id, content=f"The {w} worker drains the {q} queue")
               for w in ("blue", "green", "red") for q in ("mail", "sms")])
    return store, p


def pairs_found(store) -> collections.Counter:
    """Each recorded pair (its kind, its two texts), counted once per time it was recorded."""
    texts = {r["id"]: r["text"] for r in store.dataset().to_table(columns=["id", "text"]).to_pylist()}
    found = collections.Counter()
    for e in events(store, "contradiction"):
        if e["subject_id"] == e["details"]["newer"]:
            found[(e["details"]["kind"], frozenset((texts[e["subject_id"]], texts[e["details"]["with"]])))] += 1
    for e in events(store, "update"):
        found[("update", frozenset((texts[e["subject_id"]], texts[e["details"]["of"]])))] += 1
    return found


def test_a_write_flags_nothing_and_the_judge_reads_each_memory_once(written):
    store, p = written
    assert events(store, "contradiction") == [] and events(store, "update") == []
    assert store.unread() == 14 and store.disagreements() == []
    done = store.read_unread()
    assert done["read"] == 14 and store.unread() == 0
    found = pairs_found(store)
    assert found[("value", frozenset(PAIRS[0]))] == 1 and found[("negation", frozenset(PAIRS[1]))] == 1
    assert found[("choice", frozenset(PAIRS[2]))] == 1 and found[("update", frozenset(PAIRS[3]))] == 1
    assert max(found.values()) == 1
    assert done["contradictions"] == sum(n for (kind, _), n in found.items() if kind != "update")
    judged = [e["subject_id"] for e in events(store, "judged")]
    assert len(judged) == len(set(judged)) == 14 and {e["actor"] for e in events(store, "judged")} == {"rules"}
    assert store.read_unread()["read"] == 0 and pairs_found(store) == found  # nothing read twice
    (new,) = store.add([Insight(project_id=p.id, content="The cache TTL is 120 seconds.")])
    assert store.unread() == 1 and store.unread([new]) == 1 and store.unread([new, *judged[:2]]) == 1
    assert store.read_unread()["read"] == 1
    assert {tuple(sorted(store.get(i).text for i in d["ids"])) for d in store.disagreements([new])} >= {
        ("The cache TTL is 120 seconds.", "The cache TTL is 300 seconds.")}


def test_a_reading_killed_mid_way_loses_nothing_and_reads_nothing_twice(written, tmp_path):
    store, _ = written
    shutil.copytree(store.uri, tmp_path / "whole")  # the same store, read without a kill
    whole = MemoryStore.open(str(tmp_path / "whole"), embedder=HashEmbedder())
    whole.read_unread()
    child = textwrap.dedent(f"""
        import os
        from memlib import MemoryStore
        from memlib.embeddings import HashEmbedder
        from memlib.judges import reading
        from memlib.judges.rules import RulesJudge
        reading.CHUNK = 4
        calls = []
        class Dying(RulesJudge):
            def read(self, items):
                calls.append(1)
                if len(calls) == 3:
                    os.kill(os.getpid(), 9)  # mid-read: two chunks committed, the third not
                return super().read(items)
        store = MemoryStore.open({store.uri!r}, embedder=HashEmbedder())
        reading.read(store, Dying())
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert store.unread() == 14 - 8
    assert store.read_unread()["read"] == 6 and store.unread() == 0
    judged = [e["subject_id"] for e in events(store, "judged")]
    assert len(judged) == len(set(judged)) == 14
    assert pairs_found(store) == pairs_found(whole)  # as one reading uninterrupted found them


def test_two_readers_at_once_read_each_memory_once(written):
    store, _ = written
    code = ("import sys; from memlib import MemoryStore; from memlib.embeddings import HashEmbedder; "
            "import json; s = MemoryStore.open(sys.argv[1], embedder=HashEmbedder()); "
            "print(json.dumps(s.read_unread(wait=sys.argv[2] == 'wait')))")
    procs = [subprocess.Popen([sys.executable, "-c", code, store.uri, how], stdout=subprocess.PIPE, text=True)
             for how in ("wait", "try", "wait")]
    outs = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert sum(o["read"] for o in outs) == 14
    judged = [e["subject_id"] for e in events(store, "judged")]
    assert len(judged) == len(set(judged)) == 14 and max(pairs_found(store).values()) == 1


def test_a_reembedded_store_is_not_read_again(written):
    from memlib.lifecycle import reembed

    store, _ = written
    store.read_unread()
    before = pairs_found(store)

    class Mirrored(HashEmbedder):  # another model of the same dimensions
        def __init__(self):
            super().__init__()
            self.name = "mirrored-hash"

        def embed(self, texts):
            return super().embed(texts)[:, ::-1].copy()

    moved = reembed.reembed(store, Mirrored())
    assert store.embedder.name == "mirrored-hash" and moved.memories >= 14
    assert store.unread() == 0 and store.read_unread()["read"] == 0 and pairs_found(store) == before


def test_judges_by_name_and_the_one_a_store_records(written, tmp_path):
    store, p = written
    assert store.judge.spec == "rules" and json.loads(store.meta()["memlib.judge"]) == {"judge": "rules"}
    store.read_unread()
    flagged = store.disagreements()
    assert len(flagged) >= 3
    store.use_judge("none")
    assert store.judge.spec == "none" and store.unread() == 14  # a new judge has read nothing
    assert store.disagreements() == []  # the rules' findings are history, not the none judge's
    assert store.read_unread()["read"] == 14 and store.disagreements() == [] and store.unread() == 0
    again = MemoryStore.open(store.uri)
    assert again.judge.spec == "none"
    with pytest.raises(StoreError, match="screen --all --judge rules"):
        MemoryStore.open(store.uri, judge="rules")
    store.use_judge("rules")
    assert store.disagreements() == flagged and store.unread() == 0  # its own reading stands
    done = store.read_unread(everything=True)
    assert done["read"] == 14 and done["contradictions"] == 0 and store.disagreements() == flagged
    for bad, says in (("nope", "no judge 'nope'"), ("none:x", "takes no model"), ("nli", "needs a model"),
                      ("rules:x", "takes no model")):
        with pytest.raises(InvalidInput, match=says):
            judge_for(bad)
    with pytest.raises(InvalidInput, match="probability"):
        judge_for("nli:somewhere", threshold=1.5)
    fresh = MemoryStore.open(str(tmp_path / "none"), embedder=HashEmbedder(), judge="none")
    assert fresh.judge.spec == "none"


def test_the_cli_screens_and_refuses_in_one_line(written):
    store, p = written
    assert "14 memories not read for contradictions yet" in run("contradictions", store=store.uri).stdout
    listed = json.loads(run("contradictions", "--json", store=store.uri).stdout)
    assert listed == {"pairs": [], "unread": 14}
    proc = run("screen", store=store.uri)
    out = json.loads(proc.stdout)
    assert out["read"] == 14 and out["unread"] == 0 and out["judge"] == "rules"
    assert "reading" not in proc.stderr  # the progress bar stays quiet off a terminal
    listed = json.loads(run("contradictions", "--json", store=store.uri).stdout)
    store.refresh()
    assert listed["unread"] == 0 and listed["pairs"] == json.loads(json.dumps(store.disagreements(), default=str))
    assert "no judge 'fuzzy'" in fails("screen", "--judge", "fuzzy", store=store.uri)
    assert "--threshold is the nli judge's" in fails("screen", "--threshold", "0.5", store=store.uri)
    assert "cannot load the NLI model" in fails("screen", "--judge", f"nli:{store.uri}/nothing-here", store=store.uri)
    assert MemoryStore.open(store.uri).judge.spec == "rules"  # nothing was recorded by the refusals
    assert json.loads(run("screen", "--judge", "none", store=store.uri).stdout)["judge"] == "none"


def test_the_rules_judge_reads_without_the_parser_and_flags_what_only_it_tells_apart(monkeypatch):
    """The parser is an extra: without it the judge still reads, and two statements said of
    two things of one kind are flagged, which the parser tells apart."""
    import importlib.metadata

    from memlib.consensus import subjects
    from memlib.judges import Option

    older = Option("a", "Python code is formatted with Black.", 0, 0.8)
    value = Option("b", "Python code is formatted at 88 columns.", 0, 0.8)
    judge = judge_for("rules")

    def said(text: str, option: Option) -> list[str]:
        (found,) = judge.read([(text, [option])])
        return [kind for _, kind in found]

    assert subjects.available()
    assert said("Frontend code is formatted with Prettier.", older) == []
    assert said("Python code is formatted at 100 columns.", value) == ["value"]
    monkeypatch.setattr(subjects, "available", lambda: False)
    assert said("Frontend code is formatted with Prettier.", older) == ["choice"]
    assert said("Python code is formatted at 100 columns.", value) == ["value"]
    needs = [r for r in importlib.metadata.requires("memlib") if r.split()[0].lower().startswith(("spacy", "en-core"))]
    assert needs and all('extra == "parser"' in r for r in needs)  # not in the core install


def test_maintain_reads_what_was_not_read(written):
    store, _ = written
    assert store.maintain()["read"]["read"] == 14 and store.unread() == 0


# -- the nli judge, on a real CrossEncoder built here ------------------------------------------

WORDS = "the cache ttl is 300 60 seconds deploys go out on fridays never frontend uses react vue".split()


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    """A tiny BERT cross-encoder with NLI labels, saved as a model directory is downloaded."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-nli")
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "."]) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    config = BertConfig(vocab_size=len(WORDS) + 6, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=3, id2label=labels,
                        label2id={v: k for k, v in labels.items()})
    torch.manual_seed(3)
    model = BertForSequenceClassification(config)
    with torch.no_grad():  # scores spread wide enough for a threshold between them to matter
        model.classifier.weight.mul_(40)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def independent(folder, pairs: list[tuple[str, str]]) -> np.ndarray:
    """The contradiction probability of each (premise, hypothesis), through transformers alone."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        batch = tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True, return_tensors="pt")
        return torch.softmax(model(**batch).logits, dim=1)[:, 0].numpy()


def test_the_nli_judge_flags_what_its_model_scores_above_the_threshold(tiny_nli, tmp_path):
    texts = [t for pair in PAIRS[:3] for t in pair]
    asked = [(a, b) for i, a in enumerate(texts) for b in texts[i + 1:]]
    expected = independent(tiny_nli, asked)
    judge = judge_for(f"nli:{tiny_nli}", threshold=0.5, min_cosine=-1.0)
    assert np.allclose(judge.contradiction(asked), expected, atol=1e-5)
    threshold = float(np.median(expected))
    assert 0 < threshold < 1 and expected.min() < threshold < expected.max()

    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder(),
                             judge=judge_for(f"nli:{tiny_nli}", threshold=threshold, min_cosine=-1.0))
    assert store.judge.spec == f"nli:{tiny_nli}" and store.judge.settings()["threshold"] == threshold
    p = Project(name="shop")
    store.add([p])
    for text in texts:
        store.add([Insight(project_id=p.id, content=text)])
    done = store.read_unread()
    assert done["read"] == len(texts)
    flagged = {frozenset(store.get(i).text for i in d["ids"]) for d in store.disagreements()}
    assert flagged == {frozenset(pair) for pair, chance in zip(asked, expected) if chance >= threshold}
    assert {d["kind"] for d in store.disagreements()} <= {"contradiction"}
    assert MemoryStore.open(store.uri).judge.settings() == {"threshold": threshold, "min_cosine": -1.0}


def test_the_nli_judge_records_a_reported_change_as_an_update(tiny_nli):
    judge = judge_for(f"nli:{tiny_nli}", threshold=1e-9, min_cosine=-1.0)  # every pair above it
    from memlib.judges import Option

    old = Option("a", "Logs are kept for 30 days.", 1, 0.9)
    (said,) = judge.read([("As of March, logs are kept for 90 days.", [old])])
    assert said == [(old, "update")]
    (said,) = judge.read([("Logs are kept for 90 days.", [old])])
    assert said == [(old, "contradiction")]
    assert judge_for(f"nli:{tiny_nli}", threshold=0.99, min_cosine=0.95).read([("x", [old])]) == [[]]


# -- Consensus reads its clusters with the store's judge ---------------------------------------

def one_cluster(store, texts: list[str]) -> tuple:
    """`texts` as fragments of one cluster (one vector for all), oldest first: the Consensus
    handle, the cluster id and the fragment id of each text."""
    from datetime import datetime, timedelta, timezone

    from memlib.consensus import Consensus

    consensus = Consensus(store)
    pointer = consensus.register_input(b"reports")
    vector = [1.0] + [0.0] * (store.dims - 1)
    t0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
    placed = consensus.add([{"fragment_id": f"f{i}", "content": text, "source_agent": f"agent-{i}",
                             "trace_pointer": pointer, "timestamp": t0 + timedelta(minutes=i), "embedding": vector}
                            for i, text in enumerate(texts)])
    (cluster,) = {c for _, c, _ in placed}
    return consensus, cluster, [f"f{i}" for i in range(len(texts))]


def test_consensus_reads_its_clusters_with_the_stores_judge(tiny_nli, tmp_path):
    from memlib.consensus import Consensus, conflicts

    texts = [PAIRS[0][0], PAIRS[2][0], PAIRS[0][1], PAIRS[2][1]]
    asked = [(i, j) for j in range(len(texts)) for i in range(j)]
    chances = independent(tiny_nli, [(texts[i], texts[j]) for i, j in asked])
    top = int(np.argmax(chances))  # at the top chance as threshold, that pair alone is flagged
    assert sorted(chances)[-2] < chances[top]
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder(),
                             judge=judge_for(f"nli:{tiny_nli}", threshold=float(chances[top]), min_cosine=-1.0))
    consensus, cluster, ids = one_cluster(store, texts)
    found, risk = consensus.disagreements(cluster)
    assert [(d.kind, sorted(d.a.fragment_ids + d.b.fragment_ids)) for d in found] == \
        [("contradiction", sorted(ids[k] for k in asked[top]))]
    assert risk == pytest.approx(conflicts.conflict_risk(
        [conflicts.Found("contradiction", "", [asked[top][0]], [asked[top][1]])], [1.0] * 4))
    assert consensus.consolidate(cluster).disagreements == found  # the unit says what the judge found

    store.use_judge("none")
    assert Consensus(store).disagreements(cluster) == ([], 0.0)
    store.use_judge("rules")
    found, risk = Consensus(store).disagreements(cluster)
    assert sorted(d.kind for d in found) == ["choice", "value"] and risk > 0


def test_a_judge_that_reads_pairs_reads_a_group_once_per_text_and_drops_what_was_updated():
    from memlib.consensus import conflicts
    from memlib.judges import within_groups

    class Digits:  # flags two texts of other digits; a newer text saying "now" updates instead
        asked = []

        def read(self, items):
            self.asked += [(o.text, text) for text, options in items for o in options]
            return [[(o, "update" if "now" in text else "value") for o in options
                     if {c for c in o.text if c.isdigit()} != {c for c in text if c.isdigit()}]
                    for text, options in items]

    judge = Digits()
    texts = ["ttl 300", "ttl 60", "ttl 300", "ttl 5", "size 2"]
    (found,) = within_groups(judge, [(texts, [1.0] * 5)])
    # "ttl 300" is read once, as of its later report; each pair of distinct texts once
    assert len(judge.asked) == len(set(judge.asked)) == 6
    expected = conflicts.sides_found({"value": [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)]}, [2.0, 1, 1, 1])
    expand = conflicts.said_once(texts, [1.0] * 5)[0]
    assert found == expand(expected)
    assert {i for f in found for i in f.a + f.b} == {0, 1, 2, 3, 4}
    (found,) = within_groups(judge, [(["ttl 300", "ttl 60", "ttl is 5 now"], [1.0] * 3)])
    assert found == []  # both older texts were updated: no disagreement of theirs stands


def test_a_reader_whose_server_ended_while_it_was_starting_ends_too(written):
    """A memory server's reader (memlib screen --follow) outlives no server: not even one that
    ended before the reader had started and could see who started it."""
    import time

    store, _ = written
    code = f"from memlib.server import start_reader; print(start_reader({store.uri!r}, 0.2).pid)"
    pid = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                             check=True).stdout)

    def running() -> bool:
        try:
            with open(f"/proc/{pid}/status") as status:
                return not any(line.startswith("State:") and "Z" in line for line in status)
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 120
    while running() and time.monotonic() < deadline:
        time.sleep(0.5)
    if running():
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the reader went on after the process that started it had ended")
