"""The `memlib` command: a thin shell over the library. Each command opens the store, calls one
library function and prints. A user's mistake is one line on stderr and a non-zero exit."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

import click

from memlib.errors import InvalidInput, MemlibError
from memlib.scope import Scope
from memlib.search import MAX_K, MODES


def _open(ctx: click.Context, create: bool = False, embedder: str | None = None,
          as_of: str | None = None):
    from memlib.embeddings import HashEmbedder, SentenceTransformerEmbedder, default_embedder
    from memlib.store import MemoryStore

    chosen = None
    if embedder == "hash":
        chosen = HashEmbedder()
    elif embedder == "default":
        chosen = default_embedder()
    elif embedder:
        chosen = SentenceTransformerEmbedder(embedder)
    return MemoryStore.open(ctx.obj["store"], embedder=chosen, create=create, as_of=as_of)


def _echo_json(data) -> None:
    click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def _date(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{name}: {value!r} is not an ISO date such as 2026-05-01") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


embedder_option = click.option(
    "--embedder", default=None, metavar="NAME",
    help="For a new store: 'default' (all-MiniLM-L6-v2, offline), 'hash' (fast, no model) "
         "or a local sentence-transformers model path.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", envvar="MEMLIB_STORE", default=None, metavar="URI",
              help="LanceDB URI of the store (default: $MEMLIB_STORE, else data/store).")
@click.pass_context
def cli(ctx: click.Context, store: str | None) -> None:
    """memlib: an analytics-first memory store for AI agents."""
    ctx.obj = {"store": store}


@cli.command()
@embedder_option
@click.pass_context
def init(ctx, embedder):
    """Create an empty store (or check an existing one)."""
    store = _open(ctx, create=True, embedder=embedder)
    click.echo(f"store {store.uri}: {store.count()} memories, model {store.model_name} ({store.dims} dims)")


FIELD_OPTIONS = ["id", "project_id", "root_task_id", "iteration_id", "name", "description",
                 "objective", "details", "title", "context", "decision", "consequences",
                 "content", "code_example", "importance", "speaker", "source", "agent"]


def _field_options(func):
    for name in reversed(FIELD_OPTIONS):
        func = click.option(f"--{name.replace('_', '-')}", name, default=None)(func)
    return func


@cli.command()
@click.option("--kind", default=None, help="Kind of the one memory given by flags.")
@_field_options
@click.option("--confidence", type=int, default=None)
@click.option("--ttl-days", type=int, default=None)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--metadata", default=None, help="A JSON object.")
@click.option("--usage-example", "usage_examples", multiple=True)
@click.option("--file", "path", default=None, help="A JSONL file of memories ('-' for stdin).")
@click.pass_context
def add(ctx, kind, confidence, ttl_days, tags, metadata, usage_examples, path, **fields):
    """Add one memory from flags, or many from a JSONL file (one commit)."""
    from memlib.transfer import load_memories

    if path:
        if kind or any(v is not None for v in fields.values()):
            raise InvalidInput("give either --file or the flags of one memory, not both")
        memories, labels = load_memories(path)
    else:
        if not kind:
            raise InvalidInput("--kind is required when adding one memory from flags")
        record = {k: v for k, v in fields.items() if v is not None} | {"kind": kind}
        for key, value in (("confidence", confidence), ("ttl_days", ttl_days)):
            if value is not None:
                record[key] = value
        if tags:
            record["tags"] = list(tags)
        if usage_examples:
            record["usage_examples"] = list(usage_examples)
        if metadata is not None:
            try:
                record["metadata"] = json.loads(metadata)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"--metadata is not valid JSON ({exc.msg})") from None
        memories, labels = [record], ["memory"]
    store = _open(ctx, create=True)
    ids = store.add(memories, labels=labels, progress=True)
    click.echo(ids[0] if len(ids) == 1 else f"added {len(ids)} memories")


def _scope_options(func):
    options = [
        click.option("--project-id", default=None),
        click.option("--root-task-id", default=None),
        click.option("--level", type=click.IntRange(0, 2), default=None),
        click.option("--kind", "kinds", multiple=True, help="Kind to include (repeatable)."),
        click.option("--tag", "tags", multiple=True, help="Match memories with any of these tags."),
        click.option("--source", default=None),
        click.option("--since", default=None, help="Created at or after this ISO date."),
        click.option("--until", default=None, help="Created before this ISO date."),
        click.option("--min-confidence", type=click.IntRange(0, 100), default=None),
        click.option("--include-expired", is_flag=True, help="Also return memories past their TTL."),
        click.option("-k", "k", type=click.IntRange(1, MAX_K), default=10, show_default=True),
        click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True),
        click.option("--json", "as_json", is_flag=True, help="Machine-readable output."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _scope(kw) -> Scope:
    return Scope(project_id=kw["project_id"], root_task_id=kw["root_task_id"], level=kw["level"],
                 kinds=kw["kinds"], tags=kw["tags"], source=kw["source"],
                 created_after=_date(kw["since"], "--since"), created_before=_date(kw["until"], "--until"),
                 min_confidence=kw["min_confidence"], include_expired=kw["include_expired"])


def _print_hits(hits, as_json: bool) -> None:
    if as_json:
        _echo_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo("no matching memories")
    for hit in hits:
        text = hit.memory.own_text.replace("\n", " | ")
        click.echo(f"{hit.rank:>3}  {hit.score:8.4f}  {hit.memory.kind.value:<12} {hit.memory.id}  "
                   f"{text[:90]}")


@cli.command()
@click.argument("query")
@_scope_options
@click.pass_context
def search(ctx, query, k, mode, as_json, **kw):
    """Search memories (hybrid by default) within a scope."""
    hits = _open(ctx).search(query, k=k, mode=mode, scope=_scope(kw))
    _print_hits(hits, as_json)


@cli.command()
@click.argument("query")
@_scope_options
@click.option("--agent", default=None, help="Who recalls (logged with each event).")
@click.pass_context
def recall(ctx, query, k, mode, as_json, agent, **kw):
    """Search on an agent's behalf and log one recall event per hit."""
    hits = _open(ctx).recall(query, k=k, mode=mode, scope=_scope(kw), agent=agent)
    _print_hits(hits, as_json)


