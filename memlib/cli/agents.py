"""Commands for agents: mcp (the agent tools over MCP)."""

from __future__ import annotations

import click

from memlib.cli.app import cli, open_store


@cli.command()
@click.option("--agent", default="agent", show_default=True, help="Who calls the tools (logged with each recall and write).")
@click.option("--workspace", default=None, type=click.Path(file_okay=False),
              help="The root list_files_workspace may list (nothing outside it); if it is a "
                   "memlib workspace, saved memories also go to its files and build_context "
                   "reads its persona, owner and tools (default: memlib --workspace).")
@click.option("--session", "session_id", default=None, help="The agent's session: its recalls and queued tasks carry it.")
@click.pass_context
def mcp(ctx, agent, workspace, session_id):
    """Serve the agent tools over MCP on stdio (for one agent host): the memory tools, the
    session layers and build_context, report_fragment and the control plane's queue tools
    (memlib serve serves the same to a team over HTTP)."""
    from memlib.agents.mcp_server import serve
    from memlib.workspace import Workspace

    store = open_store(ctx, workspace=False)
    store.check_writable()
    workspace = workspace or ctx.obj["settings"].workspace
    store.workspace = Workspace.configured(workspace) if workspace else None
    serve(store, agent=agent, workspace=workspace, session_id=session_id)
