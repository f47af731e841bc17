"""The memory server: one process over one store (one model, one warm cache) serving the
REST API (`/v1/...`, described at `/openapi.json` from the same pydantic models that validate
the input) and the agent tools over MCP's streamable HTTP transport (`/mcp`).

Every request but `/v1/health` carries `Authorization: Bearer <token>` (memlib/server/tokens.py):
the token names the agent (its writes are that agent's) and the projects it may read and
write. New memories (`POST /v1/memories`, the save tools) go through the group commit
(commit.py); every other change runs one at a time under the server's write lock, and reads
run beside them. A user's mistake is a 4xx whose body is one line, `{"error": "..."}`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Literal

import anyio.to_thread
from fastapi import APIRouter, Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlib.agents import tools as agent_tools
from memlib.agents.context import build_context
from memlib.agents.mcp_server import answer, build_server, refusal
from memlib.agents.sessions import Sessions
from memlib.agents.tools import Toolbox
from memlib.errors import InvalidInput, MemlibError, NotFound, Refused, first_line
from memlib.interface import MemoryInterface
from memlib.lifecycle import curation
from memlib.models import MAX_TEXT, Int, as_json, parse_memory, record_label
from memlib.scope import Scope
from memlib.server.commit import GroupCommit
from memlib.server.guard import MAX_BODY, BodyGuard
from memlib.server.tokens import Caller, Tokens
from memlib.store.concurrency import Contended

log = logging.getLogger("memlib.server")
MAX_MEMORIES = 1_000  # memories in one write

# The agent tools by what they do to the store. Reads run beside everything; the saves' one
# write is store.add, which the group commit batches; any other tool (and one added later)
# changes the store one at a time under the write lock.
READ_TOOLS = frozenset({"query_memory", "load_document_summary", "load_base_knowledge", "list_files_workspace",
                        "list_reviews", "get_transcript", "load_pending_loop", "build_context"})
GROUPED_TOOLS = frozenset({"remember", "save_insight", "save_issue", "save_learning"})
# Tools that touch memories of no one project: the review queue is every project's
TEAM_TOOLS = frozenset({"list_reviews", "decide_review", "report_fragment"})
ID_FIELDS = ("memory_id", "insight_id", "learning_id")
# A tool that takes work from the queue: it touches the tasks of every project its token may
# write, and only those (its claims are limited to them)
CLAIM_TOOLS = frozenset({"claim_task"})


# -- the request bodies (and so the OpenAPI description) ------------------------------------

class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScopeBody(_Body):
    """Where a search may look (memlib.Scope)."""

    project_id: str | None = None
    root_task_id: str | None = None
    level: Int | None = Field(default=None, ge=0, le=2)
    kinds: list[str] = Field(default_factory=list, max_length=20)
    tags: list[str] = Field(default_factory=list, max_length=100)
    all_tags: list[str] = Field(default_factory=list, max_length=100)
    iteration_ids: list[str] = Field(default_factory=list, max_length=100)
    source: str | None = None
    user_id: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    min_confidence: Int | None = Field(default=None, ge=0, le=100)
    include_expired: bool = False
    trusted_only: bool = False
    as_of: datetime | None = Field(default=None, description="Judge expiry at this moment instead of now.")


class CountBody(_Body):
    scope: ScopeBody | None = Field(default=None, description="None: every memory, expired ones too.")


class AddBody(_Body):
    memories: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_MEMORIES,
                                           description="Memories as memlib's models take them (kind first).")
    duplicates: Literal["merge", "link", "keep"] = "merge"


class SearchBody(_Body):
    query: str = Field(min_length=1, max_length=MAX_TEXT)
    k: Int = Field(default=10, ge=1, le=200)
    mode: Literal["hybrid", "vector", "fts"] = "hybrid"
    scope: ScopeBody = Field(default_factory=ScopeBody)


class RecallBody(SearchBody):
    session_id: str | None = None


class ChangeBody(_Body):
    reason: str = Field(min_length=1, max_length=MAX_TEXT, description="Why it changes (kept in the audit log).")
    changes: dict[str, Any] = Field(min_length=1, description="The fields to change and their new values.")


class ConfidenceBody(_Body):
    delta: Int = Field(ge=-100, le=100)
    reason: str = Field(min_length=1, max_length=MAX_TEXT)


class ForgetBody(_Body):
    memory_ids: list[str] = Field(min_length=1, max_length=MAX_MEMORIES)
    reason: str = Field(min_length=1, max_length=MAX_TEXT)


class DisagreementsBody(_Body):
    ids: list[str] | None = Field(default=None, max_length=MAX_MEMORIES)


class SessionBody(_Body):
    project_id: str | None = None
    preferences: dict[str, Any] = Field(default_factory=dict)


class TurnBody(_Body):
    role: str = Field(min_length=1, max_length=50)
    content: str = Field(min_length=1, max_length=MAX_TEXT)


class LoopBody(_Body):
    goal: str = Field(min_length=1, max_length=MAX_TEXT)
    step: Int = Field(ge=0)
    state: dict[str, Any] = Field(default_factory=dict)


class ContextBody(_Body):
    session_id: str
    goal: str = Field(min_length=1, max_length=MAX_TEXT)
    budget_tokens: Int = Field(default=4_000, ge=50, le=200_000)


class FragmentsBody(_Body):
    fragments: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_MEMORIES,
                                            description="Fragments as memlib.consensus.Fragment takes them.")


class ConsolidateBody(_Body):
    cluster_id: str
    contract: str | None = None


# -- the server ------------------------------------------------------------------------------

class Server:
    """What every request runs against: the store, its tokens, the write lock, the group commit."""

    def __init__(self, store: MemoryInterface, window: float | None = None, workspace: Path | None = None):
        self.store, self.tokens, self.workspace = store, Tokens(store), workspace
        self.lock = threading.RLock()
        self.writing = threading.local()  # set while this thread holds the write lock
        self.commit = GroupCommit(store, self.lock, **({} if window is None else {"window": window}))
        self.tools_store = _Grouped(self)
        self._plane = None
        self._plane_lock = threading.Lock()

    @property
    def plane(self):
        """The store's control plane (the queue tools'), opened once, on first use."""
        with self._plane_lock:
            if self._plane is None:
                from memlib.control import ControlPlane

                self._plane = ControlPlane.open(self.store.uri, settings=self.store.settings)
            return self._plane

    # who, and what they may touch

    def caller(self, authorization: str | None) -> Caller | None:
        scheme, _, token = (authorization or "").partition(" ")
        return self.tokens.caller(token.strip()) if scheme.lower() == "bearer" else None

    def projects_of(self, ids: list[str]) -> dict[str, str | None]:
        rows = self.store.lookup(ids, ["id", "project_id"])
        missing = [i for i in ids if i not in rows]
        if missing:
            raise NotFound(f"no memory {missing[0]!r}")
        return {i: rows[i]["project_id"] for i in ids}

    def projects_written(self, memories: list) -> list[str | None]:
        """The project each memory goes to: its own, else its root task's (in the batch or
        stored); None for one in no project."""
        batch = {m.id: getattr(m, "project_id", None) for m in memories}
        stored = [m.root_task_id for m in memories if batch[m.id] is None and getattr(m, "root_task_id", None)
                  and m.root_task_id not in batch]
        found = self.projects_of(stored) if stored else {}
        return [batch[m.id] if batch[m.id] is not None
                else batch.get(getattr(m, "root_task_id", None)) or found.get(getattr(m, "root_task_id", None))
                for m in memories]

    def check(self, caller: Caller, projects, write: bool) -> None:
        for project in dict.fromkeys(projects):
            if not (caller.may_write(project) if write else caller.may_read(project)):
                raise Refused(f"agent {caller.agent!r} may not {'write' if write else 'read'} "
                                f"project {project!r} (its token's projects: {', '.join(caller.readable)})")

    def scope_for(self, caller: Caller, body: ScopeBody) -> Scope:
        """The request's scope, narrowed to the projects the token may read."""
        scope = Scope(**body.model_dump())
        if caller.every_project:
            return scope
        if scope.project_id is not None:
            self.check(caller, [scope.project_id], write=False)
            return scope
        return Scope(**{**body.model_dump(), "any_of": tuple(Scope(project_id=p) for p in caller.readable)})

    # how

    def writes(self, fn: Callable[[], Any]) -> Any:
        """Run a change under the write lock (one at a time)."""
        with self.lock:
            self.writing.active = True
            try:
                return fn()
            finally:
                self.writing.active = False

    def toolbox(self, caller: Caller, session_id: str | None = None) -> Toolbox:
        return Toolbox(store=self.tools_store, agent=caller.agent, workspace=self.workspace, session_id=session_id,
                       projects=None if caller.every_project else caller.projects,
                       open_plane=lambda: self.plane)

    def check_tool(self, caller: Caller, name: str, arguments: dict[str, Any]) -> None:
        """Refuse (Refused: 403) a tool call that touches a project its token does not allow:
        every project a call names or reaches (through a memory, a session or a task) must be
        the token's to read, or to write for a tool that changes anything; a change that
        names no project (a session or a task of every project) is for a token of every
        project; a claim takes only the tasks of the token's projects (Toolbox.projects)."""
        if caller.every_project or name not in agent_tools.TOOLS:
            return
        if name in TEAM_TOOLS:
            raise Refused(f"{name} is for a token of every project; agent {caller.agent!r}'s is limited to "
                            f"{', '.join(caller.readable)}")
        model, _ = agent_tools.TOOLS[name]
        try:
            args = model.model_validate(arguments)
        except ValidationError:
            return  # the call itself says what is wrong with it
        write = name not in READ_TOOLS
        if name in CLAIM_TOOLS:
            if not caller.projects:
                raise Refused(f"agent {caller.agent!r}'s token only reads ({', '.join(caller.readable)}): "
                              f"{name} takes work, which is a write")
            return
        projects = [args.project_id] if getattr(args, "project_id", None) else []
        ids = [getattr(args, f) for f in ID_FIELDS if getattr(args, f, None)] + list(getattr(args, "memory_ids", []) or [])
        if ids:
            projects += self.projects_of(ids).values()
        if getattr(args, "session_id", None):  # a session's tools recall within its project
            project = Sessions(self.store).get(args.session_id).project_id
            if project is None:
                raise Refused(f"session {args.session_id!r} has no project, so it recalls from every project: "
                              f"agent {caller.agent!r}'s token is limited to {', '.join(caller.readable)}")
            projects.append(project)
        if getattr(args, "task_id", None):  # a queued task is its project's
            projects.append(self.plane.tasks.get(args.task_id).project_id)
        if write and not projects:
            raise Refused(f"{name} names no project, so what it writes is every project's: agent "
                          f"{caller.agent!r}'s token is limited to {', '.join(caller.readable)} (give project_id)")
        self.check(caller, projects, write)

    def run_tool(self, name: str, fn: Callable[[], Any]) -> Any:
        """`fn`, a call of tool `name`: beside everything for a read or a save (the group commit
        batches it), else under the write lock."""
        return fn() if name in READ_TOOLS or name in GROUPED_TOOLS else self.writes(fn)

    def call_tool(self, caller: Caller, name: str, arguments: dict[str, Any], session_id: str | None = None):
        """A tool's MCP answer (memlib.agents.mcp_server.answer), after the token's check."""
        try:
            self.check_tool(caller, name, arguments or {})
        except MemlibError as exc:
            return refusal(name, first_line(exc))
        box = self.toolbox(caller, session_id)
        return self.run_tool(name, lambda: answer(box, name, arguments))

    def close(self) -> None:
        self.commit.close()
        with self._plane_lock:
            if self._plane is not None:
                self._plane.close()