@cli.command()
@click.argument("memory_id")
@click.option("--embedding", is_flag=True, help="Include the embedding.")
@click.pass_context
def get(ctx, memory_id, embedding):
    """Print one memory as JSON."""
    memory = _open(ctx).get(memory_id, with_embedding=embedding)
    _echo_json(memory.model_dump(mode="json", exclude=None if embedding else {"embedding"}))


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--cascade", is_flag=True, help="Also delete the memories that hang off these.")
@click.pass_context
def delete(ctx, memory_ids, cascade):
    """Delete memories by id (one commit)."""
    click.echo(f"deleted {_open(ctx).delete(list(memory_ids), cascade=cascade)} memories")


@cli.command("import")
@click.argument("path")
@click.pass_context
def import_(ctx, path):
    """Upsert memories from a JSONL file ('-' for stdin); re-running adds no duplicates."""
    from memlib.transfer import import_jsonl

    store = _open(ctx, create=True)
    click.echo(f"imported {import_jsonl(store, path, progress=True)} memories")


@cli.command()
@click.argument("path")
@click.pass_context
def export(ctx, path):
    """Write every memory, embeddings included, as JSONL ('-' for stdout)."""
    from memlib.transfer import export_jsonl

    count = export_jsonl(_open(ctx), path)
    if path != "-":
        click.echo(f"exported {count} memories to {path}")


@cli.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def stats(ctx, as_json):
    """Counts by level, kind and project."""
    data = _open(ctx).stats()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"store {data['store']} ({data['model']}, {data['dims']} dims, version {data['version']})")
    click.echo(f"memories: {data['memories']:,}   recall events: {data['recall_events']:,}"
               f"   pending recall segments: {data['recall_segments_pending']}")
    for title, key in (("by level", "by_level"), ("by kind", "by_kind"), ("by project", "by_project")):
        click.echo(f"{title}:")
        for name, count in data[key].items():
            click.echo(f"  {name:<60} {count:>10,}")


@cli.command()
@click.pass_context
def maintain(ctx):
    """Flush recalls, fold usage into memories, compact tables, update indexes."""
    _echo_json(_open(ctx).maintain())


