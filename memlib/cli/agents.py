"""Commands for agents: mcp (the agent tools over MCP)."""

from __future__ import annotations

import click

from memlib.cli.app import cli, open_store


@cli.command()
@click.option("--agent", default="agent", show_default=True, help="Who calls the tools (logged with each recall and write).")
@click.option("--workspace", default=None, type=click.Path(file_okay=False),
              help="The root list_files_workspace may list (nothing outside it).")
@click.pass_context
def mcp(ctx, agent, workspace):
    """Serve the ten agent tools over MCP on stdio (for an agent host)."""
    from memlib.agents.mcp_server import serve

    store = open_store(ctx)
    store.check_writable()
    serve(store, agent=agent, workspace=workspace)
