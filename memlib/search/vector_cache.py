"""The store's vectors and scope columns held in memory, for one version of the table.

A long-lived process (an agent, a server, a benchmark) searches the same table many times.
Lance answers each query from disk with its IVF index; held in memory, the same vectors answer
exactly with one matrix product (100k x 384 takes about 5 ms, against 14 ms through the index
at recall 0.97), and a project-scoped query is a boolean mask and a product over 1% of the
rows. Above `IVF_ABOVE` rows an exact product gets too slow (about 40 ms at 1M), so the rows
are grouped into k-means partitions, laid out contiguously, and the partitions nearest the
query are scanned exactly.

The mask evaluates the same predicates `Scope.where()` renders for Lance (scope.Predicate);
tests/test_vector_cache.py checks that both select the same rows for many random scopes.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memlib.errors import InvalidInput
from memlib.scope import Scope
from memlib.search.kmeans import partition

IVF_ABOVE = 250_000       # rows; at or below this, unscoped queries are exact products
NPROBE = 48               # partitions scanned per query; bench/search.py measures recall
CODED = ("project_id", "root_task_id", "kind", "source", "previous_id", "iteration_id")
NEVER = np.iinfo(np.int64).max
MODES = ("auto", "on", "off")
DEFAULT_LIMIT_MB = 4096


def _micros(column: pa.ChunkedArray, null: int) -> np.ndarray:
    values = pc.cast(column, pa.int64())
    return values.fill_null(null).to_numpy()


@dataclass
class _Coded:
    """A string column as int32 codes plus the code of each value (-1 = null)."""

    codes: np.ndarray
    lookup: dict[str, int]
    values: list[str]
    _order: np.ndarray | None = None
    _bounds: np.ndarray | None = None

    @classmethod
    def of(cls, column: pa.ChunkedArray) -> "_Coded":
        encoded = column.combine_chunks().dictionary_encode()
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32)
        values = encoded.dictionary.to_pylist()
        return cls(codes, {v: i for i, v in enumerate(values)}, values)

    def positions(self, value: str) -> np.ndarray:
        """The rows holding `value`, ascending: a slice of one argsort built at first use,
        so a project's thousand rows are found without a pass over all of them."""
        if self._order is None:
            self._order = np.argsort(self.codes, kind="stable")
            self._bounds = np.searchsorted(self.codes[self._order], np.arange(len(self.lookup) + 1))
        code = self.lookup.get(value)
        if code is None:
            return np.zeros(0, np.int64)
        return self._order[self._bounds[code]:self._bounds[code + 1]]


