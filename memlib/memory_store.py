"""MemoryStore: the store as agents use it, with search, recall and maintenance.

It adds to `memlib.store.Store` what needs the concepts built on the store: scoped hybrid
search from the search package (with its in-memory vector cache) and `maintain` from the
lifecycle package. Everything that writes still goes through the store underneath.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from memlib.clock import Clock
from memlib.embeddings import Embedder
from memlib.scope import Scope
from memlib.search import Hit, search
from memlib.search.vector_cache import CacheSlot
from memlib.store import Store


class MemoryStore(Store):
    """The write/recall half of memlib over any LanceDB URI.

    `vector_cache`: "auto" (default, or $MEMLIB_VECTOR_CACHE) keeps the vectors in memory
    once a version of the table is searched twice, "on" at the first search, "off" never."""

    def __init__(self, uri: str, db, table, embedder: Embedder, clock: Clock | None = None,
                 vector_cache: str | None = None):
        super().__init__(uri, db, table, embedder, clock)
        self.vectors = CacheSlot(vector_cache)

    def search(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               vector: np.ndarray | None = None) -> list[Hit]:
        """`vector`: the query's embedding if the caller already has it (skips embedding)."""
        return search(self, text, k=k, mode=mode, scope=scope or Scope(), vector=vector)

    def warm(self) -> dict[str, Any]:
        """Load the vectors into memory now, for a process about to search many times."""
        cache = self.vectors.build(self)
        return {"rows": len(cache), "megabytes": round(cache.nbytes / 2**20, 1),
                "partitions": 0 if cache.offsets is None else len(cache.offsets) - 1,
                "seconds": round(self.vectors.build_seconds, 2)}

    def recall(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               agent: str | None = None) -> list[Hit]:
        """Search on an agent's behalf and log one recall event per hit."""
        self.check_writable()
        hits = self.search(text, k=k, mode=mode, scope=scope)
        now, query_id = self.clock.now(), str(uuid.uuid4())
        self.recalls.append([{
            "event_id": str(uuid.uuid4()), "query_id": query_id, "query_text": text,
            "memory_id": hit.id, "rank": hit.rank, "score": hit.score, "mode": mode,
            "agent": agent, "recalled_at": now,
        } for hit in hits])
        return hits

    def maintain(self, progress: bool = False) -> dict[str, Any]:
        """Flush recalls, fold usage into memories, compact, index (memlib.lifecycle.maintenance)."""
        from memlib.lifecycle.maintenance import maintain

        return maintain(self, progress=progress)
