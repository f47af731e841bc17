"""Fragments and clusters in the store (seed 001's tables `fragments`, `clusters`, and
`consensus_inputs` for the inputs callers register so trace pointers resolve). Every cluster
created, changed or removed (its fragments regrouped into others) is an audit event
(`cluster_create`, `cluster_update`, `cluster_remove`, `cluster_rebuild`) in memlib's audit
log. Adding fragments holds the store's writer lock, so processes cluster
one batch at a time and no assignment is lost.

The clusters table records how its clusters were made (`Consensus.rule`: clustering's method,
its threshold and the store's model, under META_RULE) when it is made and at each rebuild.
Clusters made otherwise than memlib now clusters (a store from before the rule was recorded,
another method, another model after `memlib reembed`) are said so in one warning when a
handle first reads them, and `renew` (run by `memlib maintain` and `memlib reembed`) makes
them again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import weakref
from datetime import timedelta
from typing import Callable, Iterable

import numpy as np
import pyarrow as pa

from memlib.errors import InvalidInput, NotFound
from memlib.models import listed
from memlib.interface import StoreInterface
from memlib.scope import sql_in, sql_literal
from memlib.store.concurrency import committing
from memlib.store.tables import add_missing_columns
from memlib.consensus import clustering, conflicts, units
from memlib.consensus.tables import (
    CLUSTERS,
    CONTRACT_SCHEMA,
    CONTRACTS,
    FRAGMENTS,
    INPUT_SCHEMA,
    INPUTS,
    SCHEMAS,
    UNIT_SCHEMA,
    UNITS,
)
from memlib.consensus.lexicon import Lexicon
from memlib.consensus.records import (
    Cluster,
    ClusterMemoryUnit,
    Disagreement,
    Fragment,
    RetentionContract,
    Side,
)

def input_pointer(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _fragment(row: dict) -> Fragment:
    """A fragment from its row of the fragments table (its metadata decoded, what clustering
    read of it left out)."""
    return Fragment(**{k: v for k, v in row.items() if k not in ("words", "value_keys")}
                    | {"metadata": json.loads(row["metadata"] or "{}")})


class _Memory:
    """What every handle on one store (at one threshold) shares: the clusterer as the tables'
    versions left it, and the lock under which one thread at a time changes or reads it. A
    handle made per call (an agent tool, a server request) finds the clusters in memory instead
    of reading every fragment's vector again (bench/consensus_handles.py). It holds nothing of
    the store, so a store that is let go takes it along."""

    def __init__(self):
        self.lock = threading.RLock()
        self.clusterer: tuple | None = None  # ((clusters, fragments table versions), clusterer, orphans)
        self.warned = False  # whether this store's clusters were said to be made otherwise


log = logging.getLogger("memlib")
META_RULE = "memlib.clustering"  # the clusters table's schema metadata: the rule that made them, as JSON
EMBED_CHUNK = 1_024  # fragments embedded again and committed at a time (renew)

_MEMORY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # store -> {threshold: _Memory}
_SHARED_LOCK = threading.Lock()


class Consensus:
    """The consolidation of one store's fragments."""

    def __init__(self, store: StoreInterface, threshold: float | None = None):
        """`threshold`: the mean cosine at which two groups are one; by default the one the
        store's clusters were made at (under today's method), else DEFAULT_THRESHOLD."""
        if threshold is None:
            threshold = _kept_threshold(_recorded(store.concept_table(CLUSTERS)))
        if not _is_threshold(threshold):
            raise InvalidInput(f"threshold is the mean cosine at which two groups of fragments are one: "
                               f"a number from -1 to 1, not {threshold!r}")
        self.store, self.threshold = store, threshold
        with _SHARED_LOCK:
            try:
                self._memory = _MEMORY.setdefault(store, {}).setdefault(threshold, _Memory())
            except TypeError:  # a store that cannot be weakly referred to keeps its handles' memory apart
                self._memory = _Memory()

    def _find_many(self, groups: list[tuple[list[str], list[float]]], lexicon) -> list[list[conflicts.Found]]:
        """Where each group of a cluster's (texts, weights) disagrees, as the store's judge
        reads it (a MemoryStore records one, memlib.judges), else as conflicts.py's reader does."""
        judge = getattr(self.store, "judge", None)
        return (conflicts.find_many if judge is None else judge.find_many)(groups, lexicon)

    # -- tables ----------------------------------------------------------------------------

    def _table(self, name: str, create: bool = True):
        table = self.store.concept_table(name)
        if table is None and create:  # new clusters are this handle's: it records its rule
            schema = SCHEMAS[name](self.store.dims)
            if name == CLUSTERS:
                schema = schema.with_metadata(_metadata(self.rule()))
            table = self.store.concept_table(name, schema)
        if table is not None:
            table.checkout_latest()
        return table

    # -- how the clusters were made ----------------------------------------------------------

    def rule(self) -> dict:
        """How this handle places fragments: what the clusters table records of the clusters it
        makes from scratch."""
        return _rule(self.threshold, self.store.model_name)

    def made_by(self) -> dict | None:
        """The rule the stored clusters were made by, or None: no clusters table yet, or one a
        memlib made before the rule was recorded (2026-11-27)."""
        return _recorded(self._table(CLUSTERS, create=False))

    def outdated(self) -> str | None:
        """One line saying how the stored clusters were made otherwise than this handle places
        fragments, or None when they were not (or no fragment is stored)."""
        fragments = self._table(FRAGMENTS, create=False)
        if fragments is None or not fragments.count_rows():
            return None
        return self._outdated(self.made_by())

    def _outdated(self, made: dict | None) -> str | None:
        now = self.rule()
        if made == now:
            return None
        if made is None:
            was = "by a memlib that recorded no rule"
        else:
            was = "otherwise (" + "; ".join(f"{k} {made.get(k)!r}, now {now[k]!r}" for k in now
                                            if made.get(k) != now[k]) + ")"
        stale = made != _rule(_kept_threshold(made), now["model"])  # what renew makes again
        fix = "'memlib maintain' makes them again" if stale else "Consensus.rebuild() makes them all at this one"
        return f"the store's clusters were made {was}: {fix}"

    def embed_again(self, progress: bool = False) -> int:
        """Embed every stored fragment's content again with the store's model (a vector a
        caller gave is replaced too: it was made for the model before), a chunk per commit.
        Fragments change in nothing else, so a chunk read before another writer's commit is
        still right; a run cut short is done again whole. Returns how many were embedded.
        Their clusters are made again by `rebuild` after it."""
        table = self._table(FRAGMENTS, create=False)
        if table is None:
            return 0
        ids = sorted(table.to_lance().to_table(columns=["fragment_id"]).column("fragment_id").to_pylist())
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(ids), desc="embed fragments", unit="fragment", disable=None)
        field = table.schema.field("embedding")
        for start in range(0, len(ids), EMBED_CHUNK):
            rows = table.to_lance().to_table(filter=sql_in("fragment_id", ids[start:start + EMBED_CHUNK]))
            vectors = np.asarray(self.store.embedder.embed(rows.column("content").to_pylist()), np.float32)
            rows = rows.set_column(rows.schema.get_field_index("embedding"), field, pa.FixedSizeListArray.from_arrays(
                pa.array(vectors.reshape(-1), pa.float32()), self.store.dims).cast(field.type))
            with self.store.lock.held():
                committing(lambda: table.merge_insert("fragment_id").when_matched_update_all().execute(rows))
            if bar is not None:
                bar.update(rows.num_rows)
        if bar is not None:
            bar.close()
        self._memory.clusterer = None
        return len(ids)

    # -- trace pointers ---------------------------------------------------------------------

    def register_input(self, text: str | bytes, source: str | None = None) -> str:
        """Record an input fragments may point to (a tool's output, a document); returns its
        pointer, `sha256:<hex>` of its bytes. Registering twice is harmless."""
        pointer = input_pointer(text)
        if not self.resolvable([pointer]) == [pointer]:
            self.store.check_writable()
            row = pa.table({"pointer": [pointer], "registered_at": [self.store.clock.now()], "source": [source]},
                           schema=INPUT_SCHEMA)
            committing(lambda: self._table(INPUTS).add(row))
        return pointer

    def resolvable(self, pointers: list[str]) -> list[str]:
        """The pointers memlib can trace: a memory id, a recall query id, a registered input.
        A memory not found is looked for once more at the latest version (another handle or
        process may have written it within this handle's max_staleness)."""
        wanted = sorted(set(pointers))
        if not wanted:
            return []
        found = set(self.store.lookup(wanted, ["id"]))
        inputs = self._table(INPUTS, create=False)
        hashes = [p for p in wanted if p.startswith("sha256:")]
        if inputs is not None and hashes:
            found |= set(inputs.to_lance().to_table(columns=["pointer"], filter=sql_in("pointer", hashes))
                         .column("pointer").to_pylist())
        rest = [p for p in wanted if p not in found]
        if rest:
            found |= {e["query_id"] for e in self.store.spooled_recalls() if e["query_id"] in rest}
            events = self.store.recall_dataset()
            if events is not None:
                found |= set(events.to_table(columns=["query_id"], filter=sql_in("query_id", rest))
                             .column("query_id").to_pylist())
        if late := [p for p in wanted if p not in found and not p.startswith("sha256:")]:
            self.store.refresh()  # the handle may read a version older than another's commit
            found |= set(self.store.lookup(late, ["id"]))
        return [p for p in pointers if p in found]

    # -- fragments and clusters -------------------------------------------------------------

    def add(self, fragments: Iterable[Fragment | dict], actor: str | None = None) -> list[tuple[str, str, bool]]:
        """Validate, embed and cluster fragments, one commit each for fragments and clusters.
        The whole batch is refused (one line) if one fragment is invalid, is already stored
        (fragments are immutable) or points to an input memlib does not know. Returns
        (fragment_id, cluster_id, opened a new cluster) per fragment, in clustering order."""
        store = self.store
        store.check_writable()
        batch = [Fragment.parse(f, f"fragment {i}") for i, f in enumerate(listed(fragments, "fragments"))]
        if not batch:
            return []
        now = store.clock.now()
        # A cluster's order is what tells which of two statements is the newer (conflicts.find),
        # and fragments reported at one time would be ordered by id, random by default. So a
        # fragment left without a time is reported when it arrives (the n-th of the batch n
        # microseconds after the first), and each is given its arrival: the batch's order here,
        # after every stored fragment's once the writer lock is held (equal times given, a
        # report's date on each of its lines, or a fixed clock's adds, are then in the order
        # they were received).
        batch = [f.model_copy(update={"arrival": n, "timestamp": now + timedelta(microseconds=n)
                                      if f.timestamp is None else f.timestamp}) for n, f in enumerate(batch)]
        ids = [f.fragment_id for f in batch]
        seen: set[str] = set()
        twice = next((i for i in ids if i in seen or seen.add(i)), None)
        if twice:
            raise InvalidInput(f"fragment {twice!r} appears twice in this batch")
        known = set(self.resolvable([f.trace_pointer for f in batch]))
        lost = next((f for f in batch if f.trace_pointer not in known), None)
        if lost:
            raise InvalidInput(f"fragment {lost.fragment_id}: trace_pointer {lost.trace_pointer!r} is not a memory, "
                               f"a recall or a registered input (Consensus.register_input)")
        for f in batch:
            if f.embedding is not None and len(f.embedding) != store.dims:
                raise InvalidInput(f"fragment {f.fragment_id}: embedding has {len(f.embedding)} dims, "
                                   f"the store's model has {store.dims}")
        batch.sort(key=clustering.order_key)
        todo = [i for i, f in enumerate(batch) if f.embedding is None]
        vectors = np.zeros((len(batch), store.dims), dtype=np.float32)
        for i, f in enumerate(batch):
            if f.embedding is not None:
                vectors[i] = f.embedding
        if todo:
            vectors[todo] = store.embedder.embed([batch[i].content for i in todo])
        with self._memory.lock, store.lock.held():
            table = self._table(FRAGMENTS)
            clusterer = self._complete(actor)  # what an add or a rebuild killed midway left out
            done = self._already_stored(table, batch)
            first = clusterer.next_arrival
            batch = [f.model_copy(update={"arrival": first + f.arrival}) for f in batch]
            new = [i for i, f in enumerate(batch) if f.fragment_id not in done]
            events = store.event_rows("fragment_add", [batch[i].fragment_id for i in new], actor=actor, details=[
                {"source_agent": batch[i].source_agent, "trace_pointer": batch[i].trace_pointer} for i in new])
            try:
                # killed between the fragments' commit and the clusters', the next open places them
                with store.promising("memlib.consensus.store:finish_add", {"threshold": self.threshold,
                                                                            "actor": actor}, events):
                    opened = self._place(clusterer, [batch[i] for i in new], vectors[new], table, actor)
                    store.append_events(events)
            except BaseException:
                self._memory.clusterer = None  # it holds what failed to commit: read the tables again
                raise
        return [(f.fragment_id, clusterer.where.get(f.fragment_id), f.fragment_id in opened) for f in batch]

    def stored(self, fragment_ids: list[str]) -> set[str]:
        """Which of these fragments are stored."""
        table = self._table(FRAGMENTS, create=False)
        if table is None or not fragment_ids:
            return set()
        return set(table.to_lance().to_table(columns=["fragment_id"], filter=sql_in("fragment_id", fragment_ids))
                   .column("fragment_id").to_pylist())

    def _already_stored(self, table, batch: list[Fragment]) -> set[str]:
        """The ids of the batch stored already, as given (a retried add, whose first try
        committed): their work is done. One stored with other values is refused: fragments
        are immutable."""
        ids = [f.fragment_id for f in batch]
        if not table.count_rows():
            return set()
        names = [n for n in table.schema.names if n not in ("embedding", "words", "value_keys", "arrival")]
        stored = {r["fragment_id"]: r for r in table.to_lance().to_table(
            columns=names, filter=sql_in("fragment_id", ids)).to_pylist()}
        for f in batch:
            row = stored.get(f.fragment_id)
            if row is not None and {n: row[n] for n in names} != self._fragment_row(f, frozenset(), [], names):
                raise InvalidInput(f"fragment {f.fragment_id!r} is already stored with other values; "
                                   f"fragments are immutable")
        return set(stored)

    def _place(self, clusterer: clustering.Clusterer, batch: list[Fragment], vectors: np.ndarray, table,
               actor: str | None, stored: bool = False) -> set[str]:
        """Cluster fragments in order, write them (unless `stored` already) and then the clusters
        that changed, with their audit events. Returns the fragments now in a cluster that did
        not exist before."""
        if not batch:
            return set()
        before = {c.cluster_id: c.fragment_ids for c in clusterer.clusters}
        read = [clustering.features(f.content) for f in batch]
        clusterer.assign_many([(f.fragment_id, clustering.order_key(f), vectors[i], f.topic_candidates, *read[i])
                               for i, f in enumerate(batch)])
        clusterer.next_arrival = max(clusterer.next_arrival, _next_arrival([f.arrival for f in batch]))
        touched = sorted(c.cluster_id for c in clusterer.clusters if before.get(c.cluster_id) != c.fragment_ids)
        gone = sorted(set(before) - set(clusterer.index))
        risks = self._risks(clusterer, touched, {f.fragment_id: (f.content, f.confidence) for f in batch})
        if not stored:
            schema = table.schema
            if "arrival" not in schema.names:  # a table from before arrivals were recorded gains the column
                add_missing_columns(table, SCHEMAS[FRAGMENTS](self.store.dims))
                table.checkout_latest()
                schema = table.schema
            rows = [self._fragment_row(f, *read[i]) for i, f in enumerate(batch)]  # membership: the clusters'
            frame = pa.Table.from_pylist(rows, schema=pa.schema([x for x in schema if x.name != "embedding"]))
            embedding = pa.FixedSizeListArray.from_arrays(
                pa.array(np.asarray(vectors, np.float32).reshape(-1), pa.float32()), self.store.dims)
            frame = pa.table([embedding if x.name == "embedding" else frame.column(x.name) for x in schema],
                             schema=schema)  # in the table's order (a column added later is last)
            committing(lambda: table.add(frame))
        self._write_clusters(clusterer, touched, risks, gone=gone)
        size = {c: len(clusterer.clusters[clusterer.index[c]].fragment_ids) for c in touched}
        note = {"completed": True} if stored else {}
        opened = [c for c in touched if c not in before]
        self.store.log_event("cluster_create", opened, actor=actor,
                             details=[{"fragments": size[c], **note} for c in opened])
        changed = [c for c in touched if c in before]
        self.store.log_event("cluster_update", changed, actor=actor, details=[
         {"fragments_before": len(before[c]), "fragments": size[c], **note} for c in changed])
        self.store.log_event("cluster_remove", gone, actor=actor, details=[
         {"fragments_before": len(before[c]), "now_in": sorted({clusterer.where[f] for f in before[c]}), **note}
         for c in gone])
        return {f.fragment_id for f in batch if clusterer.where[f.fragment_id] in opened}

    def _complete(self, actor: str | None) -> clustering.Clusterer:
        """The clusterer, after clustering the stored fragments no cluster holds: an add killed
        between its two commits, or a store whose clusters were lost, is completed as an
        uninterrupted run would have left it (they are placed first, in clustering order).
        The caller holds the writer lock."""
        clusterer = self._load()
        orphans = self._memory.clusterer[2]
        if orphans:
            table = self._table(FRAGMENTS)
            found = sorted(map(_fragment, table.to_lance().to_table(filter=sql_in("fragment_id", orphans)).to_pylist()),
                           key=clustering.order_key)
            vectors = np.asarray([f.embedding for f in found], dtype=np.float32).reshape(-1, self.store.dims)
            self._place(clusterer, found, vectors, table, actor, stored=True)
        return clusterer

    def _fragment_row(self, f: Fragment, words: frozenset[str], keys: list[str],
                      names: list[str] | None = None) -> dict:
        row = f.model_dump(exclude={"embedding"})
        row["metadata"] = json.dumps(row["metadata"], sort_keys=True, ensure_ascii=False)
        row |= {"words": sorted(words), "value_keys": keys}
        return row if names is None else {n: row[n] for n in names}

    def _load(self) -> clustering.Clusterer:
        """The clusters as the table holds them, their members as clustering keeps them and
        the lexicon replayed from the clustered fragments in clustering order (kept in memory
        while the tables are unchanged). Stored fragments no cluster holds are noted
        (`_complete` places them)."""
        table, fragments_table = self._table(CLUSTERS), self._table(FRAGMENTS)
        versions = (table.version, fragments_table.version)
        if self._memory.clusterer is not None and self._memory.clusterer[0] == versions:
            return self._memory.clusterer[1]
        clusters, members, lexicon, orphans = [], {}, Lexicon(), []
        fragments = []
        if fragments_table.count_rows():
            clusters = [(r["cluster_id"], r["fragment_ids"]) for r in
                        table.to_lance().to_table(columns=["cluster_id", "fragment_ids"]).to_pylist()]
            held = {f for _, ids in clusters for f in ids}
            data = fragments_table.to_lance().to_table(columns=[
                "fragment_id", "timestamp", "topic_candidates", "words", "value_keys", "embedding",
                *(["arrival"] if "arrival" in fragments_table.schema.names else [])])  # a table from before it
            units = clustering.unit_rows(data.column("embedding").combine_chunks().flatten()
                                         .to_numpy(zero_copy_only=False).reshape(-1, self.store.dims))
            fragments = data.drop_columns(["embedding"]).to_pylist()
            for i in sorted(range(len(fragments)), key=lambda i: clustering.order_key(fragments[i])):
                f = fragments[i]
                if f["fragment_id"] not in held:
                    orphans.append(f["fragment_id"])
                    continue
                words = frozenset(f["words"])
                lexicon.observe(words, f["value_keys"])
                members[f["fragment_id"]] = clustering.Member(units[i], f["topic_candidates"] or [], words,
                                                              clustering.order_key(f))
            clusters.sort()  # a fixed order
        clusterer = clustering.Clusterer.of(clusters, members, self.store.dims, self.threshold, lexicon)
        clusterer.next_arrival = _next_arrival([f.get("arrival") for f in fragments])
        self._memory.clusterer = (versions, clusterer, orphans)
        if not self._memory.warned and fragments and (line := self._outdated(_recorded(table))):
            log.warning(line)
            self._memory.warned = True
        return clusterer

    def _risks(self, clusterer: clustering.Clusterer, cluster_ids: list[str],
               known: dict[str, tuple[str, float]]) -> dict[str, float]:
        """The conflict_risk of each cluster as its fragments now stand, so a cluster's risk is
        current after every add that touches it: the detector with the lexicon learned so far
        (reading a cluster's disagreements, and a rebuild, compute it again with the lexicon
        of then). `known`: content and confidence of fragments at hand; the rest are read from
        the fragments table in one scan."""
        members = [clusterer.clusters[clusterer.index[c]].fragment_ids for c in cluster_ids]
        missing = sorted({f for ids in members for f in ids if f not in known})
        if missing:
            table = self._table(FRAGMENTS)
            data = table.to_lance().to_table(columns=["fragment_id", "content", "confidence"],
                                             filter=sql_in("fragment_id", missing) if len(missing) < 2_000 else None)
            known = {**{r["fragment_id"]: (r["content"], r["confidence"]) for r in data.to_pylist()}, **known}
        out = {cluster_id: 0.0 for cluster_id, ids in zip(cluster_ids, members) if len(ids) < 2}
        compared = [(c, [known[f] for f in ids]) for c, ids in zip(cluster_ids, members) if len(ids) >= 2]
        groups = [([text for text, _ in said], [weight for _, weight in said]) for _, said in compared]
        found = self._find_many(groups, clusterer.lexicon)  # all read in one batch
        for (cluster_id, _), (_, weights), disagreements in zip(compared, groups, found):
            out[cluster_id] = conflicts.conflict_risk(disagreements, weights)
        return out

    def _write_clusters(self, clusterer: clustering.Clusterer, cluster_ids: list[str],
                        risks: dict[str, float], replace: bool = False, gone: list[str] = ()) -> None:
        """Write these clusters and delete the `gone` ones in one commit; `replace`: they
        become the whole table."""
        table = self._table(CLUSTERS)
        now = self.store.clock.now()
        states = [clusterer.clusters[clusterer.index[c]] for c in cluster_ids]
        dims = self.store.dims
        totals = np.stack([s.total for s in states]).astype(np.float64).reshape(-1)
        centroids = np.stack([s.centroid for s in states]).astype(np.float32).reshape(-1)
        columns = {
            "cluster_id": pa.array(cluster_ids, pa.string()),
            "fragment_ids": pa.array([list(s.fragment_ids) for s in states], pa.list_(pa.string())),
            "topic_distribution": pa.array([json.dumps(s.distribution(), sort_keys=True, ensure_ascii=False)
                                            for s in states], pa.string()),
            "conflict_risk": pa.array([risks[c] for c in cluster_ids], pa.float64()),
            "last_updated": pa.array([now] * len(states), table.schema.field("last_updated").type),
            "n_fragments": pa.array([len(s.fragment_ids) for s in states], pa.int64()),
            "topic_weights": pa.array([json.dumps(s.topics, sort_keys=True, ensure_ascii=False) for s in states],
                                      pa.string()),
            "vector_sum": pa.ListArray.from_arrays(np.arange(0, len(totals) + 1, dims, dtype=np.int32),
                                                   pa.array(totals, pa.float64())),
            "centroid": pa.FixedSizeListArray.from_arrays(pa.array(centroids, pa.float32()), dims),
        }
        frame = pa.table([columns[f.name] for f in table.schema], schema=table.schema)
        merge = table.merge_insert("cluster_id").when_matched_update_all().when_not_matched_insert_all()
        if replace:  # the clusters not written go, in the same commit
            merge = merge.when_not_matched_by_source_delete()
        elif gone:
            merge = merge.when_not_matched_by_source_delete(sql_in("cluster_id", list(gone)))
        committing(lambda: merge.execute(frame))
        table.checkout_latest()
        self._memory.clusterer = ((table.version, self._table(FRAGMENTS).version), clusterer, [])

    def disagreements(self, cluster_id: str, actor: str | None = None) -> tuple[list[Disagreement], float]:
        """Where a cluster's fragments disagree, as the store's judge reads them (memlib.judges),
        and its conflict_risk (consensus/conflicts.py),
        which is recorded on the cluster (an audit event when it changes)."""
        row = self._cluster_row(cluster_id)
        return self._disagreements(cluster_id, row, self._cluster_fragments(row), actor)

    def _cluster_fragments(self, row: dict) -> list[dict]:
        """A cluster's fragments in its order, without their vectors, metadata decoded."""
        data = self._table(FRAGMENTS).to_lance().to_table(
            columns=["fragment_id", "content", "source_agent", "confidence", "citation_count", "topic_candidates",
                     "metadata"], filter=sql_in("fragment_id", row["fragment_ids"])).to_pylist()
        for f in data:
            f["metadata"] = json.loads(f["metadata"] or "{}")
        order = {f: i for i, f in enumerate(row["fragment_ids"])}
        return sorted(data, key=lambda r: order[r["fragment_id"]])

    def _disagreements(self, cluster_id: str, row: dict, data: list[dict],
                       actor: str | None) -> tuple[list[Disagreement], float]:
        weights = [r["confidence"] for r in data]
        with self._memory.lock:
            found = self._find_many([([r["content"] for r in data], weights)], self._load().lexicon)[0]
        risk = conflicts.conflict_risk(found, weights)

        def side(members: list[int]) -> Side:
            return Side(claim=data[members[0]]["content"], fragment_ids=[data[i]["fragment_id"] for i in members],
                        agents=sorted({data[i]["source_agent"] for i in members}))

        out = [Disagreement(point=f.point, kind=f.kind, a=side(f.a), b=side(f.b)) for f in found]
        if abs(risk - (row["conflict_risk"] or 0.0)) > 1e-12:
            self.store.check_writable()
            table = self._table(CLUSTERS)
            update = pa.table({"cluster_id": [cluster_id], "conflict_risk": [risk]})
            committing(lambda: table.merge_insert("cluster_id").when_matched_update_all().execute(update))
            self.store.log_event("cluster_update", [cluster_id], actor=actor,
                                 details={"conflict_risk": risk, "disagreements": len(out)})
        return out, risk

    # -- contracts and units ------------------------------------------------------------------

    def save_contract(self, contract: RetentionContract | dict, actor: str | None = None) -> RetentionContract:
        """Store a contract version. A version once saved never changes: saving it again
        with other terms is refused (save a new version)."""
        contract = RetentionContract.parse(contract, "retention contract")
        body = contract.model_dump_json()
        with self.store.lock.held():
            table = self._table(CONTRACTS)
            same = table.to_lance().to_table(filter=f"contract_id = {sql_literal(contract.contract_id)} AND "
                                                    f"version = {sql_literal(contract.version)}").to_pylist()
            if same:
                if same[0]["contract"] != body:
                    raise InvalidInput(f"contract {contract.contract_id} v{contract.version} is already saved with "
                                       f"other terms; save a new version")
                return contract
            row = pa.table({"contract_id": [contract.contract_id], "version": [contract.version],
                            "saved_at": [self.store.clock.now()], "contract": [body]}, schema=CONTRACT_SCHEMA)
            committing(lambda: table.add(row))
            self.store.log_event("contract_save", [contract.contract_id], actor=actor,
                                 details={"version": contract.version})
        return contract

    def contract(self, contract_id: str, version: str | None = None) -> RetentionContract:
        """A saved contract: the version asked for, else the latest saved."""
        table = self._table(CONTRACTS, create=False)
        where = f"contract_id = {sql_literal(contract_id)}" + (f" AND version = {sql_literal(version)}" if version else "")
        rows = [] if table is None else table.to_lance().to_table(filter=where).to_pylist()
        if not rows:
            raise NotFound(f"no retention contract {contract_id!r}" + (f" version {version!r}" if version else ""))
        return RetentionContract.model_validate_json(max(rows, key=lambda r: r["saved_at"])["contract"])

    def consolidate(self, cluster_id: str, contract: str | RetentionContract | None = None,
                    summariser=None, actor: str | None = None) -> ClusterMemoryUnit:
        """Build and store a cluster's unit (consensus/units.py): its agreed summary within the
        contract, its disagreements, its evidence, slot coverage and compression rounds. A
        contract given by id is read from the store (its latest version)."""
        if isinstance(contract, str):
            contract = self.contract(contract)
        row = self._cluster_row(cluster_id)
        fragments = self._cluster_fragments(row)  # read once, for the disagreements and the unit
        found, _ = self._disagreements(cluster_id, row, fragments, actor)
        unit = units.build(cluster_id, fragments, found, contract, summariser)
        if contract is not None:
            unit.check_contract(contract)
        row = pa.table({"cluster_id": [cluster_id], "built_at": [self.store.clock.now()],
                        "contract_id": [unit.contract_id], "contract_version": [unit.contract_version],
                        "status": [unit.compression_report["status"]], "n_disagreements": [len(unit.disagreements)],
                        "unit": [unit.model_dump_json()]}, schema=UNIT_SCHEMA)
        self.store.check_writable()
        table = self._table(UNITS)
        committing(lambda: table.merge_insert("cluster_id").when_matched_update_all()
                   .when_not_matched_insert_all().execute(row))
        self.store.log_event("unit_write", [cluster_id], actor=actor, details={
         "status": unit.compression_report["status"], "contract": unit.contract_id,
         "contract_version": unit.contract_version, "disagreements": len(unit.disagreements)})
        return unit

    def unit(self, cluster_id: str) -> ClusterMemoryUnit:
        table = self._table(UNITS, create=False)
        rows = [] if table is None else table.to_lance().to_table(
            columns=["unit"], filter=sql_in("cluster_id", [cluster_id])).to_pylist()
        if not rows:
            raise NotFound(f"no consensus unit for cluster {cluster_id!r} (Consensus.consolidate)")
        return ClusterMemoryUnit.model_validate_json(rows[0]["unit"])

    def promote(self, cluster_id: str, project_id: str, kind: str = "summary", title: str | None = None,
                actor: str | None = None) -> str:
        """A unit becomes a long-term memory of a project (a summary, or a decision titled
        `title`) that agents recall instead of raw fragments; its metadata keeps the cluster,
        the evidence pointers and the disagreements. Returns the memory's id."""
        from memlib.models import parse_memory

        unit = self.unit(cluster_id)
        if kind not in ("summary", "decision"):
            raise InvalidInput(f"a consensus unit is promoted to a summary or a decision, not a {kind!r}")
        meta = {"cluster_id": cluster_id, "evidence_pointers": unit.evidence_pointers,
                "disagreements": [d.model_dump() for d in unit.disagreements],
                "contract": unit.contract_id, "contract_version": unit.contract_version}
        text = unit.consensus_summary or "(no agreed statement)"
        data = ({"kind": "summary", "content": text, "title": title} if kind == "summary" else
                {"kind": "decision", "title": title or text[:80], "decision": text})
        memory = parse_memory({**data, "project_id": project_id, "source": "consensus", "metadata": meta},
                              record=f"consensus unit {cluster_id}")
        (memory_id,) = self.store.add([memory], actor=actor)
        self.store.log_event("unit_promote", [cluster_id], actor=actor, details={"to": memory_id, "kind": kind})
        return memory_id

    def _cluster_row(self, cluster_id: str) -> dict:
        table = self._table(CLUSTERS, create=False)
        row = None if table is None else next(iter(table.to_lance().to_table(
            columns=["fragment_ids", "conflict_risk"], filter=sql_in("cluster_id", [cluster_id])).to_pylist()), None)
        if row is None:
            raise NotFound(f"no cluster {cluster_id!r}")
        return row

    def clusters(self) -> list[Cluster]:
        table = self._table(CLUSTERS, create=False)
        if table is None or not table.count_rows():
            return []
        rows = table.to_lance().to_table(columns=["cluster_id", "fragment_ids", "centroid", "topic_distribution",
                                                  "conflict_risk", "last_updated"]).to_pylist()
        return sorted((Cluster(**{**r, "topic_distribution": json.loads(r["topic_distribution"])}) for r in rows),
                      key=lambda c: c.cluster_id)

    def fragments(self) -> list[Fragment]:
        table = self._table(FRAGMENTS, create=False)
        if table is None:
            return []
        return sorted(map(_fragment, table.to_lance().to_table().to_pylist()), key=clustering.order_key)

    def rebuild(self, actor: str | None = None) -> int:
        """Cluster every stored fragment again from scratch, in chunks in clustering order
        (deterministic: the clusters adds of the same chunks make); replaces the clusters
        table in one commit (a rebuild killed midway leaves the clusters as they were).
        Returns the number of clusters."""
        store = self.store
        store.check_writable()
        with store.lock.held():
            fragments = self.fragments()
            vectors = np.asarray([f.embedding for f in fragments], dtype=np.float32).reshape(-1, store.dims)
            clusterer = clustering.rebuild(fragments, vectors, store.dims, self.threshold)
            clusterer.next_arrival = _next_arrival([f.arrival for f in fragments])
            ids = [c.cluster_id for c in clusterer.clusters]
            if ids:
                self._write_clusters(clusterer, ids, self._risks(
                    clusterer, ids, {f.fragment_id: (f.content, f.confidence) for f in fragments}), replace=True)
            else:
                committing(lambda: self._table(CLUSTERS).delete("true"))
            # recorded after the clusters it made: a rebuild cut short between the two commits
            # leaves them said to be made otherwise, and the next maintain makes them again
            table = self._table(CLUSTERS)
            rule = self.rule()
            committing(lambda: table.to_lance().update_schema_metadata(_metadata(rule)))
            table.checkout_latest()
            self._memory.clusterer = ((table.version, self._table(FRAGMENTS).version), clusterer, [])
            self._memory.warned = False
            store.log_event("cluster_rebuild", ids, actor=actor, details={"rule": rule})
        return len(clusterer.clusters)


