"""memlib serve: the memory server for a team, and its tokens."""

from __future__ import annotations

import click

from memlib.cli.app import cli, echo_json, open_store


@cli.group(invoke_without_command=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (loopback: this machine only; 0.0.0.0: every interface).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="The port (0: any free one, printed).")
@click.option("--window-ms", default=None, type=click.FloatRange(0, 1000),
              help="How long the group commit waits for more writes after the first (default 4).")
@click.option("--workspace", default=None, type=click.Path(file_okay=False),
              help="The root list_files_workspace may list; if it is a memlib workspace, saved memories also "
                   "go to its files (default: memlib --workspace).")
@click.option("--read-every", default=5.0, show_default=True, type=click.FloatRange(0, 3600), metavar="SECONDS",
              help="How often a child process reads what was written for contradictions (0: never; "
                   "memlib maintain or memlib screen read instead).")
@click.pass_context
def serve(ctx, host, port, window_ms, workspace, read_every):
    """Serve the store to a team's agents: a REST API (/v1, described at /openapi.json) and
    the agent tools over MCP (streamable HTTP at /mcp), one process, one model, one warm
    cache. Every client needs a token: `memlib serve tokens create AGENT`. SIGTERM or Ctrl-C
    stops it after the writes in flight are committed."""
    if ctx.invoked_subcommand is not None:
        return
    from pathlib import Path

    from memlib.errors import InvalidInput
    from memlib.extras import need
    from memlib.server import Tokens
    from memlib.server import serve as run
    from memlib.workspace import Workspace

    need("server", "fastapi", "memlib serve")
    store = open_store(ctx, workspace=False)
    store.check_writable()
    workspace = workspace or ctx.obj["settings"].workspace
    store.workspace = Workspace.configured(workspace) if workspace else None
    if not any(t["revoked_at"] is None for t in Tokens(store).list()):
        raise InvalidInput(f"store {store.uri} has no token yet: create one with `memlib serve tokens create AGENT`")
    run(store, host=host, port=port, window=None if window_ms is None else window_ms / 1000,
        workspace=Path(workspace) if workspace else None, read_every=read_every or None,
        ready=lambda url: click.echo(f"memlib: serving {store.uri} at {url} (REST {url}/v1, MCP {url}/mcp); "
                                     "SIGTERM or Ctrl-C to stop", err=True))


@serve.group()
def tokens():
    """Bearer tokens, one per agent: create, list, revoke."""


@tokens.command("create")
@click.argument("agent")
@click.option("--project", "projects", multiple=True,
              help="A project it may read and write (repeat; none given: every project).")
@click.option("--read-project", "read_projects", multiple=True, help="A project it may only read (repeat).")
@click.pass_context
def tokens_create(ctx, agent, projects, read_projects):
    """Make a token for AGENT and print it (once: only its hash is kept)."""
    from memlib.server import Tokens

    token, row = Tokens(open_store(ctx, workspace=False)).create(agent, projects, read_projects)
    click.echo(token)
    where = ", ".join(row["projects"]) or "every project"
    reads = f"; reads {', '.join(row['read_projects'])}" if row["read_projects"] else ""
    click.echo(f"token {row['token_id']} for agent {agent}: writes {where}{reads}. Keep it secret: it is not "
               "shown again.", err=True)


@tokens.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def tokens_list(ctx, as_json):
    """The tokens (never their secrets)."""
    from memlib.server import Tokens

    rows = Tokens(open_store(ctx, workspace=False)).list()
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no tokens")
    for r in rows:
        state = f"revoked {r['revoked_at']:%Y-%m-%d %H:%M}" if r["revoked_at"] else "active"
        click.echo(f"{r['token_id']}  {r['agent']:<20} {state:<24} writes {', '.join(r['projects']) or 'every project'}"
                   + (f"; reads {', '.join(r['read_projects'])}" if r["read_projects"] else ""))


@tokens.command("revoke")
@click.argument("token_id")
@click.pass_context
def tokens_revoke(ctx, token_id):
    """Revoke a token (by its id, or the token itself); servers refuse it within a second."""
    from memlib.server import Tokens

    row = Tokens(open_store(ctx, workspace=False)).revoke(token_id)
    click.echo(f"token {row['token_id']} of agent {row['agent']} revoked")