@cli.command()
@click.option("--size", type=click.IntRange(20, 1_000_000), default=2_000, show_default=True)
@click.option("--seed", type=int, default=7, show_default=True)
@click.option("--anchor", default=None, help="Last day of the corpus (default: today, UTC).")
@click.option("--vectors", type=click.Choice(["auto", "model", "approx"]), default="auto",
              show_default=True, help="Real embeddings, or real topic centroids plus noise for "
                                      "large sizes (auto: real up to 20,000).")
@embedder_option
@click.pass_context
def sample(ctx, size, seed, anchor, vectors, embedder):
    """Write a realistic, deterministic sample corpus and recall history into an empty store."""
    from memlib.sample import build_sample

    store = _open(ctx, create=True, embedder=embedder)
    summary = build_sample(store, size=size, seed=seed, anchor=_date(anchor, "--anchor"),
                           vectors=vectors, progress=True)
    _echo_json(summary | {"store": store.uri})


@cli.group()
def report():
    """Run the analytics reports (papermill notebooks) and list their parameters."""


@report.command("list")
def report_list():
    """Each report with its parameters and their defaults."""
    from memlib import reports

    for name in reports.REPORTS:
        click.echo(name)
        for key, spec in reports.parameters(name).items():
            comment = f"  # {spec['help']}" if spec["help"] else ""
            click.echo(f"  {key} = {spec['default']}{comment}")


@report.command("run")
@click.argument("names", nargs=-1)
@click.option("--all", "run_all", is_flag=True, help="Run every report.")
@click.option("--as-of", "as_of", required=True, help="The date the reports are as of (ISO).")
@click.option("-p", "params", multiple=True, metavar="KEY=VALUE",
              help="Override a notebook parameter (repeatable).")
@click.option("--out", default="reports", show_default=True, help="Where reports/<as-of>/ goes.")
@click.option("--show-code", is_flag=True, help="Keep the notebooks' code in the HTML (hidden by default).")
@click.pass_context
def report_run(ctx, names, run_all, as_of, params, out, show_code):
    """Execute reports for one date into <out>/<as-of>/ (replaced atomically)."""
    from datetime import date

    from memlib import reports
    from memlib.store import resolve_uri

    if run_all and names:
        raise InvalidInput("give report names or --all, not both")
    if not run_all and not names:
        raise InvalidInput(f"name the reports to run ({', '.join(reports.REPORTS)}) or pass --all")
    for name in names:
        reports.notebook(name)
    try:
        day = date.fromisoformat(as_of)
    except ValueError:
        raise InvalidInput(f"--as-of: {as_of!r} is not an ISO date such as 2026-11-01") from None
    result = reports.run(list(names) if names else list(reports.REPORTS), day,
                         resolve_uri(ctx.obj["store"]), reports.parse_overrides(list(params)),
                         out_root=Path(out), show_code=show_code)
    for outcome in result.outcomes:
        if outcome.ok:
            click.echo(f"{outcome.name}: ok")
        else:
            click.echo(f"memlib: error: report {outcome.error}", err=True)
    click.echo(f"reports: {os.path.abspath(result.index)}")
    if not result.ok:
        sys.exit(1)


# -- lifecycle ---------------------------------------------------------------------------------

policy_option = click.option("--policy", default="default", show_default=True, metavar="NAME|PATH",
                             help="A policy name (memlib policy list) or a .toml/.yaml file.")
as_of_option = click.option("--as-of", "as_of", default=None, metavar="DATE",
                            help="Judge as of the end of this day (UTC); default now.")


@cli.group()
def retention():
    """Plan, apply, undo and purge retention runs (see memlib/policies/)."""


@retention.command("plan")
@policy_option
@as_of_option
@click.option("--json", "as_json", is_flag=True, help="Every candidate with its reasons, as JSON.")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Candidates listed in the text output.")
@click.pass_context
def retention_plan(ctx, policy, as_of, as_json, limit):
    """What a policy would remove, and why: the retention report's candidates (a dry run)."""
    from memlib import lifecycle

    plan = lifecycle.plan(_open(ctx), policy, as_of)
    rows = plan.candidates.select(["id", "kind", "project_id", "reasons", "decay_score", "confidence"]).to_pylist()
    if as_json:
        _echo_json({**plan.summary(), "memories": rows})
        return
    summary = plan.summary()
    click.echo(f"policy {summary['policy']} v{summary['version']} ({summary['digest']}) as of "
               f"{summary['as_of']}: {summary['candidates']:,} memories would be removed")
    for title, key in (("by reason", "by_reason"), ("by kind", "by_kind")):
        click.echo(f"{title}: " + ", ".join(f"{k} {v:,}" for k, v in summary[key].items()))
    for row in rows[:limit]:
        click.echo(f"  {row['id']}  {row['kind']:<12} {','.join(row['reasons']):<30} "
                   f"decay {row['decay_score']:.3f}  confidence {row['confidence']}")


