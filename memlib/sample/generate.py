"""`memlib sample`: a realistic, deterministic corpus of agent memories and a recall history.

The same size, seed and anchor date always give the same memories, ids and events. Memories
are spread over the 240 days before the anchor; root tasks have a topic (a component and a
technology) that their sub tasks and knowledge mostly share. Popularity is skewed: a few
memories are recalled a lot, most never. Events older than two weeks are folded into usage
counts, the last two weeks are left for `maintain`, as in a store nobody maintained lately.

The store is written as the history it describes: each day's memories are one commit made
with the store's clock set to the end of that day, and the usage fold happens two weeks
before the anchor. So a report as of any day of the span reads the store as it was then.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memlib.interface import StoreInterface
from memlib.sample import quality
from memlib.sample import text as T
from memlib.errors import InvalidInput
from memlib.models import (
    title_key,
    Conversation, Decision, Insight, Issue, Learning, Manual, Memory, Pattern, Project, RootTask,
    SubTask, Summary,
)
from memlib.store.recall_log import SCHEMA as RECALL_SCHEMA

SPAN_DAYS = 240
UNFOLDED_DAYS = 14
DEFAULT_SIZE = 2_000
MAX_SIZE = 1_000_000
MODEL_VECTORS_MAX = 20_000      # above this, "auto" uses approximate vectors
KIND_SHARES = [  # of the memories that are not projects
    (RootTask, 0.08), (Decision, 0.05), (Pattern, 0.03), (Insight, 0.09), (Issue, 0.07),
    (Learning, 0.07), (Conversation, 0.14), (Summary, 0.04), (Manual, 0.03),
]                                # sub tasks take the rest (~40%)
TTL_CHOICES = [7, 14, 30, 60, 90, 180, 365, -1]
COMPACT_EVERY = 16               # days of history between compactions while writing it


@dataclass
class Generated:
    memories: list[Memory]
    topics: list[str]            # per memory, the topic text its approximate vector is built on


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _project_names(n: int, rng: random.Random) -> list[tuple[str, str]]:
    names = list(T.PROJECT_NAMES[:n])
    combos = [(f"{p}-{s}", f"The {p} {s}: owns {p} data and its {s} for the platform")
              for p in T.PROJECT_PREFIXES for s in T.PROJECT_SUFFIXES]
    rng.shuffle(combos)
    return names + combos[: max(0, n - len(names))]


class _Writer:
    """Fills templates from the phrase banks around one topic."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def topic(self) -> dict[str, str]:
        r = self.rng
        return {"component": r.choice(T.COMPONENTS), "tech": r.choice(T.TECH)}

    def fill(self, templates: list[str], topic: dict[str, str], **extra: Any) -> str:
        r = self.rng
        ctx = {"tech2": r.choice(T.TECH), "problem": r.choice(T.PROBLEMS),
               "condition": r.choice(T.CONDITIONS), "tool": r.choice(T.TOOLS),
               "metric": r.choice(T.METRICS), "field": r.choice(T.FIELDS),
               "iteration": r.randint(1, 20), **topic, **extra}
        text = r.choice(templates).format(**ctx)
        if r.random() < 0.6:  # the specifics that make real notes differ from each other
            ticket = lambda: f"{r.choice(T.TICKET_PREFIXES)}-{r.randint(100, 9999)}"  # noqa: E731
            text += " " + r.choice(T.DETAILS).format(
                env=r.choice(T.ENVS), release=f"{r.randint(1, 4)}.{r.randint(0, 40)}.{r.randint(0, 9)}",
                ticket=ticket(), ticket2=ticket(), person=r.choice(T.PEOPLE),
                weekday=r.choice(T.WEEKDAYS), pct=r.randint(1, 60), tool=r.choice(T.TOOLS))
        return text[0].upper() + text[1:]


