"""MemoryStore: the store as agents use it, with search, recall and maintenance.

It adds to `memlib.store.Store` what needs the concepts built on the store: scoped hybrid
search from the search package (with its in-memory vector cache) and `maintain` from the
lifecycle package. Everything that writes still goes through the store underneath.
"""

from __future__ import annotations

import collections
import heapq
import logging
from typing import Any, Mapping, NamedTuple

import numpy as np

from memlib.clock import Clock
from memlib.consensus import duplicates
from memlib.embeddings import Embedder
from memlib.errors import InvalidInput, NotFound, StoreError
from memlib.judges import DEFAULT as DEFAULT_JUDGE, Judge, from_recorded, judge_for, recorded as judge_recorded
from memlib.models import Memory, as_memories, listed, parse_memory, record_label
from memlib.scope import Scope, sql_in
from memlib.search import SearchConfig
from memlib.search.search import Hit, search, vector_candidates
from memlib.search.cache_slot import CacheSlot
from memlib.settings import Settings
from memlib.store import Store

log = logging.getLogger("memlib")
META_SEARCH = "memlib.search"  # the search settings a store records (SearchConfig as JSON)
META_JUDGE = "memlib.judge"  # the judge a store reads its memories with (memlib.judges.recorded)
# the settings of stores made before memlib recorded them, where today's default differs
BEFORE_RECORDED = {"tokenizer": "simple"}


class _Option(NamedTuple):
    """A candidate the write screen judges a new memory against: a stored memory or one
    before it in the batch, with its cosine to the new one."""

    id: str
    cosine: float
    text: str
    kind: str
    created_at: Any
    iteration_id: str | None
    user_id: str | None

    @classmethod
    def of(cls, memory: Memory, cosine: float) -> "_Option":
        return cls(memory.id, cosine, memory.text, memory.kind.value, memory.created_at,
                   getattr(memory, "iteration_id", None), memory.user_id)


OPTION = _Option._fields[2:]  # what the write screen reads of a stored candidate