@retention.command("apply")
@policy_option
@as_of_option
@click.pass_context
def retention_apply(ctx, policy, as_of):
    """Remove exactly the plan's memories: tagged and archived first, so undo restores them."""
    from memlib import lifecycle

    out = lifecycle.apply(_open(ctx), policy, as_of)
    for run_id in out.resumed:
        click.echo(f"finished the interrupted run {run_id}")
    if out.run_id is None:
        click.echo("nothing to remove")
        return
    click.echo(f"run {out.run_id}: removed {out.removed:,} memories (archived; version before "
               f"tagged {out.tag}); undo with: memlib retention undo {out.run_id}")


@retention.command("undo")
@click.argument("run_id")
@click.pass_context
def retention_undo(ctx, run_id):
    """Restore every memory a run removed, unchanged."""
    from memlib import lifecycle

    click.echo(f"restored {lifecycle.undo(_open(ctx), run_id):,} memories of run {run_id}")


@retention.command("runs")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def retention_runs(ctx, as_json):
    """Every retention run: when, which policy, how many removed, its status."""
    from memlib import lifecycle

    runs = lifecycle.runs(_open(ctx))
    if as_json:
        _echo_json(runs)
        return
    if not runs:
        click.echo("no retention runs")
    for run in runs:
        click.echo(f"{run['run_id']}  {run['started_at']:%Y-%m-%d %H:%M}  {run.get('policy')} "
                   f"v{run.get('version')}  as of {run.get('as_of', '')[:10]}  "
                   f"{run.get('candidates', 0):,} memories  {run['status']}")


@retention.command("purge")
@click.argument("run_id")
@click.option("--yes", is_flag=True, help="Confirm: the run's archived memories are gone for good.")
@click.pass_context
def retention_purge(ctx, run_id, yes):
    """Delete a run's archived memories for good (and old versions no tag holds)."""
    from memlib import lifecycle

    if not yes:
        raise InvalidInput("purge deletes archived memories for good; confirm with --yes")
    out = lifecycle.purge(_open(ctx), run_id)
    click.echo(f"purged run {run_id}: {out['archived_rows_deleted']:,} archived memories deleted")
    if out["tags_still_held"]:
        click.echo(f"{len(out['tags_still_held'])} older retention tags still hold versions with them; "
                   f"purge those runs too to remove them from disk")


@cli.command()
@click.argument("memory_id", required=False)
@click.option("--as-of", "as_of", default=None, metavar="VERSION|TAG|DATE",
              help="Open the store as it was: a version (12 or v12), a tag, or a date.")
