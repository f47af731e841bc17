"""The agent tools (seed 004, section 7's ten, three that correct what is stored, and the
queue's five) as plain Python functions: each takes a
`Toolbox` (the store, the agent's name, the workspace root) and its input as a pydantic
model (or plain data, validated into it) and returns plain JSON-able data. A user's mistake
is a `MemlibError` with one line; `memlib.agents.mcp_server` serves the same functions over
MCP with the models' JSON schemas.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memlib.agents import context as agent_context, knowledge, review
from memlib.agents.query import MemoryQuery, query_memory as run_query
from memlib.errors import InvalidInput, NotFound, invalid
from memlib.lifecycle import curation
from memlib.models import MAX_TEXT, Float, Importance, Insight, Int, Issue, Kind, Learning, Manual

MAX_FILES = 500


@dataclass
class Toolbox:
    """What every tool call runs against."""

    store: Any  # a MemoryStore
    agent: str = "agent"
    workspace: Path | None = None  # list_files_workspace lists under this root only
    session_id: str | None = None  # the session the agent works in: its recalls and tasks carry it
    # the projects the agent may write (a server token's); None: every project. Its claims
    # take only their tasks
    projects: tuple[str, ...] | None = None
    open_plane: Callable[[], Any] | None = None  # the caller's control plane (a server shares one)
    _plane: Any = None

    @property
    def plane(self):
        """The store's control plane, opened on the first queue tool called."""
        if self._plane is None:
            if self.open_plane is not None:
                self._plane = self.open_plane()
            else:
                from memlib.control import ControlPlane

                self._plane = ControlPlane.open(self.store.uri, settings=self.store.settings)
        return self._plane


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryMemoryInput(MemoryQuery):
    budget_tokens: Int = Field(default=2_000, ge=50, le=100_000,
                               description="Token budget of the returned context string.")


class _Save(_Input):
    project_id: str = Field(description="The project it belongs to.")
    content: str = Field(min_length=1, max_length=MAX_TEXT)
    title: str | None = Field(default=None, max_length=MAX_TEXT)
    iteration_id: str | None = None
    root_task_id: str | None = None
    tags: list[str] = Field(default_factory=list)
    user_id: str | None = Field(default=None, min_length=1, max_length=200,
                                description="The person it is about or belongs to, across projects.")
    source: Literal["agent", "tool", "web"] = Field(
        default="agent", description="Where the content came from: 'tool' for a tool's output, 'web' for a web "
                                     "page (recalled as untrusted: after trusted memories, labelled), else 'agent'.")


class SaveInsightInput(_Save):
    importance: Literal["critical", "important", "normal"] = "normal"


class SaveIssueInput(_Save):
    pass


class SaveLearningInput(_Save):
    pass


class RememberInput(_Input):
    content: str = Field(min_length=1, max_length=MAX_TEXT, description="What to remember, in a sentence or two.")
    user_id: str | None = Field(default=None, min_length=1, max_length=200,
                                description="The person it belongs to (a personal memory needs no project).")
    project_id: str | None = Field(default=None, description="The project it belongs to, if any.")
    tags: list[str] = Field(default_factory=list)
    source: Literal["agent", "tool", "web"] = Field(
        default="agent", description="Where it came from: 'tool' or 'web' is recalled as untrusted.")


class PromoteToDecisionInput(_Input):
    insight_id: str
    title: str | None = Field(default=None, description="Default: derived from the insight, unique in the project.")
    context: str | None = Field(default=None, max_length=MAX_TEXT)
    consequences: str | None = Field(default=None, max_length=MAX_TEXT)


class PromoteToPatternInput(_Input):
    learning_id: str
    name: str | None = Field(default=None, description="Default: derived from the learning, unique in the project.")
    usage_examples: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    code_example: str | None = Field(default=None, max_length=MAX_TEXT)


class LoadDocumentSummaryInput(_Input):
    project_id: str
    iteration_id: str
    document: Literal["idea", "prd", "design", "plan"]


class LoadBaseKnowledgeInput(_Input):
    project_id: str
    iteration_id: str = Field(description="The iteration starting; the one before it is loaded.")


class SaveKnowledgeSnapshotInput(knowledge.IterationKnowledge):
    pass


class ListFilesInput(_Input):
    path: str = Field(default=".", max_length=4_096, description="A directory under the workspace root.")
    pattern: str = Field(default="*", max_length=200, description="A glob on file names.")
    recursive: bool = True

    @field_validator("path", "pattern")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("must not contain a NUL byte")
        return value


