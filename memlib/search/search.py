"""Scoped search: vector, full-text, and hybrid (score-aware fusion of both lists)."""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import numpy as np
from lance.dataset import serialize_row_addrs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlib.clock import utc
from memlib.errors import InvalidInput
from memlib.models import Memory, from_row, trusted
from memlib.scope import Scope, sql_in
from memlib.search.answers import asked_for, holds
from memlib.search.dates import Period, named_period
from memlib.search.fusion import UNTRUSTED_WEIGHT, convex, rrf, with_boost, with_neighbours, with_weight
from memlib.search.speakers import named_speaker

MODES = ("vector", "fts", "hybrid")
log = logging.getLogger("memlib")
MAX_K = 1_000


class SearchConfig(BaseModel):
    """Knobs of a store's search; chosen by measurement (see bench/README.md). A store records
    the ones it was created with (`MemoryStore.open(..., search=...)`) and searches with them
    from then on, whoever opens it; a recorded value that is not valid is refused on open."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fusion: Literal["convex", "rrf"] = "convex"  # hybrid: score-aware, or ranks only
    alpha: float = Field(0.4, ge=0, le=1)          # convex: weight of the vector list, 1 - alpha of full text
    rrf_k: int = Field(60, ge=1)
    candidates: int = Field(50, ge=1, le=MAX_K)    # per list in hybrid mode, at least k
    nprobes: int = Field(16, ge=1)                 # IVF partitions probed when a vector index exists
    refine_factor: int | None = Field(4, ge=1)     # re-rank that many times k by exact distance
    ef: int | None = Field(None, ge=1)             # HNSW search breadth inside each probed partition
    exact_below: int = Field(20_000, ge=0)         # a scope this small is scanned exactly (numpy), not probed
    neighbours: float = Field(0.8, ge=0, le=1)     # hybrid: share of the best adjacent turn's score a turn gains
    # hybrid: share of the best score a candidate gains when written in the period the query names
    dated: float = Field(1.0, ge=0, le=1)
    # hybrid: share of the best score a candidate gains when its own words hold the kind of thing
    # the query asks for (a time for "when", a number for "how many", a place for "where")
    answer: float = Field(0.15, ge=0, le=1)
    # hybrid: share of the best score a conversation turn gains when its speaker is the one the query names
    speaker: float = Field(0.15, ge=0, le=1)
    # how the full-text index cuts text into words: 'icu' finds words in Chinese and Japanese
    # (which have no spaces) as well as in English; 'simple' splits at what is not a letter or
    # digit, so a run of Chinese is one word (the tokenizer of stores made before 'icu')
    tokenizer: Literal["icu", "simple"] = "icu"

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str, where: str, missing: dict[str, Any] | None = None) -> "SearchConfig":
        """The config recorded as `text`; a one-line error naming `where` if it is not valid.
        `missing`: the values of settings `text` does not name (a store's record from before
        a setting existed holds the value the store was made with, not today's default)."""
        try:
            data = json.loads(text)
            if isinstance(data, dict):
                data = {**(missing or {}), **data}
            return cls.model_validate(data)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{where}: search settings are not JSON ({exc.msg})") from None
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or "the record"
            raise InvalidInput(f"{where}: search setting {field}: {error['msg']}") from None


class _Rows:
    """The rows of one result's hits. From the vector cache they are read when first asked
    for: the typed memories all at once, or only their texts, which is cheaper (a caller that
    needs ids, scores and texts never builds a Memory)."""

    def __init__(self, ids: list[str], cache=None, memories: dict[str, Memory] | None = None):
        self.ids, self.cache, self.memories = ids, cache, memories
        self.texts: dict[str, str] | None = None

    def memory(self, memory_id: str) -> Memory:
        if self.memories is None:
            self.memories = materialize(None, self.ids, self.cache)
        return self.memories[memory_id]

    def text(self, memory_id: str) -> str:
        if self.memories is not None:
            return self.memories[memory_id].text
        if self.texts is None:
            self.texts = {row["id"]: row["text"] for row in self.cache.take(self.ids, columns=["id", "text"])}
        return self.texts[memory_id]


@dataclass
class Hit:
    id: str
    score: float
    rank: int
    sources: dict[str, float] = field(default_factory=dict)
    rows: _Rows | None = field(default=None, repr=False, compare=False)

    @property
    def memory(self) -> Memory:
        """The typed memory (built on first use of any hit of the result)."""
        return self.rows.memory(self.id)

    @property
    def text(self) -> str:
        """What was indexed: the memory's text (with its context, for a conversation turn)."""
        return self.rows.text(self.id)

    def to_dict(self) -> dict[str, Any]:
        data = self.memory.model_dump(mode="json", exclude={"embedding"})
        return {"rank": self.rank, "score": self.score, "sources": self.sources, "memory": data}


def vector_candidates(store, vector: np.ndarray, n: int, scope: Scope, config: SearchConfig,
                      now: datetime | None = None, cache=None) -> list[tuple[str, float]]:
    """(id, cosine similarity) of the n nearest memories in scope, best first: from the
    store's in-memory vectors (`cache`, exact) when given, else from Lance."""
    if cache is not None:
        return cache.search(vector, n, scope, now)
    where = scope.where(now)
    in_scope = store.table.count_rows(where) if where else store.table.count_rows()
    if in_scope <= config.exact_below:
        # A small scope is scanned exactly: faster than an index probe here, and an IVF
        # index probing a few partitions can miss matches of a narrow filter.
        return _exact(store, vector, n, where, in_scope)
    query = (store.table.search(vector, vector_column_name="embedding").distance_type("cosine")
             .select(["id", "_distance"]).limit(n))
    if where:
        query = query.where(where, prefilter=True)
    if store.has_vector_index():
        query = query.nprobes(config.nprobes)
        if config.ef:
            query = query.ef(config.ef)
        if config.refine_factor:
            query = query.refine_factor(config.refine_factor)
    rows = query.to_arrow()
    return list(zip(rows.column("id").to_pylist(),
                    (1.0 - rows.column("_distance").to_numpy()).tolist()))


def _exact(store, vector: np.ndarray, n: int, where: str | None, in_scope: int) -> list[tuple[str, float]]:
    if in_scope == 0:
        return []
    rows = store.dataset().to_table(columns=["id", "embedding"], filter=where)
    matrix = rows.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, store.dims)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(vector) or 1.0)
    scores = (matrix @ vector) / np.where(norms == 0, 1.0, norms)
    ids = rows.column("id").to_numpy(zero_copy_only=False)
    top = np.lexsort((ids, -scores))[:n]  # equal scores in id order, as the vector cache does
    return [(ids[i], float(scores[i])) for i in top]