class _Grouped:
    """The store as the server's tools see it: a new memory goes through the group commit,
    except from a change already holding the write lock (a promotion), which writes it."""

    def __init__(self, server: Server):
        self._server = server

    def __getattr__(self, name: str):
        return getattr(self._server.store, name)

    def add(self, memories, vectors=None, progress: bool = False, labels=None, actor=None,
            duplicates: str = "merge") -> list[str]:
        server = self._server
        if vectors is not None or not isinstance(actor, str) or getattr(server.writing, "active", False):
            return server.writes(lambda: server.store.add(memories, vectors, progress, labels, actor, duplicates))
        return server.commit.write(list(memories), actor, duplicates, labels=list(labels) if labels else None)["ids"]


def create_app(server: Server):
    """The ASGI application: the REST API, the MCP endpoint and their lifespan."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    mcp = StreamableHTTPSessionManager(app=build_server(_mcp_call(server)), stateless=True, json_response=True,
                                       max_request_body_size=MAX_BODY)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        async with mcp.run():
            yield
        await anyio.to_thread.run_sync(server.close)

    app = FastAPI(title="memlib", summary="The memory server: memories, search, sessions, context, consensus, "
                  "the agent tools", version=_version(), lifespan=lifespan)
    _answer_errors(app)
    app.add_middleware(BodyGuard)  # every body bounded, UTF-8, not nested past reason, JSON
    routes = _Routes(server)
    for group in (_finding, _changing, _sessions, _consensus, _tools):
        group(routes, app.router)
    app.router.routes.append(Route("/mcp", endpoint=_MCPEndpoint(server, mcp), methods=["GET", "POST", "DELETE"]))
    return app


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _answer_errors(app: FastAPI) -> None:
    """Every failure as one line, `{"error": ...}`, with its status: the caller's mistakes
    4xx, memlib's own 500 (logged here too)."""
    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"] if p != "body") or "(body)"
        message = {"extra_forbidden": "is not a field here",
                   "json_invalid": f"is not valid JSON ({(err.get('ctx') or {}).get('error', 'unreadable')})"}.get(
            err["type"], err["msg"].removeprefix("Value error, "))
        return _error(422, f"{where}: {message}")

    @app.exception_handler(MemlibError)
    async def _mistake(request, exc):
        status = 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Contended) else 400
        return _error(status, first_line(exc))

    @app.exception_handler(Refused)
    async def _refused(request, exc):
        return _error(403, first_line(exc))

    @app.exception_handler(Exception)
    async def _internal(request, exc):  # not the caller's mistake: one line, here and there
        reason = f"{type(exc).__name__}: {first_line(exc)}"
        log.error("%s %s failed: %s", request.method, request.url.path, reason)
        return _error(500, f"internal error ({reason})")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request, exc):  # no such route, a method it does not take, ...
        if exc.status_code == 404:
            message = f"no route {request.method} {request.url.path} (the routes: /openapi.json)"
        elif exc.status_code == 405:
            message = f"{request.url.path} does not take {request.method} (the routes: /openapi.json)"
        else:
            message = first_line(exc.detail if isinstance(exc.detail, str) else exc)
        return JSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(_Unauthorized)
    async def _unauthorized(request, exc):
        return _unauthorized_response()


