"""`memlib mcp` driven as an agent host drives it: the official SDK's stdio client starts the
server as a subprocess, initializes, lists the tools and calls every one, bad input too."""

from __future__ import annotations

import functools
import json
import os
import sys

import anyio
import pytest

from memlib import MemoryStore, Project
from memlib.embeddings import HashEmbedder


async def _session_run(store_uri: str, workspace: str, script, *more: str, errlog=sys.stderr):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # an agent host passes the server only the environment it is configured with: here all of
    # it, so a store in a bucket is reached with the test's AWS variables
    params = StdioServerParameters(command=sys.executable, env=dict(os.environ), args=[
        "-m", "memlib.cli", "--store", store_uri, "mcp", "--agent", "host-agent", "--workspace", workspace, *more])
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)


def drive(store_uri: str, workspace: str, script, *more: str, errlog=sys.stderr):
    return anyio.run(functools.partial(_session_run, errlog=errlog), store_uri, workspace, script, *more)


def drive_http(store_uri: str, workspace: str, script):
    """The same session through `memlib serve` (streamable HTTP) with a token for host-agent."""
    from test_server import Served

    from memlib.server import Tokens

    token = Tokens(MemoryStore.open(store_uri, create=False)).create("host-agent")[0]
    served = Served(store_uri, "--workspace", workspace)

    async def run():
        import httpx2
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            async with streamable_http_client(f"{served.url}/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await script(session)

    try:
        return anyio.run(run)
    finally:
        assert served.stop()


def answer(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def refusal(result) -> str:
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return text


pytestmark = pytest.mark.on_s3  # the served store is a directory, and a bucket on the S3 server


@pytest.fixture
def served(tmp_path, store_uri, monkeypatch):
    if "://" in store_uri:  # the queue of a store in a bucket lives in a file on this machine
        monkeypatch.setenv("MEMLIB_CONTROL_PLANE", str(tmp_path / "control-plane.db"))
    store = MemoryStore.open(store_uri, embedder=HashEmbedder())
    project = Project(name="payments")
    store.add([project])
    workspace = tmp_path / "workspace"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "prd.md").write_text("# PRD\n")
    (tmp_path / "outside.txt").write_text("secret")
    return store, project, str(workspace)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_tool_over_mcp(served, transport):
    """Every tool, on stdio (memlib mcp) and over streamable HTTP (memlib serve, a token)."""
    store, project, workspace = served
    pid = project.id

    async def script(session):
        out = {}
        listed = await session.list_tools()
        out["tools"] = {t.name: t.input_schema for t in listed.tools}
        insight = answer(await session.call_tool("save_insight", {
            "project_id": pid, "content": "Ledger retries must be idempotent", "importance": "critical",
            "iteration_id": "it1"}))
        answer(await session.call_tool("save_issue", {"project_id": pid, "content": "Settlement test is flaky",
                                                      "iteration_id": "it1"}))
        learning = answer(await session.call_tool("save_learning", {
            "project_id": pid, "content": "COPY beats INSERT for bulk loads", "iteration_id": "it1"}))
        out["decision"] = answer(await session.call_tool("promote_to_decision", {
            "insight_id": insight["id"], "consequences": "Every write carries a key"}))
        out["pattern"] = answer(await session.call_tool("promote_to_pattern", {
            "learning_id": learning["id"], "name": "Bulk COPY", "tags": ["db"]}))
        out["snapshot"] = answer(await session.call_tool("save_knowledge_snapshot", {
            "project_id": pid, "iteration_id": "it1", "summaries": {"idea": "A ledger", "prd": "Pay out daily"},
            "key_decisions": [out["decision"]["id"]], "tech_stack": ["python"]}))
        out["summary"] = answer(await session.call_tool("load_document_summary", {
            "project_id": pid, "iteration_id": "it1", "document": "prd"}))
        out["base"] = answer(await session.call_tool("load_base_knowledge", {"project_id": pid, "iteration_id": "it2"}))
        out["query"] = answer(await session.call_tool("query_memory", {
            "project_id": pid, "scope": "smart", "keywords": ["ledger", "idempotent"], "budget_tokens": 500}))
        out["files"] = answer(await session.call_tool("list_files_workspace", {}))
        out["refusals"] = [refusal(await session.call_tool(name, args)) for name, args in [
            ("save_insight", {"project_id": pid, "content": ""}),
            ("save_insight", {"project_id": pid, "content": "x", "mood": "happy"}),
            ("save_issue", {"project_id": "no-such-project", "content": "x"}),
            ("promote_to_decision", {"insight_id": insight["id"]}),
            ("query_memory", {"project_id": pid, "scope": "iteration"}),
            ("load_document_summary", {"project_id": pid, "iteration_id": "it1", "document": "novel"}),
            ("list_files_workspace", {"path": ".."}),
            ("save_knowledge_snapshot", {"project_id": pid, "iteration_id": "it2", "summaries": {"plan": "x" * 2000}}),
        ]]
        # the server is still serving after every refusal
        out["after"] = answer(await session.call_tool("query_memory", {"project_id": pid, "scope": "project"}))
        return out

    out = (drive if transport == "stdio" else drive_http)(store.uri, workspace, script)
    assert sorted(out["tools"]) == sorted([
        "query_memory", "remember", "save_insight", "save_issue", "save_learning", "promote_to_decision",
        "promote_to_pattern", "load_document_summary", "load_base_knowledge", "save_knowledge_snapshot",
        "list_files_workspace", "update_memory", "correct_memory", "forget_memory", "list_reviews", "decide_review",
        "enqueue_task", "claim_task", "heartbeat_task", "ack_task", "nack_task", "start_session", "append_turn",
        "get_transcript", "save_pending_loop", "load_pending_loop", "end_session", "build_context", "report_fragment"])
    schema = out["tools"]["save_insight"]
    assert schema["required"] == ["project_id", "content"] and schema["additionalProperties"] is False
    assert schema["properties"]["importance"]["enum"] == ["critical", "important", "normal"]
    assert out["summary"]["summary"] == "Pay out daily"
    assert out["base"]["snapshot"]["iteration_id"] == "it1"
    assert {i["kind"] for i in out["query"]["items"][:2]} == {"insight", "decision"}  # both about it
    assert all(i["text"].startswith("Ledger retries must be idempotent") for i in out["query"]["items"][:2])
    assert "## Decisions" in out["query"]["context"] and "## Insights" in out["query"]["context"]
    assert [f["path"] for f in out["files"]["files"]] == ["docs/prd.md"]
    messages = out["refusals"]
    for needle in ["content", "mood: is not an argument", "project 'no-such-project' does not exist", "already promoted", "iteration_id",
                   "document", "outside the workspace", "summaries.plan"]:
        assert any(needle in m for m in messages), (needle, messages)
    assert {i["kind"] for i in out["after"]["items"]} == {"decision", "pattern"}

    store.refresh()
    decision = store.get(out["decision"]["id"])
    assert decision.consequences == "Every write carries a key" and decision.agent == "host-agent"
    written = store.audit.events("action = 'write'")
    assert {e["actor"] for e in written if e["subject_id"] != pid} == {"host-agent"}
    recalls = store.recalls.spooled()
    assert {(e["agent"], e["tool"]) for e in recalls} == {("host-agent", "query_memory")}
    assert store.count() == 1 + 3 + 2


def test_every_mcp_error_names_its_reason_and_the_server_logs_no_traceback(served, tmp_path):
    """A 1 MB tag and a NUL byte in a path came back as a bare 'Error executing tool X' with
    a ~100-line traceback on the server's stderr."""
    store, project, workspace = served

    async def script(session):
        return [refusal(await session.call_tool(name, args)) for name, args in [
            ("save_insight", {"project_id": project.id, "content": "tagged", "tags": ["x" * 1_000_000]}),
            ("list_files_workspace", {"path": "docs\x00/../.."}),
            ("list_files_workspace", {"pattern": "*\x00"}),
        ]]

    with open(tmp_path / "server.err", "w+") as errlog:
        texts = drive(store.uri, workspace, script, errlog=errlog)
        errlog.seek(0)
        logged = errlog.read()
    assert texts[0].endswith("the new insight: tags: tag 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"
                             "… (1,000,000 characters) must be 1 to 100 characters")
    assert texts[1].endswith("list_files_workspace: path: must not contain a NUL byte")
    assert texts[2].endswith("list_files_workspace: pattern: must not contain a NUL byte")
    assert "Traceback" not in logged


def test_a_tool_that_fails_inside_names_the_failure_in_one_line(store, caplog):
    """Not a user's mistake (here the store fails under the tool): the client is told what
    failed in one line, and the server logs that line, not a traceback."""
    from memlib.agents.mcp_server import answer
    from memlib.agents.tools import Toolbox

    project = Project(name="p")
    store.add([project])

    def broken(*args, **kwargs):
        raise OSError("No space left on device\n(and more detail)")

    store.add = broken
    result = answer(Toolbox(store=store), "save_insight", {"project_id": project.id, "content": "a note"})
    assert result.is_error
    assert result.content[0].text == "Error executing tool save_insight: internal error (OSError: No space left on device)"
    assert "tool save_insight failed: OSError: No space left on device" in caplog.text
    assert "Traceback" not in caplog.text


def test_an_agent_host_updates_and_forgets_over_mcp(served):
    store, project, workspace = served

    async def script(session):
        saved = answer(await session.call_tool("save_insight", {"project_id": project.id,
                                                                "content": "Settlement runs at 02:00"}))
        changed = answer(await session.call_tool("update_memory", {
            "memory_id": saved["id"], "content": "Settlement runs at 03:00", "reason": "moved after the DST change"}))
        refused = refusal(await session.call_tool("update_memory", {"memory_id": saved["id"], "content": "x"}))
        gone = answer(await session.call_tool("forget_memory", {"memory_ids": [saved["id"]], "reason": "obsolete"}))
        return saved, changed, refused, gone

    saved, changed, refused, gone = drive(store.uri, workspace, script)
    assert changed == {"id": saved["id"], "kind": "insight", "text": "Settlement runs at 03:00"}
    assert "reason" in refused and gone["forgotten"] == 1
    store.refresh()
    assert not store.lookup([saved["id"]], ["id"])
    actions = {(e["action"], e["actor"]) for e in store.audit.events(f"subject_id = '{saved['id']}'")}
    assert {("revise", "host-agent"), ("forget", "host-agent")} <= actions


def test_a_save_over_mcp_goes_to_the_markdown_workspace_it_serves(tmp_path, store_uri):
    from memlib.workspace import Workspace

    store = MemoryStore.open(store_uri, embedder=HashEmbedder())
    ws, _ = Workspace.init(tmp_path / "notes", store)

    async def script(session):
        return answer(await session.call_tool("save_insight", {
            "project_id": ws.project_id, "content": "Deploys go out on Tuesdays"}))

    saved = drive(store.uri, str(tmp_path / "notes"), script)
    memory_md = (tmp_path / "notes" / "MEMORY.md").read_text()
    assert "\nDeploys go out on Tuesdays\n" in memory_md and "- insight" in memory_md
    report = ws.sync(store)
    assert (report.added, report.updated) == (0, 0)
    (event,) = store.audit.events("action = 'workspace_append'")
    assert event["subject_id"] in json.dumps(saved) and event["actor"] == "host-agent"


def test_an_agent_host_enqueues_and_claims_work_over_mcp(served):
    from memlib.control import ControlPlane

    store, project, workspace = served

    async def script(session):
        out = {"enqueued": [answer(await session.call_tool("enqueue_task", {"kind": "review", "payload": {"pr": n},
                                                                           "priority": n})) for n in (1, 7)]}
        held = answer(await session.call_tool("claim_task", {"lease_seconds": 60}))
        out["claimed"] = held
        out["heartbeat"] = answer(await session.call_tool("heartbeat_task", {"task_id": held["task"]["task_id"],
                                                                            "token": held["token"]}))
        out["refusals"] = [refusal(await session.call_tool(name, args)) for name, args in [
            ("ack_task", {"task_id": held["task"]["task_id"], "token": "forged"}),
            ("enqueue_task", {"kind": "bad kind!"}),
            ("claim_task", {"lease_seconds": 0}),
        ]]
        out["acked"] = answer(await session.call_tool("ack_task", {"task_id": held["task"]["task_id"],
                                                                  "token": held["token"], "output": {"lgtm": True}}))
        second = answer(await session.call_tool("claim_task", {}))
        out["nacked"] = answer(await session.call_tool("nack_task", {"task_id": second["task"]["task_id"],
                                                                    "token": second["token"], "error": "flaky"}))
        return out

    out = drive(store.uri, workspace, script, "--session", "host-session")
    assert out["claimed"]["task"]["payload"] == {"pr": 7}  # the higher priority first
    assert out["claimed"]["task"]["session_id"] == "host-session" and out["acked"]["status"] == "succeeded"
    assert "does not hold task" in out["refusals"][0] and "kind" in out["refusals"][1]
    assert "lease_seconds" in out["refusals"][2]
    assert out["nacked"]["status"] == "queued" and out["nacked"]["attempts"] == 1
    with ControlPlane.open(store.uri) as plane:
        done = plane.results.get(out["claimed"]["task"]["task_id"])
        assert done.output == {"lgtm": True} and done.worker == "host-agent"
        assert [e.kind for e in plane.events.list(session_id="host-session")] == [
            "enqueued", "enqueued", "claimed", "acked", "claimed", "nacked"]


def test_a_person_reviews_held_memories_over_mcp(served):
    from memlib.agents.lifecycle_policy import ConservativePolicy, WriteInput, write_back

    store, project, workspace = served
    policy = ConservativePolicy(automatic_write_back=True, review="all")
    for goal in ("Rotate the API keys", "Shorten the settlement window"):
        assert write_back(store, policy, WriteInput(goal, f"{goal}: done", "coder", project.id)) == []

    async def script(session):
        listed = answer(await session.call_tool("list_reviews", {}))
        first, second = (r["approval_id"] for r in listed["reviews"])
        saved = answer(await session.call_tool("decide_review", {"approval_id": first, "accept": True}))
        refused = refusal(await session.call_tool("decide_review", {"approval_id": second, "accept": False}))
        rejected = answer(await session.call_tool("decide_review", {"approval_id": second, "accept": False,
                                                                    "reason": "not knowledge"}))
        left = answer(await session.call_tool("list_reviews", {}))
        return listed, saved, refused, rejected, left

    listed, saved, refused, rejected, left = drive(store.uri, workspace, script)
    assert [r["memory"]["content"].split("\n")[0] for r in listed["reviews"]] == [
        "Task: Rotate the API keys", "Task: Shorten the settlement window"]
    assert "reason" in refused and left["reviews"] == []
    store.refresh()
    assert store.get(saved["saved"]).content.startswith("Task: Rotate the API keys")
    assert not store.lookup([rejected["rejected"]], ["id"])
    (event,) = store.audit.events("action = 'review_rejected'")
    assert event["details"]["reason"] == "not knowledge" and "settlement window" in event["details"]["content"]


def test_sessions_context_and_fragments_over_mcp(served):
    """The session layers, build_context and report_fragment as an agent host calls them."""
    store, project, workspace = served

    async def script(session):
        started = answer(await session.call_tool("start_session", {"project_id": project.id,
                                                                   "preferences": {"persona": "terse"}}))
        sid = started["session_id"]
        answer(await session.call_tool("save_insight", {"project_id": project.id,
                                                        "content": "Ledger retries must carry an idempotency key"}))
        answer(await session.call_tool("append_turn", {"session_id": sid, "role": "user", "content": "Why do retries fail?"}))
        answer(await session.call_tool("save_pending_loop", {"session_id": sid, "goal": "fix", "step": 1, "state": {"a": 1}}))
        loop = answer(await session.call_tool("load_pending_loop", {"session_id": sid}))
        context = answer(await session.call_tool("build_context", {"session_id": sid, "goal": "ledger retries",
                                                                   "budget_tokens": 600}))
        transcript = answer(await session.call_tool("get_transcript", {"session_id": sid}))
        fragments = [answer(await session.call_tool("report_fragment", {
            "content": text, "topic_candidates": ["ledger"], "evidence": f"log line {i}"}))
            for i, text in enumerate(["Ledger retries time out after 30 seconds",
                                      "The ledger retry timeout is 30 s"])]
        refused = refusal(await session.call_tool("report_fragment", {"content": "x"}))
        ended = answer(await session.call_tool("end_session", {"session_id": sid}))
        return loop, context, transcript, fragments, refused, ended

    loop, context, transcript, fragments, refused, ended = drive(store.uri, workspace, script)
    assert loop["loop"]["step"] == 1 and context["recalled"] == []  # a pending loop: nothing recalled
    assert "Persona: terse" in context["text"] and [t["role"] for t in transcript["turns"]] == ["user"]
    assert all(f["trace_pointer"].startswith("sha256:") for f in fragments)
    assert "trace_pointer or evidence" in refused and ended["status"] == "ended"
    from memlib.consensus import Consensus

    store.refresh()
    assert {f.source_agent for f in Consensus(store).fragments()} == {"host-agent"}