def renew(store: StoreInterface, actor: str | None = None, progress: bool = False,
          reembedded: Callable[[], bool] = lambda: False) -> dict | None:
    """Make the store's clusters again when they were made otherwise than memlib places
    fragments now (`memlib maintain`, and `memlib reembed` at its end):
    - by another method (or one not recorded): at today's default threshold, since a threshold
      belongs to the method it was chosen for;
    - at another threshold of today's method: kept (it was asked for: `Consensus(threshold=)`);
    - over another model than the store's: every fragment is embedded again with the store's
      model first (`embed_again`), so fragments compare in one space with each other and the
      queries. A store that recorded no rule is taken to be embedded with its model unless
      `reembedded()` says a `memlib reembed` run has moved it (asked only then: the caller
      reads the audit log, memlib.lifecycle.reembed.runs).
    Returns None when there was nothing to do, else what was done."""
    fragments = store.concept_table(FRAGMENTS)
    if fragments is None or not fragments.count_rows():
        return None
    made = _recorded(store.concept_table(CLUSTERS))
    wanted = _rule(_kept_threshold(made), store.model_name)
    if made == wanted:
        return None
    consensus = Consensus(store, wanted["threshold"])
    moved = made.get("model") != store.model_name if made is not None else reembedded()
    embedded = consensus.embed_again(progress) if moved else 0
    clusters = consensus.rebuild(actor)
    return {"clusters": clusters, "fragments_embedded": embedded, "made_by": made, "now": consensus.rule()}