class _Routes:
    """What each group of routes is built on: the server and its store, the dependency that
    names the caller from its token, and how a route runs (a read beside everything, a change
    under the write lock), each in a worker thread."""

    def __init__(self, server: Server):
        self.server, self.store = server, server.store

        def caller(authorization: str | None = Header(default=None, description="Bearer <token>")) -> Caller:
            who = server.caller(authorization)
            if who is None:
                raise _Unauthorized()
            return who
        self.caller = caller

    def read(self, fn: Callable[[], Any]):
        return anyio.to_thread.run_sync(fn)

    def change(self, fn: Callable[[], Any]):
        return anyio.to_thread.run_sync(self.server.writes, fn)


def _finding(routes: _Routes, router: APIRouter) -> None:
    """Memories saved, read, searched, counted, recalled; the judge's open disagreements."""
    server, store, caller, read = routes.server, routes.store, routes.caller, routes.read

    @router.get("/v1/health", tags=["server"])
    async def health() -> dict:
        return {"ok": True, "store": store.uri, "memories": await read(store.count), "version": store.version,
                "model": store.model_name}

    @router.post("/v1/memories", tags=["memories"])
    async def add(body: AddBody, who: Caller = Depends(caller),
                  idempotency_key: str | None = Header(default=None, max_length=200)) -> dict:
        """Save memories (one group commit with other clients' writes); returns their ids,
        and which were exact repeats merged into a stored memory. With an Idempotency-Key,
        a retry returns the first attempt's ids and writes nothing."""
        def run():
            parsed = [parse_memory(m, record_label(i, m)) for i, m in enumerate(body.memories)]
            if not who.every_project:
                server.check(who, server.projects_written(parsed), write=True)
            return server.commit.write(parsed, who.agent, body.duplicates, key=idempotency_key)
        return await read(run)

    @router.get("/v1/memories/{memory_id}", tags=["memories"])
    async def get(memory_id: str, who: Caller = Depends(caller)) -> dict:
        def run():
            memory = store.get(memory_id)
            server.check(who, [getattr(memory, "project_id", None)], write=False)
            return as_json(memory)
        return await read(run)

    @router.post("/v1/search", tags=["memories"])
    async def search(body: SearchBody, who: Caller = Depends(caller)) -> list[dict]:
        return await read(lambda: _hits(store.search(body.query, k=body.k, mode=body.mode,
                                                     scope=server.scope_for(who, body.scope))))

    @router.post("/v1/count", tags=["memories"])
    async def count(body: CountBody, who: Caller = Depends(caller)) -> dict:
        """How many memories the scope holds (of those the token may read); without a scope,
        every memory, expired ones too (Store.count)."""
        scope = body.scope if body.scope is not None else ScopeBody(include_expired=True)
        return {"count": await read(lambda: store.count(server.scope_for(who, scope)))}

    @router.post("/v1/recall", tags=["memories"])
    async def recall(body: RecallBody, who: Caller = Depends(caller)) -> list[dict]:
        """Search on the token's agent's behalf and log the recall."""
        return await read(lambda: _hits(store.recall(
            body.query, k=body.k, mode=body.mode, scope=server.scope_for(who, body.scope), agent=who.agent,
            tool="rest", session_id=body.session_id)))

    @router.post("/v1/disagreements", tags=["memories"])
    async def disagreements(body: DisagreementsBody, who: Caller = Depends(caller)) -> dict:
        """Open contradictions the store's judge found (of these memories, or all the token
        may read): each pair, its kind, which is newer, how well each side is supported; and
        how many memories (of these, or of the store for a token that reads every project)
        the judge has not read yet (null: not said to a token limited to projects)."""
        def run():
            if body.ids is not None:  # what is unread first, as the CLI's contradictions counts it
                asked = [i for i, r in store.lookup(body.ids, ["id", "project_id"]).items()
                         if who.may_read(r["project_id"])]
                unread = store.unread(asked)
            else:
                unread = store.unread() if who.every_project else None
            pairs = store.disagreements(body.ids)
            ids = sorted({i for p in pairs for i in p["ids"]})
            readable = {i for i, p in server.projects_of(ids).items() if who.may_read(p)} if ids else set()
            return {"pairs": [p for p in pairs if set(p["ids"]) <= readable], "unread": unread}
        return _jsonable(await read(run))


