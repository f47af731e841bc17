"""Every route and every agent tool of the memory server, walked with two tokens that must
not change a project: an outsider's (it writes another project) and a reader's (it reads the
project, writes none). Each call is expected to be refused (403, nothing written), allowed
(a read the token may make) or hidden (answered, without the project's data). A route or a
tool added later fails the walk until it has a case here."""

from __future__ import annotations

import json

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from memlib import Insight, Learning, MemoryStore, Project
from memlib.agents import tools as agent_tools
from memlib.agents.sessions import Sessions
from memlib.control import ControlPlane
from memlib.embeddings import HashEmbedder
from memlib.server import Server, Tokens
from memlib.server.app import create_app

REFUSED, ALLOWED, HIDDEN, NO_PROJECT = "refused", "allowed", "hidden", "no project"


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """A store with the outsider's project (mine) and the guarded one (theirs), every kind
    of thing a route reaches in the guarded one, and the server in this process."""
    store = MemoryStore.open(str(tmp_path_factory.mktemp("walk") / "store"), embedder=HashEmbedder())
    mine, theirs = Project(name="mine"), Project(name="theirs")
    insight = Insight(project_id=theirs.id, iteration_id="it1", content="Ledger writes retry with a request id")
    learning = Learning(project_id=theirs.id, iteration_id="it1", content="Batching bank files halves the fees")
    store.add([mine, theirs, insight, learning])
    tokens = Tokens(store)
    made = {"lead": tokens.create("lead")[0], "outsider": tokens.create("outsider", projects=[mine.id])[0],
            "reader": tokens.create("reader", read_projects=[theirs.id])[0]}
    box = agent_tools.Toolbox(store, agent="lead")
    agent_tools.call(box, "save_knowledge_snapshot", {"project_id": theirs.id, "iteration_id": "it1",
                                                      "summaries": {"idea": "Settle ledgers nightly"}})
    sessions = Sessions(store)
    # a session each agent holds in the guarded project (as a wider token once started it)
    owned = {agent: sessions.start(agent, project_id=theirs.id).session_id for agent in ("outsider", "reader")}
    for sid in owned.values():
        sessions.append(sid, "user", "what retries the ledger?")
        sessions.save_loop(sid, "settle", 1, {"at": "bank file"})
    plane = ControlPlane.open(store.uri)
    # a task of the guarded project each agent holds (claimed before its token was narrowed)
    held = {}
    for agent in ("outsider", "reader"):
        plane.queue.enqueue("settle", {"secret": f"for {agent}"}, project_id=theirs.id, priority=1)
        lease = plane.queue.claim(agent, lease=3_600)
        held[agent] = {"task_id": lease.task_id, "token": lease.token}
    plane.queue.enqueue("settle", {"secret": "the guarded project's payload"}, project_id=theirs.id, priority=1_000)
    plane.close()
    server = Server(store)
    with TestClient(create_app(server)) as client:
        yield {"store": store, "mine": mine, "theirs": theirs, "insight": insight, "learning": learning, "tokens": made,
               "sessions": owned, "held": held, "client": client}


