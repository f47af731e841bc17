"""The `memlib` command group and what its commands share: opening the store, printing."""

from __future__ import annotations

import json
from datetime import datetime

import click

from memlib.clock import AsOf, parse_time
from memlib.embeddings import NAMED
from memlib.errors import InvalidInput
from memlib.vocabulary import CONTROL_SCHEMA_VERSION, SCHEMA_VERSION


def open_store(ctx: click.Context, create: bool = False, embedder: str | None = None,
               as_of: AsOf | None = None, search=None, workspace: bool = True, version: str | None = None,
               judge: str | None = None):
    """The store of --store; with the workspace of --workspace (saves go to its files) unless
    `workspace` is False (a command that writes in bulk, or syncs the workspace itself). With
    --server, the memory server's (memlib.server.client)."""
    from memlib.embeddings import named
    from memlib.memory_store import MemoryStore

    settings = ctx.obj["settings"]
    if settings.server:  # a memory server's store: what it serves works, the rest says so in one line
        if embedder or as_of or version or judge or search is not None:
            raise InvalidInput(f"--server {settings.server}: this runs where the store is (without --server)")
        return MemoryStore.connect(settings=settings)
    chosen = named(embedder, settings) if embedder else None
    return MemoryStore.open(embedder=chosen, create=create, as_of=as_of, version=version, search=search,
                            workspace=settings.workspace if workspace else None, settings=settings, judge=judge)


def through_server(store, actor: str | None = None) -> bool:
    """Whether `store` is a memory server's (--server): the command then asks the server,
    where the token names who acts, so an --actor is refused in one line."""
    from memlib.server.client import Client

    if not isinstance(store, Client):
        return False
    if actor is not None:
        raise InvalidInput("--actor: through a memory server the token's agent acts; drop --actor")
    return True


def key_values(pairs, option: str) -> dict[str, str]:
    """Repeated KEY=VALUE options as {key: value} (keys stripped, values as given); one line
    naming `option` for a pair that is not one."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInput(f"{option} takes key=value, not {pair!r}")
        out[key.strip()] = value
    return out


def echo_json(data) -> None:
    click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def option_date(value: str | None, name: str) -> datetime | None:
    return parse_time(value, name)


def as_of_option(help: str):
    """`--as-of DATE`, parsed here, once, into an AsOf (None when not given)."""
    return click.option("--as-of", "as_of", default=None, metavar="DATE", help=help,
                        callback=lambda ctx, param, value: None if value is None else AsOf.of(value, what="--as-of"))


def as_of_or_version(value: str | None) -> dict[str, AsOf | str | None]:
    """`--as-of VERSION|TAG|DATE` as the store's keywords: a version number, else an ISO date,
    else a tag (`MemoryStore.open(as_of=)` takes dates only, `version=` numbers and tags)."""
    from memlib.store.versions import is_number

    if value is None or is_number(value):
        return {"version": value, "as_of": None}
    try:
        return {"as_of": AsOf.of(value, what="--as-of"), "version": None}
    except InvalidInput:
        return {"version": value, "as_of": None}


embedder_option = click.option(
    "--embedder", default=None, metavar="NAME",
    help="For a new store: " + ", ".join(
        f"'{name}' ({entry.what})" if name != "default" else
        f"'default' ({next(n for n, e in NAMED.items() if e is entry and n != name)})"
        for name, entry in NAMED.items()) + " or a local sentence-transformers model path.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memlib", prog_name="memlib",
                      message=f"%(prog)s %(version)s (store schema {SCHEMA_VERSION}, "
                              f"control plane schema {CONTROL_SCHEMA_VERSION})")
@click.option("--store", default=None, metavar="URI",
              help="LanceDB URI of the store (default: $MEMLIB_STORE, else the config's, else data/store).")
@click.option("--workspace", default=None, metavar="DIR",
              help="A markdown workspace (memlib workspace init) the memories saved go to "
                   "(default: $MEMLIB_WORKSPACE, else the config's, else none).")
@click.option("--device", default=None, metavar="DEVICE",
              help="Where the embedding model runs: cpu, cuda, cuda:N or mps "
                   "(default: $MEMLIB_DEVICE, else the config's, else cpu).")
@click.option("--server", default=None, metavar="URL",
              help="Work through a memory server (memlib serve) with the token in $MEMLIB_TOKEN: add, get, "
                   "search, recall, update, correct, forget, confidence, history and contradictions "
                   "(default: $MEMLIB_SERVER, else the config's, else none: the store itself).")
@click.pass_context
def cli(ctx: click.Context, store: str | None, workspace: str | None, device: str | None,
        server: str | None) -> None:
    """memlib: an analytics-first memory store for AI agents. Settings come from a flag, else
    the environment, else the config file (memlib/settings.py), resolved once here."""
    from memlib.settings import Settings

    settings = Settings.resolve(store=store, workspace=workspace, device=device, server=server)
    if device is not None:
        from memlib.embeddings import checked_device

        checked_device(settings.device)  # a device this machine lacks: one line, before any work
    ctx.obj = {"settings": settings}
