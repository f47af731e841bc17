"""Agents on memlib: the session layers, the lifecycle policy, project / iteration / smart
queries and their context strings, iteration knowledge, the context builder, the tools."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memlib import Decision, Insight, Issue, Learning, MemoryStore, Pattern, Project, Scope
from memlib.agents import (
    ConservativePolicy,
    DisabledPolicy,
    RecallInput,
    Sessions,
    WriteInput,
    build_context,
    cleanup_old_knowledge,
    load_base_knowledge,
    load_lifecycle_policy,
    query_memory,
    save_knowledge_snapshot,
    write_back,
)
from memlib.agents import tools
from memlib.agents.knowledge import load_document_summary
from memlib.agents.sessions import PENDING_LOOPS, SESSIONS, SHORT_TERM
from memlib.clock import Clock
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput, MemlibError, NotFound
from memlib.lifecycle import curation, retention

T0 = datetime(2026, 6, 1, tzinfo=timezone.utc)


@pytest.fixture(params=["in process", "served"])
def agent_tools(request):
    """How an agent calls its tools: a Toolbox in its process, or a memory server's
    /v1/tools (conftest.served). `agent_tools(store, agent)` is a context manager giving
    call(name, arguments)."""
    from contextlib import contextmanager

    from conftest import served

    @contextmanager
    def calling(store, agent):
        if request.param == "in process":
            box = tools.Toolbox(store, agent=agent)
            yield lambda name, arguments: tools.call(box, name, arguments)
            return
        with served(store, agent) as client:
            yield lambda name, arguments: client.tool(name, **arguments)
    return calling


@pytest.fixture
def project_memory(tmp_path):
    """A project with decisions, a pattern and three iterations of knowledge."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    p = Project(name="payments", created_at=T0)
    other = Project(name="other", created_at=T0)
    items = [
        Decision(project_id=p.id, title="Use Postgres", decision="Postgres 16 stores the ledger",
                 context="We need transactions", consequences="Ops must run Postgres", created_at=T0 + timedelta(days=1)),
        Decision(project_id=p.id, title="Idempotency keys", decision="Every ledger write carries an idempotency key",
                 tags=["ledger", "api"], created_at=T0 + timedelta(days=2)),
        Pattern(project_id=p.id, name="Outbox", description="Write events to an outbox table in the same transaction",
                tags=["ledger"], usage_examples=["order events"], code_example="INSERT INTO outbox ...",
                created_at=T0 + timedelta(days=3)),
        Decision(project_id=other.id, title="Use Mongo", decision="Mongo stores the ledger", created_at=T0),
    ]
    for n in (1, 2, 3):
        day = T0 + timedelta(days=10 * n)
        items += [Insight(project_id=p.id, iteration_id=f"it{n}", content=f"Ledger retries duplicate rows in iteration {n}",
                          importance="critical" if n == 3 else "normal", created_at=day, tags=["ledger"]),
                  Issue(project_id=p.id, iteration_id=f"it{n}", content=f"Flaky settlement test {n}", created_at=day,
                        ttl_days=-1),
                  Learning(project_id=p.id, iteration_id=f"it{n}", content=f"Batch inserts are faster {n}",
                           created_at=day)]
    store.add([p, other, *items])
    return store, p, other


def test_sessions_hold_transcript_loop_and_preferences_and_delete_only_their_rows(project_memory):
    store, p, _ = project_memory
    sessions = Sessions(store)
    s = sessions.start("coder", project_id=p.id, preferences={"persona": "terse", "owner": "Ada"})
    other = sessions.start("reviewer")
    for i, role in enumerate(["user", "assistant", "user"]):
        sessions.append(s.session_id, role, f"turn {i}")
    sessions.append(other.session_id, "user", "elsewhere")
    assert [t.content for t in sessions.transcript(s.session_id)] == ["turn 0", "turn 1", "turn 2"]
    assert [t.seq for t in sessions.transcript(s.session_id, last=2)] == [1, 2]
    sessions.save_loop(s.session_id, "fix ledger", 1, {"done": ["a"]})
    sessions.save_loop(s.session_id, "fix ledger", 2, {"done": ["a", "b"]})
    assert sessions.pending_loop(s.session_id).state == {"done": ["a", "b"]}
    assert sessions.set_preferences(s.session_id, language="en", owner=None).preferences == {
        "persona": "terse", "language": "en"}
    with pytest.raises(InvalidInput, match="preference key"):
        sessions.set_preferences(s.session_id, **{"Bad Key": 1})
    with pytest.raises(InvalidInput, match="role"):
        sessions.append(s.session_id, "robot", "x")
    memories = store.count()
    counts = sessions.delete(s.session_id)
    assert counts == {SHORT_TERM: 3, PENDING_LOOPS: 2, SESSIONS: 1}
    assert store.count() == memories  # long-term memory untouched
    assert [t.content for t in sessions.transcript(other.session_id)] == ["elsewhere"]
    with pytest.raises(NotFound):
        sessions.get(s.session_id)


