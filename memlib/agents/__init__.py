"""memlib as agents use it: the session layers (short-term transcript, session and its
preferences, pending loop), the lifecycle policy that decides what an agent recalls and
writes back, project / iteration / smart queries with their context strings, iteration
knowledge snapshots, the context builder, and the agent tools (`tools.TOOLS`: plain functions, and over
MCP in `memlib.agents.mcp_server`). Long-term memory is the store's; everything here goes
through `memlib.MemoryStore`, so what agents do shows up in the reports. May import the
store, search, lifecycle and memory_store parts."""

from memlib.agents.context import Context, build_context
from memlib.agents.knowledge import IterationKnowledge, cleanup_old_knowledge, load_base_knowledge, save_knowledge_snapshot
from memlib.agents.lifecycle_policy import (
    ConservativePolicy,
    DisabledPolicy,
    MemoryLifecyclePolicy,
    RecallInput,
    WriteInput,
    load_lifecycle_policy,
    write_back,
)
from memlib.agents.query import MemoryQuery, MemoryQueryResult, query_memory
from memlib.agents.sessions import Session, Sessions

__all__ = [
    "ConservativePolicy", "Context", "DisabledPolicy", "IterationKnowledge", "MemoryLifecyclePolicy",
    "MemoryQuery", "MemoryQueryResult", "RecallInput", "Session", "Sessions", "WriteInput",
    "build_context", "cleanup_old_knowledge", "load_base_knowledge", "load_lifecycle_policy",
    "query_memory", "save_knowledge_snapshot", "write_back",
]