class VectorCache:
    """Normalised vectors, ids and scope columns of one table version, in memory."""

    def __init__(self, version: int, table: pa.Table, dims: int, ivf_above: int = IVF_ABOVE,
                 seed: int = 0):
        self.version = version
        matrix = table.column("embedding").combine_chunks().flatten().to_numpy()
        matrix = matrix.reshape(-1, dims).astype(np.float32, copy=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms == 0, 1.0, norms)  # a writable copy, Arrow's is not
        self.centroids = self.offsets = None
        if len(matrix) > ivf_above:
            order, self.centroids, self.offsets = partition(matrix, seed)
            matrix = matrix[order]
            table = table.take(pa.array(order))
        self.matrix = matrix
        # what a hit returns, without the vector; one chunk, or each take walks them all
        self.rows = table.drop_columns(["embedding"]).combine_chunks()
        self.ids = table.column("id").to_numpy(zero_copy_only=False)
        self.position = {memory_id: i for i, memory_id in enumerate(self.ids)}
        self.coded = {c: _Coded.of(table.column(c)) for c in CODED}
        self.numbers = {"level": table.column("level").fill_null(-1).to_numpy(),
                        "confidence": table.column("confidence").fill_null(-1).to_numpy(),
                        "created_at": _micros(table.column("created_at"), NEVER)}
        self.expires = _micros(table.column("expires_at"), NEVER)
        self.first_expiry = int(self.expires.min()) if len(self.expires) else NEVER
        self._tag_index: dict[str, np.ndarray] | None = None

    @classmethod
    def load(cls, dataset, version: int, dims: int, **kwargs) -> "VectorCache":
        """Every column of the table (rows of older stores get the newer columns as nulls)."""
        from memlib.models import arrow_schema

        table = dataset.to_table()
        for field in arrow_schema(dims):
            if field.name not in table.schema.names:
                table = table.append_column(field.name, pa.nulls(table.num_rows, field.type))
        return cls(version, table, dims, **kwargs)

    def take(self, ids: list[str], columns: list[str] | None = None) -> list[dict]:
        """The rows (every column but the embedding, or `columns`) of these ids, those that
        exist, in that order."""
        positions = pa.array([self.position[i] for i in ids if i in self.position], pa.int64())
        rows = self.rows if columns is None else self.rows.select(columns)
        return rows.take(positions).to_pylist()

    def links(self, ids: list[str], scope: Scope, now: datetime | None = None) -> list[tuple[str, str]]:
        """(before, after) pairs of adjacent conversation turns where one of the two is among
        `ids` and the other is in scope (see search.neighbour_links)."""
        positions = np.array([self.position[i] for i in ids if i in self.position], np.int64)
        previous = self.coded["previous_id"]
        before = [(self.position[previous.values[c]], self.ids[p]) for p, c in
                  zip(positions, previous.codes[positions]) if c >= 0 and previous.values[c] in self.position]
        after = [(after, memory_id) for memory_id in ids for after in previous.positions(memory_id)]
        found = np.array([p for p, _ in before] + [p for p, _ in after], np.int64)
        inside = self.mask(scope, now, found)
        pairs = set()
        for i, (p, other) in enumerate(before + after):
            if inside is None or inside[i]:
                pairs.add((self.ids[p], other) if i < len(before) else (other, self.ids[p]))
        return sorted(pairs)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def nbytes(self) -> int:
        arrays = [self.matrix, *self.numbers.values(), self.expires,
                  *(c.codes for c in self.coded.values())]
        return sum(a.nbytes for a in arrays) + self.rows.nbytes + len(self.ids) * 150

    # -- scope -----------------------------------------------------------------------------

    def mask(self, scope: Scope, now: datetime | None = None,
             rows: np.ndarray | None = None) -> np.ndarray | None:
        """Which rows are in scope: the scope's predicates (scope.Predicate, the description
        `Scope.where()` is rendered from too) evaluated over every row, or over the given
        `rows` only; None when all of them are."""
        def at(values: np.ndarray) -> np.ndarray:
            return values if rows is None else values[rows]

        parts = []
        for p in scope.predicates(now):
            if p.column in self.coded:
                coded = self.coded[p.column]
                if p.op == "eq":
                    parts.append(at(coded.codes) == coded.lookup.get(p.value, -2))  # -2: no row holds it
                else:  # in
                    parts.append(np.isin(at(coded.codes), [coded.lookup[v] for v in p.value if v in coded.lookup]))
            elif p.column == "tags" and p.op == "has_all":
                parts.extend(at(self._any_tag([tag])) for tag in p.value)
            elif p.column == "tags":
                parts.append(at(self._any_tag(p.value)))
            elif p.op == "unexpired_at":
                if self.first_expiry <= _us(p.value):  # nothing expires before then: no mask
                    parts.append(at(self.expires) > _us(p.value))
            else:
                values = self.numbers[p.column]
                bound = _us(p.value) if isinstance(p.value, datetime) else int(p.value)
                parts.append({"eq": np.equal, "ge": np.greater_equal, "lt": np.less}[p.op](at(values), bound))
        if not parts:
            return None
        mask = parts[0]
        for part in parts[1:]:
            mask = mask & part
        return mask

    def select(self, scope: Scope, now: datetime | None = None) -> np.ndarray | None:
        """Positions of the rows in scope, ascending; None when every row is. A root task or
        project scope starts from that node's rows, so the cost follows the scope's size."""
        base = None
        if scope.root_task_id is not None:
            base = self.coded["root_task_id"].positions(scope.root_task_id)
        elif scope.project_id is not None:
            base = self.coded["project_id"].positions(scope.project_id)
        mask = self.mask(scope, now, base)
        if base is None:
            return None if mask is None else np.flatnonzero(mask)
        return base if mask is None else base[mask]

    def _any_tag(self, tags) -> np.ndarray:
        if self._tag_index is None:
            column = self.rows.column("tags")
            flat = pc.list_flatten(column)
            parents = pc.list_parent_indices(column).to_numpy()
            coded = flat.combine_chunks().dictionary_encode() if len(flat) else None
            index: dict[str, np.ndarray] = {}
            if coded is not None:
                codes = coded.indices.to_numpy(zero_copy_only=False)
                order = np.argsort(codes, kind="stable")
                bounds = np.searchsorted(codes[order], np.arange(len(coded.dictionary) + 1))
                for i, tag in enumerate(coded.dictionary.to_pylist()):
                    index[tag] = parents[order[bounds[i]:bounds[i + 1]]]
            self._tag_index = index
        mask = np.zeros(len(self), bool)
        for tag in tags:
            if tag in self._tag_index:
                mask[self._tag_index[tag]] = True
        return mask

    # -- search ----------------------------------------------------------------------------

    def search(self, vector: np.ndarray, n: int, scope: Scope, now: datetime | None = None,
               nprobe: int = NPROBE) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the n nearest rows in scope, best first."""
        query = np.asarray(vector, dtype=np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        rows = self.select(scope, now)
        if self.centroids is not None and (rows is None or len(rows) > IVF_ABOVE):
            return self._probe(query, n, rows, nprobe)
        if rows is None:
            return self._top(np.arange(len(self)), self.matrix @ query, n)
        if len(rows) > len(self) // 4:  # a wide scope: one product over all, then select
            return self._top(rows, (self.matrix @ query)[rows], n)
        return self._top(rows, self.matrix[rows] @ query, n)

    def _probe(self, query: np.ndarray, n: int, selected: np.ndarray | None,
               nprobe: int) -> list[tuple[str, float]]:
        nearest = np.argsort(-(self.centroids @ query))
        picked = np.sort(nearest[:nprobe])
        spans = [(self.offsets[p], self.offsets[p + 1]) for p in picked]
        rows = np.concatenate([np.arange(start, end) for start, end in spans])
        # each partition is a contiguous slice: a product over views, no copy of the rows
        scores = np.concatenate([self.matrix[start:end] @ query for start, end in spans])
        if selected is not None:
            inside = np.zeros(len(self), bool)
            inside[selected] = True
            keep = inside[rows]
            rows, scores = rows[keep], scores[keep]
        if len(rows) < n:  # a wide but unusual scope: scan it exactly
            rows = selected if selected is not None else np.arange(len(self))
            scores = self.matrix[rows] @ query
        return self._top(rows, scores, n)

    def _top(self, rows: np.ndarray, scores: np.ndarray, n: int) -> list[tuple[str, float]]:
        if len(rows) == 0:
            return []
        keep = np.arange(len(scores))
        if len(scores) > n:  # the n best, and every row tied with the n-th
            nth = -np.partition(-scores, n - 1)[n - 1]
            keep = np.flatnonzero(scores >= nth)
        # best first; equal scores in id order, as the Lance path orders them
        keep = keep[np.lexsort((self.ids[rows[keep]], -scores[keep]))][:n]
        return [(self.ids[rows[i]], float(scores[i])) for i in keep]


def _us(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    delta = value - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


class CacheSlot:
    """The store's cache, built in the background once a table version is searched twice
    ("auto"), at the first search ("on"), or never ("off"); when the vectors alone would take
    more than `limit_mb`, it is not built."""

    def __init__(self, mode: str | None = None, limit_mb: int | None = None):
        source = "vector cache" if mode else "$MEMLIB_VECTOR_CACHE"
        mode = mode or os.environ.get("MEMLIB_VECTOR_CACHE", "auto")
        if mode not in MODES:
            raise InvalidInput(f"{source} must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        if limit_mb is None:
            text = os.environ.get("MEMLIB_VECTOR_CACHE_MB", str(DEFAULT_LIMIT_MB))
            limit_mb = int(text) if text.strip().isdigit() else 0
            if limit_mb <= 0:
                raise InvalidInput(f"$MEMLIB_VECTOR_CACHE_MB must be a whole number of megabytes "
                                   f"above 0, not {text!r}")
        self.limit_mb = limit_mb
        self.cache: VectorCache | None = None
        self.build_seconds: float | None = None
        self._seen = (-1, 0)  # (table version, searches of it so far)
        self._lock = threading.Lock()
        self._building: int | None = None
        self._declined: int | None = None  # a version too large (or empty) to hold

    def get(self, store) -> VectorCache | None:
        """The cache for the store's current version if it is ready, else None."""
        version = store.version
        cache = self.cache
        if cache is not None and cache.version == version:
            return cache
        if self.mode == "off":
            return None
        with self._lock:
            searches = self._seen[1] + 1 if self._seen[0] == version else 1
            self._seen = (version, searches)
            if (self.mode == "auto" and searches < 2) or version in (self._building, self._declined):
                return None
            rows = store.table.count_rows()  # only when about to build, not on every search
            if rows == 0 or rows * store.dims * 4 > self.limit_mb * 2**20:
                self._declined = version
                return None
            self._building = version
        if self.mode == "on":
            return self.build(store, version)
        threading.Thread(target=self.build, args=(store, version), daemon=True).start()
        return None

    def build(self, store, version: int | None = None) -> VectorCache:
        version = store.version if version is None else version
        started = time.perf_counter()
        try:
            dataset = store.dataset()
            if dataset.version != version:
                dataset = dataset.checkout_version(version)
            cache = VectorCache.load(dataset, version, store.dims)
        finally:  # a failed build may be tried again at a later search
            with self._lock:
                self._building = None
        self.build_seconds = time.perf_counter() - started
        with self._lock:
            if self.cache is None or self.cache.version <= version:
                self.cache = cache
        return cache
