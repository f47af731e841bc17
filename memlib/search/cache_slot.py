"""When and how a store's vectors are held in memory (memlib.search.vector_cache): the slot a
store keeps its cache in, built in the background once a table version is searched twice, at
the first search, or never, within a memory limit; and `advance`, which brings the cache to a
newer version by reading only what changed."""

from __future__ import annotations

import threading
import time

import numpy as np
import pyarrow as pa

from memlib.interface import StoreInterface
from memlib.search.vector_cache import ADDR, DELTA_ROWS, MAX_SEGMENTS, NEVER, Cached, VectorCache, vector_bytes
from memlib.settings import DEFAULT_VECTOR_CACHE_MB


def _signature(fragment) -> tuple[tuple, tuple | None]:
    """What identifies a fragment's rows: (its data files, its deletions)."""
    meta, deletions = fragment.metadata, fragment.metadata.deletion_file
    return (tuple(_path(f) for f in meta.files),
            None if deletions is None else (deletions.id, deletions.read_version, deletions.num_deleted_rows))


def _path(data_file) -> str:
    """A data file's path. Lance's `DataFile.path` property defines a class on every call
    (a str that is also callable, for its old API): 0.3 ms, a third of an advance over ten
    fragments; its private `_path` is the same string."""
    path = getattr(data_file, "_path", None)
    return path if isinstance(path, str) else data_file.path


def advance(cached: Cached, dataset, version: int, dims: int,
            appended: pa.Table | None = None) -> Cached | None:
    """`cached` brought to `version` by reading only what changed: fragments that are new
    (appends, the new rows of updates, compacted rows) become a segment; rows of fragments
    that were removed or gained deletions are masked out. None when so much changed that a
    fresh load is the better buy.

    `appended`: the rows this process appended to make `version`, if it did. When the
    cache is at the version before it, the one new fragment holds exactly those rows in
    that order (Lance writes an append as it is given), so they are not read back."""
    fragments = {f.fragment_id: f for f in dataset.get_fragments()}
    now = {i: _signature(f) for i, f in fragments.items()}
    then = cached.fragments
    added = [i for i in now if i not in then or now[i][0] != then[i][0]]
    gone = [i for i in then if i not in now or now[i][0] != then[i][0]]
    changed = [i for i in now if i in then and now[i][0] == then[i][0] and now[i][1] != then[i][1]]
    if sum(fragments[i].metadata.physical_rows for i in added) > max(DELTA_ROWS, len(cached) // 10):
        return None
    kept = {i: dataset.scanner(columns=["id"], fragments=[fragments[i]], with_row_address=True).to_table()
            .column(ADDR).to_numpy().astype(np.int64) for i in changed}
    segments = []
    for segment in cached.segments:
        frag = segment.addr >> 32
        dead = np.isin(frag, gone)
        for i, addresses in kept.items():
            dead |= (frag == i) & ~np.isin(segment.addr, addresses)
        segment = segment.without(dead) if dead.any() else segment
        if segment.live:
            segments.append(segment)
    if (appended is not None and cached.version == version - 1 and len(added) == 1 and not gone
            and not changed and fragments[added[0]].metadata.physical_rows == appended.num_rows
            and set(appended.column_names) == set(dataset.schema.names)):
        address = pa.array((added[0] << 32) + np.arange(appended.num_rows, dtype=np.int64))
        table = appended.select(dataset.schema.names).append_column(ADDR, address)
        segments.append(VectorCache(version, table, dims, ivf_above=NEVER))
    elif added:
        segments.append(VectorCache.load(dataset, version, dims, fragments=[fragments[i] for i in added],
                                         ivf_above=NEVER))
    if len(segments) > MAX_SEGMENTS:
        segments = [segments[0], VectorCache.merged(segments[1:], version, dims)]
    return Cached(version, segments, now)


class CacheSlot:
    """The store's cache, built in the background once a table version is searched twice
    ("auto"), at the first search ("on"), or never ("off"); when the vectors alone would take
    more than `limit_mb` (vector_bytes: the partitioned copy counts), it is not built."""

    def __init__(self, mode: str = "auto", limit_mb: int = DEFAULT_VECTOR_CACHE_MB):
        """`mode` and `limit_mb` as memlib.settings checks them (vector_cache, vector_cache_mb)."""
        self.mode, self.limit_mb = mode, limit_mb
        self.cache: Cached | None = None
        self.build_seconds: float | None = None
        self._seen = (-1, 0)  # (table version, searches of it so far)
        self._lock = threading.Lock()
        self._building: int | None = None
        self._declined: int | None = None  # a version too large (or empty) to hold
        self._appended: tuple[int, pa.Table] | None = None  # (version, rows) this process appended

    def get(self, store: StoreInterface) -> Cached | None:
        """The cache for the store's current version if it is ready, else None."""
        version = store.version
        cache = self.current(store, version)
        if cache is not None or self.mode == "off":
            return cache
        with self._lock:
            searches = self._seen[1] + 1 if self._seen[0] == version else 1
            self._seen = (version, searches)
            if (self.mode == "auto" and searches < 2) or version in (self._building, self._declined):
                return None
            rows = store.count_rows()  # only when about to build, not on every search
            if rows == 0 or vector_bytes(rows, store.dims) > self.limit_mb * 2**20:
                self._declined = version
                return None
            self._building = version
        if self.mode == "on":
            return self.build(store, version)
        threading.Thread(target=self.build, args=(store, version), daemon=True).start()
        return None

    def current(self, store: StoreInterface, version: int | None = None) -> Cached | None:
        """The cache at the store's current version, brought there from an older one when
        little changed; None if there is none (nothing is built here)."""
        version = store.version if version is None else version
        cache = self.cache
        if cache is None or cache.version == version:
            return cache
        if cache.version > version:  # a handle reading an older version than the cache
            return None
        dataset = store.dataset()
        if dataset.version != version:
            return None
        appended = self._appended
        moved = advance(cache, dataset, version, store.dims,
                        appended[1] if appended is not None and appended[0] == version else None)
        if moved is None:
            return None
        with self._lock:
            if self.cache is None or self.cache.version < version:
                self.cache = moved
        return moved

    def appended(self, rows: pa.Table, version: int) -> None:
        """Rows this process appended, making `version` (the next advance takes them from
        here); only the latest append is kept, and only while there is a cache it can join."""
        self._appended = (version, rows) if self.cache is not None and rows.num_rows <= DELTA_ROWS else None

    def build(self, store: StoreInterface, version: int | None = None) -> Cached:
        version = store.version if version is None else version
        started = time.perf_counter()
        try:
            dataset = store.dataset()
            if dataset.version != version:
                dataset = dataset.checkout_version(version)
            cache = Cached(version, [VectorCache.load(dataset, version, store.dims)],
                           {f.fragment_id: _signature(f) for f in dataset.get_fragments()})
        finally:  # a failed build may be tried again at a later search
            with self._lock:
                self._building = None
        self.build_seconds = time.perf_counter() - started
        with self._lock:
            if self.cache is None or self.cache.version <= version:
                self.cache = cache
        return cache
