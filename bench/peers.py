"""memlib against the systems a team would pick instead, side by side in one process run.

Same texts, same precomputed embeddings, queries alternating between systems:
- memlib: `MemoryStore.add(..., vectors=)` then `maintain(read=False)` (the judge reads after
  the write, apart: bench/reading.py); queries through `store.search`
  with the query's vector (`vector=`), in a warm process (vectors held in memory).
- Chroma: `chromadb.PersistentClient`, cosine HNSW, project and kind as metadata.
- SQLite: sqlite-vec (`vec0`, cosine, the project as partition key) plus FTS5 (porter
  stemming, like Lance's English FTS), loaded through apsw; hybrid fuses both lists in Python
  exactly as memlib does.

Figures per size: ingest rate; median and p95 ms of a vector query (unscoped, and scoped to a
project holding ~1% of rows), a full-text query and a hybrid query, each returning the ids
and texts of 10 hits; recall@10 of the vector queries against exact search (a hit counts if
its exact score reaches the 10th best, so ties do not count against anyone); one analytic
question (memories by kind and month); disk size. Results go to
`bench/results/peers-<size>.json` and the markdown tables to `bench/results/peers.md`.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python bench/peers.py --sizes 10000 100000
    .venv/bin/python bench/peers.py --sizes 1000000 --skip chroma   # see bench/README.md

10k and 100k use the sample corpus with real all-MiniLM-L6-v2 embeddings (cached under
data/bench/); 1M reads the rows and topical vectors of the 1M sample store
(`data/bench/sample-1m`, built as bench/reports.py says).
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import re
import resource
import shutil
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401 (pa.compute)

sys.path.insert(0, str(Path(__file__).parent))
from common import CACHE, corpus, median_ms, p95_ms, real_vectors  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib import MemoryStore, Scope  # noqa: E402
from memlib.analytics.views import closure  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402
from memlib.models import from_row, title_key  # noqa: E402
from memlib.search.fusion import convex  # noqa: E402

RESULTS = Path(__file__).parent / "results"
WORK = CACHE / "peers"
K = 10
SAMPLE_1M = CACHE / "sample-1m"
ALL = Scope(include_expired=True)
CHUNK = 100_000  # memlib rows per add (one commit); the first add builds the indexes


# -- the corpus --------------------------------------------------------------------------------

class Corpus:
    def __init__(self, memories, vectors: np.ndarray):
        self.memories = memories
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.ids = [m.id for m in memories]
        self.texts = [m.text for m in memories]
        self.projects = [m.project_id or "" for m in memories]
        self.kinds = [m.kind.value for m in memories]
        self.created = [int(m.created_at.timestamp() * 1_000_000) for m in memories]
        self.index = {memory_id: i for i, memory_id in enumerate(self.ids)}
        self.unit = self.vectors / np.linalg.norm(self.vectors, axis=1, keepdims=True)

    def __len__(self) -> int:
        return len(self.ids)


def linked(memories):
    """Each conversation turn linked to the turn before it in its thread, as given data: the
    store would otherwise link it itself and, for a reply, put the words it answers into its
    text and embed it again, where the peers index the turn's words with the vector given.
    Every system gets the same texts and vectors (bench/README.md, 2026-11-24)."""
    from memlib.models import Conversation

    last: dict[tuple, str] = {}
    for memory in sorted((m for m in memories if isinstance(m, Conversation)), key=lambda m: m.created_at):
        thread = (memory.project_id, memory.iteration_id)
        if memory.previous_id is None and thread in last:
            memory.previous_id = last[thread]
        last[thread] = memory.id
    return memories


def load_corpus(size: int) -> Corpus:
    if size <= 100_000:
        memories = linked(corpus(size))
        return Corpus(memories, real_vectors(memories, size))
    if not (SAMPLE_1M / "memories.lance").exists():
        sys.exit(f"bench/peers.py: no {SAMPLE_1M}; build it first (see bench/reports.py)")
    source = MemoryStore.open(str(SAMPLE_1M), create=False)
    table = source.dataset().to_table()
    # in creation order, so every parent comes before its children (a maintained store
    # rewrites the rows it folds usage into at the end of the table)
    table = table.take(pa.compute.sort_indices(table, [("created_at", "ascending")]))
    if table.num_rows < size:
        sys.exit(f"bench/peers.py: {SAMPLE_1M} holds {table.num_rows:,} rows, fewer than {size:,}")
    vectors = table.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, source.dims)
    names = [n for n in table.schema.names if n != "embedding"]
    memories, titles = [], collections.Counter()
    for batch in table.select(names).to_batches(max_chunksize=50_000):
        for row in batch.to_pylist():
            field = {"decision": "title", "pattern": "name"}.get(row["kind"])
            if field:  # a store built before titles were unique per project: number the clashes
                titles[(row["project_id"], field, title_key(row[field]))] += 1
                n = titles[(row["project_id"], field, title_key(row[field]))]
                row[field] = row[field] if n == 1 else f"{row[field]} ({n})"
            memories.append(from_row(row))
    return Corpus(memories[:size], vectors[:size])


# -- the systems ---------------------------------------------------------------------------------

class Memlib:
    name = "memlib"

    def __init__(self, path: Path, embedder):
        self.path, self.embedder = path, embedder

    def ingest(self, data: Corpus) -> dict:
        shutil.rmtree(self.path, ignore_errors=True)
        self.store = MemoryStore.open(str(self.path), embedder=self.embedder, vector_cache="on")
        started = time.perf_counter()
        for start in range(0, len(data), CHUNK):
            self.store.add(data.memories[start:start + CHUNK], vectors=data.vectors[start:start + CHUNK])
        added = time.perf_counter() - started
        self.store.maintain(read=False)  # the judge's reading is its own figure (bench/reading.py)
        maintained = time.perf_counter() - started - added
        warm = time.perf_counter()
        self.store.warm()
        warmed = time.perf_counter() - warm
        # ingest_s is everything a user runs before the quoted query speed holds: the adds,
        # maintain (compaction, new rows into the indexes) and loading the vector cache;
        # the parts are kept for the side-by-side table
        return {"ingest_s": added + maintained + warmed, "add_s": added, "maintain_s": maintained,
                "warm_s": warmed}

    def vector(self, q, text, project):
        # peers have no expiry, so memlib is asked for every row too
        scope = Scope(project_id=project, include_expired=True)
        return [(h.id, h.text) for h in self.store.search(text, k=K, mode="vector", scope=scope, vector=q)]

    def fts(self, q, text, project):
        return [(h.id, h.text) for h in self.store.search(text, k=K, mode="fts", scope=ALL)]

    def hybrid(self, q, text, project):
        return [(h.id, h.text) for h in self.store.search(text, k=K, vector=q, scope=ALL)]

    def analytic(self):
        # DuckDB over the Lance table, with memlib's utc_day macro (sql/utc_day.sql): a calendar
        # function of a TIMESTAMPTZ goes through ICU, the UTC day is arithmetic
        import duckdb

        if getattr(self, "duck", None) is None:
            self.duck = duckdb.connect()
            for _, sql in closure(["utc_day"]):  # the macro and the ones it calls
                self.duck.execute(sql)
        memories = self.store.dataset()  # noqa: F841 (scanned by name below)
        return self.duck.sql("SELECT kind, date_trunc('month', utc_day(created_at)) AS month, count(*) AS n "
                             "FROM memories GROUP BY ALL").fetchall()


class Chroma:
    name = "chroma"

    def __init__(self, path: Path):
        self.path = path

    def ingest(self, data: Corpus) -> dict:
        import chromadb

        shutil.rmtree(self.path, ignore_errors=True)
        client = chromadb.PersistentClient(path=str(self.path),
                                           settings=chromadb.Settings(anonymized_telemetry=False))
        self.collection = client.create_collection("memories", embedding_function=None,
                                                   configuration={"hnsw": {"space": "cosine"}})
        batch = client.get_max_batch_size()
        self.ids = data.ids
        started = time.perf_counter()
        for start in range(0, len(data), batch):
            end = start + batch
            self.collection.add(
                ids=data.ids[start:end], embeddings=data.vectors[start:end], documents=data.texts[start:end],
                metadatas=[{"project_id": p, "kind": k, "created_at": c} for p, k, c in
                           zip(data.projects[start:end], data.kinds[start:end], data.created[start:end])])
        return {"ingest_s": time.perf_counter() - started}

    def vector(self, q, text, project):
        result = self.collection.query(query_embeddings=[q], n_results=K, include=["documents"],
                                       where={"project_id": project} if project else None)
        return list(zip(result["ids"][0], result["documents"][0]))

    fts = hybrid = None  # no ranked full-text search in the local client

    def analytic(self):
        # Chroma's best honest path: its metadata paged by id (one get() of everything
        # overflows SQLite's variable limit; limit/offset paging rescans and grows quadratic)
        rows, page = [], 10_000
        for start in range(0, len(self.ids), page):
            rows.extend(self.collection.get(ids=self.ids[start:start + page], include=["metadatas"])["metadatas"])
        counts = collections.Counter(
            (m["kind"], datetime.fromtimestamp(m["created_at"] / 1e6, timezone.utc).strftime("%Y-%m"))
            for m in rows)
        return list(counts.items())


class SqliteVec:
    name = "sqlite-vec"

    def __init__(self, path: Path):
        self.path = path

    def ingest(self, data: Corpus) -> dict:
        import apsw
        import sqlite_vec

        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(parents=True)
        db = apsw.Connection(str(self.path / "memories.db"))
        db.enable_load_extension(True)
        db.load_extension(sqlite_vec.loadable_path())
        db.enable_load_extension(False)
        dims = data.vectors.shape[1]
        db.execute(f"""
            CREATE TABLE memories(rowid INTEGER PRIMARY KEY, id TEXT, project_id TEXT, kind TEXT,
                                  created_at INTEGER, text TEXT);
            CREATE VIRTUAL TABLE vec USING vec0(embedding float[{dims}] distance_metric=cosine,
                                                project_id TEXT PARTITION KEY);
            CREATE VIRTUAL TABLE fts USING fts5(text, content='memories', content_rowid='rowid',
                                                tokenize='porter unicode61');""")
        started = time.perf_counter()
        for start in range(0, len(data), 10_000):
            rows = range(start, min(start + 10_000, len(data)))
            with db:
                db.executemany("INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?)",
                               [(i, data.ids[i], data.projects[i], data.kinds[i], data.created[i],
                                 data.texts[i]) for i in rows])
                db.executemany("INSERT INTO vec(rowid, embedding, project_id) VALUES (?, ?, ?)",
                               [(i, data.vectors[i].tobytes(), data.projects[i]) for i in rows])
        with db:
            db.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
        self.db = db
        return {"ingest_s": time.perf_counter() - started}

    def _texts(self, rowids):
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        found = dict((r, (i, t)) for r, i, t in self.db.execute(
            f"SELECT rowid, id, text FROM memories WHERE rowid IN ({marks})", rowids))
        return [found[r] for r in rowids]

    def _knn(self, q, n, project):
        sql = "SELECT rowid, distance FROM vec WHERE embedding MATCH ? AND k = ?"
        args = [q.tobytes(), n]
        if project:
            sql += " AND project_id = ?"
            args.append(project)
        return [(r, 1.0 - d) for r, d in self.db.execute(sql, args)]

    def _match(self, text, n):
        terms = " OR ".join(f'"{t}"' for t in re.findall(r"\w+", text.lower()))
        return [(r, -s) for r, s in self.db.execute(
            "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (terms, n))]

    def vector(self, q, text, project):
        return self._texts([r for r, _ in self._knn(q, K, project)])

    def fts(self, q, text, project):
        return self._texts([r for r, _ in self._match(text, K)])

    def hybrid(self, q, text, project):
        lists = {"vector": self._knn(q, 50, None), "fts": self._match(text, 50)}
        fused = convex(lists, K, {"vector": 0.4, "fts": 0.6})
        return self._texts([r for r, _, _ in fused])

    def analytic(self):
        return list(self.db.execute(
            "SELECT kind, strftime('%Y-%m', created_at / 1000000, 'unixepoch') AS month, count(*) "
            "FROM memories GROUP BY 1, 2"))


# -- measuring -------------------------------------------------------------------------------------

def disk_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def recall(data: Corpus, q: np.ndarray, hits, rows: np.ndarray | None) -> float:
    """Share of the hits whose exact cosine reaches the 10th best in scope (ties count)."""
    unit_q = q / np.linalg.norm(q)
    scores = (data.unit if rows is None else data.unit[rows]) @ unit_q
    tenth = -np.partition(-scores, K - 1)[K - 1]
    got = [float(data.unit[data.index[memory_id]] @ unit_q) for memory_id, _ in hits]
    return sum(score >= tenth - 1e-5 for score in got) / K


def run(size: int, systems: list[str], queries: int, embedder) -> dict:
    print(f"\n## {size:,} memories", flush=True)
    started = time.perf_counter()
    data = load_corpus(size)
    print(f"corpus loaded in {time.perf_counter() - started:.0f} s", flush=True)
    texts = query_texts(queries)
    qv = embedder.embed(texts)
    projects = collections.Counter(data.projects)
    project, in_project = min(projects.items(), key=lambda kv: abs(kv[1] - size / 100))
    project_rows = np.array([i for i, p in enumerate(data.projects) if p == project])
    print(f"scope: project {project} with {in_project:,} rows ({100 * in_project / size:.1f}%)")

    candidates = {"memlib": lambda: Memlib(WORK / f"memlib-{size}", embedder),
                  "chroma": lambda: Chroma(WORK / f"chroma-{size}"),
                  "sqlite-vec": lambda: SqliteVec(WORK / f"sqlite-{size}")}
    result = {"size": size, "date": datetime.now(timezone.utc).date().isoformat(),
              "project_rows": in_project, "systems": {}}
    live = []
    for name in systems:
        system = candidates[name]()
        gc.collect()
        figures = system.ingest(data)
        figures["rate"] = size / figures["ingest_s"]
        figures["disk_mb"] = disk_mb(system.path)
        result["systems"][name] = figures
        live.append(system)
        print(f"{name}: ingest {figures['ingest_s']:.1f} s ({figures['rate']:,.0f} rows/s), "
              f"disk {figures['disk_mb']:,.0f} MB", flush=True)

    tasks = [("vector", None), ("vector_project", project), ("fts", None), ("hybrid", None)]
    times = {(s.name, t): [] for s in live for t, _ in tasks}
    recalls = {(s.name, t): [] for s in live for t in ("vector", "vector_project")}
    for i, (q, text) in enumerate(zip(qv, texts)):
        for task, scope in tasks:
            for system in (live if i % 2 == 0 else live[::-1]):  # alternate who goes first
                method = getattr(system, task.split("_")[0])
                if method is None:
                    continue
                started = time.perf_counter()
                hits = method(q, text, scope)
                elapsed = time.perf_counter() - started
                if i >= 5:  # the first queries warm caches
                    times[(system.name, task)].append(elapsed)
                if task.startswith("vector"):
                    recalls[(system.name, task)].append(
                        recall(data, q, hits, project_rows if scope else None))
    for system in live:
        figures = result["systems"][system.name]
        for task, _ in tasks:
            samples = times[(system.name, task)]
            figures[task] = ({"median_ms": median_ms(samples), "p95_ms": p95_ms(samples)}
                             if samples else None)
        for task in ("vector", "vector_project"):
            figures[f"{task}_recall"] = float(np.mean(recalls[(system.name, task)]))
        laps, answer = [], None
        for _ in range(5):
            started = time.perf_counter()
            answer = system.analytic()
            laps.append(time.perf_counter() - started)
        figures["analytic_ms"] = median_ms(laps)
        figures["analytic_groups"] = len(answer)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def whole_ingest(result: dict) -> dict:
    """Results written before 2026-11-23 timed memlib's adds alone as its ingest; recombine
    their measured parts so every table counts add + maintain + warm."""
    m = result["systems"].get("memlib")
    if m is not None and "add_s" not in m:
        m["add_s"] = m["ingest_s"]
        m["ingest_s"] = m["add_s"] + m["maintain_s"] + m["warm_s"]
        m["rate"] = result["size"] / m["ingest_s"]
    return result


def table(result: dict) -> str:
    result = whole_ingest(result)
    systems = result["systems"]
    names = list(systems)
    def rate(part: str):
        return lambda f: f.get(part) and result["size"] / f[part]

    rows = [("ingest rows/s, everything before the quoted speed", lambda f: f["rate"], "{:,.0f}", False),
            ("memlib: add only, rows/s", rate("add_s"), "{:,.0f}", False),
            ("memlib: add + maintain, rows/s",
             lambda f: f.get("add_s") and result["size"] / (f["add_s"] + f["maintain_s"]), "{:,.0f}", False),
            ("vector median ms", lambda f: f["vector"] and f["vector"]["median_ms"], "{:.2f}", True),
            ("vector p95 ms", lambda f: f["vector"] and f["vector"]["p95_ms"], "{:.2f}", True),
            ("vector recall@10", lambda f: f["vector_recall"], "{:.3f}", False),
            ("project (~1%) vector median ms", lambda f: f["vector_project"] and f["vector_project"]["median_ms"], "{:.2f}", True),
            ("project (~1%) vector p95 ms", lambda f: f["vector_project"] and f["vector_project"]["p95_ms"], "{:.2f}", True),
            ("project (~1%) recall@10", lambda f: f["vector_project_recall"], "{:.3f}", False),
            ("full-text median ms", lambda f: f["fts"] and f["fts"]["median_ms"], "{:.2f}", True),
            ("full-text p95 ms", lambda f: f["fts"] and f["fts"]["p95_ms"], "{:.2f}", True),
            ("hybrid median ms", lambda f: f["hybrid"] and f["hybrid"]["median_ms"], "{:.2f}", True),
            ("hybrid p95 ms", lambda f: f["hybrid"] and f["hybrid"]["p95_ms"], "{:.2f}", True),
            ("analytic: by kind and month, ms", lambda f: f["analytic_ms"], "{:.1f}", True),
            ("disk MB", lambda f: f["disk_mb"], "{:,.0f}", True)]
    peers = [n for n in names if n != "memlib"]
    head = "| figure | " + " | ".join(names) + " | " + " | ".join(f"{p} / memlib" for p in peers) + " |"
    lines = [f"### {result['size']:,} memories ({result['date']}, project scope {result['project_rows']:,} rows)",
             "", head, "|---" * (1 + len(names) + len(peers)) + "|"]
    for label, get, fmt, _ in rows:
        values = {n: get(systems[n]) for n in names}
        cells = [fmt.format(values[n]) if values[n] is not None else "n/a" for n in names]
        ratios = []
        for p in peers:
            base, other = values.get("memlib"), values[p]
            ratios.append(f"{other / base:.2f}" if base and other is not None else "n/a")
        lines.append(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    if "memlib" in systems:
        m = systems["memlib"]
        lines.append("")
        lines.append(f"memlib's ingest counts everything a user runs before the quoted query speed "
                     f"holds: `store.add` in commits of {CHUNK:,} rows ({m['add_s']:.1f} s: validation, "
                     f"the columns, scalar and full-text indexes built by the first add), `maintain` "
                     f"({m['maintain_s']:.1f} s: compaction and new rows into the indexes; Lance's IVF vector index from 50k rows before 2026-11-23, from 250k before 2026-11-24, now from 2.2M) and "
                     f"`warm` ({m['warm_s']:.1f} s: the vectors loaded into memory). The peers' ingest "
                     f"is their whole ingest. Peak memory of the run (all systems): "
                     f"{result['peak_rss_mb']:,.0f} MB.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--skip", nargs="*", default=[], choices=["memlib", "chroma", "sqlite-vec"])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    systems = [s for s in ("memlib", "sqlite-vec", "chroma") if s not in args.skip]
    embedder = default_embedder()
    RESULTS.mkdir(exist_ok=True)
    for size in args.sizes:
        result = run(size, systems, args.queries, embedder)
        result["skipped"] = args.skip
        (RESULTS / f"peers-{size}.json").write_text(json.dumps(result, indent=1))
        print(table(result), flush=True)
    sections = [table(json.loads(p.read_text())) for p in
                sorted(RESULTS.glob("peers-*.json"), key=lambda p: int(p.stem.split("-")[1]))]
    (RESULTS / "peers.md").write_text("# memlib against its peers\n\n" + "\n\n".join(sections) + "\n")
    print(f"\nwritten: {RESULTS / 'peers.md'}")


if __name__ == "__main__":
    main()
