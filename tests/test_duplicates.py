"""Duplicates caught on write (issue 42): an exact repeat is merged into the memory it repeats
(the writer recorded as corroborating it), a near one is written and linked, by every path."""

from __future__ import annotations

import uuid

import pytest

from memlib import Conversation, Decision, Insight, Learning, MemoryStore, Project
from memlib.consensus import duplicates
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput


def events(store, action):
    return sorted(store.audit.events(f"action = '{action}'"), key=lambda e: e["event_id"])


@pytest.fixture
def hashed(tmp_path):
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    p = Project(name="payments")
    first = Insight(project_id=p.id, content="The nightly export job times out after 30 minutes.")
    store.add([p, first])
    return store, p, first


def test_the_rule_on_its_own():
    assert duplicates.normalised("Don't mock the DB!") == duplicates.normalised("do not  mock the db")
    assert duplicates.judge("Use Postgres 16.", "use postgres 16", 0.2) == "exact"  # text decides, not the cosine
    assert duplicates.judge("Cache TTL is 300 s", "Cache TTL is 60 s", 0.99) is None  # another number
    assert duplicates.judge("We deploy on Fridays", "We never deploy on Fridays", 0.99) is None  # negation
    assert duplicates.judge("The CSV import rejects files with a BOM",
                            "The CSV import accepts files with a BOM", 0.99) is None  # one word swapped
    assert duplicates.judge("Staging database has 2 replicas", "Production database has 2 replicas", 0.99) is None
    assert duplicates.judge("Pin the Node version in CI", "Pin the Python version in CI", 0.99) is None  # names
    assert duplicates.judge("Password reset emails arrive 10 minutes late",
                            "Password reset emails are delayed by about ten minutes", 0.93) == "near"
    assert duplicates.judge("Password reset emails arrive 10 minutes late",
                            "Password reset emails are delayed by about ten minutes", 0.85) is None  # below the cosine


def test_an_exact_repeat_is_merged_and_corroborates(hashed):
    store, p, first = hashed
    before = store.count()
    (again,) = store.add([{"kind": "insight", "project_id": p.id,
                           "content": "the nightly export job times out after 30 minutes"}], actor="reviewer")
    assert again == first.id and store.count() == before  # nothing written: the id of the one it repeats
    (event,) = events(store, "corroborate")
    assert event["subject_id"] == first.id and event["actor"] == "reviewer"
    assert event["details"]["kind"] == "exact" and event["details"]["duplicate"] != first.id


def test_a_chosen_id_is_written_and_linked(hashed):
    store, p, first = hashed
    mine = Insight(id=str(uuid.uuid4()), project_id=p.id, content="The nightly export job times out after 30 minutes")
    assert store.add([mine]) == [mine.id] and store.get(mine.id).content.endswith("30 minutes")
    (event,) = events(store, "duplicate")
    assert event["subject_id"] == mine.id and event["details"] == {
        "kind": "exact", "of": first.id, "cosine": event["details"]["cosine"], "project_id": p.id}


def test_policies_other_kinds_and_other_projects(hashed):
    store, p, first = hashed
    text = "The nightly export job times out after 30 minutes"
    other = Project(name="other")
    store.add([other])
    count = store.count()
    ids = store.add([Learning(project_id=p.id, content=text),          # another kind: not a repeat
                     Insight(project_id=other.id, content=text)])        # another project: not a repeat
    assert store.count() == count + 2 and not events(store, "duplicate") and not events(store, "corroborate")
    (linked,) = store.add([{"kind": "insight", "project_id": p.id, "content": text}], duplicates="link")
    assert linked != first.id and events(store, "duplicate")[0]["details"]["of"] == first.id
    (kept,) = store.add([{"kind": "insight", "project_id": p.id, "content": text}], duplicates="keep")
    assert kept not in (first.id, linked) and len(events(store, "duplicate")) == 1
    with pytest.raises(InvalidInput, match="duplicates must be one of merge, link, keep"):
        store.add([{"kind": "insight", "project_id": p.id, "content": text}], duplicates="drop")
    assert len(ids) == 2