def fts_candidates(store, text: str, n: int, where: str | None, scope: Scope | None = None,
                   now: datetime | None = None, cache=None) -> list[tuple[str, float]]:
    """(id, BM25 score) of the n best full-text matches in scope, best first (_fts_candidates).
    A store without its full-text index yet (its first write stopped before it, or is still
    committing) is given it now, if this handle may write; else the full-text list is empty
    and hybrid search ranks by the vectors alone."""
    try:
        return _fts_candidates(store, text, n, where, scope, now, cache)
    except (ValueError, RuntimeError) as exc:
        if "INVERTED index" not in str(exc):
            raise
    if not store.build_missing_indexes():
        log.warning("the store has no full-text index yet and this handle cannot build it: "
                    "full-text matches left out ('memlib maintain' builds it)")
        return []
    return _fts_candidates(store, text, n, where, scope, now, cache)


def _fts_candidates(store, text: str, n: int, where: str | None, scope: Scope | None = None,
                    now: datetime | None = None, cache=None) -> list[tuple[str, float]]:
    """Asked of the
    Lance dataset itself: the same index and answer as LanceDB's query builder, in half the
    time (4.6 against 9.7 ms at 100k memories). With the rows in memory (`cache`, at the
    dataset's version), the scope goes to Lance as the row addresses in it rather than as a
    filter to evaluate (the same ranking, about three times faster for a narrow scope), and
    Lance returns the hits' addresses, whose ids the cache holds: the index alone is read,
    no data file (on object storage, a data file read is a round trip per range)."""
    if cache is not None:
        addresses = None if scope is None else cache.addresses(scope, now)
        if addresses is not None and len(addresses) == 0:
            return []
        allow = None if addresses is None else serialize_row_addrs(addresses.tolist())
        hits = store.dataset().scanner(columns=["_score"], with_row_address=True, full_text_query=text,
                                       limit=n, row_addr_allowlist=allow,
                                       filter=where if addresses is None else None,
                                       prefilter=bool(where) and addresses is None).to_table()
        ids = cache.ids_at(hits.column("_rowaddr").to_numpy().astype(np.int64))
        if ids is not None:
            return list(zip(ids, hits.column("_score").to_pylist()))
    rows = store.dataset().to_table(columns=["id", "_score"], full_text_query=text, limit=n,
                                    filter=where, prefilter=bool(where))
    return list(zip(rows.column("id").to_pylist(), rows.column("_score").to_pylist()))


