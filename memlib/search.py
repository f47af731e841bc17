"""Scoped search: vector, full-text, and hybrid (reciprocal-rank fusion of both lists)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memlib.errors import InvalidInput
from memlib.models import Memory, from_row
from memlib.scope import Scope

MODES = ("vector", "fts", "hybrid")
MAX_K = 1_000


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of the default search; chosen by measurement (see bench/README.md)."""

    rrf_k: int = 60
    candidates: int = 50          # per list in hybrid mode, at least k
    nprobes: int = 32             # IVF partitions probed when a vector index exists
    refine_factor: int = 4        # re-rank that many times k by exact distance


@dataclass
class Hit:
    memory: Memory
    score: float
    rank: int
    sources: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.memory.model_dump(mode="json", exclude={"embedding"})
        return {"rank": self.rank, "score": self.score, "sources": self.sources, "memory": data}


def _columns(store) -> list[str]:
    return [n for n in store.table.schema.names if n != "embedding"]


def vector_rows(store, vector, n: int, where: str | None, config: SearchConfig) -> list[dict]:
    query = (store.table.search(vector, vector_column_name="embedding")
             .distance_type("cosine").select(_columns(store) + ["_distance"]).limit(n))
    if where:
        query = query.where(where, prefilter=True)
    if store.has_vector_index():
        query = query.nprobes(config.nprobes).refine_factor(config.refine_factor)
    return query.to_list()


def fts_rows(store, text: str, n: int, where: str | None) -> list[dict]:
    query = store.table.search(text, query_type="fts", fts_columns="text") \
        .select(_columns(store) + ["_score"]).limit(n)
    if where:
        query = query.where(where, prefilter=True)
    return query.to_list()


def rrf(ranked_lists: dict[str, list[dict]], k: int, rrf_k: int) -> list[tuple[dict, float, dict]]:
    """Reciprocal-rank fusion: score = sum over lists of 1 / (rrf_k + rank)."""
    fused: dict[str, list] = {}
    for name, rows in ranked_lists.items():
        for rank, row in enumerate(rows, start=1):
            entry = fused.setdefault(row["id"], [row, 0.0, {}])
            entry[1] += 1.0 / (rrf_k + rank)
            entry[2][name] = rank
    ordered = sorted(fused.values(), key=lambda e: (-e[1], e[0]["id"]))
    return [(row, score, ranks) for row, score, ranks in ordered[:k]]


def search(store, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
           config: SearchConfig | None = None) -> list[Hit]:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("the query text must not be empty")
    if mode not in MODES:
        raise InvalidInput(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
    if not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be between 1 and {MAX_K}, not {k!r}")
    config = config or SearchConfig()
    where = (scope or Scope()).where()
    if store.table.count_rows() == 0:
        return []
    if mode == "vector":
        rows = vector_rows(store, store.embedder.embed([text])[0], k, where, config)
        return [Hit(from_row(r), 1.0 - float(r["_distance"]), i, {"vector": 1.0 - float(r["_distance"])})
                for i, r in enumerate(rows, start=1)]
    if mode == "fts":
        rows = fts_rows(store, text, k, where)
        return [Hit(from_row(r), float(r["_score"]), i, {"fts": float(r["_score"])})
                for i, r in enumerate(rows, start=1)]
    n = max(k, config.candidates)
    lists = {"vector": vector_rows(store, store.embedder.embed([text])[0], n, where, config),
             "fts": fts_rows(store, text, n, where)}
    return [Hit(from_row(row), score, i, {f"{name}_rank": r for name, r in ranks.items()})
            for i, (row, score, ranks) in enumerate(rrf(lists, k, config.rrf_k), start=1)]