def query_memory(box: Toolbox, args: QueryMemoryInput) -> dict:
    """Project, iteration or smart query of the project's memory, ranked; with a markdown
    context string cut to the token budget."""
    query = MemoryQuery.model_validate(args.model_dump(exclude={"budget_tokens"}))
    result = run_query(box.store, query, agent=box.agent, tool="query_memory", session_id=box.session_id)
    return {"items": [{"id": i.memory.id, "kind": i.memory.kind.value, "text": i.memory.own_text,
                       "created_at": i.memory.created_at.isoformat(), "score": i.score,
                       "iteration_id": getattr(i.memory, "iteration_id", None)} for i in result.items],
            "iterations": result.iterations,
            "context": result.to_context_string(args.budget_tokens)}


def _save(box: Toolbox, model, args: _Save, **extra) -> dict:
    # the store checks that project_id names a project, while it embeds (store/batch.py)
    try:
        memory = model(project_id=args.project_id, content=args.content, title=args.title,
                       iteration_id=args.iteration_id, root_task_id=args.root_task_id, tags=args.tags,
                       agent=box.agent, source=args.source, user_id=args.user_id, **extra)
    except ValidationError as exc:
        raise invalid(f"the new {model.__name__.lower()}", exc) from None
    (memory_id,) = box.store.add([memory], actor=box.agent, labels=[f"the new {memory.kind.value}"])
    if memory_id != memory.id:  # an exact repeat: merged into the memory it repeats
        return {"id": memory_id, "kind": memory.kind.value,
                "note": "already stored in this project: nothing written, counted as corroborating it"}
    return {"id": memory_id, "kind": memory.kind.value}


def remember(box: Toolbox, args: RememberInput) -> dict:
    """REMEMBERS a note: a person's own (user_id, no project: "prefers tea", a birthday), or
    a project's. Recalled with query_memory or a search in that person's scope."""
    try:
        memory = Manual(content=args.content, user_id=args.user_id, project_id=args.project_id, tags=args.tags,
                        agent=box.agent, source=args.source)
    except ValidationError as exc:
        raise invalid("remember", exc) from None
    (memory_id,) = box.store.add([memory], actor=box.agent, labels=["the note"])
    if memory_id != memory.id:
        return {"id": memory_id, "kind": "manual", "note": "already remembered: nothing written, counted as "
                                                           "corroborating it"}
    return {"id": memory_id, "kind": "manual"}


def save_insight(box: Toolbox, args: SaveInsightInput) -> dict:
    """Record an observation made while working (critical ones become decisions when the
    iteration is finalized)."""
    return _save(box, Insight, args, importance=Importance(args.importance))


def save_issue(box: Toolbox, args: SaveIssueInput) -> dict:
    """Record a problem met."""
    return _save(box, Issue, args)


def save_learning(box: Toolbox, args: SaveLearningInput) -> dict:
    """Record a technical discovery (promote it to a pattern when it is reusable)."""
    return _save(box, Learning, args)


def promote_to_decision(box: Toolbox, args: PromoteToDecisionInput) -> dict:
    """An insight becomes a project decision (title unique in the project)."""
    fields = {k: v for k, v in (("context", args.context), ("consequences", args.consequences)) if v}
    decision = curation.promote(box.store, args.insight_id, title=args.title, actor=box.agent,
                                reason="promote_to_decision", fields=fields, source_kind=Kind.INSIGHT)
    return {"id": decision.id, "title": decision.title}


def promote_to_pattern(box: Toolbox, args: PromoteToPatternInput) -> dict:
    """A learning becomes a reusable project pattern (name unique in the project)."""
    fields = {k: v for k, v in (("usage_examples", args.usage_examples), ("tags", args.tags),
                                ("code_example", args.code_example)) if v}
    pattern = curation.promote(box.store, args.learning_id, title=args.name, actor=box.agent,
                               reason="promote_to_pattern", fields=fields, source_kind=Kind.LEARNING)
    return {"id": pattern.id, "name": pattern.name}


def load_document_summary(box: Toolbox, args: LoadDocumentSummaryInput) -> dict:
    """One compressed document (idea, prd, design, plan) of an iteration's snapshot."""
    return {"document": args.document,
            "summary": knowledge.load_document_summary(box.store, args.project_id, args.iteration_id,
                                                       args.document)}


