"""Commands of the analytics half: report list, report run, lab."""

from __future__ import annotations

import click

from memlib.cli.app import as_of_option, cli, key_values
from memlib.errors import InvalidInput


@cli.group()
def report():
    """Run the analytics reports (papermill notebooks) and list their parameters."""


@report.command("list")
def report_list():
    """Each report with its parameters and their defaults."""
    from memlib.analytics import reports

    for name in reports.REPORTS:
        click.echo(name)
        for key, spec in reports.parameters(name).items():
            comment = f"  # {spec['help']}" if spec["help"] else ""
            click.echo(f"  {key} = {spec['default']}{comment}")


@report.command("run")
@click.argument("names", nargs=-1)
@click.option("--all", "run_all", is_flag=True, help="Run every report.")
@as_of_option("The date the reports are as of (ISO; default: today, UTC, by the store's clock). "
              "The store is read as it was at the end of that day.")
@click.option("-p", "params", multiple=True, metavar="KEY=VALUE",
              help="Override a notebook parameter (repeatable).")
@click.option("--out", default="reports", show_default=True, help="Where reports/<as-of>/ goes.")
@click.option("--show-code", is_flag=True, help="Keep the notebooks' code in the HTML (hidden by default).")
@click.pass_context
def report_run(ctx, names, run_all, as_of, params, out, show_code):
    """Execute reports for one date into <out>/<as-of>/ (replaced atomically)."""
    import os
    from pathlib import Path

    from memlib.analytics import reports

    if run_all and names:
        raise InvalidInput("give report names or --all, not both")
    if not run_all and not names:
        raise InvalidInput(f"name the reports to run ({', '.join(reports.REPORTS)}) or pass --all")
    settings = ctx.obj["settings"]
    result = reports.run(list(names) if names else list(reports.REPORTS), as_of,
                         settings.store, key_values(params, "-p"),
                         out_root=Path(out), show_code=show_code, progress=True, settings=settings)
    for outcome in result.outcomes:
        click.echo(f"{outcome.name}: {'ok' if outcome.ok else 'failed'}")
    click.echo(f"reports: {os.path.abspath(result.index)}")
    result.check()  # a failed report: one line naming it, its cell and the error; exit 1


@cli.command()
@click.option("--dir", "folder", default="notebooks", show_default=True,
              help="Where the exploration notebook is copied (kept if it exists).")
@click.option("--port", type=int, default=None, help="JupyterLab's port.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
@click.option("--ip", default=None, help="The address JupyterLab listens on (its default: localhost; 0.0.0.0 "
                                         "for a browser outside a container).")
@click.option("--allow-root/--no-allow-root", "allow_root", default=None,
              help="Let JupyterLab run as root (default: on when memlib runs as root, as in most containers).")
@click.pass_context
def lab(ctx, folder, port, no_browser, ip, allow_root):
    """Open JupyterLab on the store, with an exploration notebook that starts from
    analytics.connect (the store is passed in $MEMLIB_STORE)."""
    import os
    import subprocess
    import sys

    from memlib.analytics import reports
    from memlib.errors import MemlibError
    from memlib.extras import need

    need("lab", "jupyterlab", "memlib lab")
    notebook = reports.exploration_notebook(folder)
    store = ctx.obj["settings"].store
    env = {**os.environ, "MEMLIB_STORE": store if "://" in store else os.path.abspath(store)}
    command = [sys.executable, "-m", "jupyterlab", str(notebook)]
    if port:
        command.append(f"--port={port}")
    if no_browser:
        command.append("--no-browser")
    if ip:
        command.append(f"--ip={ip}")
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if allow_root or (allow_root is None and as_root):
        command.append("--allow-root")
        if allow_root is None:
            click.echo("memlib runs as root (as in a container): JupyterLab is started with --allow-root "
                       "(--no-allow-root to refuse)", err=True)
    click.echo(f"JupyterLab on store {env['MEMLIB_STORE']}: {notebook}")
    status = subprocess.call(command, env=env)
    if status not in (0, -2, 130):  # Ctrl-C ends a lab as it should
        raise MemlibError(f"JupyterLab stopped with status {status} (its own messages are above)")