def _common(rng: random.Random, created: datetime, kind_ttl: int) -> dict[str, Any]:
    source = rng.choices([s for s, _ in T.SOURCES], weights=[w for _, w in T.SOURCES])[0]
    base = {"manual": 95, "user": 85, "import": 75, "summarizer": 80, "agent": 72}[source]
    confidence = int(min(100, max(0, round(rng.gauss(base, 14)))))
    ttl = rng.choice(TTL_CHOICES) if rng.random() < 0.15 else kind_ttl
    return {
        "id": _uuid(rng), "source": source, "agent": rng.choice(T.AGENTS) if source == "agent" else None,
        "created_at": created, "updated_at": created + timedelta(minutes=rng.randint(0, 600)),
        "confidence": confidence, "ttl_days": ttl,
        "tags": rng.sample(T.TAGS, k=rng.choice([0, 1, 1, 2, 2, 3])),
        "manual_promote_flag": rng.random() < 0.03,
        "metadata": {"generator": "memlib.sample"},
    }


def _between(rng: random.Random, start: datetime, end: datetime, max_days: float | None = None) -> datetime:
    span = (end - start).total_seconds()
    if max_days is not None:
        span = min(span, max_days * 86400)
    return start + timedelta(seconds=rng.random() * max(span, 0.0))


def generate(size: int, seed: int, anchor: datetime) -> Generated:
    """The corpus as typed memories, parents before children."""
    memories, topics = [], []
    for memory, topic in iter_generate(size, seed, anchor):
        memories.append(memory)
        topics.append(topic)
    return Generated(memories, topics)


def _check_size(size: int) -> None:
    if not 20 <= size <= MAX_SIZE:
        raise InvalidInput(f"sample size must be between 20 and {MAX_SIZE:,}, not {size:,}")