def _changing(routes: _Routes, router: APIRouter) -> None:
    """A memory revised, corrected, its confidence moved, memories forgotten; a memory's life."""
    server, store, caller, read, change = routes.server, routes.store, routes.caller, routes.read, routes.change

    def changing(memory_ids: list[str], who: Caller) -> None:
        server.check(who, server.projects_of(memory_ids).values(), write=True)

    @router.patch("/v1/memories/{memory_id}", tags=["memories"])
    async def update(memory_id: str, body: ChangeBody, who: Caller = Depends(caller)) -> dict:
        """Change what a memory says in place (the same id), with the reason."""
        def run():
            changing([memory_id], who)
            return as_json(curation.revise(store, memory_id, body.reason, actor=who.agent, **body.changes))
        return await change(run)

    @router.post("/v1/memories/{memory_id}/correct", tags=["memories"])
    async def correct(memory_id: str, body: ChangeBody, who: Caller = Depends(caller)) -> dict:
        """Replace a memory with a corrected one (a new id); the old one leaves recall."""
        def run():
            changing([memory_id], who)
            memory, run_id = curation.correct(store, memory_id, body.reason, actor=who.agent, **body.changes)
            return {"memory": as_json(memory), "corrects": memory_id,
                    "run_id": run_id}
        return await change(run)

    @router.post("/v1/memories/{memory_id}/confidence", tags=["memories"])
    async def confidence(memory_id: str, body: ConfidenceBody, who: Caller = Depends(caller)) -> dict:
        """Raise or lower a memory's confidence (0-100) by `delta`, with the reason."""
        def run():
            changing([memory_id], who)
            memory = curation.adjust_confidence(store, memory_id, body.delta, body.reason, actor=who.agent)
            return {"id": memory.id, "confidence": memory.confidence,
                    "memory": as_json(memory)}
        return await change(run)

    @router.post("/v1/forget", tags=["memories"])
    async def forget(body: ForgetBody, who: Caller = Depends(caller)) -> dict:
        """Remove memories as one retention run (undoable until purged)."""
        def run():
            changing(body.memory_ids, who)
            out = curation.forget(store, body.memory_ids, body.reason, actor=who.agent)
            return {"forgotten": out.removed, "run_id": out.run_id}
        return await change(run)

    @router.get("/v1/memories/{memory_id}/history", tags=["memories"])
    async def history(memory_id: str, who: Caller = Depends(caller)) -> dict:
        """The memory's whole life: its audit events, and the memory as it is (or null)."""
        from memlib.store.history import memory_history

        def run():
            life = memory_history(store, memory_id)
            if life["memory"] is not None:
                server.check(who, [life["memory"].get("project_id")], write=False)
            elif not who.every_project:
                raise Refused("the history of a memory no longer stored is for a token of every project")
            return life
        return _jsonable(await read(run))