def materialize(store, ids: list[str], cache=None) -> dict[str, Memory]:
    """The typed memories of the final hits, fetched in one query (or from memory)."""
    if not ids:
        return {}
    if cache is not None:
        rows = cache.take(ids)
    else:
        columns = [c for c in store.dataset().schema.names if c != "embedding"]
        rows = store.dataset().to_table(columns=columns, filter=sql_in("id", ids)).to_pylist()
    return {row["id"]: from_row(row, trusted=True) for row in rows}


def column_of(store, ids: list[str], column: str, cache=None) -> dict[str, object]:
    """{id: value of `column`} for those of `ids` that exist (from memory, or one query)."""
    if cache is not None:
        return {row["id"]: row[column] for row in cache.take(ids, ["id", column])}
    return {i: row[column] for i, row in store.lookup(ids, [column]).items()}


def untrusted(store, ids: list[str], cache=None) -> set[str]:
    """Those of `ids` nobody vouches for (models.trusted)."""
    columns = ["id", "source", "tags"]
    rows = cache.take(ids, columns) if cache is not None else store.lookup(ids, columns[1:]).values()
    return {row["id"] for row in rows if not trusted(row["source"], row["tags"])}


def written_in(store, ids: list[str], period: Period, cache=None) -> set[str]:
    """Those of `ids` created within the period."""
    return {i for i, created in column_of(store, ids, "created_at", cache).items()
            if created is not None and utc(created) in period}


def own_words(store, ids: list[str], cache=None) -> dict[str, str]:
    """{id: the memory's own words} for those of `ids` that exist: its indexed text, without
    the context a conversation turn replies to (indexed after its own words)."""
    columns = ["id", "kind", "text", "context"]
    rows = cache.take(ids, columns) if cache is not None else store.lookup(ids, columns[1:]).values()
    return {row["id"]: row["text"].removesuffix("\n" + row["context"])
            if row["kind"] == "conversation" and row["context"] else row["text"] for row in rows}


def answering(store, text: str, ids: list[str], cache=None) -> set[str]:
    """Those of `ids` whose own words hold the kind of thing `text` asks for (search/answers.py)."""
    kinds = asked_for(text)
    if not kinds:
        return set()
    return {i for i, words in own_words(store, ids, cache).items() if holds(words, kinds)}


def by_named_speaker(store, text: str, ids: list[str], cache=None) -> set[str]:
    """Those of `ids` said by the one speaker among them that `text` names (none if it names
    none of them, or several)."""
    speakers = column_of(store, ids, "speaker", cache)
    name = named_speaker(text, set(speakers.values()))
    return set() if name is None else {i for i, speaker in speakers.items() if speaker == name}