def load_base_knowledge(box: Toolbox, args: LoadBaseKnowledgeInput) -> dict:
    """The knowledge snapshot of the iteration before this one (null if there is none)."""
    return {"snapshot": knowledge.as_dict(knowledge.load_base_knowledge(box.store, args.project_id,
                                                                         args.iteration_id))}


def save_knowledge_snapshot(box: Toolbox, args: SaveKnowledgeSnapshotInput) -> dict:
    """Store what this iteration hands on: summaries, tech stack, key decisions and patterns,
    code structure, known issues."""
    saved = knowledge.save_knowledge_snapshot(box.store, args, actor=box.agent)
    return {"iteration_id": saved.iteration_id, "saved_at": saved.saved_at.isoformat()}


def list_files_workspace(box: Toolbox, args: ListFilesInput) -> dict:
    """Files under the workspace root (never outside it), with size and modification time."""
    if box.workspace is None:
        raise InvalidInput("no workspace is configured (memlib mcp --workspace DIR)")
    root = box.workspace.resolve()
    base = (root / args.path).resolve()
    if base != root and root not in base.parents:
        raise InvalidInput(f"{args.path!r} is outside the workspace")
    if not base.is_dir():
        raise NotFound(f"no directory {args.path!r} in the workspace")
    files = []
    walker = os.walk(base) if args.recursive else [(str(base), [], [p.name for p in base.iterdir() if p.is_file()])]
    for directory, dirs, names in walker:
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(directory) / name
            if name.startswith(".") or not fnmatch.fnmatch(name, args.pattern) or path.is_symlink():
                continue
            stat = path.stat()
            files.append({"path": str(path.relative_to(root)), "bytes": stat.st_size,
                          "modified": stat.st_mtime})
            if len(files) >= MAX_FILES:
                return {"files": files, "truncated": True}
    return {"files": files, "truncated": False}


class UpdateMemoryInput(_Input):
    memory_id: str
    reason: str = Field(min_length=1, max_length=2_000, description="Why it changes: kept in the audit log.")
    content: str | None = Field(default=None, max_length=MAX_TEXT)
    title: str | None = Field(default=None, max_length=MAX_TEXT)
    tags: list[str] | None = None
    confidence: Int | None = Field(default=None, ge=0, le=100)
    importance: Literal["critical", "important", "normal"] | None = None


class CorrectMemoryInput(UpdateMemoryInput):
    reason: str = Field(min_length=1, max_length=2_000, description="What was wrong: kept in the audit log.")


class ForgetMemoryInput(_Input):
    memory_ids: list[str] = Field(min_length=1, max_length=1_000)
    reason: str = Field(min_length=1, max_length=2_000, description="Why: kept in the audit log.")


def update_memory(box: Toolbox, args: UpdateMemoryInput) -> dict:
    """CHANGES a stored memory in place, when you know it is wrong or out of date: its words,
    title, tags, confidence or importance (the same id; re-embedded if its text changes). Say
    why; the old values stay in the memory's history."""
    changes = args.model_dump(exclude={"memory_id", "reason"}, exclude_none=True)
    memory = curation.revise(box.store, args.memory_id, args.reason, actor=box.agent, **changes)
    return {"id": memory.id, "kind": memory.kind.value, "text": memory.own_text}


def correct_memory(box: Toolbox, args: CorrectMemoryInput) -> dict:
    """SUPERSEDES a stored memory that was wrong with a corrected one (a new id): the old one
    is no longer recalled and stays in its history, linked to the correction. Say what was
    wrong."""
    changes = args.model_dump(exclude={"memory_id", "reason"}, exclude_none=True)
    memory, run_id = curation.correct(box.store, args.memory_id, args.reason, actor=box.agent, **changes)
    return {"id": memory.id, "corrects": args.memory_id, "kind": memory.kind.value, "text": memory.own_text,
            "run_id": run_id}


def forget_memory(box: Toolbox, args: ForgetMemoryInput) -> dict:
    """REMOVES memories you know are wrong or must not be recalled again. Say why. They are
    archived as one run a person can undo (memlib retention undo RUN) until it is purged."""
    out = curation.forget(box.store, args.memory_ids, args.reason, actor=box.agent)
    return {"forgotten": out.removed, "run_id": out.run_id}


class ListReviewsInput(_Input):
    pass


