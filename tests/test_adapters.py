"""memlib inside the agent frameworks: LangGraph's BaseStore checked operation by operation
against LangGraph's own InMemoryStore (the reference for the documented get, put, delete,
search filter/limit/offset and list_namespaces semantics), its query search and async
methods, a compiled LangGraph graph using it as its store, and the LangChain retriever."""

from __future__ import annotations

import random

import anyio
import pytest

pytest.importorskip("langgraph")

from langgraph.store.base import ListNamespacesOp, MatchCondition  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

from memlib import MemoryStore, Project  # noqa: E402
from memlib.adapters.langgraph import MemlibStore, matches  # noqa: E402
from memlib.embeddings import HashEmbedder  # noqa: E402
from memlib.errors import InvalidInput, InvalidMemory, NotFound  # noqa: E402

LABELS = ["users", "u1", "u2", "memories", "prefs", "docs", "v1"]


@pytest.fixture
def project_store(tmp_path):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=HashEmbedder())
    project = Project(name="assistant")
    store.add([project])
    return store, project


def plain(items) -> set:
    return {(i.namespace, i.key, repr(sorted(i.value.items()))) for i in items}


def test_every_operation_agrees_with_langgraphs_own_store(project_store):
    store, project = project_store
    ours, reference = MemlibStore(store, project.id), InMemoryStore()
    rng = random.Random(7)
    namespaces = [tuple(rng.choice(LABELS) for _ in range(rng.randint(1, 3))) for _ in range(12)]
    keys = [f"k{i}" for i in range(6)]
    for step in range(120):
        ns, key = rng.choice(namespaces), rng.choice(keys)
        if rng.random() < 0.2:
            ours.delete(ns, key)
            reference.delete(ns, key)
        else:
            value = {"n": rng.randint(0, 9), "tag": rng.choice(["a", "b", "c"]), "nested": {"x": rng.randint(0, 2)},
                     "text": f"note {step} about {rng.choice(['coffee', 'tea', 'deadlines'])}"}
            ours.put(ns, key, value)
            reference.put(ns, key, value)
        if step % 10 == 9:
            for ns_ in namespaces:
                for k in keys:
                    mine, theirs = ours.get(ns_, k), reference.get(ns_, k)
                    assert (mine is None) == (theirs is None), (ns_, k)
                    if mine is not None:
                        assert (mine.value, mine.key, mine.namespace) == (theirs.value, theirs.key, theirs.namespace)
    for prefix in [(), ("users",), namespaces[0][:1], namespaces[3], ("nowhere",)]:
        for where in [None, {"tag": "a"}, {"n": {"$gte": 5}}, {"n": {"$lt": 3}, "tag": {"$ne": "b"}},
                      {"nested": {"x": 1}}, {"n": {"$gt": 2, "$lte": 7}}]:
            everything = ours.search(prefix, filter=where, limit=1000)
            assert plain(everything) == plain(reference.search(prefix, filter=where, limit=1000)), (prefix, where)
            pages = [item for offset in range(0, len(everything) + 3, 3)
                     for item in ours.search(prefix, filter=where, limit=3, offset=offset)]
            assert [(i.namespace, i.key) for i in pages] == [(i.namespace, i.key) for i in everything]
    for kwargs in [{}, {"prefix": ("users",)}, {"suffix": ("memories",)}, {"prefix": ("users", "*")},
                   {"max_depth": 1}, {"max_depth": 2, "prefix": ("users",)}, {"limit": 3, "offset": 2}]:
        assert ours.list_namespaces(**kwargs) == reference.list_namespaces(**kwargs), kwargs
    conditions = (MatchCondition("prefix", ("users", "*")), MatchCondition("suffix", ("prefs",)))
    both = [ListNamespacesOp(match_conditions=conditions), ListNamespacesOp(match_conditions=conditions, max_depth=2)]
    assert ours.batch(both) == reference.batch(both)


def test_the_filter_follows_langgraphs_documented_semantics():
    value = {"score": 4.5, "color": "red", "meta": {"lang": "en", "n": 2}, "tags": ["a", "b"]}
    assert matches(value, {"color": "red"}) and not matches(value, {"color": "blue"})
    assert matches(value, {"score": {"$gt": 4.0, "$lte": 4.5}}) and not matches(value, {"score": {"$gt": 4.5}})
    assert matches(value, {"meta": {"lang": "en"}}) and not matches(value, {"meta": {"lang": "fr"}})
    assert matches(value, {"tags": ["a", "b"]}) and not matches(value, {"tags": ["a"]})
    assert matches(value, {"missing": {"$ne": 1}}) and not matches(value, {"missing": {"$gt": 1}})
    with pytest.raises(ValueError, match="Unsupported operator"):
        matches(value, {"score": {"$near": 1}})


