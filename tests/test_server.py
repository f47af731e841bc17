"""`memlib serve` as a team's agents reach it: a real server process on loopback, its REST API
through HTTP, its tools through the MCP SDK's streamable HTTP client, tokens that fix who
writes and what they may touch, and the group commit that batches their writes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx
import pytest

from memlib import Insight, MemoryStore, Project
from memlib.embeddings import HashEmbedder
from memlib.server import Server, Tokens


class Served:
    """A `memlib serve` subprocess on a free loopback port, and its store's tokens."""

    def __init__(self, uri: str, *more: str):
        self.uri = uri
        self.proc = subprocess.Popen([sys.executable, "-m", "memlib.cli", "--store", uri, "serve", "--port", "0", *more],
                                     stderr=subprocess.PIPE, text=True, env=dict(os.environ))
        line = self.proc.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+) ", line)
        assert found, line + self.proc.stderr.read() if self.proc.poll() is not None else line
        self.url = found.group(1)
        self.err: list[str] = []
        threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True).start()

    def client(self, token: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def stop(self, sig=signal.SIGTERM) -> bool:
        """Whether it stopped as it should: after SIGTERM, by that signal once drained
        (uvicorn raises it again after its graceful shutdown, so a parent sees why)."""
        self.proc.send_signal(sig)
        return self.proc.wait(60) in (0, -sig)


@pytest.fixture
def team(tmp_path):
    """A store with three projects, and tokens: a lead (every project), a coder (project A),
    a reader (reads A and B, writes nothing)."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    a, b, c = Project(name="payments"), Project(name="search"), Project(name="secret")
    store.add([a, b, c])
    store.add([Insight(project_id=p.id, content=f"the {p.name} service retries idempotent writes") for p in (a, b, c)])
    tokens = Tokens(store)
    made = {"lead": tokens.create("lead")[0], "coder": tokens.create("coder", projects=[a.id])[0],
            "reader": tokens.create("reader", read_projects=[a.id, b.id])[0]}
    served = Served(store.uri)
    yield store, (a, b, c), made, served
    if served.proc.poll() is None:
        served.stop(signal.SIGKILL)


def one_line_error(response, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    return message


def test_the_rest_api_writes_reads_and_changes_as_the_tokens_agent(team):
    store, (a, b, c), tokens, served = team
    lead, coder = served.client(tokens["lead"]), served.client(tokens["coder"])
    assert lead.get("/v1/health").json()["memories"] == 6

    saved = coder.post("/v1/memories", json={"memories": [
        {"kind": "insight", "project_id": a.id, "content": "Ledger retries need an idempotency key"}]})
    assert saved.status_code == 200, saved.text
    (new_id,) = saved.json()["ids"]
    got = coder.get(f"/v1/memories/{new_id}").json()
    assert got["content"] == "Ledger retries need an idempotency key" and got["agent"] == "coder"
    hits = coder.post("/v1/recall", json={"query": "ledger idempotency key", "k": 3,
                                          "scope": {"project_id": a.id}}).json()
    assert hits[0]["memory"]["id"] == new_id

    changed = coder.patch(f"/v1/memories/{new_id}", json={"reason": "named the header",
                                                          "changes": {"content": "Ledger retries carry Idempotency-Key"}})
    assert changed.status_code == 200 and changed.json()["id"] == new_id, changed.text
    lowered = coder.post(f"/v1/memories/{new_id}/confidence", json={"delta": -10, "reason": "one report only"})
    assert lowered.json()["confidence"] == 90 and lowered.json()["memory"]["confidence"] == 90, lowered.text
    corrected = coder.post(f"/v1/memories/{new_id}/correct", json={"reason": "it is a request id",
                                                                   "changes": {"content": "Ledger retries carry a request id"}})
    assert corrected.status_code == 200, corrected.text
    newer = corrected.json()["memory"]["id"]
    gone = coder.post("/v1/forget", json={"memory_ids": [newer], "reason": "moved to the runbook"})
    assert gone.json()["forgotten"] == 1
    life = lead.get(f"/v1/memories/{new_id}/history").json()
    actions = [e["action"] for e in life["events"]]
    assert actions[:2] == ["write", "revise"] and "correct" in actions and life["memory"] is None

    store.refresh()
    actors = {(e["action"], e["actor"]) for e in store.audit.events() if e["subject_id"] in (new_id, newer)}
    assert {("write", "coder"), ("revise", "coder"), ("confidence", "coder"), ("forget", "coder")} <= actors
    assert {(e["agent"], e["tool"]) for e in store.recalls.spooled()} == {("coder", "rest")}

    spec = lead.get("/openapi.json").json()
    body = spec["paths"]["/v1/memories"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert body.endswith("/AddBody") and "duplicates" in spec["components"]["schemas"]["AddBody"]["properties"]


def test_a_token_fixes_the_agent_and_the_projects_and_a_refusal_writes_nothing(team):
    store, (a, b, c), tokens, served = team
    coder, reader = served.client(tokens["coder"]), served.client(tokens["reader"])
    before = store.count()

    assert "may not write project" in one_line_error(coder.post("/v1/memories", json={"memories": [
        {"kind": "insight", "project_id": b.id, "content": "written where it may not"}]}), 403)
    assert "is not this token's" in one_line_error(coder.post("/v1/memories", json={"memories": [
        {"kind": "insight", "project_id": a.id, "content": "as someone else", "agent": "lead"}]}), 403)
    assert "may not write" in one_line_error(reader.post("/v1/memories", json={"memories": [
        {"kind": "insight", "project_id": a.id, "content": "a reader writes"}]}), 403)
    # a sub-task is in its root task's project, the root task in the same request or stored
    root = "6d1f0a3e-6b7c-4e59-8a63-2f1b9d0c4e11"
    tree = [{"kind": "root_task", "id": root, "project_id": a.id, "objective": "Speed up settlement"},
            {"kind": "sub_task", "root_task_id": root, "details": "Batch the bank file"}]
    assert coder.post("/v1/memories", json={"memories": tree}).status_code == 200
    assert coder.post("/v1/memories", json={"memories": [
        {"kind": "sub_task", "root_task_id": root, "details": "Retry the upload"}]}).status_code == 200
    assert "may not write" in one_line_error(reader.post("/v1/memories", json={"memories": [
        {"kind": "sub_task", "root_task_id": root, "details": "as a reader"}]}), 403)
    secret = next(i for i in store.rows("kind = 'insight'", 10) if i["project_id"] == c.id)
    assert "may not read" in one_line_error(coder.get(f"/v1/memories/{secret['id']}"), 403)
    assert "may not write" in one_line_error(coder.post("/v1/forget", json={"memory_ids": [secret["id"]],
                                                                            "reason": "x"}), 403)
    assert "may not read" in one_line_error(coder.post("/v1/search", json={
        "query": "retries", "scope": {"project_id": c.id}}), 403)
    # a search without a project looks only where the token may read
    hits = reader.post("/v1/search", json={"query": "service retries", "k": 20}).json()
    seen = {h["memory"].get("project_id", h["memory"]["id"]) for h in hits}  # a project is its own
    assert seen == {a.id, b.id}
    assert "is for a token of every project" in one_line_error(coder.post("/v1/tools/list_reviews", json={}), 403)
    store.refresh()
    assert store.count() == before + 3  # the root task and its two sub-tasks


def test_bad_requests_are_one_line_4xx_and_no_token_is_logged(team):
    store, (a, b, c), tokens, served = team
    lead = served.client(tokens["lead"])
    assert "valid token" in one_line_error(served.client(None).get("/v1/memories/x"), 401)
    assert "valid token" in one_line_error(served.client("mlt_000000000000_" + "A" * 43).get("/v1/memories/x"), 401)
    assert "valid token" in one_line_error(served.client(tokens["lead"][:-1] + "x").post("/mcp", json={}), 401)
    assert "is not valid JSON (" in one_line_error(lead.post("/v1/memories", content=b"{not json",
                                                            headers={"content-type": "application/json"}), 422)
    # a hostile body: nested 100,000 deep (was a 500 and a traceback), not UTF-8 (FastAPI's
    # own body), a Content-Length that is no number (uvicorn's plain text), on every route
    deep = b'{"kind": "zq", "payload": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for path in ("/v1/tools/enqueue_task", "/v1/memories", "/mcp"):
        assert one_line_error(lead.post(path, content=deep, headers={"content-type": "application/json"}), 400) \
            == "payload[0][0][0][0][0][0][0]...: nested more than 64 levels deep"
    assert one_line_error(lead.post("/v1/search", content=b'{"query": "caf\xe9"}'), 400).startswith(
        "the body is not UTF-8 text")
    for length in ("abc", "-1", "1e3"):
        status, body = _raw(served.url, f"POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                                         f"{tokens['lead']}\r\nContent-Length: {length}\r\n\r\n{{}}")
        assert status == 400 and "\n" not in json.loads(body)["error"], (length, body)
    assert one_line_error(lead.get("/v1/nothing-here"), 404) == "no route GET /v1/nothing-here (the routes: /openapi.json)"
    assert "does not take DELETE" in one_line_error(lead.delete("/v1/search"), 405)
    assert one_line_error(lead.post("/v1/search", json={"query": "x", "mood": "happy"}), 422) == "mood: is not a field here"
    assert one_line_error(lead.post("/v1/search", json={"query": "x", "scope": {"project_id": a.id, "x": 1}}),
                          422) == "scope.x: is not a field here"
    assert "content" in one_line_error(lead.post("/v1/memories", json={"memories": [
        {"kind": "insight", "project_id": a.id, "content": ""}]}), 400)
    assert "does not exist" in one_line_error(lead.post("/v1/memories", json={"memories": [
        {"kind": "insight", "project_id": "no-such-project", "content": "x"}]}), 400)
    assert "over 8 MiB" in _declared_too_big(served.url, tokens["lead"])
    hostile = lead.post("/v1/search", json={"query": "x", "scope": {"project_id": "a' OR '1'='1", "tags": ["') OR 1=1 --"]}})
    assert hostile.status_code == 200 and hostile.json() == []
    assert "no memory" in one_line_error(lead.get("/v1/memories/0b6c1c53-2f0c-4d5a-9c3e-6f1e2d3c4b5a"), 404)
    assert served.stop()
    logged = "".join(served.err)
    # a token is mlt_<id>_<secret>, and the secret may hold underscores (or start with one:
    # split("_")[2] was then '', found in any log, a failure one run in about 20)
    assert "Traceback" not in logged and not any(t.split("_", 2)[2] in logged for t in tokens.values())


def test_the_readmes_curl_example_runs_as_written(team):
    """curl's -d sends form data's content type: the README's own example answered 422. A
    body is JSON whatever type it declares; the example is taken from the README as it is."""
    import shutil
    from pathlib import Path

    store, (a, b, c), tokens, served = team
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    (command,) = re.findall(r"^(curl .*?/v1/search)$", readme.replace("\\\n", ""), re.M)
    if shutil.which("curl") is None:
        pytest.skip("no curl on this machine")
    done = subprocess.run(["bash", "-c", command.replace("http://127.0.0.1:8765", served.url)],
                          env={**os.environ, "TOKEN": tokens["coder"], "PROJECT_ID": a.id},
                          capture_output=True, text=True, timeout=60)
    hits = json.loads(done.stdout)
    assert "the payments service retries idempotent writes" in [h["memory"].get("content") for h in hits], done.stdout
    assert {h["memory"].get("project_id") or h["memory"]["id"] for h in hits} == {a.id}


def _raw(url: str, request: str) -> tuple[int, str]:
    """The status and body the server answers a request sent as these bytes."""
    import socket
    from urllib.parse import urlparse

    where = urlparse(url)
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sock.sendall(request.encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split(" ")[1]), body


def _declared_too_big(url: str, token: str) -> str:
    """The one-line 413 a body declared over 8 MiB gets before any of it is sent. (Sending
    it whole races the server's early answer: the client may still be writing when the
    server has answered and closed, and see a reset instead of the response.)"""
    import socket
    from urllib.parse import urlparse

    where = urlparse(url)
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sock.sendall(f"POST /v1/memories HTTP/1.1\r\nHost: {where.netloc}\r\nAuthorization: Bearer {token}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {9 * 2**20}\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < int(
                re.search(rb"(?i)content-length: (\d+)", data).group(1)):
            chunk = sock.recv(65536)
            assert chunk, data
            data += chunk
        head, _, body = data.decode().partition("\r\n\r\n")
    assert head.split(" ")[1] == "413", head
    message = json.loads(body)["error"]
    assert "\n" not in message
    return message


def test_an_idempotency_key_makes_a_retry_write_nothing(team):
    store, (a, b, c), tokens, served = team
    coder = served.client(tokens["coder"])
    body = {"memories": [{"kind": "issue", "project_id": a.id, "content": "Settlement job timed out at 02:00"},
                         {"kind": "learning", "project_id": a.id, "content": "Run settlement after the bank file"}]}
    first = coder.post("/v1/memories", json=body, headers={"Idempotency-Key": "job-42"}).json()
    again = coder.post("/v1/memories", json=body, headers={"Idempotency-Key": "job-42"}).json()
    other = coder.post("/v1/memories", json=body, headers={"Idempotency-Key": "job-43"}).json()
    assert first["ids"] == again["ids"] and not first["replayed"] and again["replayed"]
    assert set(other["ids"]).isdisjoint(first["ids"])
    store.refresh()
    assert store.count() == 6 + 4


def test_sessions_and_the_context_an_agent_starts_with(team):
    store, (a, b, c), tokens, served = team
    coder, lead = served.client(tokens["coder"]), served.client(tokens["lead"])
    session = coder.post("/v1/sessions", json={"project_id": a.id, "preferences": {"persona": "terse"}}).json()
    sid = session["session_id"]
    assert session["agent"] == "coder"
    coder.post(f"/v1/sessions/{sid}/turns", json={"role": "user", "content": "Why do ledger retries fail?"})
    assert [t["role"] for t in coder.get(f"/v1/sessions/{sid}/transcript").json()] == ["user"]
    coder.put(f"/v1/sessions/{sid}/loop", json={"goal": "fix retries", "step": 2, "state": {"file": "ledger.py"}})
    assert coder.get(f"/v1/sessions/{sid}/loop").json()["step"] == 2
    assert coder.delete(f"/v1/sessions/{sid}/loop").json() == {"cleared": 1}  # resumed: it recalls again
    built = coder.post("/v1/context", json={"session_id": sid, "goal": "service retries idempotent writes",
                                            "budget_tokens": 800}).json()
    assert "persona" in built["text"].lower() and built["tokens"] <= 800
    assert built["recalled"] and all(store.get(i).project_id == a.id for i in built["recalled"])
    assert "is agent 'coder'" in one_line_error(lead.get(f"/v1/sessions/{sid}/transcript"), 403)
    assert coder.post(f"/v1/sessions/{sid}/end").json()["status"] == "ended"


def test_agents_report_fragments_and_the_team_reads_their_clusters_and_disagreements(team):
    """Consensus over REST: fragments are reported as the token's agent, clustered as they
    arrive (each request a handle of its own on the server's clusters), consolidated into a
    unit that names the disagreement; a token limited to some projects, and a fragment that
    names another agent, are refused in one line and write nothing."""
    store, (a, _, _), tokens, served = team
    lead, coder = served.client(tokens["lead"]), served.client(tokens["coder"])
    saved = lead.post("/v1/memories", json={"memories": [  # the evidence, written through the server it is read by
        {"kind": "insight", "project_id": a.id, "content": "export cache settings, read from the config"}]})
    assert saved.status_code == 200, saved.text
    (evidence,) = saved.json()["ids"]
    said = ["export cache ttl is 5 minutes", "export cache ttl is 10 minutes", "export cache ttl is 5 minutes today"]
    placed = []
    for n, text in enumerate(said):
        reported = lead.post("/v1/consensus/fragments", json={"fragments": [
            {"fragment_id": f"f{n}", "content": text, "trace_pointer": evidence}]})
        assert reported.status_code == 200, reported.text
        placed += reported.json()
    assert [p["fragment_id"] for p in placed] == ["f0", "f1", "f2"] and len({p["cluster_id"] for p in placed}) == 1
    clusters = lead.get("/v1/consensus/clusters").json()
    assert [sorted(c["fragment_ids"]) for c in clusters] == [["f0", "f1", "f2"]]
    unit = lead.post("/v1/consensus/consolidate", json={"cluster_id": placed[0]["cluster_id"]}).json()
    [disagreement] = unit["disagreements"]
    assert disagreement["kind"] == "value" and sorted(disagreement["a"]["fragment_ids"]) == ["f0", "f2"]
    assert disagreement["b"]["fragment_ids"] == ["f1"] and disagreement["a"]["agents"] == ["lead"]
    assert lead.get(f"/v1/consensus/units/{placed[0]['cluster_id']}").json()["disagreements"] == unit["disagreements"]
    assert "consensus is every project's" in one_line_error(coder.post("/v1/consensus/fragments", json={
        "fragments": [{"content": "export cache ttl is 1 minute", "trace_pointer": evidence}]}), 403)
    assert "is not this token's" in one_line_error(lead.post("/v1/consensus/fragments", json={
        "fragments": [{"content": "x", "source_agent": "coder", "trace_pointer": evidence}]}), 403)
    assert [sorted(c["fragment_ids"]) for c in lead.get("/v1/consensus/clusters").json()] == [["f0", "f1", "f2"]]


def test_the_agent_tools_over_rest_and_over_mcp_on_http(team):
    store, (a, b, c), tokens, served = team
    coder = served.client(tokens["coder"])
    saved = coder.post("/v1/tools/save_insight", json={"project_id": a.id, "content": "Retries must be idempotent"})
    assert saved.status_code == 200, saved.text
    promoted = coder.post("/v1/tools/promote_to_decision", json={"insight_id": saved.json()["id"]})
    assert promoted.status_code == 200, promoted.text  # a change that adds a memory under the write lock
    assert "mood: is not an argument" in one_line_error(
        coder.post("/v1/tools/save_issue", json={"project_id": a.id, "content": "x", "mood": "sad"}), 400)

    async def script():
        import httpx2
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        out = {}
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens['coder']}"}, timeout=60) as http:
            async with streamable_http_client(f"{served.url}/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    out["tools"] = [t.name for t in (await session.list_tools()).tools]
                    out["saved"] = await session.call_tool("save_learning", {"project_id": a.id,
                                                                             "content": "COPY beats INSERT"})
                    out["query"] = await session.call_tool("query_memory", {"project_id": a.id, "scope": "project"})
                    out["refused"] = await session.call_tool("save_issue", {"project_id": b.id, "content": "x"})
        return out

    out = anyio.run(script)
    assert {"save_insight", "query_memory", "enqueue_task", "correct_memory"} <= set(out["tools"])
    learning = json.loads(out["saved"].content[0].text)
    assert not out["saved"].is_error and not out["query"].is_error
    assert out["refused"].is_error and "may not write project" in out["refused"].content[0].text
    store.refresh()
    assert store.get(learning["id"]).agent == "coder"
    written = {e["actor"] for e in store.audit.events("action = 'write'") if e["subject_id"] == learning["id"]}
    assert written == {"coder"}


def test_a_revoked_token_is_refused_within_a_second(team):
    store, (a, b, c), tokens, served = team
    coder = served.client(tokens["coder"])
    assert coder.get("/v1/health").status_code == 200
    assert coder.post("/v1/search", json={"query": "x", "scope": {"project_id": a.id}}).status_code == 200
    out = subprocess.run([sys.executable, "-m", "memlib.cli", "--store", store.uri, "serve", "tokens", "revoke",
                          tokens["coder"]], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "revoked" in out.stdout, out.stderr
    time.sleep(1.2)
    one_line_error(coder.post("/v1/search", json={"query": "x", "scope": {"project_id": a.id}}), 401)


def test_sigterm_commits_every_write_in_flight_before_it_stops(team):
    store, (a, b, c), tokens, served = team
    lead = served.client(tokens["lead"])
    answered: list[str] = []

    def write(n: int):
        try:
            r = lead.post("/v1/memories", json={"memories": [
                {"kind": "insight", "project_id": a.id, "content": f"finding number {n} about retries"}]})
        except httpx.HTTPError:
            return
        if r.status_code == 200:
            answered.extend(r.json()["ids"])

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(write, n) for n in range(64)]
        time.sleep(0.3)
        assert served.stop()
        for f in futures:
            f.result()
    store.refresh()
    assert answered and not set(answered) - set(store.lookup(answered, ["id"]))


def test_the_group_commit_batches_many_writers_into_few_commits_and_credits_each(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    project = Project(name="p")
    store.add([project])
    server = Server(store, window=0.05)
    try:
        def write(n: int):
            return server.commit.write([Insight(project_id=project.id, content=f"note {n} from agent {n % 8}")],
                                       agent=f"agent-{n % 8}")

        with ThreadPoolExecutor(16) as pool:
            results = list(pool.map(write, range(64)))
        ids = [r["ids"][0] for r in results]
        assert len(set(ids)) == 64 and len(store.lookup(ids, ["id"])) == 64
        assert server.commit.commits < 32  # batched: most commits held several writers' memories
        actors = {e["subject_id"]: e["actor"] for e in store.audit.events("action = 'write'")}
        assert all(actors[i] == f"agent-{n % 8}" for n, i in enumerate(ids))
        # a batch refused as a whole is written again one request at a time: only the bad one fails
        bad = Insight(project_id="no-such-project", content="orphan")

        def mixed(n: int):
            memory = bad if n == 3 else Insight(project_id=project.id, content=f"mixed {n}")
            try:
                return server.commit.write([memory], agent="a")["ids"][0]
            except Exception as exc:  # noqa: BLE001
                return exc

        with ThreadPoolExecutor(8) as pool:
            outcome = list(pool.map(mixed, range(8)))
        assert "does not exist" in str(outcome[3])
        assert len(store.lookup([o for i, o in enumerate(outcome) if i != 3], ["id"])) == 7
    finally:
        server.close()


def test_kill_9_during_group_commits_loses_no_answered_write_and_a_retry_duplicates_nothing(team):
    """The server killed while eight clients write: every write answered 200 is in the store,
    the others failed with a connection error, and retried with their idempotency keys against
    the server restarted on the same store (no repair step) each lands exactly once."""
    store, (a, b, c), tokens, served = team
    answered: dict[str, list[str]] = {}
    failed: list[str] = []
    lock = threading.Lock()

    def body(key: str) -> dict:
        return {"memories": [{"kind": "insight", "project_id": a.id, "content": f"write {key} about retries"}]}

    def write(server: Served, key: str) -> None:
        try:
            r = server.client(tokens["lead"]).post("/v1/memories", json=body(key), headers={"Idempotency-Key": key})
        except httpx.HTTPError:
            with lock:
                failed.append(key)
            return
        assert r.status_code == 200, r.text
        with lock:
            answered[key] = r.json()["ids"]

    keys = [f"k{n}" for n in range(400)]
    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(write, served, key) for key in keys]
        deadline = time.time() + 30
        while len(answered) < 40 and time.time() < deadline:
            time.sleep(0.02)
        served.proc.kill()  # SIGKILL, mid-stream
        for f in futures:
            f.result()
    assert answered and failed, (len(answered), len(failed))
    store.refresh()
    assert len(store.lookup([i for ids in answered.values() for i in ids], ["id"])) == len(answered)

    again = Served(store.uri)  # the same store, as it was left: no repair step
    try:
        retried = list(failed)
        failed.clear()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda key: write(again, key), retried))
        assert not failed
        store.refresh()
        texts = [r["content"] for r in store.rows(f"kind = 'insight' AND project_id = '{a.id}'", 10_000,
                                                    columns=["content"])]
        written = [t for t in texts if t.startswith("write k")]
        assert sorted(written) == sorted(body(k)["memories"][0]["content"] for k in keys)  # each exactly once
    finally:
        again.stop(signal.SIGKILL)


def test_the_python_api_and_the_cli_through_a_server_give_what_the_store_gives(tmp_path):
    from datetime import datetime, timezone

    from memlib.errors import InvalidInput, NotFound, Refused, StoreError
    from memlib.sample import build_sample
    from memlib.scope import Scope

    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    build_sample(store, size=300, seed=5, anchor=datetime(2026, 11, 1, tzinfo=timezone.utc))
    projects = [r["id"] for r in store.rows("kind = 'project'", 10)]
    token = Tokens(store).create("svc")[0]
    narrow = Tokens(store).create("narrow", projects=projects[:1])[0]
    served = Served(store.uri)
    try:
        remote = MemoryStore.connect(served.url, token)
        for query, scope, mode in [("ledger retries", None, "hybrid"), ("checkout latency", Scope(project_id=projects[1]), "hybrid"),
                                   ("cache", Scope(kinds=("decision", "insight"), min_confidence=50), "vector"),
                                   ("settlement", Scope(tags=("perf",), include_expired=True), "fts")]:
            mine, theirs = store.search(query, k=8, mode=mode, scope=scope), remote.search(query, k=8, mode=mode, scope=scope)
            assert [(h.id, h.rank) for h in theirs] == [(h.id, h.rank) for h in mine], (query, scope)
            assert all(abs(a.score - b.score) < 1e-5 and a.text == b.text for a, b in zip(mine, theirs))
            assert [h.memory for h in theirs] == [h.memory for h in mine]
        (new_id,) = remote.add([Insight(project_id=projects[0], content="Served writes are the token's agent's")])
        store.refresh()
        assert store.get(new_id).agent == "svc" and remote.get(new_id) == store.get(new_id)
        assert remote.count() == store.count()
        with pytest.raises(NotFound):
            remote.get("0b6c1c53-2f0c-4d5a-9c3e-6f1e2d3c4b5a")
        with pytest.raises(Refused, match="may not write project"):
            MemoryStore.connect(served.url, narrow).add([Insight(project_id=projects[1], content="elsewhere")])
        with pytest.raises(InvalidInput, match="maintain is not offered by a memory server"):
            remote.maintain()

        env = {**os.environ, "MEMLIB_TOKEN": token}
        local = subprocess.run([sys.executable, "-m", "memlib.cli", "--store", store.uri, "search", "ledger retries",
                                "--json"], capture_output=True, text=True, timeout=120)
        through = subprocess.run([sys.executable, "-m", "memlib.cli", "--server", served.url, "search", "ledger retries",
                                  "--json"], capture_output=True, text=True, timeout=120, env=env)
        assert through.returncode == 0, through.stderr
        ranked = lambda out: [(h["rank"], h["memory"]["id"]) for h in json.loads(out.stdout)]  # noqa: E731
        assert ranked(through) == ranked(local)
        refused = subprocess.run([sys.executable, "-m", "memlib.cli", "--server", served.url, "maintain"],
                                 capture_output=True, text=True, timeout=120, env=env)
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "without --server" in refused.stderr
    finally:
        served.stop(signal.SIGKILL)
    with pytest.raises(StoreError, match="cannot reach the memory server"):
        remote.count()


def test_the_shell_changes_memories_through_a_server_as_the_tokens_agent(team):
    """`memlib --server URL` update, confidence, correct, forget, history and contradictions:
    the server's store changes as the embedded commands change it, done by the token's agent."""
    from click.testing import CliRunner

    from memlib.cli import cli
    from memlib.store.history import memory_history

    store, (a, _, _), made, served = team

    def shell(*args, ok: bool = True) -> str:
        out = CliRunner().invoke(cli, ["--server", served.url, *args], env={"MEMLIB_TOKEN": made["lead"]})
        assert (out.exit_code == 0) == ok, (args, out.output, out.exception)
        return out.output if ok else str(out.exception)

    (insight,) = [r["id"] for r in store.rows(f"kind = 'insight' AND project_id = '{a.id}'", 5)]
    revised = json.loads(shell("update", insight, "--reason", "measured again", "--content", "Ledger retries use keys"))
    store.refresh()
    assert revised == store.get(insight).model_dump(mode="json", exclude={"embedding"})
    assert shell("confidence", insight, "--by", "-20", "--reason", "one report").strip() == \
        f"confidence of {insight} is now 80"
    life = json.loads(shell("history", insight, "--json"))
    store.refresh()
    mine = memory_history(store, insight)
    assert [(e["action"], e["actor"]) for e in life["events"]] == [(e["action"], e["actor"]) for e in mine["events"]]
    assert [e["action"] for e in mine["events"]][-2:] == ["revise", "confidence"]
    assert {e["actor"] for e in mine["events"][-2:]} == {"lead"}
    printed = shell("history", insight)  # the text form reads the events' times back
    assert "revise" in printed and "lead" in printed
    new_id = re.match(r"(\S+) corrects ", shell("correct", insight, "--reason", "wrong service",
                                                "--content", "Ledger retries use idempotency keys")).group(1)
    store.refresh()
    assert store.get(new_id).metadata["corrects"] == insight and not store.lookup([insight], ["id"])
    assert re.match(r"forgot 1 memories \(run \S+\)", shell("forget", new_id, "--reason", "moved to the wiki"))
    store.refresh()
    assert not store.lookup([new_id], ["id"])
    shell("add", "--kind", "insight", "--project-id", a.id, "--content", "Cache TTL is 300 s")
    shell("add", "--kind", "insight", "--project-id", a.id, "--content", "Cache TTL is 60 s")
    deadline = time.monotonic() + 120  # the server's reader reads what was written, in the background
    while (listed := json.loads(shell("contradictions", "--json")))["unread"] and time.monotonic() < deadline:
        time.sleep(0.5)
    (pair,) = listed["pairs"]
    store.refresh()
    assert pair["kind"] == "value" and [pair] == store.disagreements() and listed["unread"] == 0
    assert {e["actor"] for e in store.audit.events("action = 'contradiction'")} == {"rules"}
    assert "without --server" in shell("screen", ok=False)
    assert "drop --actor" in shell("update", insight, "--reason", "x", "--content", "y", "--actor", "mallory", ok=False)
    assert "without --server" in shell("correct", "--undo", "run-1", ok=False)
