"""The memory server (`memlib serve`): one long-lived process over one store, for a team's
agents. It serves the REST API and the agent tools over MCP's streamable HTTP transport from
one store handle, one model and one warm cache (app.py); writes from many clients are batched
into one commit per short window (commit.py); each client holds a bearer token that fixes
its agent and the projects it may touch (tokens.py). What was written is read for
contradictions by a child process (`memlib screen --follow`), so the judge's work never
holds a request up. May import the agents, lifecycle, consensus and store parts."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from memlib.extras import need
from memlib.interface import MemoryInterface
from memlib.server.tokens import Caller, Tokens

__all__ = ["Caller", "Server", "Tokens", "create_app", "serve"]


def __getattr__(name: str):
    """The app (FastAPI, the server extra) is imported when it is asked for: tokens and the
    client work on a core install."""
    if name in ("Server", "create_app"):
        need("server", "fastapi", "the memory server")
        from memlib.server import app

        return getattr(app, name)
    raise AttributeError(f"module 'memlib.server' has no attribute {name!r}")

HOST, PORT = "127.0.0.1", 8765
READ_EVERY = 5.0  # seconds between the background reader's turns


def serve(store: MemoryInterface, host: str = HOST, port: int = PORT, window: float | None = None,
          ready=None, workspace=None, read_every: float | None = READ_EVERY) -> None:
    """Serve `store` until SIGTERM or SIGINT, which stop taking requests, let those in flight
    finish and commit what is queued. `ready(url)` is called once the socket listens;
    `workspace`: the folder the list_files_workspace tool may list; `read_every`: seconds
    between the background reader's turns (None: no reader; `memlib maintain` or `memlib
    screen` read instead)."""
    need("server", "fastapi", "memlib serve")
    import uvicorn

    from memlib.agents.mcp_server import warm_quietly
    from memlib.server.app import Server, create_app

    server = Server(store, window=window, workspace=workspace)
    threading.Thread(target=warm_quietly, args=(store,), daemon=True, name="memlib-warm").start()
    from memlib.server.guard import h11_protocol

    config = uvicorn.Config(create_app(server), host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=30, lifespan="on", http=h11_protocol())
    runner = uvicorn.Server(config)
    started, reader = runner.startup, None

    async def startup(sockets=None):
        nonlocal reader
        await started(sockets)
        if runner.started:
            if read_every:
                reader = start_reader(store.uri, read_every)
            if ready is not None:
                bound = runner.servers[0].sockets[0].getsockname() if runner.servers else (host, port)
                ready(f"http://{bound[0]}:{bound[1]}")
    runner.startup = startup
    try:
        runner.run()
    finally:
        if reader is not None:
            reader.terminate()
            try:
                reader.wait(timeout=30)
            except subprocess.TimeoutExpired:
                reader.kill()


def start_reader(uri: str, every: float) -> subprocess.Popen:
    """The child process that reads what is written for contradictions (memlib screen
    --follow, which lowers its own priority below the server's), with the server's
    environment. Started without a Python hook in between, so nothing runs forked."""
    return subprocess.Popen([sys.executable, "-m", "memlib.cli", "--store", uri, "screen", "--follow", str(every),
                             "--parent", str(os.getpid())], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