def test_a_query_search_finds_by_meaning_within_the_namespace_and_is_a_recall(project_store):
    store, project = project_store
    ours = MemlibStore(store, project.id, agent="planner")
    ours.put(("users", "u1"), "drink", {"text": "prefers green tea in the morning"})
    ours.put(("users", "u1"), "deadline", {"text": "the tax report is due on Friday"}, index=["text"])
    ours.put(("users", "u2"), "drink", {"text": "prefers green tea, no sugar"})
    hits = ours.search(("users", "u1"), query="green tea morning", limit=2)
    assert [h.key for h in hits][:1] == ["drink"] and all(h.namespace == ("users", "u1") for h in hits)
    assert hits[0].score is not None and hits[0].score >= hits[-1].score
    assert {h.namespace for h in ours.search(("users",), query="green tea", limit=10)} == {("users", "u1"), ("users", "u2")}
    assert ours.search(("users",), query="green tea", filter={"text": "prefers green tea, no sugar"})[0].key == "drink"
    first = ours.get(("users", "u1"), "drink")
    ours.put(("users", "u1"), "drink", {"text": "switched to coffee"})
    again = ours.get(("users", "u1"), "drink")
    assert again.value == {"text": "switched to coffee"} and again.created_at == first.created_at
    assert again.updated_at > first.updated_at
    store.refresh()
    assert {(e["agent"], e["tool"]) for e in store.spooled_recalls()} == {("planner", "langgraph")}
    assert store.count() == 1 + 3  # the project and three items: a put replaced, nothing added twice


def test_the_async_methods_and_a_missing_project(project_store):
    store, project = project_store
    ours = MemlibStore(store, project.id)

    async def script():
        await ours.aput(("docs",), "a", {"title": "runbook"})
        got = await ours.aget(("docs",), "a")
        found = await ours.asearch(("docs",))
        spaces = await ours.alist_namespaces()
        await ours.adelete(("docs",), "a")
        return got, found, spaces, await ours.aget(("docs",), "a")

    got, found, spaces, gone = anyio.run(script)
    assert got.value == {"title": "runbook"} and [f.key for f in found] == ["a"] and spaces == [("docs",)]
    assert gone is None
    with pytest.raises(NotFound):
        MemlibStore(store, "no-such-project")
    before = store.count()
    with pytest.raises(InvalidInput, match="item docs/b: its value is not JSON"):
        ours.put(("docs",), "b", {"handle": object()})
    with pytest.raises(InvalidMemory, match="item docs/c: field 'content'"):  # a pydantic error before
        ours.put(("docs",), "c", {"text": "x" * 20_000})
    assert store.count() == before


def test_a_langgraph_graph_keeps_its_memory_in_memlib(project_store):
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.store.base import BaseStore

    store, project = project_store

    class State(TypedDict):
        user: str
        said: str
        recalled: list[str]

    def remember(state: State, *, store: BaseStore):
        store.put(("users", state["user"], "memories"), f"m{len(state['said'])}", {"text": state["said"]})
        return {}

    def recall(state: State, *, store: BaseStore):
        items = store.search(("users", state["user"]), query=state["said"], limit=3)
        return {"recalled": [i.value["text"] for i in items]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=MemlibStore(store, project.id, agent="graph"))
    graph.invoke({"user": "u7", "said": "I am allergic to peanuts", "recalled": []})
    out = graph.invoke({"user": "u7", "said": "what am I allergic to, peanuts?", "recalled": []})
    assert "I am allergic to peanuts" in out["recalled"]
    store.refresh()
    written = [m for m in store.rows("kind = 'insight'", 10)]
    assert len(written) == 2 and {m["agent"] for m in written} == {"graph"}


def test_the_langchain_retriever(project_store):
    pytest.importorskip("langchain_core")
    from memlib.adapters.langchain import MemlibRetriever
    from memlib import Insight

    store, project = project_store
    other = Project(name="elsewhere")
    store.add([other])
    store.add([Insight(project_id=project.id, content="Ledger retries need an idempotency key"),
               Insight(project_id=project.id, content="The cache TTL is ten minutes"),
               Insight(project_id=other.id, content="Ledger retries elsewhere")])
    docs = MemlibRetriever(store=store, project_id=project.id, k=2).invoke("ledger retries idempotency")
    assert docs[0].page_content == "Ledger retries need an idempotency key"
    assert {d.metadata["project_id"] for d in docs} == {project.id} and docs[0].metadata["rank"] == 1
    assert {(e["agent"], e["tool"]) for e in store.spooled_recalls()} == {("langchain", "langchain")}