def test_ending_a_session_clears_short_term_and_the_loop(project_memory):
    store, p, _ = project_memory
    sessions = Sessions(store)
    s = sessions.start("coder", project_id=p.id)
    sessions.append(s.session_id, "user", "hello")
    sessions.save_loop(s.session_id, "g", 0, {})
    ended = sessions.end(s.session_id)
    assert ended.status == "ended" and ended.ended_at is not None
    assert sessions.transcript(s.session_id) == [] and sessions.pending_loop(s.session_id) is None
    with pytest.raises(InvalidInput, match="ended"):
        sessions.append(s.session_id, "user", "late")


def test_conservative_policy_recalls_three_and_writes_back_only_when_told(project_memory):
    store, p, _ = project_memory
    policy = ConservativePolicy()
    assert policy.build_recall_query(RecallInput("fix the ledger", "coder", p.id)).limit == 3
    assert policy.build_recall_query(RecallInput("   ", "coder", p.id)) is None
    assert policy.build_recall_query(RecallInput("fix", "coder", p.id, pending_loop_active=True)) is None
    done = WriteInput("fix the ledger", "Added idempotency keys", "coder", p.id, "s1")
    assert policy.build_write_request(done) is None  # automatic write-back is off by default
    assert DisabledPolicy().build_recall_query(RecallInput("fix", "coder")) is None
    writing = ConservativePolicy(automatic_write_back=True)
    (summary,) = writing.build_write_request(done)
    assert summary.kind.value == "summary" and summary.metadata["session_id"] == "s1"
    assert "goal=" not in summary.content and summary.agent == "coder"
    assert writing.build_write_request(WriteInput("g", "r", "coder", p.id, pending_loop_active=True)) is None
    store.add([summary])
    (again,) = writing.build_write_request(WriteInput("fix  the ledger", "Added idempotency keys", "coder", p.id, "s2"))
    assert again.id == summary.id  # same content, same id: the store refuses it twice
    with pytest.raises(MemlibError, match="already exists"):
        store.add([again])


def test_write_back_asks_the_session_whether_a_loop_is_pending(project_memory):
    """The README's agent loop passes no pending_loop_active flag: write-back wrote a summary
    while the session held a pending loop. The session decides."""
    store, p, _ = project_memory
    policy, sessions = ConservativePolicy(automatic_write_back=True), Sessions(store)
    session = sessions.start("coder", project_id=p.id)
    sessions.save_loop(session.session_id, "settle the ledger", 2, {"at": "bank file"})
    before = store.count()
    request = WriteInput("settle the ledger", "Batched the bank file", "coder", p.id, session.session_id)
    assert write_back(store, policy, request) == [] and store.count() == before
    sessions.clear_loop(session.session_id)
    (written,) = write_back(store, policy, request)
    assert store.get(written).metadata["session_id"] == session.session_id
    # a session id that names no session is provenance only: nothing pending there
    assert write_back(store, policy, WriteInput("another goal", "done", "coder", p.id, "no-such-session"))