def test_turns_are_never_repeats(hashed):
    store, p, _ = hashed
    turns = [Conversation(project_id=p.id, speaker="ada", content="Thanks!") for _ in range(2)]
    store.add(turns)
    store.add([Conversation(project_id=p.id, speaker="ada", content="Thanks!")])
    assert store.count() == 5 and not events(store, "corroborate") and not events(store, "duplicate")


def test_repeats_inside_a_batch_small_and_large(hashed):
    store, p, first = hashed
    small = store.add([{"kind": "learning", "project_id": p.id, "content": "Batch inserts are faster"},
                       {"kind": "learning", "project_id": p.id, "content": "batch inserts are faster."}])
    assert small[0] == small[1]
    texts = [f"Retry budget number {n} is spent" for n in range(20)]
    batch = [{"kind": "insight", "project_id": p.id, "content": t} for t in texts + texts[:5]]
    batch.append({"kind": "insight", "project_id": p.id, "content": first.content.upper()})
    ids = store.add(batch)
    assert ids[20:25] == ids[:5] and ids[25] == first.id and len(set(ids)) == 21
    assert store.count() == 2 + 1 + 20


def test_an_import_links_and_never_merges(hashed, tmp_path):
    store, p, first = hashed
    again = Insight(project_id=p.id, content=first.content.lower())
    store.upsert([again])
    assert store.get(again.id) and events(store, "duplicate")[0]["details"]["of"] == first.id


def test_near_repeats_with_the_real_model(tmp_path):
    store = MemoryStore.open(str(tmp_path / "s"))
    p = Project(name="p")
    old = Insight(project_id=p.id, content="Password reset emails arrive 10 minutes late")
    ttl = Decision(project_id=p.id, title="Cache TTL", decision="Cache TTL is 300 s")
    store.add([p, old, ttl])
    (near,) = store.add([{"kind": "insight", "project_id": p.id,
                          "content": "Password reset emails are delayed by about ten minutes"}])
    assert near != old.id  # written: a near repeat is linked, never merged
    (event,) = events(store, "duplicate")
    assert event["subject_id"] == near and event["details"]["of"] == old.id and event["details"]["kind"] == "near"
    store.add([{"kind": "decision", "project_id": p.id, "title": "Cache TTL now", "decision": "Cache TTL is 60 s"}])
    assert len(events(store, "duplicate")) == 1  # another number is no repeat


def test_the_shell_and_the_agent_tools_merge_a_repeat(tmp_path):
    from memlib.agents.tools import Toolbox, save_insight, SaveInsightInput
    from tests.test_cli import run

    path = tmp_path / "s"
    run("init", "--embedder", "hash", store=path)
    project = run("add", "--kind", "project", "--name", "shop", store=path).stdout.strip()
    first = run("add", "--kind", "insight", "--project-id", project, "--content", "Checkout is slow", store=path)
    again = run("add", "--kind", "insight", "--project-id", project, "--content", "checkout is slow.", store=path)
    assert again.stdout == first.stdout and "a repeat of memory" in again.stderr
    linked = run("add", "--kind", "insight", "--project-id", project, "--content", "checkout is slow.",
                 "--duplicates", "link", store=path)
    assert linked.stdout != first.stdout
    store = MemoryStore.open(str(path))
    box = Toolbox(store, agent="coder")
    out = save_insight(box, SaveInsightInput(project_id=project, content="Checkout is SLOW"))
    assert out["id"] == first.stdout.strip() and "already stored" in out["note"]
    assert [e["actor"] for e in events(store, "corroborate")][-1] == "coder"


# -- contradictions among memories -----------------------------------------------------------