def _sessions(routes: _Routes, router: APIRouter) -> None:
    """An agent's sessions (its turns, its pending loop) and the context it starts a turn with."""
    server, caller, read, change = routes.server, routes.caller, routes.read, routes.change
    sessions = Sessions(server.tools_store)

    def own_session(session_id: str, who: Caller):
        return sessions.owned(session_id, who.agent)

    @router.post("/v1/sessions", tags=["sessions"])
    async def start_session(body: SessionBody, who: Caller = Depends(caller)) -> dict:
        def run():
            if body.project_id is None and not who.every_project:
                raise Refused(f"a session without a project recalls from every project: agent {who.agent!r}'s "
                              f"token is limited to {', '.join(who.readable)} (give project_id)")
            if body.project_id is not None:
                server.check(who, [body.project_id], write=True)
            return sessions.start(who.agent, project_id=body.project_id, preferences=body.preferences)
        return _jsonable(await change(run))

    @router.get("/v1/sessions/{session_id}", tags=["sessions"])
    async def get_session(session_id: str, who: Caller = Depends(caller)) -> dict:
        return await in_session(session_id, who, lambda: sessions.get(session_id), False)

    async def in_session(session_id: str, who: Caller, fn: Callable[[], Any], changes: bool):
        """`fn` on the caller's own session, whose project the token must still read (or
        write, for a change, which runs under the write lock)."""
        def run():
            session = own_session(session_id, who)
            if not who.every_project:
                server.check(who, [session.project_id], write=changes)
            return fn()
        return _jsonable(await (change(run) if changes else read(run)))

    @router.post("/v1/sessions/{session_id}/turns", tags=["sessions"])
    async def append_turn(session_id: str, body: TurnBody, who: Caller = Depends(caller)) -> dict:
        return await in_session(session_id, who, lambda: sessions.append(session_id, body.role, body.content), True)

    @router.get("/v1/sessions/{session_id}/transcript", tags=["sessions"])
    async def transcript(session_id: str, who: Caller = Depends(caller), last: int | None = None) -> list[dict]:
        return await in_session(session_id, who, lambda: sessions.transcript(session_id, last=last), False)

    @router.put("/v1/sessions/{session_id}/loop", tags=["sessions"])
    async def save_loop(session_id: str, body: LoopBody, who: Caller = Depends(caller)) -> dict:
        return await in_session(session_id, who, lambda: sessions.save_loop(session_id, body.goal, body.step,
                                                                            body.state), True)

    @router.get("/v1/sessions/{session_id}/loop", tags=["sessions"])
    async def pending_loop(session_id: str, who: Caller = Depends(caller)) -> dict | None:
        return await in_session(session_id, who, lambda: sessions.pending_loop(session_id), False)

    @router.delete("/v1/sessions/{session_id}/loop", tags=["sessions"])
    async def clear_loop(session_id: str, who: Caller = Depends(caller)) -> dict:
        """The loop resumed: its snapshots go (a session with a pending loop recalls nothing)."""
        return await in_session(session_id, who, lambda: {"cleared": sessions.clear_loop(session_id)}, True)

    @router.post("/v1/sessions/{session_id}/end", tags=["sessions"])
    async def end_session(session_id: str, who: Caller = Depends(caller)) -> dict:
        return await in_session(session_id, who, lambda: sessions.end(session_id), True)

    @router.post("/v1/context", tags=["sessions"])
    async def context(body: ContextBody, who: Caller = Depends(caller)) -> dict:
        """The context an agent starts a turn with (memlib.agents.build_context): its profile,
        its tools, what it recalls for the goal within the session's project, its transcript."""
        def run():
            session = own_session(body.session_id, who)
            if session.project_id is not None:
                server.check(who, [session.project_id], write=False)
            elif not who.every_project:
                raise Refused("a session without a project recalls from every project: start it with one")
            return build_context(server.tools_store, body.session_id, body.goal, budget_tokens=body.budget_tokens,
                                 tools=agent_tools.context_tools(server.tools_store)).to_dict()
        return _jsonable(await read(run))


