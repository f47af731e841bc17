"""The memory server (`memlib serve`): one long-lived process over one store, for a team's
agents. It serves the REST API and the agent tools over MCP's streamable HTTP transport from
one store handle, one model and one warm cache (app.py); writes from many clients are batched
into one commit per short window (commit.py); each client holds a bearer token that fixes
its agent and the projects it may touch (tokens.py). May import the agents, lifecycle,
consensus and store parts."""

from __future__ import annotations

import threading

from memlib.interface import MemoryInterface
from memlib.server.app import Server, create_app
from memlib.server.tokens import Caller, Tokens

__all__ = ["Caller", "Server", "Tokens", "create_app", "serve"]

HOST, PORT = "127.0.0.1", 8765


def serve(store: MemoryInterface, host: str = HOST, port: int = PORT, window: float | None = None,
          ready=None, workspace=None) -> None:
    """Serve `store` until SIGTERM or SIGINT, which stop taking requests, let those in flight
    finish and commit what is queued. `ready(url)` is called once the socket listens;
    `workspace`: the folder the list_files_workspace tool may list."""
    import uvicorn

    from memlib.agents.mcp_server import warm_quietly

    server = Server(store, window=window, workspace=workspace)
    threading.Thread(target=warm_quietly, args=(store,), daemon=True, name="memlib-warm").start()
    from memlib.server.guard import h11_protocol

    config = uvicorn.Config(create_app(server), host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=30, lifespan="on", http=h11_protocol())
    runner = uvicorn.Server(config)
    if ready is not None:
        started = runner.startup

        async def startup(sockets=None):
            await started(sockets)
            if runner.started:
                bound = runner.servers[0].sockets[0].getsockname() if runner.servers else (host, port)
                ready(f"http://{bound[0]}:{bound[1]}")
        runner.startup = startup
    runner.run()