@click.option("--export", "export_path", default=None, metavar="PATH",
              help="With --as-of: write every memory as it was, as JSONL.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def history(ctx, memory_id, as_of, export_path, as_json):
    """One memory's whole life (its audit events), or the store as of a version or date."""
    if export_path and not as_of:
        raise InvalidInput("--export needs --as-of (use 'memlib export' for the store as it is)")
    store = _open(ctx, as_of=as_of)
    if memory_id:
        from memlib.scope import sql_literal

        # the audit log is not time-travelled: the store's handle on it reads it whole
        events = store.audit.events(f"subject_id = {sql_literal(memory_id)} OR "
                                    f"details LIKE {sql_literal('%' + memory_id + '%')}")
        if as_of:
            events = [e for e in events if e["at"] <= store.version_time()]
        try:
            state = store.get(memory_id).model_dump(mode="json", exclude={"embedding"})
        except MemlibError:
            state = None
        if not events and state is None:
            raise InvalidInput(f"no memory or event with id {memory_id!r}")
        if as_json:
            _echo_json({"memory": state, "events": events})
            return
        click.echo(f"memory {memory_id}" + (f" as of version {store.version}" if as_of else "")
                   + (": not in the store" if state is None else f": {state['kind']}"))
        for e in events:
            details = json.dumps(e["details"], default=str) if e["details"] else ""
            click.echo(f"  {e['at']:%Y-%m-%d %H:%M:%S}  {e['action']:<16} {e['status']:<9} "
                       f"{e['actor'] or '':<12} {details[:100]}")
        return
    if not as_of:
        versions = store.table.list_versions()
        tags = store.table.tags.list()
        if as_json:
            _echo_json({"versions": versions, "tags": tags})
            return
        click.echo(f"{len(versions)} versions kept, {len(tags)} tags; open one with --as-of")
        for name, tag in sorted(tags.items(), key=lambda kv: kv[1]["version"]):
            click.echo(f"  tag {name} -> version {tag['version']}")
        return
    if export_path:
        from memlib.transfer import export_jsonl

        count = export_jsonl(store, export_path)
        if export_path != "-":
            click.echo(f"exported {count} memories as of version {store.version} to {export_path}")
        return
    data = store.stats()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"store {data['store']} as of version {data['version']} "
               f"({store.version_time():%Y-%m-%d %H:%M:%S} UTC): {data['memories']:,} memories")
    for name, count in data["by_kind"].items():
        click.echo(f"  {name:<20} {count:>10,}")


@cli.command()
@click.argument("memory_id")
@click.option("--title", default=None, help="The decision's title or pattern's name "
                                           "(default: the source's title or first line).")
@click.pass_context
def promote(ctx, memory_id, title):
    """Promote an insight to a project decision, or a learning to a reusable pattern."""
    from memlib import lifecycle

    new = lifecycle.promote(_open(ctx), memory_id, title=title)
    click.echo(f"promoted {memory_id} to {new.kind.value} {new.id}: {getattr(new, new.TITLE)}")


@cli.command()
@click.argument("memory_id")
@click.option("--set/--clear", "value", default=True, help="Set or clear manual_promote_flag.")
@click.pass_context
def flag(ctx, memory_id, value):
    """Set or clear a memory's manual_promote_flag (a flagged memory is never dropped)."""
    from memlib import lifecycle

    lifecycle.set_flag(_open(ctx), memory_id, value)
    click.echo(f"manual_promote_flag of {memory_id} {'set' if value else 'cleared'}")


@cli.command()
@click.argument("memory_id")
@click.option("--by", "delta", type=int, required=True, help="Points to add (negative lowers).")
@click.option("--reason", required=True, help="Why (kept in the audit log).")
@click.pass_context
def confidence(ctx, memory_id, delta, reason):
    """Raise or lower a memory's confidence (0-100) with a reason."""
    from memlib import lifecycle

    memory = lifecycle.adjust_confidence(_open(ctx), memory_id, delta, reason)
    click.echo(f"confidence of {memory_id} is now {memory.confidence}")


@cli.group()
def iteration():
    """Iterations of a project."""


@iteration.command("finalize")
@click.argument("project_id")
@click.argument("iteration_id")
@click.pass_context
def iteration_finalize(ctx, project_id, iteration_id):
    """Close an iteration: its critical insights are promoted to decisions."""
    from memlib import lifecycle

    promoted = lifecycle.finalize_iteration(_open(ctx), project_id, iteration_id)
    click.echo(f"iteration {iteration_id} finalized; {len(promoted)} critical insights promoted")
    for memory in promoted:
        click.echo(f"  decision {memory.id}: {memory.title}")


@cli.group("policy")
def policy_group():
    """Retention policies: list, show, check."""


@policy_group.command("list")
def policy_list():
    """The policies known by name."""
    from memlib import policy

    for name in policy.names():
        p = policy.load(name)
        click.echo(f"{p.name:<16} v{p.version}  {p.digest}  {p.description}")


@policy_group.command("show")
@click.argument("spec")
def policy_show(spec):
    """A policy's settings, validated, as JSON."""
    from memlib import policy

    p = policy.load(spec)
    _echo_json({**p.model_dump(mode="json"), "digest": p.digest})


def main(argv: list[str] | None = None) -> None:
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


if __name__ == "__main__":
    main()
