"""memlib's agent tools over MCP (the official SDK's `MCPServer`, stdio transport):
`memlib mcp --store URI --agent NAME --workspace DIR`.

Each tool is published with the JSON schema of its pydantic input model
(memlib.agents.tools). The SDK hands the arguments through as they came (unknown ones too);
memlib validates them itself, so a mistake comes back as a tool error of one line naming the
field, and never stops the server.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from memlib.agents.tools import TOOLS, Toolbox, call
from memlib.errors import MemlibError, first_line

log = logging.getLogger("memlib")


def _verbatim_model():
    """An argument model that keeps the call's arguments as they came, unknown ones too, and
    hands them to the tool as one dict (memlib's own validation then names what is wrong)."""
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
    from pydantic import ConfigDict

    class Verbatim(ArgModelBase):
        model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

        def model_dump_one_level(self) -> dict[str, Any]:
            return {"arguments": dict(self.model_extra or {})}

    return Verbatim


def build_server(box: Toolbox):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    _Verbatim = _verbatim_model()

    server = MCPServer(name="memlib", log_level="WARNING", instructions=(
        "memlib: the project's memory. Ask it before deciding (query_memory), record what you "
        "learn (save_insight, save_issue, save_learning), promote what should last."))
    def handler_of(name: str):
        def handler(arguments: Any = None) -> dict:
            try:
                return call(box, name, arguments or {})
            except MemlibError as exc:
                raise ToolError(str(exc).removeprefix(f"{name}: ")) from None
            except Exception as exc:  # not a user's mistake: named in one line, here and to the client
                reason = f"{type(exc).__name__}: {first_line(exc)}"
                log.error("tool %s failed: %s", name, reason)
                raise ToolError(f"internal error ({reason})") from None
        return handler

    for name, (model, fn) in TOOLS.items():
        server.add_tool(handler_of(name), name=name, description=" ".join((fn.__doc__ or name).split()),
                        structured_output=False)
        tool = server._tool_manager.get_tool(name)
        tool.parameters = model.model_json_schema()  # what the host is shown
        tool.fn_metadata.arg_model = _Verbatim       # what memlib validates itself
    return server


def serve(store, agent: str = "agent", workspace: str | Path | None = None, session_id: str | None = None) -> None:
    """Serve the tools over stdio until the client closes the stream. A server is long-lived:
    it loads the model and the store's rows into memory in the background as it starts (calls
    are answered meanwhile, from Lance), and keeps them current as memories are written."""
    box = Toolbox(store=store, agent=agent, workspace=Path(workspace) if workspace else None, session_id=session_id)
    threading.Thread(target=_warm, args=(store,), daemon=True, name="memlib-warm").start()
    build_server(box).run("stdio")


def _warm(store) -> None:
    try:
        store.embedder.embed(["warm"])
        if store.vectors.mode != "off" and store.count():  # $MEMLIB_VECTOR_CACHE=off: never
            store.warm()
    except Exception as exc:  # a cold server still answers; say why it stays cold
        log.warning("the store was not loaded into memory: %s", exc)