def test_lifecycle_policy_file_is_validated(tmp_path):
    good = tmp_path / "agent.toml"
    good.write_text("[recall]\ntop_k = 5\n[write_back]\nautomatic = true\n")
    policy = load_lifecycle_policy(good)
    assert policy.recall_limit == 5 and policy.automatic_write_back
    off = tmp_path / "off.toml"
    off.write_text('policy = "disabled"\n')
    assert isinstance(load_lifecycle_policy(off), DisabledPolicy)
    for text, field in (("[recall]\ntop_k = 0\n", "recall.top_k"), ("[recall]\ntopk = 3\n", "recall.topk"),
                        ("[write_back]\nautomatic = 'yes please'\n", "write_back.automatic")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        with pytest.raises(InvalidInput, match=field.replace(".", r"\.")):
            load_lifecycle_policy(bad)


def test_project_iteration_and_smart_scopes(project_memory):
    store, p, _ = project_memory
    project = query_memory(store, {"project_id": p.id, "scope": "project"}, agent="coder")
    assert {i.memory.kind.value for i in project.items} == {"decision", "pattern"}
    assert all(i.memory.project_id == p.id for i in project.items)
    iteration = query_memory(store, {"project_id": p.id, "scope": "iteration", "iteration_id": "it1"})
    assert {i.memory.iteration_id for i in iteration.items} == {"it1"} and len(iteration.items) == 3
    smart = query_memory(store, {"project_id": p.id, "scope": "smart"})
    knowledge = [i.memory for i in smart.items if i.memory.kind.value in ("insight", "issue", "learning")]
    assert smart.iterations == ["it3"] and {m.iteration_id for m in knowledge} == {"it3"}
    assert len(smart.items) == 6
    two = query_memory(store, {"project_id": p.id, "scope": "smart", "latest_iterations": 2, "types": ["issues"]})
    assert {i.memory.iteration_id for i in two.items} == {"it2", "it3"}
    with pytest.raises(InvalidInput, match="iteration_id"):
        query_memory(store, {"project_id": p.id, "scope": "iteration"})
    with pytest.raises(InvalidInput, match="types"):
        query_memory(store, {"project_id": p.id, "types": ["rumours"]})


def test_what_an_agent_saves_without_an_iteration_its_query_finds(project_memory, agent_tools):
    """save_insight takes no iteration_id (it is optional), and query_memory's smart scope
    read only the latest iterations: an insight saved so was never returned (over MCP and
    /v1/tools), while /v1/search found it first."""
    store, p, _ = project_memory
    with agent_tools(store, "coder") as call:
        saved = call("save_insight", {"project_id": p.id, "content": "Pagination uses keyset cursors"})
        got = call("query_memory", {"project_id": p.id, "keywords": ["keyset pagination"], "types": ["insights"]})
        assert got["items"] and got["items"][0]["id"] == saved["id"]
        assert "Pagination uses keyset cursors" in got["context"]
        listed = call("query_memory", {"project_id": p.id, "types": ["insights"]})  # newest first, no keywords
        assert listed["items"][0]["id"] == saved["id"]
        # the iteration scope stays the iteration's own
        one = call("query_memory", {"project_id": p.id, "scope": "iteration", "iteration_id": "it3",
                                    "types": ["insights"]})
        assert saved["id"] not in [i["id"] for i in one["items"]] and one["items"]
    store.refresh()
    no_iteration = [r for r in store.rows(f"project_id = '{p.id}'", 100) if r["iteration_id"] is None]
    assert saved["id"] in {r["id"] for r in no_iteration}
    assert store.count(Scope(project_id=p.id, iteration_ids=(None,), include_expired=True)) == len(no_iteration)
    assert store.count(Scope(project_id=p.id, iteration_ids=("it1", None), include_expired=True)) == \
        len(no_iteration) + sum(1 for r in store.rows(f"project_id = '{p.id}' AND iteration_id = 'it1'", 100))


def test_latest_iterations_agree_from_memory_and_from_lance(project_memory):
    store, p, _ = project_memory
    from memlib.agents.query import latest_iterations

    assert store.cached() is None  # not warmed: read from Lance
    from_lance = [latest_iterations(store, p.id, n) for n in (1, 2, 5)]
    store.warm()
    assert store.cached() is not None
    assert [latest_iterations(store, p.id, n) for n in (1, 2, 5)] == from_lance
    assert from_lance[1] == ["it3", "it2"] and latest_iterations(store, "no-such-project", 3) == []


def test_keywords_tags_time_and_limit(project_memory):
    store, p, _ = project_memory
    hits = query_memory(store, {"project_id": p.id, "scope": "project", "keywords": ["LEDGER", "idempotency"]})
    assert hits.items[0].memory.title == "Idempotency keys"  # ranked, case-insensitive
    assert all(i.memory.project_id == p.id for i in hits.items)  # never another project's
    tagged = query_memory(store, {"project_id": p.id, "scope": "project", "tags": ["ledger", "api"]})
    assert [i.memory.title for i in tagged.items] == ["Idempotency keys"]  # every tag present
    recent = query_memory(store, {"project_id": p.id, "scope": "project", "since": T0 + timedelta(days=2),
                                  "until": T0 + timedelta(days=3)})
    assert [i.memory.title for i in recent.items] == ["Idempotency keys"]
    assert len(query_memory(store, {"project_id": p.id, "scope": "smart", "limit": 2}).items) == 2


def test_queries_are_logged_with_agent_and_tool(project_memory):
    store, p, _ = project_memory
    result = query_memory(store, {"project_id": p.id, "scope": "project"}, agent="coder")
    events = store.recalls.spooled()
    assert {e["memory_id"] for e in events} == {i.memory.id for i in result.items}
    assert {(e["agent"], e["tool"]) for e in events} == {("coder", "query_memory")}


def test_context_string_groups_orders_and_respects_the_budget(project_memory):
    store, p, _ = project_memory
    result = query_memory(store, {"project_id": p.id, "scope": "smart"})
    text = result.to_context_string(budget_tokens=10_000)
    assert text.index("## Decisions") < text.index("## Patterns") < text.index("## Insights")
    assert text.index("Idempotency keys (2026-06-03") < text.index("Use Postgres (2026-06-02")  # newest first
    assert "Context: We need transactions" in text and "Consequences: Ops must run Postgres" in text
    assert "[tags: ledger]" in text and "INSERT INTO outbox" in text and "[critical]" in text
    assert text == result.to_context_string(budget_tokens=10_000)  # deterministic
    words = lambda s: len(s.split())  # noqa: E731
    small = result.to_context_string(budget_tokens=40, count=words)
    assert words(small) <= 40 and small.count("\n- ") + small.count("### ") < text.count("\n- ") + text.count("### ")
    for block in small.split("\n###")[1:]:  # every item it kept is whole
        assert block.strip() in text


def test_knowledge_snapshots_base_knowledge_and_summaries(project_memory):
    store, p, other = project_memory
    decision = query_memory(store, {"project_id": p.id, "scope": "project", "types": ["decisions"]}).items[0].memory
    save_knowledge_snapshot(store, {"project_id": p.id, "iteration_id": "it1",
                                    "summaries": {"idea": "A ledger", "plan": "Postgres first"},
                                    "tech_stack": ["python", "postgres"], "key_decisions": [decision.id]})
    save_knowledge_snapshot(store, {"project_id": p.id, "iteration_id": "it2", "summaries": {"idea": "v2"}})
    assert load_base_knowledge(store, p.id, "it2").summaries.plan == "Postgres first"
    assert load_base_knowledge(store, p.id, "it3").iteration_id == "it2"
    assert load_base_knowledge(store, p.id, "it1") is None
    assert load_document_summary(store, p.id, "it1", "idea") == "A ledger"
    with pytest.raises(InvalidInput, match="summaries.prd"):
        save_knowledge_snapshot(store, {"project_id": p.id, "iteration_id": "it3", "summaries": {"prd": "x" * 1001}})
    with pytest.raises(InvalidInput, match="key_decisions"):
        save_knowledge_snapshot(store, {"project_id": other.id, "iteration_id": "it9", "key_decisions": [decision.id]})


def test_cleanup_old_knowledge_keeps_latest_detail_and_is_reversible(project_memory):
    store, p, _ = project_memory
    save_knowledge_snapshot(store, {"project_id": p.id, "iteration_id": "it1"})
    before = store.count()
    out = cleanup_old_knowledge(store, p.id, keep_count=2)
    assert out["iterations_cleaned"] == ["it1"] and out["removed"] == 3
    assert store.count() == before - 3
    left = query_memory(store, {"project_id": p.id, "scope": "smart", "latest_iterations": 5}).iterations
    assert left == ["it3", "it2"]
    assert len(query_memory(store, {"project_id": p.id, "scope": "project"}).items) == 3  # decisions stay
    assert load_base_knowledge(store, p.id, "it2").iteration_id == "it1"  # snapshots stay
    assert store.audit.events("action = 'knowledge_cleanup'")[0]["run_id"] == out["run_id"]
    assert retention.undo(store, out["run_id"]) == 3 and store.count() == before


def test_finalize_promotes_critical_insights_with_unique_titles(project_memory):
    store, p, _ = project_memory
    store.add([Decision(project_id=p.id, title="Ledger retries duplicate rows in iteration 3",
                        decision="an older one", created_at=T0)])
    (made,) = curation.finalize_iteration(store, p.id, "it3")
    assert made.title == "Ledger retries duplicate rows in iteration 3 (iteration it3)"
    assert made.iteration_id == "it3" and made.promoted_from is not None
    # an unknown project or iteration was 'finalized; 0 critical insights promoted', rc 0
    events = len(store.audit_events("action = 'finalize'"))
    for project, iteration, message in ((p.id, "it9", "has no iteration 'it9'"),
                                        ("nosuch-project", "it1", "no project 'nosuch-project'")):
        with pytest.raises(NotFound, match=message):
            curation.finalize_iteration(store, project, iteration)
    assert len(store.audit_events("action = 'finalize'")) == events


def test_build_context_labels_parts_and_reports_what_was_cut(project_memory):
    store, p, _ = project_memory
    sessions = Sessions(store)
    s = sessions.start("coder", project_id=p.id, preferences={"persona": "A careful payments engineer",
                                                              "owner": "Ada, who hates flaky tests"})
    for i in range(30):
        sessions.append(s.session_id, "user" if i % 2 == 0 else "assistant", f"message number {i} about the ledger")
    words = lambda t: len(t.split())  # noqa: E731
    big = build_context(store, s.session_id, "ledger retries", budget_tokens=100_000, count=words,
                        tools=tools.describe())
    assert [p.label for p in big.parts] == ["Persona and owner", "Tools", "Recalled memory", "Transcript"]
    assert big.report()["Tools"] == {"kept": len(tools.TOOLS), "cut": 0}
    assert all(part.cut == 0 for part in big.parts) and len(big.recalled) == 3
    assert big.text.index("message number 0") < big.text.index("message number 29")  # time order
    small = build_context(store, s.session_id, "ledger retries", budget_tokens=200, count=words)
    report = small.report()
    assert report["Persona and owner"] == {"kept": 2, "cut": 0}
    assert report["Transcript"]["cut"] > 0 and small.tokens <= 200
    assert "message number 29" in small.text and "message number 0 " not in small.text  # latest kept
    events = [e for e in store.recalls.spooled() if e["tool"] == "build_context"]
    assert {e["agent"] for e in events} == {"coder"} and len(events) == 6
    # a Python caller's agent has the tools it is given: none given, none listed
    bare = build_context(store, s.session_id, "ledger retries", budget_tokens=100_000, count=words)
    assert bare.report()["Tools"] == {"kept": 0, "cut": 0} and "## Tools" not in bare.text and "## Tools" in big.text
    # a long tool list in a small budget takes at most a quarter of it: the memories still fit
    many = [{"name": f"tool_{i}", "description": "does one more thing the agent may need " * 2} for i in range(40)]
    crowded = build_context(store, s.session_id, "ledger retries", budget_tokens=400, count=words, tools=many)
    assert crowded.report()["Tools"]["cut"] > 0 and crowded.report()["Recalled memory"]["kept"] == 3
    assert sum(words(f"- {t['name']}: {t['description']}\n") for t in many[:crowded.report()["Tools"]["kept"]]) <= 100
    sessions.save_loop(s.session_id, "g", 1, {})
    assert build_context(store, s.session_id, "ledger", count=words).recalled == []  # loop pending: no recall


def test_the_memories_fit_first_one_by_one_and_only_those_shown_are_logged(project_memory):
    """At 400 tokens with a persona, the default tools and a two-turn transcript, the context
    showed no memory (its one item, a memory and the contradiction it links to, was kept
    whole or dropped) while the recall log counted three as recalled."""
    store, p, _ = project_memory
    long = "Ledger retries are bounded by the settlement window " + "and the bank's cut-off " * 18
    a = Decision(project_id=p.id, title="Ledger retry bound", decision=long, created_at=T0 + timedelta(days=40))
    b = Decision(project_id=p.id, title="Ledger retry limit", decision="Ledger retries stop after 3 attempts "
                 + "whatever the window " * 18, created_at=T0 + timedelta(days=41))
    store.add([a, b], duplicates="keep")
    store.log_event("contradiction", [a.id, b.id], details=[{"with": b.id, "newer": b.id, "kind": "value"},
                                                            {"with": a.id, "newer": b.id, "kind": "value"}])
    sessions = Sessions(store)
    s = sessions.start("coder", project_id=p.id, preferences={"persona": "A careful payments engineer"})
    sessions.append(s.session_id, "user", "How often do ledger retries run?")
    sessions.append(s.session_id, "assistant", "Let me check the memory.")
    before = len([e for e in store.recalls.spooled() if e["tool"] == "build_context"])
    context = build_context(store, s.session_id, "ledger retry bound settlement window", budget_tokens=400,
                            tools=tools.describe())
    report = context.report()
    assert report["Recalled memory"]["kept"] >= 1 and context.tokens <= 400
    assert report["Transcript"] == {"kept": 2, "cut": 0}
    assert a.id in context.recalled and b.id in context.recalled  # the pair, each its own item
    logged = [e for e in store.recalls.spooled() if e["tool"] == "build_context"][before:]
    assert [e["memory_id"] for e in logged] == context.recalled  # what was shown, in order, nothing else
    for memory_id in context.recalled:  # each one logged is in the text
        assert store.get(memory_id).own_text.split(":")[0].split()[0] in context.text
    # a budget too small for the best memory shows none, and logs none
    before = len([e for e in store.recalls.spooled() if e["tool"] == "build_context"])
    tiny = build_context(store, s.session_id, "ledger retry bound settlement window", budget_tokens=60,
                         tools=tools.describe())
    assert tiny.recalled == [] and tiny.report()["Recalled memory"]["cut"] == 3
    assert len([e for e in store.recalls.spooled() if e["tool"] == "build_context"]) == before


def test_tools_as_plain_functions(project_memory, tmp_path):
    store, p, _ = project_memory
    (tmp_path / "ws" / "src").mkdir(parents=True)
    (tmp_path / "ws" / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / "secret.txt").write_text("no")
    box = tools.Toolbox(store, agent="coder", workspace=tmp_path / "ws")
    saved = tools.call(box, "save_learning", {"project_id": p.id, "content": "Use COPY for bulk loads",
                                              "iteration_id": "it3"})
    pattern = tools.call(box, "promote_to_pattern", {"learning_id": saved["id"], "tags": ["db"],
                                                     "usage_examples": ["nightly import"]})
    assert store.get(pattern["id"]).tags == ["db"] and store.get(pattern["id"]).promoted_from == saved["id"]
    insight = tools.call(box, "save_insight", {"project_id": p.id, "content": "Cache the FX rates",
                                               "importance": "important"})
    decision = tools.call(box, "promote_to_decision", {"insight_id": insight["id"], "title": "FX cache",
                                                       "consequences": "Rates may be a minute old"})
    assert store.get(decision["id"]).consequences == "Rates may be a minute old"
    assert tools.call(box, "list_files_workspace", {})["files"][0]["path"] == "src/app.py"
    for name, args, message in [
        ("save_insight", {"project_id": p.id, "content": "x", "importance": "huge"}, "importance"),
        ("save_issue", {"project_id": "nope", "content": "x"}, "project 'nope' does not exist"),
        ("promote_to_decision", {"insight_id": insight["id"]}, "already promoted"),
        # the other kind: refused before anything is written (a pattern was made, then an AttributeError)
        ("promote_to_decision", {"insight_id": saved["id"]}, "is a learning, not an insight: a learning becomes a pattern"),
        ("promote_to_pattern", {"learning_id": insight["id"]}, "is an insight, not a learning"),
        ("list_files_workspace", {"path": "../"}, "outside the workspace"),
        ("query_memory", {"project_id": p.id, "limit": 0}, "limit"),
        ("query_memory", {"project_id": p.id, "color": "red"}, "color: is not an argument"),
        ("no_such_tool", {}, "no tool"),
    ]:
        with pytest.raises(MemlibError, match=message) as info:
            tools.call(box, name, args)
        assert "\n" not in str(info.value)
    assert len(tools.describe()) == 29  # the ten of seed 004, remember, update, correct and forget, two
    # reviews, five queue tools, seven for the session layers and build_context, report_fragment
    promoted = store.audit.events("action = 'promoted'")
    assert len(promoted) == 2  # the two refused promotions wrote nothing


def test_agent_activity_report_matches_the_logs(project_memory):
    from collections import Counter

    from memlib import analytics
    from memlib.analytics import report_data

    store, p, _ = project_memory
    for agent in ("coder", "reviewer"):
        box = tools.Toolbox(store, agent=agent)
        tools.call(box, "query_memory", {"project_id": p.id, "scope": "project"})
        tools.call(box, "save_issue", {"project_id": p.id, "content": f"{agent} found a bug"})
    tools.call(tools.Toolbox(store, agent="coder"), "query_memory", {"project_id": p.id, "keywords": ["ledger"]})
    store.recall("ledger", agent="reviewer")
    con = analytics.connect(store, analytics.Params(as_of=datetime.now(timezone.utc) + timedelta(minutes=1)))
    rows = {(r[0], r[1], r[2]): (r[3], r[4]) for r in con.execute(
        "select agent, activity, tool, n_calls, n_memories from mart_agent_activity").fetchall()}
    # independently: the spool's events and the audit log, counted in Python
    events = store.recalls.spooled()
    calls = Counter((e["agent"], e["tool"] or "recall") for e in {e["query_id"]: e for e in events}.values())
    memories = Counter((e["agent"], e["tool"] or "recall") for e in events)
    for (agent, tool), n in calls.items():
        assert rows[(agent, "recall", tool)] == (n, memories[(agent, tool)])
    assert rows[("coder", "recall", "query_memory")][0] == 2 and rows[("reviewer", "recall", "recall")][0] == 1
    held = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    writes = Counter(e["actor"] for e in store.audit.events("action = 'write'") if e["subject_id"] in held)
    for actor, n in writes.items():
        assert rows[(actor, "change", "write")][1] == n
    report = report_data.usage(con)
    table = report.tables["Agent activity by agent and tool (recalls, and changes to memories)"]
    assert table.height == len(rows) and "Agent activity" in report.charts


def test_the_readme_agent_loop_runs(tmp_path, monkeypatch, model):
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    start = text.index("```python\nfrom memlib import MemoryStore\nfrom memlib.agents import")
    code = text[start + len("```python\n"):text.index("```", start + 10)]
    monkeypatch.chdir(tmp_path)
    store = MemoryStore.open("data/store", embedder=model)
    project = Project(name="shop")
    store.add([project])
    answers = []
    namespace = {"PROJECT_ID": project.id, "goals": ["cache prices", "cache prices"],
                 "my_llm": lambda context, goal: answers.append(context) or f"Done: {goal} in Redis"}
    exec(compile(code, "README.md", "exec"), namespace)
    assert len(answers) == 2 and "## Persona and owner" in answers[0]
    assert "## Transcript" in answers[1] and "Done: cache prices" in answers[1]
    store.refresh()
    summaries = store.dataset().to_table(filter="kind = 'summary'").to_pylist()
    assert len(summaries) == 1  # the same outcome twice is written back once
    assert Sessions(store).get(namespace["session"].session_id).status == "ended"


def test_ending_a_session_offers_its_transcript_to_the_policy(project_memory):
    store, p, _ = project_memory
    sessions = Sessions(store)
    quiet = sessions.start("coder", project_id=p.id)
    sessions.append(quiet.session_id, "user", "Why do ledger retries duplicate rows?")
    sessions.append(quiet.session_id, "assistant", "No idempotency key; added one per write.")
    before = store.count()
    sessions.end(quiet.session_id, policy=ConservativePolicy())  # write-back off: nothing
    assert store.count() == before
    s = sessions.start("coder", project_id=p.id)
    sessions.append(s.session_id, "user", "Why do ledger retries duplicate rows?")
    sessions.append(s.session_id, "assistant", "Looking.")
    sessions.append(s.session_id, "assistant", "No idempotency key; added one per write.")
    sessions.end(s.session_id, policy=ConservativePolicy(automatic_write_back=True))
    (summary,) = store.dataset().to_table(filter="kind = 'summary'").to_pylist()
    assert "Why do ledger retries" in summary["content"] and "added one per write" in summary["content"]
    assert '"session_id": "%s"' % s.session_id in summary["metadata"]


def test_an_agent_updates_and_forgets_memories_it_knows_are_wrong_and_a_person_undoes_it(project_memory, agent_tools):
    """Seen: no tool could change or remove a memory. The tools say in their descriptions that
    they change and remove; each change carries the agent and the reason in the audit log, and
    forgetting is a run a person undoes."""
    with agent_tools(project_memory[0], "coder") as call:
        _updates_and_forgets(project_memory, call)


def _updates_and_forgets(project_memory, call):
    from memlib.lifecycle import retention

    store, p, _ = project_memory
    wrong = call("save_insight", {"project_id": p.id, "content": "The cache TTL is 300 s"})
    stale = call("save_insight", {"project_id": p.id, "content": "Deploys go out on Fridays"})
    out = call("update_memory", {"memory_id": wrong["id"], "content": "The cache TTL is 60 s",
                                            "reason": "checked config/cache.yaml", "confidence": 90})
    assert out["text"] == "The cache TTL is 60 s" and store.get(wrong["id"]).confidence == 90
    (event,) = store.audit.events(f"action = 'revise' AND subject_id = '{wrong['id']}'")
    assert event["actor"] == "coder" and event["details"]["reason"] == "checked config/cache.yaml"
    assert event["details"]["before"]["content"] == "The cache TTL is 300 s"
    assert store.search("cache TTL", k=1, mode="fts")[0].memory.content == "The cache TTL is 60 s"
    gone = call("forget_memory", {"memory_ids": [stale["id"]], "reason": "we deploy daily now"})
    assert gone["forgotten"] == 1 and not store.lookup([stale["id"]], ["id"])
    (event,) = store.audit.events("action = 'forget'")
    assert (event["subject_id"], event["actor"], event["run_id"]) == (stale["id"], "coder", gone["run_id"])
    assert retention.undo(store, gone["run_id"]) == 1 and store.get(stale["id"]).content == "Deploys go out on Fridays"
    described = {t["name"]: t["description"] for t in tools.describe()}
    assert described["update_memory"].startswith("CHANGES") and described["forget_memory"].startswith("REMOVES")
    for name, args, message in [
        ("update_memory", {"memory_id": wrong["id"], "reason": "x"}, "give at least one field"),
        ("update_memory", {"memory_id": wrong["id"], "content": "y"}, "reason: Field required"),
        ("update_memory", {"memory_id": wrong["id"], "reason": "x", "kind": "issue"}, "kind: is not an argument"),
        ("forget_memory", {"memory_ids": ["nope"], "reason": "x"}, "no memory with id 'nope'"),
        ("forget_memory", {"memory_ids": [p.id], "reason": "x"}, "memories hang off these"),
    ]:
        with pytest.raises(MemlibError, match=message):
            call(name, args)


def test_a_correction_supersedes_a_memory_keeps_it_in_history_and_is_undone_exactly(project_memory, agent_tools):
    """The old memory leaves recall and context and stays in its history, linked both ways; a
    correction of a correction works; undo puts the old one back byte for byte."""
    with agent_tools(project_memory[0], "reviewer") as call:
        _corrects(project_memory, call)


def _corrects(project_memory, call):
    from memlib.lifecycle import curation
    from memlib.store import history as histories

    store, p, _ = project_memory
    first = call("save_insight", {"project_id": p.id, "content": "Refunds settle in 5 days",
                                             "tags": ["refunds"], "importance": "important"})
    before = store.lookup([first["id"]], store.table.schema.names)[first["id"]]
    fixed = call("correct_memory", {"memory_id": first["id"], "content": "Refunds settle in 3 days",
                                               "reason": "the PSP changed its terms"})
    assert fixed["corrects"] == first["id"] and fixed["id"] != first["id"]
    new = store.get(fixed["id"])
    assert new.metadata["corrects"] == first["id"] and new.tags == ["refunds"] and new.importance.value == "important"
    assert not store.lookup([first["id"]], ["id"])  # left out of recall: not in the memories
    hits = store.search("refunds settle days", k=5)
    assert [h.id for h in hits if "Refunds" in h.memory.own_text] == [fixed["id"]]
    life = histories.memory_history(store, first["id"])
    correct = [e for e in life["events"] if e["action"] == "correct"]
    assert correct and correct[0]["details"]["to"] == fixed["id"] and correct[0]["actor"] == "reviewer"
    again, run2 = curation.correct(store, fixed["id"], "it is 2 business days", actor="ana",
                                   content="Refunds settle in 2 business days")
    assert again.metadata["corrects"] == fixed["id"]
    with pytest.raises(MemlibError, match="was corrected again: undo that correction first"):
        curation.uncorrect(store, fixed["run_id"])
    assert curation.uncorrect(store, run2) == fixed["id"] and store.get(fixed["id"]).content == "Refunds settle in 3 days"
    assert curation.uncorrect(store, fixed["run_id"]) == first["id"]
    assert not store.lookup([fixed["id"], again.id], ["id"])
    assert store.lookup([first["id"]], store.table.schema.names)[first["id"]] == before  # exactly as it was
    for name, args, message in [
        ("correct_memory", {"memory_id": first["id"], "content": "Refunds settle in 5 days", "reason": "x"},
         "says that already"),
        ("correct_memory", {"memory_id": p.id, "title": "x", "reason": "x"}, "hang off"),
        ("correct_memory", {"memory_id": "nope", "content": "x", "reason": "x"}, "no memory with id 'nope'"),
    ]:
        with pytest.raises(MemlibError, match=message):
            call(name, args)


def test_the_latest_iteration_is_the_one_that_began_last(tmp_path):
    """Insights in iteration A, then B; finalizing A promotes its critical insight (a row of
    A written after B's); cleanup keeping one iteration keeps B, and the smart scope reads B."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    p = Project(name="payments", created_at=T0)
    a = [Insight(project_id=p.id, iteration_id="A", content="Retries duplicate ledger rows", importance="critical",
                 created_at=T0 + timedelta(days=1)),
         Learning(project_id=p.id, iteration_id="A", content="Batch inserts are faster", created_at=T0 + timedelta(days=1))]
    b = [Insight(project_id=p.id, iteration_id="B", content="Settlement runs twice at midnight",
                 created_at=T0 + timedelta(days=5))]
    store.add([p, *a, *b])
    store.clock = Clock(T0 + timedelta(days=9))  # A is finalized after B began
    (made,) = curation.finalize_iteration(store, p.id, "A")
    assert made.iteration_id == "A" and made.created_at > b[0].created_at
    from memlib.agents.query import latest_iterations
    assert latest_iterations(store, p.id, 2) == ["B", "A"]
    smart = query_memory(store, {"project_id": p.id, "scope": "smart", "types": ["insights"]})
    assert smart.iterations == ["B"]
    out = cleanup_old_knowledge(store, p.id, keep_count=1)
    assert out["iterations_cleaned"] == ["A"]
    left = store.rows("kind IN ('insight', 'learning')", 100, columns=["iteration_id"])
    assert {row["iteration_id"] for row in left} == {"B"}