class DecideReviewInput(_Input):
    approval_id: str = Field(description="The approval list_reviews gave for the held memory.")
    accept: bool = Field(description="true saves the memory; false turns it down for good.")
    reason: str | None = Field(default=None, max_length=MAX_TEXT, description="Why (required to reject).")


def list_reviews(box: Toolbox, args: ListReviewsInput) -> dict:
    """The memories held for review before they are saved (a lifecycle policy's write-back
    with review on): none of them is recalled until accepted."""
    return {"reviews": [{**w, "requested_at": w["requested_at"].isoformat()} for w in review.pending(box.plane)]}


def decide_review(box: Toolbox, args: DecideReviewInput) -> dict:
    """SAVES (accept) or REJECTS for good a memory held for review. Rejections are kept in the
    audit log with the reason."""
    if args.accept:
        return {"saved": review.accept(box.store, box.plane, args.approval_id, box.agent, args.reason)}
    return {"rejected": review.reject(box.store, box.plane, args.approval_id, box.agent, args.reason or "")}


class EnqueueTaskInput(_Input):
    kind: str = Field(description="What sort of work (a worker claims any kind).")
    project_id: str | None = Field(default=None, min_length=1, max_length=200,
                                   description="The project the work is for: only agents that may write it claim "
                                               "it. Required from a token limited to some projects.")
    payload: Any = Field(default=None, description="The task's instructions, any JSON value.")
    priority: Int = Field(default=0, ge=-1_000, le=1_000, description="Higher is claimed first.")
    max_attempts: Int = Field(default=5, ge=1, le=100)
    approval: str | None = Field(default=None, description="Hold the task until a person approves this request.")


class ClaimTaskInput(_Input):
    lease_seconds: Float = Field(default=30.0, ge=0.001, le=86_400,
                                 description="How long the task is the caller's; heartbeat_task extends it.")


class _Held(_Input):
    task_id: str
    token: str = Field(description="The token claim_task returned with the task.")


class HeartbeatTaskInput(_Held):
    extend_seconds: Float = Field(default=30.0, ge=0.001, le=86_400)


class AckTaskInput(_Held):
    output: Any = Field(default=None, description="The task's result, any JSON value.")
    status: Literal["succeeded", "failed"] = "succeeded"


class NackTaskInput(_Held):
    error: str | None = Field(default=None, max_length=2_000)
    retry_in_seconds: Float | None = Field(default=None, ge=0, le=86_400,
                                           description="Default: backoff doubling from 1 s.")


def _task(task) -> dict:
    return {"task_id": task.task_id, "kind": task.kind, "payload": task.payload, "status": task.status,
            "priority": task.priority, "attempts": task.attempts, "session_id": task.session_id,
            "project_id": task.project_id}


def enqueue_task(box: Toolbox, args: EnqueueTaskInput) -> dict:
    """Queue work for the store's workers (in this agent's session, for a project); with
    `approval`, it waits for a person's decision first."""
    if args.project_id is None and box.projects is not None:
        raise InvalidInput(f"enqueue_task: give project_id (one of {', '.join(box.projects) or 'no project'}): "
                           "a task of no project is every project's")
    if args.project_id is not None:
        project = box.store.lookup([args.project_id], ["id", "kind"]).get(args.project_id)
        if project is None or project["kind"] != Kind.PROJECT.value:
            raise InvalidInput(f"enqueue_task: project_id {args.project_id!r} is not a project of this store")
    task = box.plane.queue.enqueue(args.kind, args.payload, priority=args.priority, max_attempts=args.max_attempts,
                                   approval=args.approval, agent=box.agent, session_id=box.session_id,
                                   project_id=args.project_id)
    return _task(task)


def claim_task(box: Toolbox, args: ClaimTaskInput) -> dict:
    """Take the next task (highest priority, then oldest) of the projects this agent may
    write, for a lease; null when none is free or the queue's in-flight limit is reached.
    Keep the token: ack_task needs it."""
    lease = box.plane.queue.claim(box.agent, lease=args.lease_seconds, projects=box.projects)
    if lease is None:
        return {"task": None}
    return {"task": _task(lease.task), "token": lease.token, "attempt": lease.attempt,
            "lease_until": lease.until.isoformat()}


def heartbeat_task(box: Toolbox, args: HeartbeatTaskInput) -> dict:
    """Extend the lease on a task this agent holds."""
    lease = box.plane.queue.heartbeat(box.plane.queue.lease_of(args.task_id, args.token, box.agent),
                                      extend=args.extend_seconds)
    return {"task_id": lease.task_id, "lease_until": lease.until.isoformat()}


