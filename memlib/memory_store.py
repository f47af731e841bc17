"""MemoryStore: the store as agents use it, with search, recall and maintenance.

It adds to `memlib.store.Store` what needs the concepts built on the store: scoped hybrid
search from the search package (with its in-memory vector cache) and `maintain` from the
lifecycle package. Everything that writes still goes through the store underneath.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import numpy as np

from memlib.clock import Clock
from memlib.embeddings import Embedder
from memlib.errors import StoreError
from memlib.models import Memory, parse_memory, record_label
from memlib.scope import Scope
from memlib.search import Hit, SearchConfig, search
from memlib.search.vector_cache import CacheSlot
from memlib.store import Store
from memlib.store.audit import event_ids

log = logging.getLogger("memlib")
META_SEARCH = "memlib.search"  # the search settings a store records (SearchConfig as JSON)
# the settings of stores made before memlib recorded them, where today's default differs
BEFORE_RECORDED = {"tokenizer": "simple"}


class MemoryStore(Store):
    """The write/recall half of memlib over any LanceDB URI.

    `vector_cache`: "auto" (default, or $MEMLIB_VECTOR_CACHE) keeps the vectors in memory
    once a version of the table is searched twice, "on" at the first search, "off" never."""

    def __init__(self, uri: str, db, table, embedder: Embedder, clock: Clock | None = None,
                 vector_cache: str | None = None, **options):
        super().__init__(uri, db, table, embedder, clock, **options)
        self.vectors = CacheSlot(vector_cache)
        self.search_config = SearchConfig()
        self.workspace = None  # a memlib.workspace.Workspace the memories saved here go to

    def add(self, memories, vectors=None, progress: bool = False, labels=None,
            actor: str | None = None) -> list[str]:
        """See `Store.add`. With a workspace configured, what was saved is also appended to
        its markdown files (memlib.workspace.Workspace.saved)."""
        if self.workspace is None:
            return super().add(memories, vectors, progress, labels, actor)
        items = list(memories)
        labels = list(labels) if labels is not None else [record_label(i, m) for i, m in enumerate(items)]
        items = [m if isinstance(m, Memory) else parse_memory(m, label) for m, label in zip(items, labels)]
        ids = super().add(items, vectors, progress, labels, actor)
        self.workspace.saved(self, items, actor=actor)
        return ids

    @classmethod
    def open(cls, uri: str | None = None, embedder: Embedder | None = None, create: bool = True,
             as_of=None, clock: Clock | None = None, search: SearchConfig | None = None,
             workspace=None, **options) -> "MemoryStore":
        """See `Store.open`. `search`: the search settings a new store records (fusion,
        weights, candidates; the defaults when not given). A store searches with what it
        recorded whoever opens it; asking an existing store for other settings is refused.
        `workspace`: a markdown workspace folder (memlib.workspace) saves go to."""
        store = super().open(uri, embedder, create, as_of, clock,
                             recorded={META_SEARCH: (search or SearchConfig()).to_json()}, **options)
        if workspace is not None:
            from memlib.workspace import Workspace

            store.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
            store.workspace.config  # noqa: B018 (refused here, in one line, if it is not one)
        text = store.meta().get(META_SEARCH)
        if text is None:  # a store from before memlib recorded its search: the defaults then
            store.search_config = search or SearchConfig(**BEFORE_RECORDED)
            store.tokenizer = store.search_config.tokenizer
            return store
        store.search_config = SearchConfig.from_json(text, f"store {store.uri!r}", missing=BEFORE_RECORDED)
        store.tokenizer = store.search_config.tokenizer
        if search is not None and search != store.search_config:
            mine, given = store.search_config.model_dump(), search.model_dump()
            differ = ", ".join(f"{k} {mine[k]!r} (not {given[k]!r})" for k in mine if mine[k] != given[k])
            raise StoreError(f"store {store.uri!r} was created to search with {differ}; "
                             f"a store keeps the search settings it records")
        return store

    def search(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               vector: np.ndarray | None = None) -> list[Hit]:
        """`vector`: the query's embedding if the caller already has it (skips embedding).
        Searches with the settings the store recorded (`search_config`)."""
        return search(self, text, k=k, mode=mode, scope=scope or Scope(), config=self.search_config,
                      vector=vector)

    def cached(self):
        return self.vectors.current(self)

    def appended(self, rows, version: int) -> None:
        self.vectors.appended(rows, version)

    def warm(self) -> dict[str, Any]:
        """Load the vectors into memory now, for a process about to search many times."""
        cache = self.vectors.build(self)
        return {"rows": len(cache), "megabytes": round(cache.nbytes / 2**20, 1),
                "partitions": 0 if cache.offsets is None else len(cache.offsets) - 1,
                "seconds": round(self.vectors.build_seconds, 2)}

    def recall(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               agent: str | None = None, tool: str | None = None, session_id: str | None = None) -> list[Hit]:
        """Search on an agent's behalf and log one recall event per hit (with the agent, the
        tool it recalled through and its session, if any). A store that cannot log (opened
        as of a date, or read-only here) still answers, with a warning."""
        hits = self.search(text, k=k, mode=mode, scope=scope)
        self.log_recall(text, [(h.id, h.rank, h.score) for h in hits], mode, agent, tool, session_id)
        return hits

    def log_recall(self, text: str, hits: list[tuple[str, int, float | None]], mode: str,
                   agent: str | None = None, tool: str | None = None, session_id: str | None = None) -> None:
        """Log what an agent was given: one event per (memory id, rank, score)."""
        now, query_id = self.clock.now(), str(uuid.uuid4())
        try:
            self.check_writable()
            self.recalls.append([{
                "event_id": event_id, "query_id": query_id, "query_text": text,
                "memory_id": memory_id, "rank": rank, "score": score, "mode": mode,
                "agent": agent, "tool": tool, "session_id": session_id, "recalled_at": now,
            } for event_id, (memory_id, rank, score) in zip(event_ids(len(hits), now), hits)])
        except (StoreError, OSError) as exc:
            log.warning("recall not logged: %s", exc)

    def maintain(self, progress: bool = False, **options: Any) -> dict[str, Any]:
        """Flush recalls, fold usage into memories, compact, index, keep the as-of window's
        versions and clean up the rest (memlib.lifecycle.maintenance: `history_days`, `grace`,
        `vector_index`)."""
        from memlib.lifecycle.maintenance import maintain

        return maintain(self, progress=progress, **options)
