"""The store's vectors and scope columns held in memory, for one version of the table.

A long-lived process (an agent, a server, a benchmark) searches the same table many times.
Lance answers each query from disk with its IVF index; held in memory, the same vectors answer
exactly with one matrix product (100k x 384 takes about 5 ms, against 14 ms through the index
at recall 0.97), and a project-scoped query is a boolean mask and a product over 1% of the
rows. The rows lie project by project, so a project's scope is one slice of the matrix, read
in place, at every size; scoped queries are exact.

Between `APPROX_ABOVE` and `IVF_ABOVE` rows, a query over (nearly) the whole table is answered
from one bit per dimension: the sign of each coordinate, packed into 48 bytes a row for 384
dimensions. The Hamming distances to the query's signs pick `CANDIDATES` rows per hit asked,
which are then ranked by their exact cosine (bench/vector_cache_approx.py measures recall and
speed on real MiniLM embeddings at 100k, CANDIDATES chosen on its first query seed). Above
`IVF_ABOVE` rows the rows are also grouped into k-means partitions, and the `NPROBE`
partitions nearest the query are scanned in the vectors' `REDUCED` leading principal
components, from a copy of 8-bit codes laid out partition by partition; the `RERANK` best rows
per hit asked are then ranked by their exact cosine. On the 1M sample's vectors the sign codes kept too few
of the true neighbours (0.70 of the top 10 with 200 candidates); scanning the partitions in
all 384 dimensions reads four times the bytes (bench/vector_cache_ivf.py measures both, on
queries other than the ones bench/peers.py reports). Without the copy a project's rows would
be scattered over the partitions (4.4 ms to gather a 1% project against 1.0 ms for its
slice). The copy costs 96 MB at 1M rows; as float32 (before 2026-11-25) it took 384 MB, and
a query read four times the bytes for the same recall (bench/vector_cache_ivf.py).

The mask evaluates the same predicates `Scope.where()` renders for Lance (scope.Predicate);
tests/test_vector_cache.py checks that both select the same rows for many random scopes.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from datetime import datetime, timezone

import numkong
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memlib.scope import Scope
from memlib.search.kmeans import partition, principal, projected, query_code

IVF_ABOVE = 250_000       # rows; at or below this, unscoped queries are exact products
APPROX_ABOVE = 20_000     # rows; above this (and up to IVF_ABOVE), whole-table queries use sign codes
CANDIDATES = 20           # rows re-ranked exactly per hit asked (at least 200)
SPAN = 4                  # a scope is scanned as the slice from its first to its last row if that
                          # is at most this many times its rows (reading in order beats copying)
NPROBE = 64               # partitions scanned per query (bench/vector_cache_ivf.py)
REDUCED = 96              # principal components the partitions are scanned in
RERANK = 40               # rows per hit asked (at least 10 hits' worth) ranked exactly after it
CODED = ("project_id", "root_task_id", "kind", "source", "previous_id", "iteration_id", "user_id")
NEVER = np.iinfo(np.int64).max
ADDR = "_rowaddr"         # Lance's row address: fragment id << 32 | offset in the fragment
DELTA_ROWS = 20_000       # rows written since the load that are read in, not reloaded
# Up to this many values, take() reads each on its own: about 1 µs a value, where setting up
# Arrow's take of the rows costs 40 µs (and 0.4 ms right after other work, on this machine).
SCALAR_READS = 200
MAX_SEGMENTS = 8          # then the segments after the first are merged into one


def vector_bytes(rows: int, dims: int) -> int:
    """What a cache of `rows` holds in vectors: the matrix, and above IVF_ABOVE rows its
    partitioned copy in REDUCED one-byte codes."""
    return rows * (4 * dims + (min(REDUCED, dims) if rows > IVF_ABOVE else 0))


def signs(matrix: np.ndarray) -> np.ndarray:
    """One bit per dimension, set where the coordinate is positive, packed into uint64 words."""
    bits = np.packbits(matrix > 0, axis=1)
    pad = -bits.shape[1] % 8
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    return np.ascontiguousarray(bits).view(np.uint64)


def _micros(column: pa.ChunkedArray, null: int) -> np.ndarray:
    values = pc.cast(column, pa.int64())
    return values.fill_null(null).to_numpy()


@dataclass
class _Coded:
    """A string column as int32 codes plus the code of each value (-1 = null)."""

    codes: np.ndarray
    lookup: dict[str, int]
    values: list[str]
    _index: tuple[np.ndarray, np.ndarray] | None = None  # (argsort, bounds), set in one step

    @classmethod
    def of(cls, column: pa.ChunkedArray) -> "_Coded":
        encoded = column.combine_chunks().dictionary_encode()
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32)
        values = encoded.dictionary.to_pylist()
        return cls(codes, {v: i for i, v in enumerate(values)}, values)

    def positions(self, value: str) -> np.ndarray:
        """The rows holding `value`, ascending: a slice of one argsort built at first use,
        so a project's thousand rows are found without a pass over all of them. The pair is
        published in one assignment: a search thread may read it while another builds it."""
        if self._index is None:
            order = np.argsort(self.codes, kind="stable")
            self._index = order, np.searchsorted(self.codes[order], np.arange(len(self.lookup) + 1))
        order, bounds = self._index
        code = self.lookup.get(value)
        if code is None:
            return np.zeros(0, np.int64)
        return order[bounds[code]:bounds[code + 1]]


class VectorCache:
    """Normalised vectors, ids and scope columns of one table version, in memory."""

    def __init__(self, version: int, table: pa.Table, dims: int, ivf_above: int = IVF_ABOVE,
                 seed: int = 0, approx_above: int = APPROX_ABOVE, reduced: int = REDUCED):
        self.version = version
        # where each row lives in Lance (fragment << 32 | offset), when read with it
        addr = table.column(ADDR).to_numpy().astype(np.int64) if ADDR in table.schema.names else None
        table = table.drop_columns([ADDR]) if addr is not None else table
        self.alive: np.ndarray | None = None  # rows deleted since the load are False
        matrix = table.column("embedding").combine_chunks().flatten().to_numpy()
        matrix = matrix.reshape(-1, dims).astype(np.float32, copy=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms == 0, 1.0, norms)  # a writable copy, Arrow's is not
        # each project's rows side by side, so its scope is one slice of the matrix
        table = table.drop_columns(["embedding"])  # what a hit returns, without the vector
        project = _Coded.of(table.column("project_id"))
        order = np.argsort(project.codes, kind="stable")
        if not np.all(order[1:] > order[:-1]):  # not already in that order
            matrix = matrix[order]
            table = table.take(pa.array(order))
            addr = None if addr is None else addr[order]
            project = _Coded(project.codes[order], project.lookup, project.values)
        self.matrix = matrix
        # whole-table queries: above `ivf_above` rows, k-means partitions, scanned from a copy
        # of the vectors in their `reduced` principal components (`mean`, `basis`) laid out
        # partition by partition (`members`: the row of each, `offsets` bound the partitions);
        # below, the sign codes of every row; below `approx_above` rows, an exact product
        self.centroids = self.offsets = self.members = self.partitioned = None
        self.mean = self.basis = self.step = None
        self.signs = None  # (words, rows)
        if len(matrix) > ivf_above:
            self.members, self.centroids, self.offsets = partition(matrix, seed)
            self.mean, self.basis, self.step = principal(matrix, min(reduced, dims), seed)
            self.partitioned = projected(matrix, self.members, self.mean, self.basis, self.step)
        elif len(matrix) > approx_above:
            self.signs = np.ascontiguousarray(signs(matrix).T)
        self.addr = addr
        self.rows = table.combine_chunks()  # one chunk, or each take walks them all
        self.ids = table.column("id").to_numpy(zero_copy_only=False)
        self.position = {memory_id: i for i, memory_id in enumerate(self.ids)}
        self.coded = {c: project if c == "project_id" else _Coded.of(table.column(c)) for c in CODED}
        self.numbers = {"level": table.column("level").fill_null(-1).to_numpy(),
                        "confidence": table.column("confidence").fill_null(-1).to_numpy(),
                        "created_at": _micros(table.column("created_at"), NEVER)}
        self.expires = _micros(table.column("expires_at"), NEVER)
        self.first_expiry = int(self.expires.min()) if len(self.expires) else NEVER
        self._tag_index: dict[str, np.ndarray] | None = None

    @classmethod
    def load(cls, dataset, version: int, dims: int, fragments=None, **kwargs) -> "VectorCache":
        """Every column of the table, or of some of its `fragments` (rows of older stores get
        the newer columns as nulls)."""
        from memlib.models import arrow_schema

        table = dataset.scanner(fragments=fragments, with_row_address=True).to_table()
        for field in arrow_schema(dims):
            if field.name not in table.schema.names:
                table = table.append_column(field.name, pa.nulls(table.num_rows, field.type))
        return cls(version, table, dims, **kwargs)

    @classmethod
    def merged(cls, segments: list["VectorCache"], version: int, dims: int) -> "VectorCache":
        """One flat segment of the live rows of `segments`."""
        parts = []
        for segment in segments:
            keep = np.arange(len(segment)) if segment.alive is None else np.flatnonzero(segment.alive)
            table = segment.rows.take(pa.array(keep, pa.int64()))
            flat = pa.array(segment.matrix[keep].reshape(-1), pa.float32())
            table = table.append_column("embedding", pa.FixedSizeListArray.from_arrays(flat, dims))
            parts.append(table.append_column(ADDR, pa.array(segment.addr[keep], pa.int64())))
        return cls(version, pa.concat_tables(parts), dims, ivf_above=NEVER)

    @functools.cached_property
    def by_addr(self) -> tuple[np.ndarray, np.ndarray]:
        """(row addresses ascending, the position of each): for finding rows by address."""
        if self.addr is None:  # rows whose addresses were not read: found by id only
            return np.empty(0, np.int64), np.empty(0, np.int64)
        order = np.argsort(self.addr, kind="stable")
        return self.addr[order], order

    def at(self, addresses: np.ndarray) -> np.ndarray:
        """The live position of the row at each address, -1 where this segment holds none."""
        held, order = self.by_addr
        if not len(held):
            return np.full(len(addresses), -1)
        found = np.searchsorted(held, addresses).clip(0, len(held) - 1)
        positions = np.where(held[found] == addresses, order[found], -1)
        if self.alive is not None:
            positions[(positions >= 0) & ~self.alive[positions.clip(0)]] = -1
        return positions

    def find(self, memory_id: str) -> int | None:
        """The position of a live row with this id, or None."""
        p = self.position.get(memory_id)
        return None if p is None or (self.alive is not None and not self.alive[p]) else p

    def take(self, ids: list[str], columns: list[str] | None = None) -> list[dict]:
        """The rows (every column but the embedding, or `columns`) of these ids, those that
        exist, in that order."""
        return Cached(self.version, [self]).take(ids, columns)

    def links(self, ids: list[str], scope: Scope, now: datetime | None = None) -> list[tuple[str, str]]:
        """(before, after) pairs of adjacent conversation turns where one of the two is among
        `ids` and the other is in scope (see search.neighbour_links)."""
        return Cached(self.version, [self]).links(ids, scope, now)

    def followers(self, memory_id: str) -> np.ndarray:
        """Live positions of the turns whose previous turn is `memory_id`."""
        found = self.coded["previous_id"].positions(memory_id)
        return found if self.alive is None else found[self.alive[found]]

    def previous(self, position: int) -> str | None:
        code = self.coded["previous_id"].codes[position]
        return None if code < 0 else self.coded["previous_id"].values[code]

    def without(self, dead: np.ndarray) -> "VectorCache":
        """The same rows with those where `dead` is True deleted (a shallow copy: a search
        running on this one is undisturbed)."""
        clone = copy.copy(self)
        alive = np.ones(len(self.ids), bool) if self.alive is None else self.alive.copy()
        alive[dead] = False
        clone.alive = alive
        return clone

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def live(self) -> int:
        return len(self.ids) if self.alive is None else int(self.alive.sum())

    @property
    def nbytes(self) -> int:
        arrays = [self.matrix, *([] if self.partitioned is None else [self.partitioned]),
                  *self.numbers.values(), self.expires,
                  *(c.codes for c in self.coded.values())]
        return sum(a.nbytes for a in arrays) + self.rows.nbytes + len(self.ids) * 150

    # -- scope -----------------------------------------------------------------------------

    def mask(self, scope: Scope, now: datetime | None = None,
             rows: np.ndarray | None = None) -> np.ndarray | None:
        """Which rows are in scope: the scope's predicates (scope.Predicate, the description
        `Scope.where()` is rendered from too) evaluated over every row, or over the given
        `rows` only; None when all of them are."""
        return self._all(scope.predicates(now), rows)

    def _all(self, predicates, rows: np.ndarray | None) -> np.ndarray | None:
        def at(values: np.ndarray) -> np.ndarray:
            return values if rows is None else values[rows]

        parts = []
        for p in predicates:
            if p.column in self.coded:
                coded = self.coded[p.column]
                if p.op == "eq":
                    parts.append(at(coded.codes) == coded.lookup.get(p.value, -2))  # -2: no row holds it
                else:  # in, not_in, in_or_null (-1: null)
                    codes = [coded.lookup[v] for v in p.value if v in coded.lookup]
                    inside = np.isin(at(coded.codes), codes + ([-1] if p.op == "in_or_null" else []))
                    parts.append(~inside if p.op == "not_in" else inside)
            elif p.column == "tags" and p.op == "has_none":
                parts.append(~at(self._any_tag(p.value)))
            elif p.column == "tags" and p.op == "has_all":
                parts.extend(at(self._any_tag([tag])) for tag in p.value)
            elif p.column == "tags":
                parts.append(at(self._any_tag(p.value)))
            elif p.op == "any":
                options = [self._all(option, rows) for option in p.value]
                if all(option is not None for option in options):  # else one admits every row
                    parts.append(np.logical_or.reduce(options))
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
        """Positions of the rows in scope, ascending; None when every row is."""
        return _positions(*self._chosen(scope, now))

    def _chosen(self, scope: Scope, now: datetime | None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The rows in scope as (base, mask): `base` the positions a root task or project scope
        starts from (None: every row), `mask` which of them are in scope (None: all). Starting
        from that node's rows makes the cost follow the scope's size."""
        base = given = None
        if scope.root_task_id is not None:
            given, base = "root_task_id", self.coded["root_task_id"].positions(scope.root_task_id)
        elif scope.project_id is not None:
            given, base = "project_id", self.coded["project_id"].positions(scope.project_id)
        # the condition the base rows were picked by holds for all of them: not evaluated again
        mask = self._all([p for p in scope.predicates(now) if p.column != given], base)
        if self.alive is not None:
            alive = self.alive if base is None else self.alive[base]
            mask = alive if mask is None else mask & alive
        return base, mask

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
        base, mask = self._chosen(scope, now)
        if base is None:  # the whole store, but what the mask leaves out (expired rows, say)
            wide = mask is None or np.count_nonzero(mask) > IVF_ABOVE
            if self.centroids is not None and wide:
                return self._probe(query, n, mask, nprobe)
            if self.signs is not None and not scope.narrows():
                return self._approximate(query, n, mask)
        rows = _positions(base, mask)
        if base is not None and self.centroids is not None and len(rows) > IVF_ABOVE:
            inside = np.zeros(len(self), bool)
            inside[rows] = True
            return self._probe(query, n, inside, nprobe)
        if rows is None:
            return self._top(np.arange(len(self)), self.matrix @ query, n)
        if len(rows) == 0:
            return []
        start, end = int(rows[0]), int(rows[-1]) + 1
        if end - start <= SPAN * len(rows):  # the slice holding the scope (a project's): no copy
            return self._top(rows, (self.matrix[start:end] @ query)[rows - start], n)
        return self._top(rows, self.matrix[rows] @ query, n)

    def _probe(self, query: np.ndarray, n: int, inside: np.ndarray | None,
               nprobe: int) -> list[tuple[str, float]]:
        """The rows of the `nprobe` partitions nearest the query (of those `inside`, a mask
        over every row; None: all), scored by their 8-bit codes in the principal components;
        the best of them ranked exactly."""
        closeness = self.centroids @ query
        picked = np.arange(len(closeness))
        if nprobe < len(picked):
            picked = np.sort(np.argpartition(-closeness, nprobe - 1)[:nprobe])
        starts, ends = self.offsets[picked], self.offsets[picked + 1]
        at = np.concatenate(([0], np.cumsum(ends - starts)))  # where each partition's scores go
        # each partition is a contiguous slice of the copy: integer dot products over views
        # (numkong's SIMD kernels; numpy has no fast 8-bit product) written into one buffer,
        # the (constant) mean left out
        weights = query_code((self.basis @ query) * self.step)
        scores = np.empty((1, int(at[-1])), np.float32)
        for start, end, into, until in zip(starts.tolist(), ends.tolist(), at[:-1].tolist(), at[1:].tolist()):
            if end > start:
                numkong.cdist(weights, self.partitioned[start:end], metric="dot",
                              out_dtype="float32", out=scores[:, into:until])
        scores = scores[0]

        def rows_at(positions: np.ndarray) -> np.ndarray:  # the row each score stands for
            which = np.searchsorted(at, positions, side="right") - 1
            return self.members[starts[which] + (positions - at[which])]

        every = kept = None  # with a scope: the row of every score, and the positions it keeps
        if inside is not None:
            every = np.concatenate([self.members[start:end] for start, end in zip(starts.tolist(), ends.tolist())])
            kept = np.flatnonzero(inside[every])
            scores = scores[kept]
        if len(scores) < n:  # a wide but unusual scope: scan it exactly
            rows = np.arange(len(self)) if inside is None else np.flatnonzero(inside)
            return self._top(rows, self.matrix[rows] @ query, n)
        pool = RERANK * max(n, 10)
        best = np.argpartition(-scores, pool - 1)[:pool] if len(scores) > pool else np.arange(len(scores))
        rows = rows_at(best) if every is None else every[kept[best]]
        return self._top(rows, self.matrix[rows] @ query, n)

    def _approximate(self, query: np.ndarray, n: int, inside: np.ndarray | None) -> list[tuple[str, float]]:
        """The rows whose signs differ least from the query's (among those `inside`, a mask
        over every row; None: all), ranked by their exact cosine: every row within the
        Hamming distance that holds `pool` rows."""
        words, rows = self.signs.shape
        bits = 64 * words
        code = signs(query[None, :])[0]
        distance = np.zeros(rows, np.uint16)
        word, count = np.empty(rows, np.uint64), np.empty(rows, np.uint8)
        for j in range(words):  # a word of every row at a time: contiguous, in place
            np.bitwise_xor(self.signs[j], code[j], out=word)
            np.bitwise_count(word, out=count)
            distance += count
        if inside is not None:  # expired or deleted rows never come back
            distance[~inside] = bits + 1
        pool = max(200, CANDIDATES * n)
        within = int(np.searchsorted(np.cumsum(np.bincount(distance, minlength=bits + 2)), pool))
        found = np.flatnonzero(distance <= min(within, bits))
        return self._top(found, self.matrix[found] @ query, n)

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