def ack_task(box: Toolbox, args: AckTaskInput) -> dict:
    """Finish a task this agent holds, with its result."""
    result = box.plane.queue.ack(box.plane.queue.lease_of(args.task_id, args.token, box.agent), args.output,
                                 status=args.status)
    return {"task_id": result.task_id, "status": result.status, "attempt": result.attempt,
            "duration_seconds": result.duration_s}


def nack_task(box: Toolbox, args: NackTaskInput) -> dict:
    """Give a task back after a failed attempt: retried after a backoff, or a dead letter
    once it has used its attempts."""
    task = box.plane.queue.nack(box.plane.queue.lease_of(args.task_id, args.token, box.agent), args.error,
                                retry_in=args.retry_in_seconds)
    return _task(task)


class StartSessionInput(_Input):
    project_id: str | None = Field(default=None, description="The project the session works in (its recalls "
                                                                 "stay in it).")
    preferences: dict[str, str | int | float | bool] = Field(default_factory=dict,
                                                             description="persona, owner, language ...")


class SessionInput(_Input):
    session_id: str


class AppendTurnInput(SessionInput):
    role: Literal["user", "assistant", "tool", "system"]
    content: str = Field(min_length=1, max_length=MAX_TEXT)


class TranscriptInput(SessionInput):
    last: Int | None = Field(default=None, ge=1, le=10_000, description="Only the last N turns.")


class SavePendingLoopInput(SessionInput):
    goal: str = Field(min_length=1, max_length=MAX_TEXT)
    step: Int = Field(ge=0)
    state: dict[str, Any] = Field(default_factory=dict)


class BuildContextInput(SessionInput):
    goal: str = Field(min_length=1, max_length=MAX_TEXT, description="What the next turn is about.")
    budget_tokens: Int = Field(default=4_000, ge=50, le=200_000)


class ReportFragmentInput(_Input):
    content: str = Field(min_length=1, max_length=MAX_TEXT, description="One finding, in your words.")
    topic_candidates: list[str] = Field(default_factory=list, max_length=20)
    confidence: Float = Field(default=1.0, ge=0, le=1)
    trace_pointer: str | None = Field(default=None, description="What it came from: a memory id or a recall id.")
    evidence: str | None = Field(default=None, max_length=1_000_000,
                                 description="Or the text it came from (a tool's output, a page): registered, "
                                             "its hash becomes the trace pointer.")


def _sessions(box: Toolbox, session_id: str | None = None):
    """The session layers, and the session if named: the calling agent's own."""
    from memlib.agents.sessions import Sessions

    sessions = Sessions(box.store)
    if session_id is not None:
        sessions.owned(session_id, box.agent)
    return sessions


def start_session(box: Toolbox, args: StartSessionInput) -> dict:
    """STARTS a session (seed 002's layers): its transcript, pending loop and preferences live
    until it ends. Pass its session_id to the session tools and build_context."""
    return _sessions(box).start(box.agent, project_id=args.project_id, preferences=args.preferences).model_dump(
        mode="json")


def append_turn(box: Toolbox, args: AppendTurnInput) -> dict:
    """Adds a turn to the session's short-term transcript."""
    return _sessions(box, args.session_id).append(args.session_id, args.role, args.content).model_dump(mode="json")


def get_transcript(box: Toolbox, args: TranscriptInput) -> dict:
    """The session's transcript, oldest turn first."""
    turns = _sessions(box, args.session_id).transcript(args.session_id, last=args.last)
    return {"turns": [t.model_dump(mode="json") for t in turns]}


def save_pending_loop(box: Toolbox, args: SavePendingLoopInput) -> dict:
    """Saves where a suspended loop is (goal, step, state) to resume it later."""
    return _sessions(box, args.session_id).save_loop(args.session_id, args.goal, args.step, args.state).model_dump(
        mode="json")


def load_pending_loop(box: Toolbox, args: SessionInput) -> dict:
    """The latest saved state of the session's suspended loop, or null."""
    loop = _sessions(box, args.session_id).pending_loop(args.session_id)
    return {"loop": None if loop is None else loop.model_dump(mode="json")}


def end_session(box: Toolbox, args: SessionInput) -> dict:
    """ENDS the session: its transcript and pending loop are cleared."""
    return _sessions(box, args.session_id).end(args.session_id).model_dump(mode="json")