def neighbour_links(store, ids: list[str], scope: Scope, now: datetime,
                    cache=None) -> list[tuple[str, str]]:
    """(before, after) pairs of adjacent conversation turns (`previous_id` links) where one
    of the two is among `ids` and the other is in scope."""
    if cache is not None:
        return cache.links(ids, scope, now)
    if not ids or "previous_id" not in store.dataset().schema.names:  # older stores lack it
        return []
    rows = store.dataset().to_table(columns=["id", "previous_id"],
                                    filter=f"{sql_in('id', ids)} OR {sql_in('previous_id', ids)}")
    pairs = {(b, a) for a, b in zip(rows.column("id").to_pylist(), rows.column("previous_id").to_pylist()) if b}
    if not pairs:
        return []
    where = scope.where(now)
    ends = sorted({end for pair in pairs for end in pair})
    inside = set(store.dataset().to_table(
        columns=["id"], filter=sql_in("id", ends) + (f" AND ({where})" if where else ""))
        .column("id").to_pylist())
    wanted = set(ids)
    return sorted((b, a) for b, a in pairs if (a in wanted and b in inside) or (b in wanted and a in inside))


def search(store, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
           config: SearchConfig | None = None, vector: np.ndarray | None = None) -> list[Hit]:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("the query text must not be empty")
    if mode not in MODES:
        raise InvalidInput(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
    if not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be between 1 and {MAX_K}, not {k!r}")
    if vector is not None:
        vector = np.asarray(vector, dtype=np.float32)
        if vector.shape != (store.dims,):
            raise InvalidInput(f"the query vector must have {store.dims} dimensions, not shape {vector.shape}")
    config = config or SearchConfig()
    scope = scope or Scope()
    if scope.user_id is not None and "user_id" not in store.dataset().schema.names:
        return []  # a table from before memories named their person (its next write adds the column)
    now = store.clock.now()
    cache = store.vectors.get(store)  # in memory for this version, or None (and maybe loading)
    where = None if mode == "vector" else scope.where(now)  # full text asks Lance with it
    if (len(cache) if cache is not None else store.table.count_rows()) == 0:
        return []
    if mode == "fts":
        ranked = [(i, s, {"fts": s}) for i, s in fts_candidates(store, text, k, where, scope, now, cache)]
    elif mode == "vector":
        if vector is None:
            vector = store.embedder.embed([text])[0]
        ranked = [(i, s, {"vector": s})
                  for i, s in vector_candidates(store, vector, k, scope, config, now, cache)]
    else:
        n = max(k, config.candidates)
        with ThreadPoolExecutor(max_workers=1) as pool:  # full-text runs while we embed
            fts = pool.submit(fts_candidates, store, text, n, where, scope, now, cache)
            if vector is None:
                vector = store.embedder.embed([text])[0]
            lists = {"vector": vector_candidates(store, vector, n, scope, config, now, cache),
                     "fts": fts.result()}
        every = 2 * n  # fuse every candidate; cut to k only after the neighbours are counted
        if config.fusion == "rrf":
            ranked = rrf(lists, every, config.rrf_k)
        else:
            ranked = convex(lists, every, {"vector": config.alpha, "fts": 1.0 - config.alpha})
        if config.neighbours and ranked:
            links = neighbour_links(store, [memory_id for memory_id, _, _ in ranked], scope, now, cache)
            ranked = with_neighbours(ranked, links, config.neighbours)
        if config.dated and ranked and (period := named_period(text)) is not None:
            ranked = with_boost(ranked, written_in(store, [i for i, _, _ in ranked], period, cache),
                                config.dated, "period")
        if config.answer and ranked:
            ranked = with_boost(ranked, answering(store, text, [i for i, _, _ in ranked], cache),
                                config.answer, "answer")
        if config.speaker and ranked:
            ranked = with_boost(ranked, by_named_speaker(store, text, [i for i, _, _ in ranked], cache),
                                config.speaker, "speaker")
        ranked = ranked[:k]
    if ranked:
        ranked = with_weight(ranked, untrusted(store, [i for i, _, _ in ranked], cache), UNTRUSTED_WEIGHT, "trust")
    ids = [memory_id for memory_id, _, _ in ranked]
    if cache is not None:  # every hit is a row of the cached version: read them when asked
        rows = _Rows(ids, cache)
    else:  # read now: a hit deleted since it was found is left out
        rows = _Rows(ids, memories=materialize(store, ids))
        ranked = [entry for entry in ranked if entry[0] in rows.memories]
    return [Hit(memory_id, score, rank, sources, rows)
            for rank, (memory_id, score, sources) in enumerate(ranked, start=1)]
