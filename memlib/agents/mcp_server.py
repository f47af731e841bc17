"""memlib's agent tools over MCP (the official SDK's low-level `Server`): on stdio for one
agent, `memlib mcp --store URI --agent NAME --workspace DIR`, and over streamable HTTP for a
team from `memlib serve` (memlib/server).

Each tool is published with the JSON schema of its pydantic input model
(memlib.agents.tools), through the SDK's public handlers for listing and calling tools.
memlib validates the arguments itself, as they came (unknown ones too), so a mistake comes
back as a tool error of one line naming the field, and never stops the server.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

from memlib.agents.tools import TOOLS, Toolbox, call
from memlib.errors import MemlibError, first_line
from memlib.interface import MemoryInterface

log = logging.getLogger("memlib")
INSTRUCTIONS = ("memlib: the project's memory. Ask it before deciding (query_memory), record what you "
                "learn (save_insight, save_issue, save_learning), promote what should last.")


def answer(box: Toolbox, name: str, arguments: dict[str, Any] | None):
    """One tool call's answer (an MCP `CallToolResult`): the tool's result as JSON text, or
    an error of one line: the user's mistake as memlib words it, anything else named as an
    internal error (and logged as that one line, not a traceback)."""
    import pydantic_core
    from mcp import types

    try:
        result = call(box, name, arguments or {})
    except MemlibError as exc:
        return refusal(name, str(exc).removeprefix(f"{name}: "))
    except Exception as exc:  # not a user's mistake: named in one line, here and to the client
        reason = f"{type(exc).__name__}: {first_line(exc)}"
        log.error("tool %s failed: %s", name, reason)
        return refusal(name, f"internal error ({reason})")
    text = pydantic_core.to_json(result, fallback=str, indent=2).decode()
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def refusal(name: str, message: str):
    """A tool call's error of one line, as an MCP `CallToolResult`."""
    from mcp import types

    return types.CallToolResult(content=[types.TextContent(type="text", text=f"Error executing tool {name}: "
                                                           f"{message}")], isError=True)


def build_server(call: Callable[[Any, str, dict[str, Any] | None], Any]):
    """The MCP server of these tools: it lists them with their input models' schemas and
    answers each call with `call(ctx, name, arguments)` (an `answer`) in a worker thread (the
    event loop keeps reading the client). `ctx` is the SDK's request context: over HTTP, its
    `request` is the HTTP request (memlib.server finds the caller's token there)."""
    import anyio.to_thread
    from mcp import types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=name, description=" ".join((fn.__doc__ or name).split()),
                        inputSchema=model.model_json_schema()) for name, (model, fn) in TOOLS.items()]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(call, ctx, params.name, params.arguments)

    return Server("memlib", instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


async def _run_stdio(server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(store: MemoryInterface, agent: str = "agent", workspace: str | Path | None = None, session_id: str | None = None) -> None:
    """Serve the tools over stdio until the client closes the stream. A server is long-lived:
    it loads the model and the store's rows into memory in the background as it starts (calls
    are answered meanwhile, from Lance), and keeps them current as memories are written."""
    box = Toolbox(store=store, agent=agent, workspace=Path(workspace) if workspace else None, session_id=session_id)
    threading.Thread(target=warm_quietly, args=(store,), daemon=True, name="memlib-warm").start()
    import anyio

    anyio.run(_run_stdio, build_server(lambda ctx, name, arguments: answer(box, name, arguments)))


def warm_quietly(store: MemoryInterface) -> None:
    """Load the model and the store's rows into memory; a failure is one warning (a cold
    server still answers)."""
    try:
        store.embedder.embed(["warm"])
        if store.settings.vector_cache != "off" and store.count():  # the vector_cache setting off: never
            store.warm()
    except Exception as exc:  # a cold server still answers; say why it stays cold
        log.warning("the store was not loaded into memory: %s", exc)
