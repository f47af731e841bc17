"""Iteration knowledge (seed 004, 3.2 and 8.3): the compressed snapshot an iteration leaves
for the next one, and the rotation that keeps only the latest iterations' detail.

A snapshot holds the iteration's document summaries (idea, PRD, design, plan: at most 1,000
characters each), its tech stack, references to its key decisions and patterns, a summary of
the code's structure and the known issues. Snapshots live in their own table
(`knowledge_snapshots`), one row per save; the latest save of an iteration is its snapshot.
They are kept forever. `cleanup_old_knowledge` removes the detail (insights, issues,
learnings) of all but the latest N iterations as a retention run: archived first, audited,
and reversible with `memlib retention undo RUN`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memlib.errors import InvalidInput, NotFound, invalid
from memlib.interface import MemoryInterface
from memlib.lifecycle import retention
from memlib.models import Kind
from memlib.scope import sql_in, sql_literal
from memlib.store.concurrency import committing
from memlib.store.tables import SNAPSHOTS

from memlib.agents.query import ITERATION_KINDS, latest_iterations

SUMMARY_CHARS = 1_000
DOCUMENTS = ("idea", "prd", "design", "plan")
SCHEMA = pa.schema([("project_id", pa.string()), ("iteration_id", pa.string()),
                    ("saved_at", pa.timestamp("us", tz="UTC")), ("snapshot", pa.string())])
Short = Field(default=None, max_length=SUMMARY_CHARS)


class DocumentSummaries(BaseModel):
    model_config = ConfigDict(extra="forbid")
    idea: str | None = Short
    prd: str | None = Short
    design: str | None = Short
    plan: str | None = Short


class IterationKnowledge(BaseModel):
    """What an iteration hands on to the next."""

    model_config = ConfigDict(extra="forbid")

    project_id: str
    iteration_id: str = Field(min_length=1, max_length=200)
    summaries: DocumentSummaries = Field(default_factory=DocumentSummaries)
    tech_stack: list[str] = Field(default_factory=list, max_length=100)
    key_decisions: list[str] = Field(default_factory=list, description="Ids of project decisions.")
    key_patterns: list[str] = Field(default_factory=list, description="Ids of project patterns.")
    code_structure: str | None = Short
    known_issues: list[str] = Field(default_factory=list, max_length=100)
    saved_at: datetime | None = None

    @field_validator("tech_stack", "known_issues")
    @classmethod
    def _short(cls, value: list[str]) -> list[str]:
        for item in value:
            if not item.strip() or len(item) > SUMMARY_CHARS:
                raise ValueError(f"each must be 1 to {SUMMARY_CHARS} characters")
        return value


def _parse(data: dict | IterationKnowledge) -> IterationKnowledge:
    if isinstance(data, IterationKnowledge):
        return data
    try:
        return IterationKnowledge.model_validate(data)
    except ValidationError as exc:
        raise invalid("knowledge snapshot", exc) from None


def save_knowledge_snapshot(store: MemoryInterface, knowledge: dict | IterationKnowledge, actor: str | None = None) -> IterationKnowledge:
    """Store an iteration's snapshot; its key decisions and patterns must be the project's."""
    store.check_writable()
    knowledge = _parse(knowledge)
    if store.get(knowledge.project_id).kind is not Kind.PROJECT:
        raise InvalidInput(f"{knowledge.project_id} is not a project")
    for field, kind in (("key_decisions", Kind.DECISION), ("key_patterns", Kind.PATTERN)):
        ids = getattr(knowledge, field)
        found = store.lookup(ids, ["kind", "project_id"])
        for memory_id in ids:
            row = found.get(memory_id)
            if row is None or row["kind"] != kind.value or row["project_id"] != knowledge.project_id:
                raise InvalidInput(f"knowledge snapshot: {field}: {memory_id} is not a {kind.value} of "
                                   f"project {knowledge.project_id}")
    knowledge = knowledge.model_copy(update={"saved_at": store.clock.now()})
    row = {"project_id": knowledge.project_id, "iteration_id": knowledge.iteration_id,
           "saved_at": knowledge.saved_at, "snapshot": knowledge.model_dump_json()}
    table = store.concept_table(SNAPSHOTS, SCHEMA)
    committing(lambda: table.add(pa.Table.from_pylist([row], schema=SCHEMA)))
    store.log_event("knowledge_snapshot", [knowledge.iteration_id], actor=actor,
                    details={"project_id": knowledge.project_id})
    return knowledge


def snapshots(store: MemoryInterface, project_id: str) -> list[IterationKnowledge]:
    """The latest snapshot of each iteration of the project, oldest first."""
    table = store.concept_table(SNAPSHOTS)
    if table is None:
        return []
    table.checkout_latest()
    rows = table.to_lance().to_table(filter=f"project_id = {sql_literal(project_id)}").to_pylist()
    latest: dict[str, dict] = {}
    for row in sorted(rows, key=lambda r: r["saved_at"]):
        latest[row["iteration_id"]] = row
    return sorted((IterationKnowledge.model_validate_json(r["snapshot"]) for r in latest.values()),
                  key=lambda k: (k.saved_at, k.iteration_id))


def load_snapshot(store: MemoryInterface, project_id: str, iteration_id: str) -> IterationKnowledge:
    for knowledge in snapshots(store, project_id):
        if knowledge.iteration_id == iteration_id:
            return knowledge
    raise NotFound(f"no knowledge snapshot of iteration {iteration_id!r} in project {project_id}")


def load_base_knowledge(store: MemoryInterface, project_id: str, iteration_id: str) -> IterationKnowledge | None:
    """The snapshot of the iteration before `iteration_id`: the latest one saved before the
    iteration's own (or, if it has none yet, the latest of any other iteration)."""
    every = snapshots(store, project_id)
    own = next((k for k in every if k.iteration_id == iteration_id), None)
    earlier = [k for k in every if k.iteration_id != iteration_id and (own is None or k.saved_at < own.saved_at)]
    return earlier[-1] if earlier else None