def _positions(base: np.ndarray | None, mask: np.ndarray | None) -> np.ndarray | None:
    """The positions `VectorCache._chosen`'s (base, mask) stand for, ascending; None: every row."""
    if base is None:
        return None if mask is None else np.flatnonzero(mask)
    return base if mask is None else base[mask]


class Cached:
    """The rows of one table version in memory: the first load of the table, then a segment
    per batch of fragments written since (by this process or another), with the rows deleted
    since each segment was read masked out. Following the table this way costs a read of
    what changed, so a process that writes and searches in turn keeps its cache."""

    def __init__(self, version: int, segments: list[VectorCache], fragments: dict | None = None):
        self.version = version
        self.segments = segments
        self.fragments = fragments or {}  # fragment id -> (data files, deletions) when read

    @property
    def offsets(self):
        return self.segments[0].offsets if self.segments else None

    def __len__(self) -> int:
        return sum(s.live for s in self.segments)

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.segments)

    def locate(self, memory_id: str) -> tuple[VectorCache, int] | None:
        for segment in self.segments:
            p = segment.find(memory_id)
            if p is not None:
                return segment, p
        return None

    def ids_at(self, addresses: np.ndarray) -> list[str] | None:
        """The ids of the live rows at these Lance row addresses, in order; None if any is not
        held (the caller asks Lance instead)."""
        ids = np.full(len(addresses), None, object)
        for segment in self.segments:
            positions = segment.at(addresses)
            hit = positions >= 0
            ids[hit] = segment.ids[positions[hit]]
        return None if any(i is None for i in ids) else ids.tolist()

    def take(self, ids: list[str], columns: list[str] | None = None) -> list[dict]:
        """The rows (every column but the embedding, or `columns`) of these ids, those that
        exist, in that order."""
        found: dict[str, dict] = {}
        for segment in self.segments:
            positions = [(i, p) for i, p in ((i, segment.find(i)) for i in ids) if p is not None]
            if not positions:
                continue
            names = segment.rows.column_names if columns is None else columns
            if len(positions) * len(names) <= SCALAR_READS:  # a hit list's texts, say
                values = [segment.rows.column(name) for name in names]
                found.update((i, {name: column[p].as_py() for name, column in zip(names, values)})
                             for i, p in positions)
            else:
                rows = segment.rows if columns is None else segment.rows.select(columns)
                taken = rows.take(pa.array([p for _, p in positions], pa.int64())).to_pylist()
                found.update(zip((i for i, _ in positions), taken))
        return [found[i] for i in ids if i in found]

    def search(self, vector: np.ndarray, n: int, scope: Scope, now: datetime | None = None,
               nprobe: int = NPROBE) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the n nearest rows in scope, best first (equal scores
        in id order)."""
        if len(self.segments) == 1:
            return self.segments[0].search(vector, n, scope, now, nprobe)
        found = [hit for segment in self.segments for hit in segment.search(vector, n, scope, now, nprobe)]
        return sorted(found, key=lambda hit: (-hit[1], hit[0]))[:n]

    def links(self, ids: list[str], scope: Scope, now: datetime | None = None) -> list[tuple[str, str]]:
        """(before, after) pairs of adjacent conversation turns where one of the two is among
        `ids` and the other is in scope (see search.neighbour_links)."""
        candidates: list[tuple[VectorCache, int, tuple[str, str]]] = []  # the other end, the pair
        for memory_id in ids:
            here = self.locate(memory_id)
            previous = here[0].previous(here[1]) if here else None
            there = self.locate(previous) if previous else None
            if there:
                candidates.append((*there, (previous, memory_id)))
            for segment in self.segments:
                candidates += [(segment, int(p), (memory_id, segment.ids[p])) for p in segment.followers(memory_id)]
        pairs = set()
        for segment in self.segments:
            mine = [(p, pair) for s, p, pair in candidates if s is segment]
            if mine:
                inside = segment.mask(scope, now, np.array([p for p, _ in mine], np.int64))
                pairs |= {pair for i, (_, pair) in enumerate(mine) if inside is None or inside[i]}
        return sorted(pairs)

    def addresses(self, scope: Scope, now: datetime | None = None) -> np.ndarray | None:
        """Lance row addresses of the rows in scope, ascending; None when every row is."""
        found = []
        for segment in self.segments:
            rows = segment.select(scope, now)
            if rows is not None or len(self.segments) > 1:
                found.append(segment.addr if rows is None else segment.addr[rows])
        return None if not found else np.sort(np.concatenate(found))

    def first(self, scope: Scope, column: str, now: datetime | None = None) -> dict[str, int]:
        """For each value of `column` among the rows in scope, its oldest `created_at` (in
        microseconds since 1970)."""
        first: dict[str, int] = {}
        for segment in self.segments:
            rows = segment.select(scope, now)
            codes = segment.coded[column].codes if rows is None else segment.coded[column].codes[rows]
            created = segment.numbers["created_at"] if rows is None else segment.numbers["created_at"][rows]
            held = codes >= 0
            if not held.any():
                continue
            unique, inverse = np.unique(codes[held], return_inverse=True)
            best = np.full(len(unique), np.iinfo(np.int64).max)
            np.minimum.at(best, inverse, created[held])
            for code, micros in zip(unique, best):
                value = segment.coded[column].values[code]
                first[value] = min(first.get(value, micros), int(micros))
        return first


def _us(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    delta = value - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