def tool_cases(w: dict, agent: str) -> dict[str, list[tuple[dict, str]]]:
    """Each tool's calls on the guarded project, with what `agent` should meet."""
    p, read = w["theirs"].id, ALLOWED if agent == "reader" else REFUSED
    sid, held = w["sessions"][agent], w["held"][agent]
    return {
        "query_memory": [({"project_id": p, "keywords": ["ledger"]}, read)],
        "remember": [({"project_id": p, "content": "written where it may not"}, REFUSED),
                     ({"user_id": "alice", "content": "a person's note is every project's"}, REFUSED)],
        "save_insight": [({"project_id": p, "content": "written where it may not"}, REFUSED)],
        "save_issue": [({"project_id": p, "content": "written where it may not"}, REFUSED)],
        "save_learning": [({"project_id": p, "content": "written where it may not"}, REFUSED)],
        "promote_to_decision": [({"insight_id": w["insight"].id}, REFUSED)],
        "promote_to_pattern": [({"learning_id": w["learning"].id}, REFUSED)],
        "load_document_summary": [({"project_id": p, "iteration_id": "it1", "document": "idea"}, read)],
        "load_base_knowledge": [({"project_id": p, "iteration_id": "it2"}, read)],
        "save_knowledge_snapshot": [({"project_id": p, "iteration_id": "it9"}, REFUSED)],
        "list_files_workspace": [({}, NO_PROJECT)],
        "update_memory": [({"memory_id": w["insight"].id, "reason": "r", "content": "changed"}, REFUSED)],
        "correct_memory": [({"memory_id": w["insight"].id, "reason": "r", "content": "changed"}, REFUSED)],
        "forget_memory": [({"memory_ids": [w["insight"].id], "reason": "r"}, REFUSED)],
        "list_reviews": [({}, REFUSED)],
        "decide_review": [({"approval_id": "x", "accept": True}, REFUSED)],
        "enqueue_task": [({"kind": "zq", "project_id": p, "payload": {"x": 1}}, REFUSED),
                         ({"kind": "zq", "priority": 1_000, "payload": {"x": 1}}, REFUSED)],
        "claim_task": [({"lease_seconds": 60}, HIDDEN if agent == "outsider" else REFUSED)],
        "heartbeat_task": [({**held, "extend_seconds": 60}, REFUSED)],
        "ack_task": [({**held, "output": {"done": True}}, REFUSED)],
        "nack_task": [({**held, "error": "no"}, REFUSED)],
        "start_session": [({"project_id": p}, REFUSED), ({}, REFUSED)],
        "append_turn": [({"session_id": sid, "role": "user", "content": "more"}, REFUSED)],
        "get_transcript": [({"session_id": sid}, read)],
        "save_pending_loop": [({"session_id": sid, "goal": "g", "step": 2}, REFUSED)],
        "load_pending_loop": [({"session_id": sid}, read)],
        "end_session": [({"session_id": sid}, REFUSED)],
        "build_context": [({"session_id": sid, "goal": "ledger retries", "budget_tokens": 500}, read)],
        "report_fragment": [({"content": "a finding", "evidence": "a page"}, REFUSED)],
    }


def route_cases(w: dict, agent: str) -> dict[tuple[str, str], list[tuple[str, dict | None, str]]]:
    """Each REST route's calls on the guarded project: (path, JSON body, expected)."""
    p, m, sid = w["theirs"].id, w["insight"].id, w["sessions"][agent]
    read = ALLOWED if agent == "reader" else REFUSED
    hidden = ALLOWED if agent == "reader" else HIDDEN  # the outsider's answer leaves the project out
    scope = {"project_id": p}
    return {
        ("GET", "/v1/health"): [("/v1/health", None, NO_PROJECT)],
        ("POST", "/v1/memories"): [("/v1/memories", {"memories": [
            {"kind": "insight", "project_id": p, "content": "written where it may not"}]}, REFUSED),
            ("/v1/memories", {"memories": [{"kind": "project", "name": "mine too"}]}, REFUSED)],
        ("GET", "/v1/memories/{memory_id}"): [(f"/v1/memories/{m}", None, read)],
        ("POST", "/v1/search"): [("/v1/search", {"query": "ledger", "scope": scope}, read),
                                 ("/v1/search", {"query": "ledger retry request id"}, hidden)],
        ("POST", "/v1/count"): [("/v1/count", {"scope": scope}, read),
                                ("/v1/count", {}, hidden)],
        ("POST", "/v1/recall"): [("/v1/recall", {"query": "ledger", "scope": scope}, read)],
        ("POST", "/v1/disagreements"): [("/v1/disagreements", {"ids": [m]}, hidden)],
        ("PATCH", "/v1/memories/{memory_id}"): [(f"/v1/memories/{m}", {"reason": "r", "changes": {"content": "x"}},
                                                 REFUSED)],
        ("POST", "/v1/memories/{memory_id}/correct"): [(f"/v1/memories/{m}/correct",
                                                        {"reason": "r", "changes": {"content": "x"}}, REFUSED)],
        ("POST", "/v1/memories/{memory_id}/confidence"): [(f"/v1/memories/{m}/confidence",
                                                           {"delta": -10, "reason": "r"}, REFUSED)],
        ("POST", "/v1/forget"): [("/v1/forget", {"memory_ids": [m], "reason": "r"}, REFUSED)],
        ("GET", "/v1/memories/{memory_id}/history"): [(f"/v1/memories/{m}/history", None, read)],
        ("POST", "/v1/sessions"): [("/v1/sessions", {"project_id": p}, REFUSED), ("/v1/sessions", {}, REFUSED)],
        ("GET", "/v1/sessions/{session_id}"): [(f"/v1/sessions/{sid}", None, read)],
        ("POST", "/v1/sessions/{session_id}/turns"): [(f"/v1/sessions/{sid}/turns",
                                                       {"role": "user", "content": "x"}, REFUSED)],
        ("GET", "/v1/sessions/{session_id}/transcript"): [(f"/v1/sessions/{sid}/transcript", None, read)],
        ("PUT", "/v1/sessions/{session_id}/loop"): [(f"/v1/sessions/{sid}/loop", {"goal": "g", "step": 3}, REFUSED)],
        ("GET", "/v1/sessions/{session_id}/loop"): [(f"/v1/sessions/{sid}/loop", None, read)],
        ("DELETE", "/v1/sessions/{session_id}/loop"): [(f"/v1/sessions/{sid}/loop", None, REFUSED)],
        ("POST", "/v1/sessions/{session_id}/end"): [(f"/v1/sessions/{sid}/end", None, REFUSED)],
        ("POST", "/v1/context"): [("/v1/context", {"session_id": sid, "goal": "ledger"}, read)],
        ("POST", "/v1/consensus/fragments"): [("/v1/consensus/fragments",
                                               {"fragments": [{"content": "x", "trace_pointer": m}]}, REFUSED)],
        ("POST", "/v1/consensus/consolidate"): [("/v1/consensus/consolidate", {"cluster_id": "c"}, REFUSED)],
        ("GET", "/v1/consensus/units/{cluster_id}"): [("/v1/consensus/units/c", None, REFUSED)],
        ("GET", "/v1/consensus/clusters"): [("/v1/consensus/clusters", None, REFUSED)],
        ("GET", "/v1/tools"): [("/v1/tools", None, NO_PROJECT)],
        # POST /v1/tools/{name} and /mcp: every tool, by tool_cases
    }


