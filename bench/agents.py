"""Agents on a 100,000-memory store: MCP tool round trips, the context builder, and many
agent processes at once.

1. A warm `memlib mcp` server (a subprocess, driven by the official SDK's stdio client, as an
   agent host does) on the sample corpus with real embeddings (cached in data/bench/):
   `query_memory` round trips (keywords, smart scope), `save_insight` round trips beside the
   time the model takes to embed the same texts in-process (queries, then saves, then the two
   in turn), and `build_context` in-process on a session with 40 turns. Targets: query p50 <= 30 ms, build_context p50 <= 50 ms,
   save_insight p50 <= 20 ms plus its embedding.
2. Concurrency: 4 agent processes each with its own MCP server saving insights, and 2
   querying, for `--seconds`: every saved id is in the store afterwards, no call failed.

    .venv/bin/python bench/agents.py [--size 100000] [--calls 200] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).parent))
from common import maintained_store, median_ms, p95_ms  # noqa: E402
from vector_index import query_texts  # noqa: E402

from memlib import MemoryStore  # noqa: E402
from memlib.agents import Sessions, build_context  # noqa: E402
from memlib.embeddings import default_embedder  # noqa: E402


async def _with_server(uri: str, agent: str, body):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "memlib.cli", "--store", uri, "mcp",
                                                                 "--agent", agent])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def _ok(result) -> dict:
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    return json.loads(result.content[0].text)


def latency(uri: str, project_id: str, texts: list[str], warm: list[str], calls: int) -> dict[str, list[float]]:
    """Three phases on one warm server: `calls` queries, `calls` saves, then `calls` of each
    in turn (every query then meets a table version the save before it made). Every query
    text is asked once; the warm-up asks other texts."""
    async def body(session):
        times: dict[str, list[float]] = {"query_memory": [], "save_insight": [],
                                          "query_memory after a save": [], "save_insight after a query": []}

        async def query(text: str, label: str) -> None:
            started = time.perf_counter()
            _ok(await session.call_tool("query_memory", {"project_id": project_id, "keywords": text.split()[:6]}))
            times[label].append(time.perf_counter() - started)

        async def save(i: int, label: str) -> None:
            started = time.perf_counter()
            _ok(await session.call_tool("save_insight", {"project_id": project_id, "iteration_id": "bench",
                                                         "content": f"bench insight {i}: {texts[i % len(texts)]}"}))
            times[label].append(time.perf_counter() - started)

        for text in warm:  # the server's model, its rows in memory, Lance's caches
            _ok(await session.call_tool("query_memory", {"project_id": project_id, "keywords": text.split()[:6]}))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # the server loads the rows in the background
            started = time.perf_counter()
            _ok(await session.call_tool("query_memory", {"project_id": project_id, "keywords": warm[0].split()[:6]}))
            if time.perf_counter() - started < 0.1:
                break
            await anyio.sleep(0.5)
        for i in range(calls):
            await query(texts[i], "query_memory")
        for i in range(calls):
            await save(i, "save_insight")
        for i in range(calls):
            await query(texts[calls + i], "query_memory after a save")
            await save(calls + i, "save_insight after a query")
        return times

    return anyio.run(_with_server, uri, "bench", body)


def _agent_role(argv: list[str]) -> None:
    """One agent process of the concurrency run: `writer` or `reader` for `seconds`."""
    role, uri, project_id, seconds, name = argv

    async def body(session):
        saved, calls, errors = [], 0, []
        until = time.monotonic() + float(seconds)
        while time.monotonic() < until:
            try:
                if role == "writer":
                    saved.append(_ok(await session.call_tool("save_insight", {
                        "project_id": project_id, "content": f"{name} saw ledger retry {calls}"}))["id"])
                else:
                    _ok(await session.call_tool("query_memory", {"project_id": project_id, "keywords": ["ledger", "retry"]}))
            except Exception as exc:  # counted, the figure is the number of these
                errors.append(str(exc).splitlines()[0])
            calls += 1
        return {"saved": saved, "calls": calls, "errors": errors}

    print(json.dumps(anyio.run(_with_server, uri, name, body)))


def concurrency(uri: str, project_id: str, seconds: float) -> dict:
    procs = [subprocess.Popen([sys.executable, __file__, "--role", role, uri, project_id, str(seconds), f"{role}{i}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for role, i in [("writer", n) for n in range(4)] + [("reader", n) for n in range(2)]]
    results = []
    for proc in procs:
        out, err = proc.communicate()
        results.append(json.loads(out.strip().splitlines()[-1]) if proc.returncode == 0 and out.strip()
                       else {"saved": [], "calls": 0, "errors": [f"exit {proc.returncode}: {err.strip()[-300:]}"]})
    store = MemoryStore.open(uri)
    held = set(store.dataset().to_table(columns=["id"]).column("id").to_pylist())
    saved = [i for r in results for i in r["saved"]]
    return {"saved": len(saved), "lost": sum(i not in held for i in saved),
            "calls": sum(r["calls"] for r in results), "errors": [e for r in results for e in r["errors"]]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    embedder = default_embedder()
    store, uri = maintained_store(args.size, embedder, "memlib-agents-")
    projects = store.dataset().to_table(columns=["id"], filter="kind = 'project'").column("id").to_pylist()
    project_id = projects[0]
    texts = query_texts(2 * args.calls + 20)  # distinct: none is asked twice
    warm, texts = texts[-20:], texts[:-20]

    times = latency(uri, project_id, texts, warm, args.calls)
    embed = []
    for i in range(args.calls):
        started = time.perf_counter()
        embedder.embed([f"bench insight {i}: {texts[i % len(texts)]}"])
        embed.append(time.perf_counter() - started)

    sessions = Sessions(store)
    session = sessions.start("bench", project_id=project_id, preferences={"persona": "a payments engineer"})
    for i in range(40):
        sessions.append(session.session_id, "user" if i % 2 == 0 else "assistant", texts[i % len(texts)])
    store.warm()
    context = []
    for i in range(args.calls):
        started = time.perf_counter()
        build_context(store, session.session_id, texts[(i + 7) % len(texts)], budget_tokens=2_000)
        context.append(time.perf_counter() - started)

    print(f"\n{args.size:,} memories, {args.calls} calls each, warm\n")
    print("| what | median ms | p95 ms | target |\n|---|---|---|---|")
    for label, target in [("query_memory", "<= 30"), ("query_memory after a save", "")]:
        print(f"| {label} over MCP (round trip) | {median_ms(times[label]):.1f} | {p95_ms(times[label]):.1f} | {target} |")
    for label in ("save_insight", "save_insight after a query"):
        print(f"| {label} over MCP (round trip) | {median_ms(times[label]):.1f} | {p95_ms(times[label]):.1f} | "
              f"<= 20 + embedding |")
    print(f"| embedding one insight in-process | {median_ms(embed):.1f} | {p95_ms(embed):.1f} | |")
    print(f"| save_insight minus its embedding (medians) | "
          f"{median_ms(times['save_insight']) - median_ms(embed):.1f} | | <= 20 |")
    print(f"| build_context, 40 turns, budget 2,000 | {median_ms(context):.1f} | {p95_ms(context):.1f} | <= 50 |")

    if args.seconds > 0:
        out = concurrency(uri, project_id, args.seconds)
        print(f"\nconcurrency ({args.seconds:.0f} s: 4 writing agents, 2 querying, each through its own MCP server)\n")
        print("| figure | value |\n|---|---|")
        print(f"| insights saved | {out['saved']:,} |\n| of them lost | {out['lost']} |")
        print(f"| tool calls | {out['calls']:,} |\n| errors | {len(out['errors'])} |")
        for error in sorted(set(out["errors"]))[:5]:
            print(f"error: {error}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--role":
        _agent_role(sys.argv[2:])
    else:
        main()