def build_context(box: Toolbox, args: BuildContextInput) -> dict:
    """The context to start a turn with, within a token budget: profile, tools, what memory
    recalls for the goal (in the session's project) and the transcript."""
    _sessions(box, args.session_id)
    return agent_context.build_context(box.store, args.session_id, args.goal, budget_tokens=args.budget_tokens,
                                       tools=context_tools(box.store)).to_dict()


def context_tools(store) -> list[dict]:
    """The tools a context built for an agent of these tools lists: those the store's
    workspace declares, else these tools."""
    declared = agent_context.declared_tools(store)
    return describe() if declared is None else declared


def report_fragment(box: Toolbox, args: ReportFragmentInput) -> dict:
    """REPORTS a finding as a fragment (seed 001): fragments several agents report about one
    topic are clustered by meaning, their disagreements found and consolidated. Give what it
    came from: trace_pointer (a memory or recall id) or evidence (the text)."""
    from memlib.consensus import Consensus

    if (args.trace_pointer is None) == (args.evidence is None):
        raise InvalidInput("report_fragment: give trace_pointer or evidence (one of them)")
    consensus = Consensus(box.store)
    pointer = args.trace_pointer or consensus.register_input(args.evidence, source=box.agent)
    ((fragment_id, cluster_id, new),) = consensus.add([{
        "content": args.content, "source_agent": box.agent, "topic_candidates": args.topic_candidates,
        "confidence": args.confidence, "trace_pointer": pointer}], actor=box.agent)
    return {"fragment_id": fragment_id, "cluster_id": cluster_id, "new_cluster": new, "trace_pointer": pointer}


TOOLS: dict[str, tuple[type[BaseModel], Callable[[Toolbox, Any], dict]]] = {
    fn.__name__: (model, fn) for model, fn in [
        (QueryMemoryInput, query_memory), (RememberInput, remember), (SaveInsightInput, save_insight),
        (SaveIssueInput, save_issue),
        (SaveLearningInput, save_learning), (PromoteToDecisionInput, promote_to_decision),
        (PromoteToPatternInput, promote_to_pattern), (LoadDocumentSummaryInput, load_document_summary),
        (LoadBaseKnowledgeInput, load_base_knowledge), (SaveKnowledgeSnapshotInput, save_knowledge_snapshot),
        (ListFilesInput, list_files_workspace),
        # correcting what is stored (who and why in the audit log)
        (UpdateMemoryInput, update_memory), (CorrectMemoryInput, correct_memory), (ForgetMemoryInput, forget_memory),
        # memories held for review before they are saved (agents/review.py)
        (ListReviewsInput, list_reviews), (DecideReviewInput, decide_review),
        # the control plane (memlib.control): an agent host enqueues and claims work
        (EnqueueTaskInput, enqueue_task), (ClaimTaskInput, claim_task), (HeartbeatTaskInput, heartbeat_task),
        (AckTaskInput, ack_task), (NackTaskInput, nack_task),
        # the session layers and the context an agent starts a turn with (seed 002)
        (StartSessionInput, start_session), (AppendTurnInput, append_turn), (TranscriptInput, get_transcript),
        (SavePendingLoopInput, save_pending_loop), (SessionInput, load_pending_loop), (SessionInput, end_session),
        (BuildContextInput, build_context),
        # findings several agents report about one topic (seed 001)
        (ReportFragmentInput, report_fragment)]
}


def call(box: Toolbox, name: str, arguments: dict[str, Any] | BaseModel) -> dict:
    """Run tool `name` with its arguments, validated first; a mistake is one line."""
    if name not in TOOLS:
        raise InvalidInput(f"no tool {name!r} (tools: {', '.join(TOOLS)})")
    model, fn = TOOLS[name]
    if not isinstance(arguments, model):
        try:
            arguments = model.model_validate(arguments if not isinstance(arguments, BaseModel)
                                             else arguments.model_dump())
        except ValidationError as exc:
            raise invalid(name, exc) from None
    return fn(box, arguments)


def describe() -> list[dict[str, Any]]:
    """Each tool's name, description and JSON schema (what an agent host is shown)."""
    return [dict(tool) for tool in _described()]


@functools.cache
def _described() -> tuple[dict[str, Any], ...]:  # the schemas never change: made once (36 ms)
    return tuple({"name": name, "description": " ".join((fn.__doc__ or "").split()),
                  "input_schema": model.model_json_schema()} for name, (model, fn) in TOOLS.items())
