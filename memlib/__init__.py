"""memlib: an analytics-first memory store for AI agents.

The map of the house. Shared vocabulary at the top: `vocabulary` (a memory's kinds, levels,
importance and the rule of trust, without its models), `models` (the typed memories; the Lance
schema derives from them), `errors`, `deferred` (dependencies' start-up imports memlib never
uses, put off until used), `extras` (the optional parts, each a pip extra, and the
one line a user gets when one is missing), `scope` (where a search may look, and the one escaping
helper for Lance filters), `clock` (the time a store writes, the one date parser),
`embeddings` (the model a store embeds with, for writes and queries alike, and `glosses`: the
English senses of Chinese words it embeds with), `policy` (retention
policies in policies/: what a report judges by and what retention acts on), `settings` (a
flag, else the environment, else the config file: resolved once at the edge, passed down),
`interface` (the store's typed doors, which the concepts go through instead of its attributes). One package per
concept; each imports only the ones it points to, besides the shared vocabulary, and the
arrows make no loop (tests/test_layout.py checks these lines, and the README's layout table,
against the imports):

    cli          -> agents, analytics, control, judges, lifecycle, memory_store, sample, search, server, store, workspace
    server       -> agents, consensus, control, lifecycle, store
    agents       -> consensus, control, lifecycle, sessions, store
    sample       -> consensus, control, lifecycle, sessions, store
    memory_store -> consensus, judges, lifecycle, search, server, store, workspace
    workspace    -> lifecycle, store
    lifecycle    -> analytics, consensus, search, store
    analytics    -> consensus, control, sessions, store
    judges       -> consensus, store
    consensus    -> store
    control      -> store
    sessions     -> store
    search       ->
    store        ->
    testing      ->
    adapters     ->

- `store/`      tables, versions (time travel), add/upsert/update/delete, audit and recall logs,
                JSONL import/export, a memory's history.
- `search/`     vector, full-text and hybrid search, fusion, the in-memory vector cache.
- `analytics/`  one DuckDB connection over one store version with the views of sql/, report
                data, polars transforms, altair charts, formatting, the papermill runner.
- `lifecycle/`  retention runs, curation (promotion, flags, confidence), maintenance (usage
                fold, compaction, indexes).
- `sample/`     a deterministic corpus written as a 240-day history, and the agents'
                fragments on it for the consensus report.
- `agents/`     sessions as an agent ends them, the lifecycle policy, project-memory queries, the context builder,
                the agent tools and their MCP server.
- `workspace/`  markdown files a person edits (SPIRIT, OWNER, MEMORY, TOOLS, daily logs) kept
                in step with a store: formats, records, sync, watcher, paths and lock.
- `sessions/`   the session layers (seed 002): a session and its preferences, its short-term
                transcript, its pending loops, each a table beside the memories.
- `control/`    the control plane (seed 002): tasks, events, approvals, results and a leased
                dispatch queue with backpressure, in a SQLite file in the store's directory.
- `consensus/`  fragments several agents report, clustered by meaning (with a lexicon learned
                from them), their disagreements, consensus units under retention contracts,
                promotion into memories (seed 001).
- `server/`     the memory server for a team (`memlib serve`): the REST API and the agent tools
                over MCP's streamable HTTP from one process, bearer tokens per agent, the
                group commit.
- `judges/`     what reads memories after they are written and says which contradict or
                update others: a registry (rules, none, nli:MODEL) and the incremental reader.
- `memory_store` `MemoryStore`: the store with search, maintenance, the write screen
                (duplicates), its judge and a workspace's hooks; what agents hold.
- `adapters/`   memlib in agent frameworks, optional extras: LangGraph's store, a LangChain
                retriever.
- `testing`     the S3-compatible server on loopback that tests and benchmarks run against.
- `cli/`        the `memlib` command, one module per command group.

The path of a memory: `MemoryStore.add` validates it (store/batch.py: pydantic model, parents,
unique titles, the turn before a conversation turn), embeds it and commits the batch to the
`memories` Lance table, recording the version in the audit log. `recall` finds it (search/)
and appends recall events to a spool that `maintain` flushes into `recall_events` and folds
into usage. A report (analytics/reports.py) opens the version current at its as-of date,
reads it through the views of sql/ (staging, intermediate, marts) and renders the notebooks.
"""

from memlib.deferred import defer_namespace_client, lazy_attributes
from memlib.errors import (
    EmbedderMismatch,
    InvalidInput,
    InvalidMemory,
    MemlibError,
    NotFound,
    StoreError,
)

defer_namespace_client()

# What `from memlib import X` gives, imported when first asked for: `import memlib` alone
# (the CLI's, a tool's) loads neither Lance nor pydantic's models.
_LAZY = {
    "MemoryStore": "memlib.memory_store", "Scope": "memlib.scope", "Settings": "memlib.settings",
    **{name: "memlib.models" for name in (
        "Conversation", "Decision", "Importance", "Insight", "Issue", "Kind", "Learning", "Level", "Manual",
        "Memory", "Pattern", "Project", "RootTask", "SubTask", "Summary")},
}

__all__ = [
    "Conversation", "Decision", "EmbedderMismatch", "Importance", "Insight", "InvalidInput",
    "InvalidMemory", "Issue", "Kind", "Learning", "Level", "Manual", "MemlibError", "Memory",
    "MemoryStore", "NotFound", "Pattern", "Project", "RootTask", "Scope", "Settings", "StoreError",
    "SubTask", "Summary",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
