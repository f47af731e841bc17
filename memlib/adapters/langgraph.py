"""LangGraph's long-term memory store (`langgraph.store.base.BaseStore`) on memlib.

    from memlib.adapters.langgraph import MemlibStore
    store = MemlibStore(memlib_store, project_id=PROJECT_ID)
    graph = builder.compile(store=store)   # nodes get it as `store` / `runtime.store`

An item is one memory of the project: an insight that never expires, whose text is what
LangGraph indexes of the value (the `index` fields given to `put`, or to the store; the whole
value by default), with the namespace, the key and the value itself in its metadata. Its id is
made from the project, the namespace and the key, so a put replaces it (an upsert: the write
screen links repeats, never merges them) and keeps its `created_at`. A namespace is a scope:
every prefix of it is a tag, so `search(("users", "u1"), query=...)` is memlib's hybrid search
within the project and those tags, recorded as a recall of the store's agent. Filters follow
LangGraph's documented semantics (exact values, nested objects, `$eq $ne $gt $gte $lt $lte`).

As LangGraph's own stores do, a batch reads first and then writes its puts (the last put of a
key wins; a put of None deletes). Not supported: TTLs (`supports_ttl` is false); an item put
with `index=False` is embedded all the same (memlib embeds every memory), and found by a query.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any, Iterable

from memlib.extras import need

need("langgraph", "langgraph", "memlib.adapters.langgraph")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memlib.errors import InvalidInput
from memlib.interface import MemoryInterface
from memlib.models import parse_memory, stable_id
from memlib.scope import Scope

TAG = "langgraph"
SCAN = 1_000_000  # rows read at most for a search without a query, or a namespace listing
CANDIDATES = 200  # hits a query search reads at least before it filters


def namespace_tag(prefix: tuple[str, ...]) -> str:
    """The tag every item under `prefix` carries (a hash: labels may be any text)."""
    return "lg-" + hashlib.sha256(json.dumps(list(prefix)).encode()).hexdigest()[:24]


class MemlibStore(BaseStore):
    """A LangGraph store whose items are memories of one memlib project."""

    supports_ttl = False

    def __init__(self, store: MemoryInterface, project_id: str, agent: str = "langgraph",
                 index: list[str] | None = None, mode: str = "hybrid"):
        store.require([project_id], ["id"])  # refused in one line if there is no such project
        self.store, self.project_id, self.agent, self.fields, self.mode = store, project_id, agent, index, mode

    # -- BaseStore -------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op))
            elif isinstance(op, PutOp):
                puts[(tuple(op.namespace), op.key)] = op
                results.append(None)
            else:
                raise ValueError(f"Unknown operation type: {type(op)}")
        if puts:
            self._put(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- the operations --------------------------------------------------------------------

    def _id(self, namespace: tuple[str, ...], key: str) -> str:
        return stable_id("langgraph", self.project_id, json.dumps(list(namespace)), key)

    def _get(self, op: GetOp) -> Item | None:
        row = self.store.lookup([self._id(tuple(op.namespace), op.key)], ["metadata", "created_at", "updated_at"])
        return next((_item(r) for r in row.values()), None)

    def _scope(self, prefix: tuple[str, ...]) -> Scope:
        return Scope(project_id=self.project_id, tags=(namespace_tag(tuple(prefix)) if prefix else TAG,))

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit <= 0:
            return []
        prefix = tuple(op.namespace_prefix)
        if op.query:
            k = op.offset + op.limit if not op.filter else max(CANDIDATES, 4 * (op.offset + op.limit))
            hits = self.store.recall(op.query, k=k, mode=self.mode, scope=self._scope(prefix), agent=self.agent,
                                     tool="langgraph")
            found = [(_item(vars(h.memory)), h.score) for h in hits]
        else:
            rows = self.store.rows(self._scope(prefix).where(self.store.clock.now()), SCAN,
                                   columns=["metadata", "created_at", "updated_at"])
            found = sorted(((_item(r), None) for r in rows),
                           key=lambda pair: (-pair[0].updated_at.timestamp(), pair[0].namespace, pair[0].key))
        found = [(item, score) for item, score in found if not op.filter or matches(item.value, op.filter)]
        return [SearchItem(namespace=item.namespace, key=item.key, value=item.value, created_at=item.created_at,
                           updated_at=item.updated_at, score=score)
                for item, score in found[op.offset:op.offset + op.limit]]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        rows = self.store.rows(self._scope(()).where(self.store.clock.now()), SCAN, columns=["metadata"])
        spaces = {tuple(json.loads(r["metadata"])["langgraph"]["namespace"]) for r in rows}
        if op.match_conditions:
            spaces = {ns for ns in spaces if all(_matches_path(c, ns) for c in op.match_conditions)}
        if op.max_depth is not None:
            spaces = {ns[:op.max_depth] for ns in spaces}
        return sorted(spaces)[op.offset:op.offset + op.limit]

    def _put(self, ops: list[PutOp]) -> None:
        ids = {(tuple(op.namespace), op.key): self._id(tuple(op.namespace), op.key) for op in ops}
        stored = self.store.lookup(list(ids.values()), ["created_at"])
        gone = [ids[(tuple(op.namespace), op.key)] for op in ops if op.value is None]
        memories = []
        for op in ops:
            if op.value is None:
                continue
            namespace = tuple(op.namespace)
            memory_id = ids[(namespace, op.key)]
            now = self.store.clock.now()
            try:
                text = self._text(op)
            except (TypeError, ValueError) as exc:  # a value JSON cannot hold: a persistent store cannot either
                raise InvalidInput(f"item {'/'.join(namespace)}/{op.key}: its value is not JSON ({exc})") from None
            memories.append(parse_memory(dict(  # an item memlib cannot hold is refused in one line
                kind="insight", id=memory_id, project_id=self.project_id, agent=self.agent, source="agent",
                ttl_days=-1, content=text,
                tags=[TAG, *(namespace_tag(namespace[:n]) for n in range(1, len(namespace) + 1))],
                metadata={"langgraph": {"namespace": list(namespace), "key": op.key, "value": op.value}},
                created_at=stored[memory_id]["created_at"] if memory_id in stored else now, updated_at=now),
                f"item {'/'.join(namespace)}/{op.key}"))
        if memories:
            self.store.upsert(memories, actor=self.agent)
        gone = [i for i in gone if i in stored]
        if gone:
            self.store.delete(gone, actor=self.agent)

    def _text(self, op: PutOp) -> str:
        """What is embedded and indexed of an item: its `index` fields, else the store's,
        else the whole value."""
        fields = op.index if isinstance(op.index, list) else self.fields
        if not fields or fields == ["$"]:
            return json.dumps(op.value, ensure_ascii=False, sort_keys=True)
        parts = [_at(op.value, path) for path in fields]
        text = "\n".join(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in parts if p is not None)
        return text or json.dumps(op.value, ensure_ascii=False, sort_keys=True)


def matches(value: Any, condition: Any) -> bool:
    """LangGraph's filter on an item's value: exact values, nested objects and lists compared
    as JSON, and the operators $eq $ne $gt $gte $lt $lte (numbers compared as numbers)."""
    if isinstance(condition, dict):
        if any(k.startswith("$") for k in condition):
            return all(_operator(value, op, wanted) for op, wanted in condition.items())
        return isinstance(value, dict) and all(matches(value.get(k), v) for k, v in condition.items())
    if isinstance(condition, (list, tuple)):
        return isinstance(value, (list, tuple)) and len(value) == len(condition) and all(
            matches(v, c) for v, c in zip(value, condition))
    return value == condition


def _operator(value: Any, op: str, wanted: Any) -> bool:
    if op == "$eq":
        return value == wanted
    if op == "$ne":
        return value != wanted
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"Unsupported operator: {op}")
    try:
        left, right = float(value), float(wanted)
    except (TypeError, ValueError):
        return False
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[op]


def _matches_path(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path) if condition.match_type == "prefix" else zip(reversed(namespace), reversed(path))
    return all(p == "*" or n == p for n, p in pairs)


def _at(value: dict, path: str) -> Any:
    """A field of the value by LangGraph's dotted path (`a.b`, `a[0]`, `a[*].b` left whole)."""
    current: Any = value
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("[") and part.endswith("]") and part[1:-1].lstrip("-").isdigit() and isinstance(current, list):
            index = int(part[1:-1])
            current = current[index] if -len(current) <= index < len(current) else None
        elif isinstance(current, dict):
            current = current.get(part)
        else:
            return None
    return current


def _item(row: dict) -> Item:
    """The item a memory holds, from its row (metadata as JSON text) or the memory's fields."""
    meta = row["metadata"]
    saved = (json.loads(meta) if isinstance(meta, str) else meta)["langgraph"]
    return Item(value=saved["value"], key=saved["key"], namespace=tuple(saved["namespace"]),
                created_at=row["created_at"], updated_at=row["updated_at"])