def state(w: dict) -> dict:
    """What a refused call must leave as it was: the memories, sessions, tasks, fragments."""
    store = w["store"]
    store.refresh()
    sessions = Sessions(store)
    plane = ControlPlane.open(store.uri)
    try:
        tasks = [(t.task_id, t.status, t.attempts, t.lease_owner) for t in plane.tasks.list(limit=1_000)]
    finally:
        plane.close()
    return {"memories": sorted((r["id"], r["updated_at"], r["confidence"]) for r in store.rows(None, 1_000)),
            "sessions": sorted((s.session_id, s.status, len(sessions.transcript(s.session_id)),
                                (sessions.pending_loop(s.session_id) or None) and sessions.pending_loop(
                                    s.session_id).step) for s in sessions.list()),
            "tasks": sorted(tasks), "tokens": len(Tokens(store).list())}


def rest(client, token, method, path, body):
    kwargs = {"headers": {"Authorization": f"Bearer {token}"}}
    if body is not None:
        kwargs["json"] = body
    return client.request(method, path, **kwargs)


def mcp(client, token, name, arguments):
    response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": name, "arguments": arguments}},
                           headers={"Authorization": f"Bearer {token}",
                                    "Accept": "application/json, text/event-stream"})
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    return result["isError"], result["content"][0]["text"]


def test_the_walk_covers_every_route_and_tool(walk):
    routes = {(method, r.path) for r in walk["client"].app.routes if isinstance(r, APIRoute) for method in r.methods}
    for agent in ("outsider", "reader"):
        assert routes - {("POST", "/v1/tools/{name}")} == set(route_cases(walk, agent))
        assert set(tool_cases(walk, agent)) == set(agent_tools.TOOLS)