class MemoryStore(Store):
    """The write/recall half of memlib over any LanceDB URI.

    `settings.vector_cache`: "auto" (the default) keeps the vectors in memory once a version
    of the table is searched twice, "on" at the first search, "off" never."""

    def __init__(self, uri: str, db, table, embedder: Embedder, clock: Clock | None, settings: Settings):
        super().__init__(uri, db, table, embedder, clock, settings)
        self.vectors = CacheSlot(settings.vector_cache, settings.vector_cache_mb)
        # the cache holds this handle's rows: a search counts towards building it, a lookup
        # reads from it, and each append of this handle joins it
        self.hold(lambda searching: self.vectors.get(self) if searching else self.vectors.current(self))
        self.listen(self.vectors.appended)
        self.search_config = SearchConfig()
        self.workspace = None  # a memlib.workspace.Workspace the memories saved here go to
        self.judged_by: tuple[str | None, Judge] | None = None  # (what the store recorded, that judge)

    def add(self, memories, vectors=None, progress: bool = False, labels=None,
            actor: str | Mapping[str, str] | None = None, duplicates: str = "merge",
            user_id: str | None = None, project_id: str | None = None) -> list[str]:
        """See `Store.add`. With a workspace configured, what was saved is also appended to
        its markdown files (memlib.workspace.Workspace.saved)."""
        memories = as_memories(memories, user_id, project_id)
        if self.workspace is None:
            return super().add(memories, vectors, progress, labels, actor, duplicates)
        items = listed(memories)
        labels = list(labels) if labels is not None else [record_label(i, m) for i, m in enumerate(items)]
        items = [m if isinstance(m, Memory) else parse_memory(m, label) for m, label in zip(items, labels)]
        ids = super().add(items, vectors, progress, labels, actor, duplicates)
        if not isinstance(actor, Mapping):
            self.workspace.saved(self, items, actor=actor)
            return ids
        for writer in dict.fromkeys(actor.values()):  # each writer's, in the order they came
            self.workspace.saved(self, [m for m in items if actor.get(m.id) == writer], actor=writer)
        return ids

    @property
    def tokenizer(self) -> str:
        """The full-text index's, as the store records it among its search settings."""
        return self.search_config.tokenizer

    def screen(self, batch: list[Memory], vectors: np.ndarray, positions: list[int], policy: str) -> list:
        """See Store.screen: the cheap, certain checks a write makes. Each new memory of a kind
        that states something (consensus.duplicates.KINDS) is compared with the nearest stored
        memories of those kinds in its project (from the in-memory vectors when this process
        holds them, else Lance) and with those before it in the batch: one of its own kind it
        repeats is a duplicates.Match (duplicates.judge: the same normalised text, or a close
        cosine and the same numbers, negations and names). Whether it contradicts or updates
        one is read after the write, by the store's judge (memlib.judges.reading). Projects
        with many new memories in the batch have their stored rows read in one scan instead,
        and each memory is compared with the CANDIDATES nearest of those and of the memories
        before it in the batch close enough to be a near repeat (an exact repeat in the batch
        is found by its text); past duplicates.WITHIN new memories of one project, with the
        memories before it by their normalised text only."""
        groups: dict[str, list[int]] = {}
        for i in positions:
            memory = batch[i]
            if memory.kind.value in duplicates.KINDS and getattr(memory, "project_id", None):
                groups.setdefault(memory.project_id, []).append(i)
        found: list = []
        for project_id, members in groups.items():
            if len(members) <= duplicates.SMALL:
                found += self._screen_few(batch, vectors, members, Scope(project_id=project_id, kinds=duplicates.KINDS))
        many = {p: members for p, members in groups.items() if len(members) > duplicates.SMALL}
        if many:
            found += self._screen_many(batch, vectors, many)
        return found

    def _screen_few(self, batch, vectors, members, scope) -> list:
        cache, found, matched = self.cached(), [], {}
        unit = duplicates.unit_rows(vectors[members])
        for n, i in enumerate(members):
            near = vector_candidates(self, vectors[i], duplicates.CANDIDATES, scope, self.search_config,
                                     now=self.clock.now(), cache=cache)
            rows = self.lookup([memory_id for memory_id, _ in near], list(OPTION)) if near else {}
            options = [_Option(memory_id, score, *(rows[memory_id][c] for c in OPTION))
                       for memory_id, score in near if memory_id in rows]
            options += [_Option.of(batch[j], float(unit[n] @ unit[m])) for m, j in enumerate(members[:n])]
            found += self._repeated(batch, i, options, matched)
        return found

    @staticmethod
    def _repeated(batch, i, options, matched) -> list:
        """The option of its own kind, iteration and person batch[i] repeats, as a one-item
        list (an iteration's knowledge is its own: a later iteration may find again what an
        earlier one did; two people may each hold the same preference)."""
        memory = batch[i]
        match = duplicates.best(memory.text, [(o.id, o.cosine, o.text, o.created_at) for o in options
                                              if o.kind == memory.kind.value
                                              and o.iteration_id == getattr(memory, "iteration_id", None)
                                              and o.user_id == memory.user_id])
        if match is None:
            return []
        of, kind, score = match
        matched[memory.id] = of = matched.get(of, of)  # a batch-mate that repeats one: that one
        return [duplicates.Match(i, of, kind, score, memory.project_id)]

    def _screen_many(self, batch, vectors, groups: dict[str, list[int]]) -> list:
        """`screen` for the projects of `groups` ({project: positions}), their stored rows in
        one scan, the nearest found by one matrix product for each duplicates.BLOCK members."""
        scope = Scope(kinds=duplicates.KINDS, any_of=tuple(Scope(project_id=p) for p in groups))
        rows = self.dataset().to_table(columns=["id", "project_id", *OPTION, "embedding"],
                                       filter=scope.where(self.clock.now()))
        stored = duplicates.unit_rows(
            rows.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, self.dims))
        ids, texts, kinds, created, iterations, users = (
            rows.column(c).to_pylist() for c in ("id", *OPTION))
        of_project = collections.defaultdict(list)
        for row, project_id in enumerate(rows.column("project_id").to_pylist()):
            of_project[project_id].append(row)
        found = []
        for project_id, members in groups.items():
            matched, mine = {}, np.array(of_project.get(project_id, []), dtype=np.int64)
            mates = duplicates.nearest_earlier(vectors, members) if len(members) <= duplicates.WITHIN else {}
            said = {j: _Option.of(batch[j], 0.0) for near in mates.values() for j, _ in near}  # each read once
            for block, cosines, nearest in duplicates.nearest(vectors, members, stored[mine]):
                for i, near, rows_near in zip(block, cosines.tolist(), mine[nearest].tolist()):
                    iteration, user = getattr(batch[i], "iteration_id", None), batch[i].user_id
                    options = [_Option(ids[t], cosine, texts[t], kinds[t], created[t], iteration, user)
                               for cosine, t in zip(near, rows_near)
                               if iterations[t] == iteration and users[t] == user]
                    options += [said[j]._replace(cosine=cosine) for j, cosine in mates.get(i, ())]
                    options = heapq.nlargest(duplicates.CANDIDATES, options, key=lambda o: o.cosine)  # stable
                    found += self._repeated(batch, i, options, matched)
            found += self._repeats_within(batch, members, found)
        return found

    @staticmethod
    def _repeats_within(batch, members: list[int], found: list) -> list:
        """The exact repeats among `members` of one another (normalised text), those found
        to repeat a stored memory already (`found`) aside."""
        of = {f.position: f.of for f in found if isinstance(f, duplicates.Match)}
        first, repeats = {}, []
        for i in members:
            key = (batch[i].kind.value, getattr(batch[i], "iteration_id", None), batch[i].user_id,
                   duplicates.normalised(batch[i].text))
            if key in first and i not in of:
                j = first[key]
                of[i] = of.get(j, batch[j].id)  # a batch-mate that repeats one: that one
                repeats.append(duplicates.Match(i, of[i], "exact", 1.0, batch[i].project_id))
            first.setdefault(key, i)
        return repeats

    @property
    def judge(self) -> Judge:
        """The judge the store reads its memories with (memlib.judges), as it records it."""
        text = self.meta().get(META_JUDGE)
        if self.judged_by is None or self.judged_by[0] != text:
            self.judged_by = (text, from_recorded(text))
        return self.judged_by[1]

    def use_judge(self, judge: Judge | str) -> Judge:
        """Record `judge` (a Judge, or its name: "rules", "none", "nli:DIR") as the one the
        store reads with from now on. What it has not read is unread again (`memlib screen`)."""
        judge = judge_for(judge) if isinstance(judge, str) else judge
        if judge_recorded(judge) != judge_recorded(self.judge):
            self.record_setting(META_JUDGE, judge_recorded(judge))
        return self.judge

    def read_unread(self, everything: bool = False, progress: bool = False, wait: bool = False) -> dict[str, Any]:
        """Have the store's judge read the memories it has not read (memlib.judges.reading):
        what contradicts and what updates what, recorded in the audit log. `wait`: for
        another process reading this store to finish, rather than leave the work to it."""
        from memlib.judges import reading

        self.check_writable()
        return reading.read(self, everything=everything, progress=progress, wait=wait)

    def unread(self, ids: list[str] | None = None) -> int:
        """How many knowledge memories (of `ids`, or of the store) the judge has not read yet:
        `disagreements` cannot say anything of those."""
        from memlib.judges import reading

        return reading.unread(self) if ids is None else reading.unread_of(self, ids)

    def disagreements(self, ids: list[str] | None = None) -> list[dict[str, Any]]:
        """The open contradictions the store's judge found (memlib.judges.reading), of `ids`
        (all when None): one dict per pair, with both ids, the kind, which of the two is newer
        and how well each is supported (1 + the writers who repeated it: 'corroborate'
        events). A pair is closed once either side is gone from the store (corrected,
        forgotten) or it was resolved (`resolve_disagreement`). Memories not read yet have
        none (`unread`)."""
        spec = self.judge.spec
        where = "action IN ('contradiction', 'resolve')"
        if ids is not None:
            if not ids:
                return []
            where += " AND " + sql_in("subject_id", sorted(set(ids)))
        pairs: dict[frozenset, dict] = {}
        for event in self.audit_events(where):  # oldest first: a resolve closes what came before it
            pair = frozenset({event["subject_id"], event["details"]["with"]})
            if event["action"] == "resolve":
                pairs.pop(pair, None)
            elif event["details"].get("judge", DEFAULT_JUDGE) == spec:  # another judge's reading is history
                pairs[pair] = {"ids": sorted(pair), "kind": event["details"]["kind"],
                               "newer": event["details"]["newer"]}
        if not pairs:
            return []
        both = sorted({i for pair in pairs for i in pair})
        live = self.lookup(both, ["id"])
        support = collections.Counter(e["subject_id"] for e in self.audit_events(
            "action = 'corroborate' AND " + sql_in("subject_id", both)))
        out = []
        for pair, found in pairs.items():
            if all(i in live for i in pair):
                out.append({**found, "support": {i: 1 + support[i] for i in found["ids"]}})
        return sorted(out, key=lambda d: d["ids"])

    def resolve_disagreement(self, memory_id: str, other_id: str, reason: str, actor: str | None = None) -> None:
        """Close a flagged pair, both kept ("both hold": different times, different things).
        To keep one instead, correct or forget the other (memlib.lifecycle.curation)."""
        self.check_writable()
        if not reason or not reason.strip():
            raise InvalidInput("resolving a contradiction needs a reason (--reason)")
        if not any(set(d["ids"]) == {memory_id, other_id} for d in self.disagreements([memory_id])):
            raise NotFound(f"no open contradiction between {memory_id} and {other_id}")
        self.log_event("resolve", [memory_id, other_id], actor=actor,
                       details=[{"with": other_id, "reason": reason}, {"with": memory_id, "reason": reason}])

    @classmethod
    def open(cls, uri: str | None = None, embedder: Embedder | None = None, create: bool = True,
             as_of=None, clock: Clock | None = None, search: SearchConfig | None = None,
             workspace=None, settings: Settings | None = None, vector_cache: str | None = None,
             max_staleness: float | None = None, version: int | str | None = None,
             judge: Judge | str | None = None) -> "MemoryStore":
        """See `Store.open`. `search`: the search settings a new store records (fusion,
        weights, candidates; the defaults when not given). A store searches with what it
        recorded whoever opens it; asking an existing store for other settings is refused.
        `workspace`: a markdown workspace folder (memlib.workspace) saves go to.
        `vector_cache`: a flag over `settings.vector_cache`. `judge`: the judge a new store
        reads its memories with (memlib.judges; "rules" when not given); an existing store
        keeps the one it records (`use_judge` changes it)."""
        judge = judge_for(judge) if isinstance(judge, str) else judge
        settings = Settings.at_edge(settings, store=uri, vector_cache=vector_cache, max_staleness=max_staleness)
        store = super().open(None, embedder, create, as_of, clock,
                             recorded={META_SEARCH: (search or SearchConfig()).to_json(),
                                       META_JUDGE: judge_recorded(judge or judge_for())}, settings=settings,
                             version=version)
        if workspace is not None:
            from memlib.workspace import Workspace

            store.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
            store.workspace.config  # noqa: B018 (refused here, in one line, if it is not one)
        text = store.meta().get(META_SEARCH)
        if text is None:  # a store from before memlib recorded its search: the defaults then
            store.search_config = search or SearchConfig(**BEFORE_RECORDED)
        else:
            store.search_config = SearchConfig.from_json(text, f"store {store.uri!r}", missing=BEFORE_RECORDED)
        if text is not None and search is not None and search != store.search_config:
            mine, given = store.search_config.model_dump(), search.model_dump()
            differ = ", ".join(f"{k} {mine[k]!r} (not {given[k]!r})" for k in mine if mine[k] != given[k])
            raise StoreError(f"store {store.uri!r} was created to search with {differ}; "
                             f"a store keeps the search settings it records")
        if judge is not None and judge_recorded(judge) != judge_recorded(store.judge):
            raise StoreError(f"store {store.uri!r} reads its memories with the judge {store.judge.spec!r}, "
                             f"not {judge.spec!r}; 'memlib screen --all --judge {judge.spec}' changes it")
        store.finish_unfinished()  # what a writer killed between its commits left undone
        return store

    @staticmethod
    def connect(url: str | None = None, token: str | None = None, settings: Settings | None = None):
        """A memory server's store (memlib serve), through its REST API: add, get, search,
        recall, revise, correct, forget, history, sessions, context and the agent tools with
        the results an embedded store gives (memlib.server.client). `url` and `token` over
        `settings.server` and `settings.token` ($MEMLIB_SERVER, $MEMLIB_TOKEN)."""
        from memlib.server.client import Client

        settings = Settings.at_edge(settings, server=url, token=token)
        if not settings.server:
            raise InvalidInput("give the memory server's URL (or set $MEMLIB_SERVER)")
        return Client(settings.server, settings.token)

    def search(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               vector: np.ndarray | None = None) -> list[Hit]:
        """`vector`: the query's embedding if the caller already has it (skips embedding).
        Searches with the settings the store recorded (`search_config`)."""
        return search(self, text, k=k, mode=mode, scope=scope, config=self.search_config,
                      vector=vector)

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

    def maintain(self, progress: bool = False, **options: Any) -> dict[str, Any]:
        """Flush recalls, fold usage into memories, compact, index, keep the as-of window's
        versions and clean up the rest (memlib.lifecycle.maintenance: `history_days`, `grace`,
        `vector_index`)."""
        from memlib.lifecycle.maintenance import maintain

        return maintain(self, progress=progress, **options)