def iter_generate(size: int, seed: int, anchor: datetime) -> Iterator[tuple[Memory, str]]:
    """(memory, topic) one at a time, parents before children, so a million fit in memory."""
    _check_size(size)
    rng = random.Random(seed)
    w = _Writer(rng)
    end = anchor - timedelta(hours=1)
    start = anchor - timedelta(days=SPAN_DAYS)
    n_projects = max(3, min(100, size // 1000))
    rest = size - n_projects
    counts = {cls: int(rest * share) for cls, share in KIND_SHARES}
    counts[RootTask] = max(counts[RootTask], n_projects)
    counts[SubTask] = rest - sum(counts.values())

    projects = []
    for name, description in _project_names(n_projects, rng):
        created = start + timedelta(days=rng.random() * 20)
        project = Project(name=name, description=description, **_common(rng, created, -1) | {"ttl_days": -1})
        projects.append(project)
        yield project, _topic_text(w.topic())
    weights = [1.0 / (i + 1) ** 0.8 for i in range(n_projects)]  # some projects are much busier
    roots: list[tuple[RootTask, dict[str, str]]] = []
    for i in range(counts[RootTask]):
        project = projects[i] if i < n_projects else rng.choices(projects, weights)[0]
        topic = w.topic()
        created = _between(rng, project.created_at, end)
        root = RootTask(project_id=project.id, objective=w.fill(T.ROOT_TASK, topic),
                        **_common(rng, created, 90))
        roots.append((root, topic))
        yield root, _topic_text(topic)

    def attach(cls) -> tuple[dict[str, Any], dict[str, str]]:
        root, topic = rng.choice(roots)
        if rng.random() < 0.2:
            topic = w.topic()
        return {"created": _between(rng, root.created_at, end, max_days=45), "root": root}, topic

    for _ in range(counts[SubTask]):
        where, topic = attach(SubTask)
        yield SubTask(root_task_id=where["root"].id, project_id=where["root"].project_id,
                      details=w.fill(T.SUB_TASK, topic),
                      **_common(rng, where["created"], 30)), _topic_text(topic)

    makers = {
        Decision: lambda t: {"title": w.fill(T.DECISION_TITLE, t), "context": w.fill(T.DECISION_CONTEXT, t),
                             "decision": w.fill(T.DECISION_BODY, t), "consequences": w.fill(T.CONSEQUENCES, t)},
        Pattern: lambda t: {"name": f"{rng.choice(T.PATTERN_NAMES)} for the {t['component']}",
                            "description": w.fill(T.INSIGHT, t),
                            "usage_examples": [w.fill(T.USAGE_EXAMPLES, t) for _ in range(rng.randint(1, 3))],
                            "code_example": rng.choice(T.CODE)},
        Insight: lambda t: {"content": w.fill(T.INSIGHT, t), "importance": rng.choices(
            ["critical", "important", "normal"], weights=[5, 25, 70])[0]},
        Issue: lambda t: {"content": w.fill(T.ISSUE, t)},
        Learning: lambda t: {"content": w.fill(T.LEARNING, t)},
        Conversation: lambda t: {"content": w.fill(T.CONVERSATION, t),
                                 "speaker": rng.choice(["user", "assistant"])},
        Summary: lambda t: {"content": w.fill(T.SUMMARY, t)},
        Manual: lambda t: {"content": w.fill(T.MANUAL, t)},
    }
    titles: dict[tuple[str, str], int] = {}  # decision and pattern titles are unique per project
    for cls, make in makers.items():
        for _ in range(counts[cls]):
            where, topic = attach(cls)
            root = where["root"]
            on_root = rng.random() < 0.7
            default_ttl = cls.model_fields["ttl_days"].default
            fields = make(topic)
            title = "title" if cls is Decision else "name" if cls is Pattern else None
            if title:
                key = (root.project_id, title_key(fields[title]))
                titles[key] = titles.get(key, 0) + 1
                if titles[key] > 1:
                    fields[title] = f"{fields[title]} ({titles[key]})"
            yield cls(project_id=root.project_id, root_task_id=root.id if on_root else None,
                      iteration_id=f"iter-{rng.randint(1, 20)}" if on_root else None,
                      **fields, **_common(rng, where["created"], default_ttl)), _topic_text(topic)


def _topic_text(topic: dict[str, str]) -> str:
    return f"{topic['component']} with {topic['tech']}"


def all_topics() -> list[str]:
    return [_topic_text({"component": c, "tech": t}) for c in T.COMPONENTS for t in T.TECH]


def generate_recalls(ids: list[str], created: np.ndarray, seed: int, anchor: datetime,
                     per_memory: float = 3.0) -> pa.Table:
    """A skewed recall history: ~45% of memories are ever recalled, Zipf-distributed.

    `created` holds each memory's created_at in microseconds since the epoch."""
    rng = np.random.default_rng(seed + 1)
    py = random.Random(seed + 2)
    n = len(ids)
    n_events = int(n * per_memory)
    recallable = rng.permutation(n)[: max(1, int(n * 0.45))]
    weights = 1.0 / np.arange(1, len(recallable) + 1) ** 1.1
    picked = recallable[rng.choice(len(recallable), size=n_events, p=weights / weights.sum())]
    end = int(anchor.timestamp() * 1e6)
    offsets = rng.beta(2.0, 1.0, size=n_events)
    recalled = created[picked] + (offsets * (end - created[picked])).astype(np.int64)
    w = _Writer(py)
    queries = [w.fill(T.QUERIES, w.topic()).lower() for _ in range(400)]
    ids = np.array(ids, dtype=object)
    unfolded_from = int((anchor - timedelta(days=UNFOLDED_DAYS)).timestamp() * 1e6)
    ts = pa.timestamp("us", tz="UTC")
    return _with_tools(pa.table({
        "event_id": [str(uuid.UUID(int=py.getrandbits(128), version=4)) for _ in range(n_events)],
        "query_id": [str(uuid.UUID(int=py.getrandbits(128), version=4)) for _ in range(n_events)],
        "query_text": pa.array(np.array(queries, dtype=object)[rng.integers(0, len(queries), n_events)]),
        "memory_id": pa.array(ids[picked]),
        "rank": pa.array(np.minimum(rng.geometric(0.35, n_events), 10).astype(np.int32)),
        "score": pa.array(np.round(rng.uniform(0.35, 0.95, n_events), 4)),
        "mode": pa.array(np.array(["hybrid", "vector", "fts"], dtype=object)[
            rng.choice(3, n_events, p=[0.7, 0.2, 0.1])]),
        "agent": pa.array(np.array(T.AGENTS, dtype=object)[rng.integers(0, len(T.AGENTS), n_events)]),
        "recalled_at": pa.array(recalled, type=ts),
        "flush_id": pa.array(np.where(recalled < unfolded_from, "sample-old", "sample-recent").astype(object)),
        "flushed_at": pa.array(np.where(recalled < unfolded_from, unfolded_from, end), type=ts),
    }))


def _with_tools(events: pa.Table) -> pa.Table:
    """The tool each recall went through: the sample's agents ask `query_memory` (hybrid);
    their vector and full-text recalls are direct. And the session it was made in: its
    agent's session of that day (memlib.sample.control). Derived, so the draws above are
    unchanged."""
    mode = events.column("mode").to_numpy(zero_copy_only=False)
    tool = pa.array(np.where(mode == "hybrid", "query_memory", None).astype(object), pa.string())
    session = pc.binary_join_element_wise("sample-", events["agent"], "-",
                                          pc.strftime(events["recalled_at"], "%Y%m%d"), "")
    return (events.append_column("tool", tool).append_column("session_id", session)
            .select(RECALL_SCHEMA.names).cast(RECALL_SCHEMA))


def approximate_vectors(centroids: dict[str, np.ndarray], topics: list[str], rng: np.random.Generator,
                        noise: float = 0.6) -> np.ndarray:
    """Real embeddings of each memory's topic plus noise: topical structure at any scale."""
    vectors = np.stack([centroids[t] for t in topics])
    vectors = vectors + rng.standard_normal(vectors.shape, dtype=np.float32) * (noise / np.sqrt(vectors.shape[1]))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def build_sample(store: StoreInterface, size: int = DEFAULT_SIZE, seed: int = 7, anchor: datetime | None = None,
                 vectors: str = "auto", progress: bool = False, findings: bool = True) -> dict[str, Any]:
    """Write the sample corpus and its recall history into an empty store, one commit per
    day of the history, each at that day's time by the store's clock; with `findings`, the
    last fortnight's repeats, disagreements, untrusted sources, corrections and removals
    too (memlib/sample/quality.py), as a team's memory holds them."""
    from memlib.lifecycle.vector_index import ensure_vector_index
    from memlib.sample.consensus import build_consensus_sample
    from memlib.sample.control import build_control_sample, write_sessions

    _check_empty(store, size, vectors)
    anchor = anchor or store.clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    if anchor.tzinfo is None:
        anchor = anchor.replace(tzinfo=timezone.utc)
    started = time.perf_counter()
    if vectors == "auto":
        vectors = "model" if size <= MODEL_VECTORS_MAX else "approx"
    generated = list(iter_generate(size, seed, anchor))
    ids = [m.id for m, _ in generated]
    created = np.array([int(m.created_at.timestamp() * 1_000_000) for m, _ in generated], dtype=np.int64)
    given = _approximate(store, generated, seed) if vectors == "approx" else None
    events = generate_recalls(ids, created, seed, anchor)
    fold_at = anchor - timedelta(days=UNFOLDED_DAYS)

    steps = _daily_commits(generated, created)
    folded = 0
    found: dict[str, Any] = {}  # the last fortnight's repeats, corrections ...
    findings = quality.steps(seed, anchor) if findings else []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(ids), desc="sample", unit="memory", disable=None)
    try:
        for step, (when, rows) in enumerate(steps, start=1):
            if step % COMPACT_EVERY == 0:  # as a maintained store would be: few fragments
                store.optimize()
            if fold_at is not None and when > fold_at:
                folded = _fold_old_recalls(store, events, fold_at)
                fold_at = None
            while findings and findings[0][0] < when:  # in time order with the history
                at, finding = findings.pop(0)
                store.clock.set(at)
                finding(store, found)
            store.clock.set(when)
            # a generated history is written as generated: its templates repeat a text now and
            # then, and the generated memories name one another by id
            store.add([generated[i][0] for i in rows], vectors=None if given is None else given[rows],
                      duplicates="keep")
            if bar is not None:
                bar.update(len(rows))
        if fold_at is not None:
            folded = _fold_old_recalls(store, events, fold_at)
        for at, finding in findings:
            store.clock.set(at)
            finding(store, found)
        store.clock.set(anchor)
        store.add_recall_events(events.filter(pc.equal(events["flush_id"], "sample-recent")))
        ensure_vector_index(store)
        store.optimize()
        consensus = build_consensus_sample(store, seed=seed, anchor=anchor)
        days = pc.unique(pc.strftime(events["recalled_at"], "%Y-%m-%d")).to_pylist()
        n_sessions = write_sessions(store, {(a, date.fromisoformat(d)) for a in T.AGENTS for d in days})
        control = build_control_sample(store, T.AGENTS, seed=seed, anchor=anchor)
    finally:
        store.clock.set(None)
        if bar is not None:
            bar.close()
    return {"memories": store.count_rows(), "history": len(ids), "findings": store.count_rows() - len(ids),
            "recall_events": events.num_rows,
            "memories_with_folded_usage": folded, "vectors": vectors, "days": len(steps),
            "consensus_fragments": consensus["fragments"], "consensus_units": consensus["consensus_units"],
            "sessions": n_sessions, "tasks": control["tasks"],
            "anchor": anchor.date().isoformat(), "seconds": round(time.perf_counter() - started, 1)}


def _check_empty(store: StoreInterface, size: int, vectors: str) -> None:
    """Refuse a sample the store cannot take: a size out of bounds, vectors of no known way, or
    a store that already holds memories."""
    if vectors not in ("auto", "model", "approx"):
        raise InvalidInput(f"vectors must be auto, model or approx, not {vectors!r}")
    _check_size(size)
    if store.count_rows():
        raise InvalidInput(f"store {store.uri!r} already holds memories; sample needs an empty store")


def _approximate(store: StoreInterface, generated: list, seed: int) -> np.ndarray:
    """Vectors drawn around the store's model's embedding of each memory's topic."""
    topics = all_topics()
    centroids = dict(zip(topics, store.embedder.embed(topics)))
    return approximate_vectors(centroids, [t for _, t in generated], np.random.default_rng(seed + 3))


def _daily_commits(generated: list, created: np.ndarray) -> list[tuple[datetime, list[int]]]:
    """The history's rows by the day they were made, one commit a day at its last second, in
    time order (parents are created before their children)."""
    days: dict[Any, list[int]] = {}
    for i in np.argsort(created, kind="stable"):
        days.setdefault(generated[i][0].created_at.date(), []).append(int(i))
    return [(datetime.combine(day, datetime.max.time(), tzinfo=timezone.utc).replace(microsecond=0), rows)
            for day, rows in sorted(days.items())]


def _fold_old_recalls(store: StoreInterface, events: pa.Table, when: datetime) -> int:
    """The recalls of the first weeks, flushed and folded into usage at `when`."""
    from memlib.lifecycle.maintenance import fold_usage

    store.clock.set(when)
    store.add_recall_events(events.filter(pc.equal(events["flush_id"], "sample-old")))
    return fold_usage(store, actor="sample")