def _consensus(routes: _Routes, router: APIRouter) -> None:
    """Fragments several agents report about one topic, their clusters and consensus units."""
    store, caller, read, change = routes.store, routes.caller, routes.read, routes.change

    def consensus():
        from memlib.consensus import Consensus

        return Consensus(store)

    def team(who: Caller) -> None:
        if not who.every_project:
            raise Refused(f"consensus is every project's: agent {who.agent!r}'s token is limited to "
                            f"{', '.join(who.readable)}")

    @router.post("/v1/consensus/fragments", tags=["consensus"])
    async def add_fragments(body: FragmentsBody, who: Caller = Depends(caller)) -> list[dict]:
        """Report fragments; each is clustered by meaning as it arrives."""
        def run():
            team(who)
            for f in body.fragments:
                if f.get("source_agent") not in (None, who.agent):
                    raise Refused(f"source_agent {f['source_agent']!r} is not this token's ({who.agent!r})")
            added = consensus().add([{**f, "source_agent": who.agent} for f in body.fragments], actor=who.agent)
            return [{"fragment_id": f, "cluster_id": c, "new_cluster": new} for f, c, new in added]
        return await change(run)

    @router.post("/v1/consensus/consolidate", tags=["consensus"])
    async def consolidate(body: ConsolidateBody, who: Caller = Depends(caller)) -> dict:
        def run():
            team(who)
            return consensus().consolidate(body.cluster_id, body.contract, actor=who.agent).model_dump(mode="json")
        return await change(run)

    @router.get("/v1/consensus/units/{cluster_id}", tags=["consensus"])
    async def unit(cluster_id: str, who: Caller = Depends(caller)) -> dict:
        def run():
            team(who)
            return consensus().unit(cluster_id).model_dump(mode="json")
        return await read(run)

    @router.get("/v1/consensus/clusters", tags=["consensus"])
    async def clusters(who: Caller = Depends(caller)) -> list[dict]:
        def run():
            team(who)
            return [c.model_dump(mode="json", exclude={"centroid"}) for c in consensus().clusters()]
        return await read(run)


