"""Search: recall memories within a scope. `search` (the query path: vector, full text,
hybrid), `fusion` (combining the lists), `vector_cache` (a warm process answers from memory)
with `kmeans` (its partitions above 250k rows). It reads the store (memlib.store) and never
writes it."""

from memlib.search.config import MAX_K, MODES, SearchConfig

__all__ = ["Hit", "MAX_K", "MODES", "SearchConfig"]


def __getattr__(name: str):
    """The query path (memlib.search.search, and Lance under it) is imported when it is asked
    for: the settings above are read by commands that never search."""
    if name == "Hit":
        import importlib

        return importlib.import_module("memlib.search.search").Hit
    raise AttributeError(f"module 'memlib.search' has no attribute {name!r}")
