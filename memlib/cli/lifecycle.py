"""Lifecycle commands: retention, promotion, iterations, flags, confidence, policies."""

from __future__ import annotations

import click

from memlib.cli.app import as_of_option, cli, echo_json, open_store, through_server
from memlib.errors import InvalidInput, MemlibError
from memlib.embeddings import NAMED

# -- lifecycle ---------------------------------------------------------------------------------

policy_option = click.option("--policy", default="default", show_default=True, metavar="NAME|PATH",
                             help="A policy name (memlib policy list) or a .toml/.yaml file.")
judged_as_of = as_of_option("Judge as of the end of this day (UTC); default now.")


@cli.group()
def retention():
    """Plan, apply, undo and purge retention runs (see memlib/policies/)."""


@retention.command("plan")
@policy_option
@judged_as_of
@click.option("--json", "as_json", is_flag=True, help="Every candidate with its reasons, as JSON.")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Candidates listed in the text output.")
@click.pass_context
def retention_plan(ctx, policy, as_of, as_json, limit):
    """What a policy would remove, and why: the retention report's candidates (a dry run)."""
    from memlib import policy as policies
    from memlib.lifecycle import retention as lifecycle

    plan = lifecycle.plan(open_store(ctx), policies.load(policy, ctx.obj["settings"].policy_dir), as_of)
    rows = plan.candidates.select(["id", "kind", "project_id", "reasons", "decay_score", "confidence"]).to_pylist()
    if as_json:
        echo_json({**plan.summary(), "memories": rows})
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
@judged_as_of
@click.pass_context
def retention_apply(ctx, policy, as_of):
    """Remove exactly the plan's memories: tagged and archived first, so undo restores them."""
    from memlib.lifecycle import retention as lifecycle

    out = lifecycle.apply(open_store(ctx), policy, as_of)
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
    """Restore every memory a run removed, unchanged (and, for a workspace's deletions, the
    entries in its files)."""
    from memlib.lifecycle import retention as lifecycle

    store = open_store(ctx)
    click.echo(f"restored {lifecycle.undo(store, run_id):,} memories of run {run_id}")
    root = next((r.get("workspace") for r in lifecycle.runs(store) if r["run_id"] == run_id), None)
    if root:  # the run removed what was deleted from a workspace's files: they get it back
        from memlib.workspace import Workspace

        workspace = Workspace.configured(root)
        if workspace is None:
            click.echo(f"the workspace {root} is gone: the memories are back in the store only")
            return
        report = workspace.sync(store, actor=ctx.obj["settings"].actor)
        click.echo(f"workspace {root}: {report.written:,} entries written back to its files")


@retention.command("runs")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def retention_runs(ctx, as_json):
    """Every retention run: when, which policy, how many removed, its status."""
    from memlib.lifecycle import retention as lifecycle

    runs = lifecycle.runs(open_store(ctx))
    if as_json:
        echo_json(runs)
        return
    if not runs:
        click.echo("no retention runs")
    for run in runs:
        click.echo(f"{run['run_id']}  {run['started_at']:%Y-%m-%d %H:%M}  {lifecycle.described(run)}  "
                   f"{lifecycle.space(run)}")


@retention.command("purge")
@click.argument("run_id")
@click.option("--yes", is_flag=True, help="Confirm: the run's archived memories are gone for good.")
@click.pass_context
def retention_purge(ctx, run_id, yes):
    """Delete a run's archived memories for good (and old versions no tag holds)."""
    from memlib.lifecycle import retention as lifecycle

    if not yes:
        raise InvalidInput("purge deletes archived memories for good; confirm with --yes")
    out = lifecycle.purge(open_store(ctx), run_id)
    freed = "" if out["bytes_freed"] is None else f", {out['bytes_freed'] / 2**20:,.1f} MB freed on disk"
    click.echo(f"purged run {run_id}: {out['archived_rows_deleted']:,} archived memories deleted{freed}")
    click.echo("older versions of the memories table still hold them for time travel; "
               "'memlib versions cleanup --older-than DAYS' removes those")


@cli.group("versions")
def versions_group():
    """The store's old versions (time travel): cleanup."""


@versions_group.command("cleanup")
@click.option("--older-than", "older_than", type=int, required=True, metavar="DAYS",
              help="Remove the versions older than this many days that no tag holds.")
@click.option("--yes", is_flag=True, help="Confirm: time travel to before then ends.")
@click.pass_context
def versions_cleanup(ctx, older_than, yes):
    """Delete old versions of the memories table, store-wide: as-of reports and time travel
    to dates before them are no longer possible."""
    if not yes:
        raise InvalidInput("cleanup removes old versions for good (as-of reports before them "
                           "can no longer be rendered); confirm with --yes")
    from memlib.lifecycle import retention as lifecycle

    out = lifecycle.cleanup_versions(open_store(ctx), older_than)
    freed = "" if out["bytes_freed"] is None else f", {out['bytes_freed'] / 2**20:,.1f} MB freed on disk"
    click.echo(f"removed {len(out['versions_removed']):,} versions older than {older_than} days{freed}")


@cli.command()
@click.argument("memory_id")
@click.option("--title", default=None, help="The decision's title or pattern's name "
                                           "(default: the source's title or first line).")