def _tools(routes: _Routes, router: APIRouter) -> None:
    """The agent tools, the same as over MCP: promotions, knowledge, the queue, reviews."""
    server, caller, read = routes.server, routes.caller, routes.read

    @router.get("/v1/tools", tags=["tools"])
    async def list_tools(who: Caller = Depends(caller)) -> list[dict]:
        return agent_tools.describe()

    @router.post("/v1/tools/{name}", tags=["tools"])
    async def call_tool(name: str, request: Request, who: Caller = Depends(caller),
                        x_session_id: str | None = Header(default=None)) -> Any:
        """Call an agent tool with its arguments (GET /v1/tools lists them with their schemas)."""
        try:
            arguments = await request.json()
        except ValueError:
            raise InvalidInput("the body is not valid JSON") from None
        if not isinstance(arguments, dict):
            raise InvalidInput("the body must be a JSON object of the tool's arguments")

        def run():
            server.check_tool(who, name, arguments)
            box = server.toolbox(who, x_session_id)
            return server.run_tool(name, lambda: agent_tools.call(box, name, arguments))
        return _jsonable(await read(run))


class _MCPEndpoint:
    """MCP over streamable HTTP behind the same tokens: an ASGI app, so the route hands it the
    request as it came."""

    def __init__(self, server: Server, mcp):
        self.server, self.mcp = server, mcp

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or [])
        who = self.server.caller(headers.get(b"authorization", b"").decode("latin-1"))
        if who is None:
            await _unauthorized_response()(scope, receive, send)
            return
        scope.setdefault("state", {})["memlib_caller"] = who
        scope["state"]["memlib_session"] = headers.get(b"x-session-id", b"").decode("latin-1") or None
        await self.mcp.handle_request(scope, receive, send)


class _Unauthorized(Exception):
    pass


def _unauthorized_response() -> JSONResponse:
    return JSONResponse({"error": "give a valid token: Authorization: Bearer <token> (memlib serve tokens create)"},
                        status_code=401, headers={"WWW-Authenticate": "Bearer"})


def _mcp_call(server: Server):
    def call(ctx, name: str, arguments: dict[str, Any] | None):
        state = ctx.request.state
        return server.call_tool(state.memlib_caller, name, arguments or {}, getattr(state, "memlib_session", None))
    return call


def _hits(hits) -> list[dict]:
    """A search's hits as the API returns them: memlib's hit with the text it indexed."""
    return [{**h.to_dict(), "text": h.text} for h in hits]


def _jsonable(value: Any) -> Any:
    """Plain JSON data from what memlib returns (pydantic models, dataclasses, datetimes)."""
    import pydantic_core

    return pydantic_core.to_jsonable_python(value, fallback=str)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memlib")
    except PackageNotFoundError:
        return "0+unknown"