def load_document_summary(store: MemoryInterface, project_id: str, iteration_id: str, document: str) -> str | None:
    """One document summary (idea, prd, design or plan) of an iteration's snapshot."""
    if document not in DOCUMENTS:
        raise InvalidInput(f"document must be one of {', '.join(DOCUMENTS)}, not {document!r}")
    return getattr(load_snapshot(store, project_id, iteration_id).summaries, document)


def cleanup_old_knowledge(store: MemoryInterface, project_id: str, keep_count: int = 10, actor: str | None = None) -> dict[str, Any]:
    """Keep the insights, issues and learnings of the latest `keep_count` iterations; remove
    the older iterations' as one retention run (reversible with `retention.undo`). Snapshots,
    decisions and patterns stay."""
    if not isinstance(keep_count, int) or isinstance(keep_count, bool) or keep_count < 1:
        raise InvalidInput(f"keep_count must be a whole number of at least 1, not {keep_count!r}")
    store.check_writable()
    with store.lock.held():
        store.refresh()
        every = latest_iterations(store, project_id, 1_000_000)
        old = every[keep_count:]
        ids = [] if not old else store.dataset().to_table(columns=["id"], filter=(
            f"project_id = {sql_literal(project_id)} AND {sql_in('iteration_id', old)} AND "
            f"{sql_in('kind', [k.value for k in ITERATION_KINDS])}")).column("id").to_pylist()
        run = None
        if ids:
            run = retention.remove(store, sorted(ids), {"policy": "knowledge_cleanup", "project_id": project_id,
                                                        "keep_count": keep_count, "iterations": old,
                                                        "candidates": len(ids)}, actor)
        details = {"project_id": project_id, "keep_count": keep_count, "iterations_cleaned": old,
                   "removed": 0 if run is None else run.removed, "run_id": None if run is None else run.run_id}
        store.log_event("knowledge_cleanup", [project_id], actor=actor,
                        run_id=None if run is None else run.run_id, details=details)
    return details


def as_dict(knowledge: IterationKnowledge | None) -> dict[str, Any] | None:
    return None if knowledge is None else json.loads(knowledge.model_dump_json())