@pytest.fixture
def clashing(tmp_path):
    from memlib.agents.sessions import Sessions

    store = MemoryStore.open(str(tmp_path / "s"))
    p = Project(name="shop")
    old = Insight(project_id=p.id, content="Cache TTL is 300 s")
    store.add([p, old])
    (new,) = store.add([{"kind": "insight", "project_id": p.id, "content": "Cache TTL is 60 s"}], actor="ops")
    store.read_unread()
    session = Sessions(store).start("coder", project_id=p.id)
    return store, p, old.id, new, session.session_id, tmp_path / "s"


def test_a_contradiction_is_flagged_by_the_judge_and_shown_as_a_pair(clashing):
    from memlib.agents.context import build_context

    store, p, old, new, session_id, _ = clashing
    assert {e["subject_id"] for e in events(store, "contradiction")} == {old, new}
    assert {e["actor"] for e in events(store, "contradiction")} == {"rules"}
    (pair,) = store.disagreements()
    assert pair == {"ids": sorted([old, new]), "kind": "value", "newer": new, "support": {old: 1, new: 1}}
    store.add([{"kind": "insight", "project_id": p.id, "content": "cache ttl is 300 s."}])  # a second voice
    (pair,) = store.disagreements([new])
    assert pair["support"] == {old: 2, new: 1}
    context = build_context(store, session_id, "cache TTL", budget_tokens=2_000).text
    first, second = sorted([context.index("Cache TTL is 300 s"), context.index("Cache TTL is 60 s")])
    between = context[first:second]
    assert "CONTRADICTS (value)" in between and between.count("\n- ") == 1  # together: nothing between
    above_is_old = context.index("Cache TTL is 300 s") < context.index("Cache TTL is 60 s")
    assert f"newer is the one {'below' if above_is_old else 'above'}" in between
    assert f"better supported: the one {'above' if above_is_old else 'below'}" in between


def test_updates_scopes_and_other_things_are_no_contradiction(tmp_path):
    store = MemoryStore.open(str(tmp_path / "s"))
    p = Project(name="ops")
    store.add([p, Insight(project_id=p.id, content="Logs are kept for 30 days"),
               Insight(project_id=p.id, content="Staging database has 2 replicas")])
    (update,) = store.add([{"kind": "insight", "project_id": p.id, "content": "As of March, logs are kept for 90 days"}])
    store.add([{"kind": "insight", "project_id": p.id, "content": "Production database has 5 replicas"}])
    assert store.read_unread()["read"] == 4  # the four insights, not the project
    assert not events(store, "contradiction") and store.disagreements() == []
    (event,) = events(store, "update")
    assert event["subject_id"] == update


def test_what_confirms_an_update_is_no_contradiction_of_what_it_superseded(tmp_path):
    """The newer supersedes: after "moved the ETL to 02:30 UTC" updates "kicks off at 01:00
    UTC", a log line that confirms the move is not flagged against the old schedule; one that
    says the old time still conflicts with the move, and a statement the update does not
    confirm still conflicts with what it contradicts."""
    store = MemoryStore.open(str(tmp_path / "s"))
    p = Project(name="data")
    old = Insight(project_id=p.id, content="The nightly ETL job kicks off at 01:00 UTC.")
    store.add([p, old])
    (moved,) = store.add([{"kind": "insight", "project_id": p.id,
                           "content": "moved the nightly ETL to 02:30 UTC so it stops colliding with backups"}])
    (log,) = store.add([{"kind": "insight", "project_id": p.id, "content": "ETL log shows today's run started 02:31 UTC."}])
    store.read_unread()
    assert [e["details"]["of"] for e in events(store, "update")] == [old.id] and not events(store, "contradiction")
    (stale,) = store.add([{"kind": "insight", "project_id": p.id,
                           "content": "ETL log shows today's nightly run started 01:00 UTC."}])
    store.read_unread()
    assert moved in {e["details"]["with"] for e in events(store, "contradiction") if e["subject_id"] == stale}
    assert sorted([old.id, log]) not in [d["ids"] for d in store.disagreements()]