@click.pass_context
def promote(ctx, memory_id, title):
    """Promote an insight to a project decision, or a learning to a reusable pattern."""
    from memlib.lifecycle import curation

    new = curation.promote(open_store(ctx), memory_id, title=title)
    click.echo(f"promoted {memory_id} to {new.kind.value} {new.id}: {getattr(new, new.TITLE)}")


@cli.command()
@click.argument("memory_id")
@click.option("--set/--clear", "value", default=True, help="Set or clear manual_promote_flag.")
@click.pass_context
def flag(ctx, memory_id, value):
    """Set or clear a memory's manual_promote_flag (a flagged memory is never dropped)."""
    from memlib.lifecycle import curation

    curation.set_flag(open_store(ctx), memory_id, value)
    click.echo(f"manual_promote_flag of {memory_id} {'set' if value else 'cleared'}")


@cli.command()
@click.argument("memory_id")
@click.option("--by", "delta", type=int, required=True, help="Points to add (negative lowers).")
@click.option("--reason", required=True, help="Why (kept in the audit log).")
@click.pass_context
def confidence(ctx, memory_id, delta, reason):
    """Raise or lower a memory's confidence (0-100) with a reason."""
    from memlib.lifecycle import curation

    store = open_store(ctx)
    try:
        before = store.get(memory_id).confidence
    except MemlibError:
        before = None  # the change below says what is wrong
    memory = (store.adjust_confidence(memory_id, delta, reason) if through_server(store)
              else curation.adjust_confidence(store, memory_id, delta, reason))
    if before is not None and before + delta != memory.confidence:  # past a bound: say so
        bound = "floor" if delta < 0 else "ceiling"
        click.echo(f"confidence of {memory_id} is now {memory.confidence}: {'lowered' if delta < 0 else 'raised'} by "
                   f"{abs(memory.confidence - before)} of the {abs(delta)} asked ({memory.confidence} is the {bound})")
    else:
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
    from memlib.lifecycle import curation

    promoted = curation.finalize_iteration(open_store(ctx), project_id, iteration_id)
    click.echo(f"iteration {iteration_id} finalized; {len(promoted)} critical insights promoted")
    for memory in promoted:
        click.echo(f"  decision {memory.id}: {memory.title}")


@cli.group("policy")
def policy_group():
    """Retention policies: list, show, check."""


@policy_group.command("list")
@click.pass_context
def policy_list(ctx):
    """The policies known by name."""
    from memlib import policy

    policy_dir = ctx.obj["settings"].policy_dir
    for name in policy.names(policy_dir):
        p = policy.load(name, policy_dir)
        click.echo(f"{p.name:<16} v{p.version}  {p.digest}  {p.description}")


@policy_group.command("check")
@click.argument("spec")
@click.pass_context
def policy_check(ctx, spec):
    """Validate a policy file (or name): one line per problem, exit 1 if there are any."""
    import sys

    from memlib import policy

    where, found = policy.check(spec, ctx.obj["settings"].policy_dir)
    for problem in found:
        click.echo(f"{where}: {problem}", err=True)
    if found:
        sys.exit(1)
    click.echo(f"{where}: ok")


@policy_group.command("show")
@click.argument("spec")
@click.pass_context
def policy_show(ctx, spec):
    """A policy's settings, validated, as JSON."""
    from memlib import policy

    p = policy.load(spec, ctx.obj["settings"].policy_dir)
    echo_json({**p.model_dump(mode="json"), "digest": p.digest})




# -- the embedding model -----------------------------------------------------------------------

@cli.command()
@click.option("--embedder", default=None, metavar="NAME",
              help="The model to move to: " + ", ".join(f"'{name}'" for name in NAMED)
              + " (memlib init --help says what each is) or a local model directory (same dims).")
@click.option("--undo", "undo_run", default=None, metavar="RUN", help="Put back the vectors a run replaced.")
@click.option("--forget", "forget_run", default=None, metavar="RUN",
              help="Drop a run's old vectors (then it can no longer be undone).")
@click.option("--runs", "list_runs", is_flag=True, help="List the runs.")
@click.pass_context
def reembed(ctx, embedder, undo_run, forget_run, list_runs):
    """Move the store to another embedding model, in place: resumable (run it again after a
    stop) and undoable until the run is forgotten."""
    from memlib.embeddings import named
    from memlib.lifecycle import reembed as runs

    chosen = [name for name, value in (("--embedder", embedder), ("--undo", undo_run), ("--forget", forget_run),
                                       ("--runs", list_runs)) if value]
    if len(chosen) != 1:
        raise InvalidInput("give one of --embedder NAME, --undo RUN, --forget RUN or --runs")
    store = open_store(ctx, workspace=False)
    if list_runs:
        echo_json(runs.runs(store))
    elif forget_run:
        runs.forget(store, forget_run)
        click.echo(f"forgot reembed run {forget_run}: its old vectors go at the next maintain's clean-up")
    else:
        out = (runs.undo(store, undo_run, progress=True) if undo_run
               else runs.reembed(store, named(embedder, store.settings), progress=True))
        verb = "undid" if undo_run else "resumed and finished" if out.resumed else "finished"
        click.echo(f"{verb} reembed run {out.run_id}: {out.memories:,} memories from {out.model_from} "
                   f"to {out.model_to}" + ("" if undo_run else f" (undo: memlib reembed --undo {out.run_id})"))
