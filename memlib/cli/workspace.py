"""Workspace commands: init, sync, watch (memlib.workspace)."""

from __future__ import annotations

import click

from memlib.cli.app import cli, echo_json, open_store

prefer_option = click.option("--prefer", type=click.Choice(["file", "store"]), default="file", show_default=True,
                             help="Who wins when a file and the store both changed an entry since the last sync.")


@cli.group()
def workspace():
    """Markdown memory a person edits: SPIRIT.md, OWNER.md, MEMORY.md, memory/*.md, TOOLS.md."""


@workspace.command("init")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--name", default=None, help="The workspace's project name (default: the folder's name).")
@click.option("--language", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="The language of the starter files and of new headings.")
@click.option("--timezone", "zone", default="UTC", show_default=True,
              help="The time zone of the times in the files (e.g. Asia/Shanghai).")
@click.pass_context
def workspace_init(ctx, directory, name, language, zone):
    """Write a starter workspace (files that exist are left alone) and its project."""
    from memlib.workspace import Workspace

    ws, written = Workspace.init(directory, open_store(ctx, create=True, workspace=False), name=name,
                                 language=language, timezone_name=zone)
    click.echo(f"workspace {ws.files.root}: project {ws.project_id}; wrote {', '.join(written) or 'nothing'}")


@workspace.command("sync")
@click.argument("directory", type=click.Path(file_okay=False))
@prefer_option
@click.option("--json", "as_json", is_flag=True, help="The report as JSON.")
@click.pass_context
def workspace_sync(ctx, directory, prefer, as_json):
    """Make the store and the files agree: what a person edited, added or deleted goes into
    the store (deletions can be undone), what the store changed goes into the files."""
    from memlib.workspace import Workspace

    ws = Workspace(directory)
    report = ws.sync(open_store(ctx, create=True, workspace=False), prefer=prefer)
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(report.summary())


@workspace.command("watch")
@click.argument("directory", type=click.Path(file_okay=False))
@prefer_option
@click.pass_context
def workspace_watch(ctx, directory, prefer):
    """Sync now and after every save of a workspace file, until Ctrl-C."""
    from datetime import datetime

    from memlib.workspace import Workspace
    from memlib.workspace.watch import watch

    ws = Workspace(directory)
    store = open_store(ctx, create=True, workspace=False)
    click.echo(f"watching {ws.files.root} (Ctrl-C stops)")
    try:
        watch(ws, store, lambda line: click.echo(f"{datetime.now():%H:%M:%S} {line}"), prefer=prefer)
    except KeyboardInterrupt:
        pass