def test_resolving_keeping_both_or_correcting_one_closes_the_pair(clashing):
    from memlib.lifecycle import curation
    from tests.test_cli import fails, run

    store, p, old, new, _, path = clashing
    listed = run("contradictions", store=path).stdout
    assert "value:" in listed and "Cache TTL is 300 s" in listed and "Cache TTL is 60 s" in listed
    searched = run("search", "cache TTL", store=path).stdout
    assert f"contradicts (value) {new}" in searched or f"contradicts (value) {old}" in searched
    assert "needs a reason" in fails("contradictions", "resolve", old, new, "--reason", " ", store=path)
    run("contradictions", "resolve", old, new, "--reason", "different caches", store=path)
    assert store.disagreements() == [] and "no open contradictions" in run("contradictions", store=path).stdout
    assert "no open contradiction between" in fails("contradictions", "resolve", old, new, "--reason", "x", store=path)
    (again,) = store.add([{"kind": "insight", "project_id": p.id, "content": "Cache TTL is 120 s"}])
    assert "1 memories not read for contradictions yet" in run("contradictions", store=path).stdout
    run("screen", store=path)
    assert {tuple(d["ids"]) for d in store.disagreements()} == {tuple(sorted([old, again])), tuple(sorted([new, again]))}
    curation.correct(store, again, "it was a typo", content="Cache TTL is 60 s, measured")
    assert all(again not in d["ids"] for d in store.disagreements())


def test_each_iteration_keeps_its_own_knowledge(hashed):
    store, p, _ = hashed
    ids = store.add([{"kind": "insight", "project_id": p.id, "iteration_id": f"it{n}",
                      "content": f"Ledger retries duplicate rows in iteration {n}"} for n in (1, 2)])
    again = store.add([{"kind": "insight", "project_id": p.id, "iteration_id": "it2", "content": "Settlement is slow"},
                       {"kind": "insight", "project_id": p.id, "iteration_id": "it3", "content": "Settlement is slow"}])
    assert len(set(ids + again)) == 4 and not events(store, "contradiction") and not events(store, "corroborate")


def test_a_large_batch_over_several_projects_is_screened_per_project(tmp_path, monkeypatch):
    """More than duplicates.SMALL new memories of a project: its stored rows are read in one
    scan with the other projects', its nearest found a BLOCK at a time; what is found does
    not depend on the block, and nothing is compared across projects."""
    def screened(block: int, name: str):
        monkeypatch.setattr(duplicates, "BLOCK", block)
        store = MemoryStore.open(str(tmp_path / name), embedder=HashEmbedder())
        shop, billing = Project(name="shop"), Project(name="billing")
        old = Insight(project_id=shop.id, content="Cache TTL is 300 s")
        kept = Insight(project_id=billing.id, content="Invoices are sent on the first of the month")
        store.add([shop, billing, old, kept])
        filler = [f"The {w} worker drains the {q} backlog" for w in ("blue", "green", "grey", "red", "teal")
                  for q in ("mail", "sms", "push", "fax")]
        batch = [{"kind": "insight", "project_id": p.id, "content": t} for p in (shop, billing) for t in filler]
        batch += [{"kind": "insight", "project_id": shop.id, "content": "Cache TTL is 60 s"},
                  {"kind": "insight", "project_id": billing.id, "content": "Cache TTL is 300 s"},
                  {"kind": "insight", "project_id": billing.id, "content": kept.content.lower()}]
        ids = store.add(batch)
        store.read_unread()
        pairs = [(d["kind"], sorted(store.get(i).text for i in d["ids"])) for d in store.disagreements()]
        return ids[-3:], ids[-1] == kept.id, old.id in ids, pairs

    few, many = screened(1024, "one"), screened(4, "blocks")
    assert few[1:] == many[1:]
    assert few[1] and not few[2]  # billing's repeat merged into billing's memory; shop's not touched
    assert few[3] == [("value", ["Cache TTL is 300 s", "Cache TTL is 60 s"])]  # shop's pair only


