"""The ten agent tools (seed 004, section 7) as plain Python functions: each takes a
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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlib.agents import knowledge
from memlib.agents.query import MemoryQuery, query_memory as run_query
from memlib.errors import InvalidInput, NotFound, invalid
from memlib.lifecycle import curation
from memlib.models import MAX_TEXT, Importance, Insight, Issue, Learning

MAX_FILES = 500


@dataclass
class Toolbox:
    """What every tool call runs against."""

    store: Any  # a MemoryStore
    agent: str = "agent"
    workspace: Path | None = None  # list_files_workspace lists under this root only


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryMemoryInput(MemoryQuery):
    budget_tokens: int = Field(default=2_000, ge=50, le=100_000,
                               description="Token budget of the returned context string.")


class _Save(_Input):
    project_id: str = Field(description="The project it belongs to.")
    content: str = Field(min_length=1, max_length=MAX_TEXT)
    title: str | None = Field(default=None, max_length=MAX_TEXT)
    iteration_id: str | None = None
    root_task_id: str | None = None
    tags: list[str] = Field(default_factory=list)


class SaveInsightInput(_Save):
    importance: Literal["critical", "important", "normal"] = "normal"


class SaveIssueInput(_Save):
    pass


class SaveLearningInput(_Save):
    pass


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
    path: str = Field(default=".", description="A directory under the workspace root.")
    pattern: str = Field(default="*", max_length=200, description="A glob on file names.")
    recursive: bool = True


def query_memory(box: Toolbox, args: QueryMemoryInput) -> dict:
    """Project, iteration or smart query of the project's memory, ranked; with a markdown
    context string cut to the token budget."""
    query = MemoryQuery.model_validate(args.model_dump(exclude={"budget_tokens"}))
    result = run_query(box.store, query, agent=box.agent, tool="query_memory")
    return {"items": [{"id": i.memory.id, "kind": i.memory.kind.value, "text": i.memory.own_text,
                       "created_at": i.memory.created_at.isoformat(), "score": i.score,
                       "iteration_id": getattr(i.memory, "iteration_id", None)} for i in result.items],
            "iterations": result.iterations,
            "context": result.to_context_string(args.budget_tokens)}


def _save(box: Toolbox, model, args: _Save, **extra) -> dict:
    # the store checks that project_id names a project, while it embeds (store/batch.py)
    memory = model(project_id=args.project_id, content=args.content, title=args.title,
                   iteration_id=args.iteration_id, root_task_id=args.root_task_id, tags=args.tags,
                   agent=box.agent, source="agent", **extra)
    (memory_id,) = box.store.add([memory], actor=box.agent, labels=[f"the new {memory.kind.value}"])
    return {"id": memory_id, "kind": memory.kind.value}


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
                                reason="promote_to_decision", fields=fields)
    return {"id": decision.id, "title": decision.title}


def promote_to_pattern(box: Toolbox, args: PromoteToPatternInput) -> dict:
    """A learning becomes a reusable project pattern (name unique in the project)."""
    fields = {k: v for k, v in (("usage_examples", args.usage_examples), ("tags", args.tags),
                                ("code_example", args.code_example)) if v}
    pattern = curation.promote(box.store, args.learning_id, title=args.name, actor=box.agent,
                               reason="promote_to_pattern", fields=fields)
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


TOOLS: dict[str, tuple[type[BaseModel], Callable[[Toolbox, Any], dict]]] = {
    fn.__name__: (model, fn) for model, fn in [
        (QueryMemoryInput, query_memory), (SaveInsightInput, save_insight), (SaveIssueInput, save_issue),
        (SaveLearningInput, save_learning), (PromoteToDecisionInput, promote_to_decision),
        (PromoteToPatternInput, promote_to_pattern), (LoadDocumentSummaryInput, load_document_summary),
        (LoadBaseKnowledgeInput, load_base_knowledge), (SaveKnowledgeSnapshotInput, save_knowledge_snapshot),
        (ListFilesInput, list_files_workspace)]
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
