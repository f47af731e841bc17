"""A markdown workspace of 365 daily logs and 20,000 entries (memlib.workspace), with the real
model: the first sync (an import into a new store) against bare encoding of exactly the texts
it embeds, side by side, and a sync after editing one entry (how long, what it re-read and
re-embedded). Entries are the sample corpus's texts, spread over a year of daily logs.

    .venv/bin/python bench/workspace.py [--entries 20000] [--days 365] [--repeats 2] [--edits 5]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import corpus  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402
from memlib.models import Kind  # noqa: E402
from memlib.workspace import Workspace  # noqa: E402

KINDS = [("对话", 5), ("决策", 2), ("手记", 3)]  # conversation, decision, manual, by weight


class Counting:
    """The store's embedder, counting what it embeds."""

    def __init__(self, inner):
        self.inner, self.n = inner, 0
        self.name, self.dims = inner.name, inner.dims

    def embed(self, texts):
        self.n += len(texts)
        return self.inner.embed(texts)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def write_workspace(root: Path, entries: int, days: int, seed: int = 14) -> None:
    """`days` daily logs (Chinese headings, as in seed 003) holding `entries` entries in all:
    each a summary and timed entries of the sample corpus's texts."""
    rng = random.Random(seed)
    texts = [m.own_text for m in corpus(int(entries * 1.3)) if m.kind is not Kind.PROJECT][:entries]
    assert len(texts) == entries, "the sample corpus is too small"
    per_day, start = entries / days, date(2025, 11, 1)
    labels, weights = zip(*KINDS)
    (root / "memory").mkdir(parents=True, exist_ok=True)
    taken = 0
    for d in range(days):
        n = round((d + 1) * per_day) - taken
        chunk, taken = texts[taken:taken + n], taken + n
        day = start + timedelta(days=d)
        lines = [f"# {day} 日志\n\n## 摘要\n{chunk[0]}\n\n## 记录条目\n\n"]
        minutes = sorted(rng.sample(range(8 * 60, 23 * 60), len(chunk) - 1))
        for m, text in zip(minutes, chunk[1:]):
            lines.append(f"### {m // 60:02d}:{m % 60:02d} - {rng.choices(labels, weights)[0]}\n{text}\n\n")
        (root / "memory" / f"{day}.md").write_text("".join(lines), encoding="utf-8")


def first_sync(root: Path, embedder) -> tuple[float, MemoryStore, Workspace, int]:
    """A new store and workspace config around the files, then the timed sync."""
    store = MemoryStore.open(str(root / "store"), embedder=embedder)
    ws, _ = Workspace.init(root / "ws", store)
    before = embedder.n
    started = time.perf_counter()
    report = ws.sync(store)
    seconds = time.perf_counter() - started
    assert report.added > 0
    return seconds, store, ws, embedder.n - before


def bare(texts: list[str], embedder) -> float:
    """Encoding alone, in the chunks the store embeds in (store/batch.py EMBED_CHUNK)."""
    from memlib.store.batch import EMBED_CHUNK

    started = time.perf_counter()
    for i in range(0, len(texts), EMBED_CHUNK):
        embedder.embed(texts[i:i + EMBED_CHUNK])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    embedder = Counting(default_embedder())
    embedder.embed(["warm up the model"] * 64)
    work = Path(tempfile.mkdtemp(prefix="memlib-workspace-"))
    write_workspace(work / "files", args.entries, args.days)
    syncs, bares, kept = [], [], None
    for r in range(args.repeats):
        root = work / f"run-{r}"
        shutil.copytree(work / "files", root / "ws")
        seconds, store, ws, embedded = first_sync(root, embedder)
        texts = store.dataset().to_table(columns=["text"], filter="kind != 'project'").column("text").to_pylist()
        assert embedded == len(texts) == args.entries, (embedded, len(texts))
        base = bare(texts, embedder)
        syncs.append(seconds)
        bares.append(base)
        print(f"run {r + 1}: first sync {seconds:.1f} s, bare encoding of its {len(texts):,} texts {base:.1f} s "
              f"(ratio {seconds / base:.3f})", flush=True)
        kept = kept or (store, ws)
    store, ws = kept
    logs = sorted((ws.files.root / "memory").glob("*.md"))
    rng = random.Random(5)
    times, reembedded, read = [], [], []
    for _ in range(args.edits):
        path = rng.choice(logs)
        text = path.read_text(encoding="utf-8")
        at = text.index("\n### ", rng.randrange(len(text) // 2)) + 1
        line_end = text.index("\n", text.index("\n", at) + 1)
        path.write_text(text[:line_end] + " (edited)" + text[line_end:], encoding="utf-8")
        before = embedder.n
        started = time.perf_counter()
        report = ws.sync(store)
        times.append(time.perf_counter() - started)
        reembedded.append(embedder.n - before)
        read.append(report.parsed)
        assert report.updated == 1 and report.added == report.deleted == 0, report.summary()
    sync_med, bare_med = statistics.median(syncs), statistics.median(bares)
    print(f"\nfirst sync of {args.entries:,} entries in {args.days} daily logs: median {sync_med:.1f} s; "
          f"bare encoding median {bare_med:.1f} s; ratio {sync_med / bare_med:.3f} (target <= 1.15)")
    print(f"sync after editing one entry: median {statistics.median(times) * 1000:.0f} ms, max "
          f"{max(times) * 1000:.0f} ms over {args.edits} edits (target <= 1000 ms); files read {read}, "
          f"texts re-embedded {reembedded}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