def test_a_large_batch_is_screened_within_itself_as_a_small_one_is(tmp_path, monkeypatch):
    """Memories of one large batch (more than duplicates.SMALL of a project) are compared with
    the nearest of those before them in it, as a small batch's are: a disagreement and a
    near repeat inside the batch are found whatever the block; past duplicates.WITHIN, only an
    exact repeat is."""
    filler = [f"The {w} worker drains the {q} backlog" for w in ("blue", "green", "grey", "red", "teal")
              for q in ("mail", "sms", "push", "fax")]
    says = ["Cache TTL is 300 s", *filler[:9], "Cache TTL is 60 s", *filler[9:], "cache ttl is 300 s."]

    def screened(name: str, texts: list[str], block: int = 1024, within: int = duplicates.WITHIN):
        monkeypatch.setattr(duplicates, "BLOCK", block)
        monkeypatch.setattr(duplicates, "WITHIN", within)
        store = MemoryStore.open(str(tmp_path / name), embedder=HashEmbedder())
        shop = Project(name="shop")
        store.add([shop])
        ids = store.add([{"kind": "insight", "project_id": shop.id, "content": t} for t in texts])
        store.read_unread()
        pairs = sorted((d["kind"], sorted(store.get(i).text for i in d["ids"])) for d in store.disagreements())
        return pairs, len(set(ids)), ids[-1] == ids[0]

    assert len(says) > duplicates.SMALL
    large = screened("large", says)
    assert large == (screened("blocks", says, block=4)) == screened("small", [says[0], says[10], says[-1]])[:1] + (
        len(says) - 1, True)
    assert large[0] == [("value", ["Cache TTL is 300 s", "Cache TTL is 60 s"])]
    # past WITHIN the write finds the exact repeat only; the judge reads the batch as any other
    assert screened("beyond", says, within=0) == (large[0], len(says) - 1, True)


def test_text_the_case_blind_patterns_fold_is_read(hashed):
    """re.I folds the long s into s: "ſept" and "ſix" match the patterns for months and
    number words, and reading them once raised a KeyError, failing the add."""
    store, p, _ = hashed
    ids = store.add([{"kind": "insight", "project_id": p.id, "content": "The export runs on 5 ſept"},
                     {"kind": "insight", "project_id": p.id, "content": "The export needs ſix nodes"},
                     {"kind": "insight", "project_id": p.id, "content": "The export needs ſome nodes"}])
    assert len(set(ids)) == 3


def test_contradictions_never_shows_nothing_unread_without_the_pairs_read_meanwhile(monkeypatch):
    """A reader (a server's, maintain's) can commit between the command's two readings. It
    records a pair in the commit that marks its memory read, so the count of what is unread
    comes first: the other way round, a reader committing in between showed nothing unread and
    no pair, and a caller waiting for nothing unread took the pairs for all there are."""
    import json

    from click.testing import CliRunner

    import memlib.cli.memories as memories
    from memlib.cli import cli

    pair = {"ids": ["a", "b"], "kind": "value"}

    class Racing:
        """A store whose reader commits right after the first of the command's readings."""

        def __init__(self):
            self.committed, self.readings = False, 0

        def _reading(self):
            self.readings += 1
            seen, self.committed = self.committed, self.committed or self.readings == 1
            return seen

        def unread(self):
            return 0 if self._reading() else 1

        def disagreements(self):
            return [pair] if self._reading() else []

    monkeypatch.setattr(memories, "open_store", lambda ctx: Racing())
    shown = json.loads(CliRunner().invoke(cli, ["contradictions", "--json"]).output)
    assert shown["pairs"] == [pair] or shown["unread"] > 0, shown