def _next_arrival(arrivals: list[int | None]) -> int:
    """The arrival of the fragment received after these (None: one stored before arrivals were)."""
    return 1 + max((a for a in arrivals if a is not None), default=-1)


def _rule(threshold: float, model: str) -> dict:
    """The rule of clusters made today at `threshold` over `model` (Consensus.rule)."""
    return {"method": clustering.METHOD, "neighbours": clustering.NEIGHBOURS, "threshold": threshold, "model": model}


def _is_threshold(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and -1.0 <= value <= 1.0


def _kept_threshold(made: dict | None) -> float:
    """The threshold clusters `made` by today's method were made at; else the default (a
    threshold belongs to the method it was chosen for)."""
    if made is not None and (made.get("method"), made.get("neighbours")) == (clustering.METHOD, clustering.NEIGHBOURS):
        if _is_threshold(kept := made.get("threshold")):
            return kept
    return clustering.DEFAULT_THRESHOLD


def _metadata(rule: dict) -> dict[str, str]:
    """A rule as a clusters table's schema metadata records it (read back by `_recorded`)."""
    return {META_RULE: json.dumps(rule, sort_keys=True)}


def _recorded(table) -> dict | None:
    """The rule a clusters table records (None: no table, or nothing readable recorded)."""
    raw = None if table is None else (table.schema.metadata or {}).get(META_RULE.encode())
    try:
        made = json.loads(raw) if raw else None
    except ValueError:
        return None
    return made if isinstance(made, dict) else None


def finish_add(store: StoreInterface, promise) -> None:
    """Keep a killed add's promise (store/journal.py): the fragments it stored are placed in
    their clusters, and logged."""
    details = promise.details
    consensus = Consensus(store, threshold=details.get("threshold"))
    with consensus._memory.lock, store.lock.held():
        consensus._complete(details.get("actor"))
    events = promise.events
    if events is None or not len(events):
        return
    ids = events.column("subject_id").to_pylist()
    stored, logged = consensus.stored(ids), store.logged_events(events.column("event_id").to_pylist())
    store.append_events(events.filter(pa.array([i in stored and e not in logged for i, e in zip(
        ids, events.column("event_id").to_pylist())], pa.bool_())))
