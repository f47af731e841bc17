"""The `memlib` command: a thin shell over the library. Each command opens the store, calls one
library function and prints; it holds no SQL and no rules. A user's mistake is one line on
stderr and a non-zero exit. One module per command group: memories (write, read, search,
history), reports (the analytics reports, JupyterLab), lifecycle (retention, curation,
policies), agents (the MCP server), workspace (the markdown workspace), control (tasks and
the dispatch queue)."""

from __future__ import annotations

import logging
import os
import sys

import click

from memlib.cli import agents, control, lifecycle, memories, reports, server, workspace  # noqa: F401  (they register their commands)
from memlib.cli.app import cli
from memlib.errors import MemlibError


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("LANCE_LOG", "error")  # the command's own stderr stays for its errors
    warnings = logging.StreamHandler(sys.stderr)  # the library's warnings, one line each
    warnings.setFormatter(logging.Formatter("memlib: warning: %(message)s"))
    logging.getLogger("memlib").addHandler(warnings)
    try:
        cli.main(args=argv, prog_name="memlib", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("memlib: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"memlib: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except MemlibError as exc:
        click.echo(f"memlib: error: {exc}", err=True)
        sys.exit(1)
    except BrokenPipeError:
        sys.exit(1)
    except OSError as exc:  # a path the command was given that cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        click.echo(f"memlib: error: {exc.strerror or exc}{where}", err=True)
        sys.exit(1)