@pytest.mark.parametrize("agent", ["outsider", "reader"])
def test_every_route_refuses_what_the_token_may_not_touch_and_writes_nothing(walk, agent):
    client, token, theirs = walk["client"], walk["tokens"][agent], walk["theirs"].id
    before = state(walk)
    for (method, _), calls in route_cases(walk, agent).items():
        for path, body, expected in calls:
            response = rest(client, token, method, path, body)
            where = f"{agent} {method} {path} {body}"
            if expected == REFUSED:
                assert response.status_code == 403, (where, response.text)
                assert "\n" not in response.json()["error"]
            elif expected in (ALLOWED, NO_PROJECT):
                assert response.status_code == 200, (where, response.text)
            else:  # answered, without the guarded project's data
                assert response.status_code == 200, (where, response.text)
                assert theirs not in response.text and walk["insight"].id not in response.text, where
                if path == "/v1/count":  # the outsider's own project, and nothing of the guarded one
                    assert response.json()["count"] == sum(r["project_id"] == walk["mine"].id
                                                            for r in walk["store"].rows(None, 1_000)), where
    assert state(walk) == before


@pytest.mark.parametrize("agent", ["outsider", "reader"])
@pytest.mark.parametrize("over", ["rest", "mcp"])
def test_every_tool_refuses_what_the_token_may_not_touch_and_writes_nothing(walk, agent, over):
    client, token = walk["client"], walk["tokens"][agent]
    before = state(walk)
    for name, calls in tool_cases(walk, agent).items():
        for arguments, expected in calls:
            where = f"{agent} {over} {name} {arguments}"
            if over == "rest":
                response = rest(client, token, "POST", f"/v1/tools/{name}", arguments)
                status, text = response.status_code, response.text
                message = response.json().get("error") if status != 200 else None
            else:
                failed, text = mcp(client, token, name, arguments)
                status = None
                message = text.removeprefix(f"Error executing tool {name}: ") if failed else None
            if expected == REFUSED:
                assert message is not None, where
                assert any(words in message for words in ("may not", "is for a token of every project",
                                                          "names no project", "only reads", "give project_id")), \
                    (where, message)
                assert status in (None, 403), (where, status, message)
            elif expected == ALLOWED:
                assert message is None, (where, text)
            elif expected == HIDDEN:  # the claim: nothing of the guarded project
                assert message is None and "guarded project's payload" not in text, (where, text)
                assert json.loads(text if over == "rest" else text)["task"] is None, where
            else:  # NO_PROJECT: whatever the call meets, it is not a refusal by project
                assert message is None or "may not" not in message, (where, message)
    assert state(walk) == before


def test_the_queue_is_per_project_and_a_read_only_token_writes_no_task(tmp_path):
    """The attack as found: agent B enqueues with a secret, agent A (limited to its project)
    claims and acks it. Now A's claims see only A's tasks, B's task waits for B."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    a, b = Project(name="a"), Project(name="b")
    store.add([a, b])
    tokens = Tokens(store)
    agent_a, agent_b = tokens.create("agent-a", projects=[a.id])[0], tokens.create("agent-b", projects=[b.id])[0]
    reader = tokens.create("reader", read_projects=[a.id, b.id])[0]
    with TestClient(create_app(Server(store))) as client:
        def tool(token, name, body):
            return rest(client, token, "POST", f"/v1/tools/{name}", body)

        assert "give project_id" in tool(agent_b, "enqueue_task", {"kind": "zq", "priority": 1000,
                                                                   "payload": {"secret": "s"}}).json()["error"]
        queued = tool(agent_b, "enqueue_task", {"kind": "zq", "priority": 1000, "project_id": b.id,
                                                "payload": {"secret": "s"}})
        assert queued.status_code == 200 and queued.json()["project_id"] == b.id, queued.text
        assert tool(agent_a, "claim_task", {"lease_seconds": 60}).json() == {"task": None}
        assert tool(reader, "enqueue_task", {"kind": "zq", "project_id": a.id}).status_code == 403
        assert tool(reader, "claim_task", {}).status_code == 403
        mine = tool(agent_a, "enqueue_task", {"kind": "own", "project_id": a.id}).json()
        claimed = tool(agent_a, "claim_task", {"lease_seconds": 60}).json()
        assert claimed["task"]["task_id"] == mine["task_id"]
        theirs = tool(agent_b, "claim_task", {"lease_seconds": 60}).json()
        assert theirs["task"]["payload"] == {"secret": "s"}
        assert tool(agent_a, "ack_task", {"task_id": theirs["task"]["task_id"], "token": theirs["token"]}
                    ).status_code == 403
        assert tool(agent_b, "ack_task", {"task_id": theirs["task"]["task_id"], "token": theirs["token"]}
                    ).json()["status"] == "succeeded"
