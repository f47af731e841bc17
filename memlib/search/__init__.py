"""Search: recall memories within a scope. `search` (the query path: vector, full text,
hybrid), `fusion` (combining the lists), `vector_cache` (a warm process answers from memory)
with `kmeans` (its partitions above 250k rows). It reads the store (memlib.store) and never
writes it."""

from memlib.search.search import MAX_K, MODES, Hit, SearchConfig, search

__all__ = ["Hit", "MAX_K", "MODES", "SearchConfig", "search"]
