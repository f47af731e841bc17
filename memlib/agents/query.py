"""The questions agents ask of a project's memory (seed 004, section 5), and the answers in
the form a prompt needs.

A `MemoryQuery` names a project and a scope:
- `project`: the project's decisions and patterns (project-level knowledge, any iteration);
- `iteration`: one iteration's insights, issues and learnings (`iteration_id` required);
- `smart`: both, the iteration knowledge taken from the latest iteration (or the latest
  `latest_iterations`) and from none (an insight saved without an iteration), the view an
  agent at work needs.
Keywords are searched with memlib's hybrid search (full-text and vectors, so case, word
forms and partial matches rank as a search engine ranks them, not as a substring loop);
without keywords the newest memories come first. Tags must all be present. Every memory an
agent is given is logged as a recall by that agent and tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memlib.clock import utc
from memlib.embeddings import count_tokens
from memlib.errors import InvalidInput, invalid
from memlib.interface import MemoryInterface
from memlib.models import Int, Kind, Memory, from_row
from memlib.scope import Scope, sql_literal

TYPES = {"decisions": Kind.DECISION, "patterns": Kind.PATTERN, "insights": Kind.INSIGHT,
         "issues": Kind.ISSUE, "learnings": Kind.LEARNING}
PROJECT_KINDS = (Kind.DECISION, Kind.PATTERN)
ITERATION_KINDS = (Kind.INSIGHT, Kind.ISSUE, Kind.LEARNING)
GROUPS = [("Decisions", Kind.DECISION), ("Patterns", Kind.PATTERN), ("Insights", Kind.INSIGHT),
          ("Issues", Kind.ISSUE), ("Learnings", Kind.LEARNING)]


class MemoryQuery(BaseModel):
    """What an agent asks: see the module's docstring."""

    model_config = ConfigDict(extra="forbid")

    project_id: str = Field(description="The project whose memory is asked.")
    scope: Literal["project", "iteration", "smart"] = "smart"
    types: list[Literal["decisions", "patterns", "insights", "issues", "learnings", "all"]] = ["all"]
    keywords: list[str] = Field(default_factory=list, max_length=20,
                                description="Words to search for (ranked by hybrid search).")
    tags: list[str] = Field(default_factory=list, max_length=20, description="Every one must be present.")
    since: datetime | None = None
    until: datetime | None = None
    latest_iterations: Int | None = Field(default=None, ge=1, le=1_000,
                                          description="Iteration knowledge of the latest N iterations.")
    limit: Int = Field(default=10, ge=1, le=100)
    iteration_id: str | None = Field(default=None, description="Required for the iteration scope.")

    @field_validator("keywords", "tags")
    @classmethod
    def _words(cls, value: list[str]) -> list[str]:
        for word in value:
            if not word.strip() or len(word) > 200:
                raise ValueError("each must be 1 to 200 characters")
        return value

    @model_validator(mode="after")
    def _iteration(self) -> "MemoryQuery":
        if self.scope == "iteration" and not self.iteration_id:
            raise ValueError("the iteration scope needs an iteration_id")
        return self

    @classmethod
    def parse(cls, data: dict) -> "MemoryQuery":
        """From plain data; a mistake is one line naming the field."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise invalid("memory query", exc) from None

    def kinds(self) -> tuple[list[Kind], list[Kind]]:
        """(project-level kinds, iteration kinds) this query reads."""
        wanted = set(TYPES.values()) if "all" in self.types else {TYPES[t] for t in self.types}
        project = [k for k in PROJECT_KINDS if k in wanted and self.scope in ("project", "smart")]
        iteration = [k for k in ITERATION_KINDS if k in wanted and self.scope in ("iteration", "smart")]
        return project, iteration


@dataclass
class Item:
    memory: Memory
    score: float | None = None  # the search's score when keywords were given


@dataclass
class MemoryQueryResult:
    query: MemoryQuery
    items: list[Item]
    iterations: list[str] = field(default_factory=list)  # the iterations the knowledge came from
    count: Callable[[str], int] | None = field(default=None, repr=False)  # the store's token counter

    def to_context_string(self, budget_tokens: int = 2_000, count=None) -> str:
        """Markdown for a prompt: grouped by type (decisions, patterns, insights, issues,
        learnings), newest first in a group, dates shown; items that do not fit the token
        budget are left out whole (never cut mid-item), so the same result and budget always
        give the same string. `count(text) -> int` counts tokens (memlib.embeddings.count_tokens
        by default)."""
        count = count or self.count or (lambda text: count_tokens(None, text))
        header = f"# Project memory ({self.query.scope})\n"
        used = count(header)
        out = [header]
        for title, kind in GROUPS:
            members = sorted((i.memory for i in self.items if i.memory.kind is kind),
                             key=lambda m: (m.created_at, m.id), reverse=True)
            started = False
            for memory in members:
                text = render_memory(memory)
                heading = f"\n## {title}\n" if not started else ""
                cost = count(heading + text)
                if used + cost > budget_tokens:
                    continue
                out.append(heading + text)
                used += cost
                started = True
        return "".join(out)


def render_memory(m: Memory) -> str:
    day = f"{m.created_at:%Y-%m-%d}"
    where = f", iteration {m.iteration_id}" if getattr(m, "iteration_id", None) else ""
    if m.kind is Kind.DECISION:
        parts = [f"### {m.title} ({day}{where})", m.decision]
        if m.context:
            parts.append(f"Context: {m.context}")
        if m.consequences:
            parts.append(f"Consequences: {m.consequences}")
        return "\n".join(parts) + "\n"
    if m.kind is Kind.PATTERN:
        tags = f" [tags: {', '.join(m.tags)}]" if m.tags else ""
        parts = [f"### {m.name} ({day}{where}){tags}", m.description]
        parts += [f"- Example: {e}" for e in m.usage_examples]
        if m.code_example:
            parts.append(f"```\n{m.code_example}\n```")
        return "\n".join(parts) + "\n"
    if not hasattr(m, "content"):  # the task tree: a project, a root task, a sub task
        return f"- [{m.kind.value}] {' '.join(m.own_text.split())} ({day})\n"
    label = f"[{m.importance.value}] " if m.kind is Kind.INSIGHT else ""
    label += f"[{m.kind.value}] " if m.kind not in (Kind.INSIGHT, Kind.ISSUE, Kind.LEARNING) else ""
    title = f"**{m.title}**: " if m.title else ""
    return f"- {label}{title}{' '.join(m.content.split())} ({day}{where})\n"


def latest_iterations(store: MemoryInterface, project_id: str, n: int) -> list[str]:
    """The project's latest `n` iterations, newest first: the ones that began last, an
    iteration beginning with its first row (from the rows held in memory when the store has
    them). A row added to an older iteration later (a late learning, a promotion when it is
    finalized) leaves the order as it was."""
    cache = store.cached()
    if cache is not None:
        began = cache.first(Scope(project_id=project_id, include_expired=True), "iteration_id")
    else:
        grouped = store.dataset().to_table(
            columns=["iteration_id", "created_at"],
            filter=f"project_id = {sql_literal(project_id)} AND iteration_id IS NOT NULL",
        ).group_by("iteration_id").aggregate([("created_at", "min")])
        began = dict(zip(grouped.column("iteration_id").to_pylist(),
                         grouped.column("created_at_min").to_pylist()))
    return [i for i, _ in sorted(began.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:n]]


def query_memory(store: MemoryInterface, query: MemoryQuery | dict, agent: str | None = None,
                 tool: str = "query_memory", session_id: str | None = None) -> MemoryQueryResult:
    """Answer a query from the store, logging what the agent is given."""
    if not isinstance(query, MemoryQuery):
        query = MemoryQuery.parse(query)  # a dict, or a mistake refused in one line
    project = store.get(query.project_id)
    if project.kind is not Kind.PROJECT:
        raise InvalidInput(f"{query.project_id} is not a project")
    project_kinds, iteration_kinds = query.kinds()
    iterations: list[str] = []
    if iteration_kinds:
        if query.scope == "iteration":
            iterations = [query.iteration_id]
        else:
            iterations = latest_iterations(store, query.project_id, query.latest_iterations or 1)
    common = {"project_id": query.project_id, "all_tags": tuple(query.tags),
              "created_after": utc(query.since) if query.since else None,
              "created_before": utc(query.until) if query.until else None}
    parts = []  # project knowledge, iteration knowledge: one scope, so one ranking of both
    if project_kinds:
        parts.append(Scope(kinds=tuple(k.value for k in project_kinds)))
    if iteration_kinds and (iterations or query.scope == "smart"):
        # the smart scope's knowledge is the latest iterations' and what was saved in none
        parts.append(Scope(kinds=tuple(k.value for k in iteration_kinds), iteration_ids=tuple(iterations) + (
            (None,) if query.scope == "smart" else ())))
    text = " ".join(query.keywords)
    items: list[Item] = []
    if parts:
        scope = Scope(any_of=tuple(parts), **common)
        if text:
            items = [Item(h.memory, h.score) for h in store.search(text, k=query.limit, scope=scope)]
        else:
            rows = store.dataset().to_table(
                columns=store.columns(),
                filter=scope.where(store.clock.now())).to_pylist()
            rows.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
            items = [Item(from_row(r, trusted=True)) for r in rows[:query.limit]]
    store.log_recall(text or f"({query.scope} memory)", [(i.memory.id, rank, i.score) for rank, i in
                                                         enumerate(items, start=1)],
                     "hybrid" if text else "list", agent, tool, session_id)
    return MemoryQueryResult(query, items, iterations, lambda t: count_tokens(store.embedder, t))
