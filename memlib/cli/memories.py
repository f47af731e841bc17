"""Commands on memories: init, add, search, recall, get, delete, import, export, stats,
maintain, sample, history."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from memlib.cli.app import (as_of_or_version, cli, echo_json, embedder_option, key_values, open_store, option_date,
                            through_server)
from memlib.errors import InvalidInput
from memlib.scope import Scope
from memlib.search import MAX_K, MODES, SearchConfig
from memlib.vocabulary import REVISABLE

if TYPE_CHECKING:
    from memlib.interface import MemoryInterface


@cli.command()
@embedder_option
@click.option("--search", "settings", multiple=True, metavar="KEY=VALUE",
              help="A search setting a new store records (repeatable), one of "
                   f"{', '.join(SearchConfig.model_fields)} (fusion=convex|rrf).")
@click.option("--judge", default=None, metavar="NAME",
              help="The judge a new store reads its memories with: rules (the default), none, nli:DIR.")
@click.pass_context
def init(ctx, embedder, settings, judge):
    """Create an empty store (or check an existing one)."""
    if ctx.obj["settings"].server:
        raise InvalidInput(f"--server {ctx.obj['settings'].server}: init runs where the store is (without --server)")
    given = {key: None if value.strip().lower() in ("", "none") else value.strip()
             for key, value in key_values(settings, "--search").items()}
    search = SearchConfig.from_json(json.dumps(given), "--search") if given else None
    store = open_store(ctx, create=True, embedder=embedder, search=search, judge=judge)
    click.echo(f"store {store.uri}: {store.count()} memories, model {store.model_name} ({store.dims} dims), "
               f"search {store.search_config.to_json()}, judge {store.judge.spec}")


FIELD_OPTIONS = ["id", "project_id", "root_task_id", "iteration_id", "name", "description",
                 "objective", "details", "title", "context", "decision", "consequences",
                 "content", "code_example", "importance", "speaker", "source", "agent", "user_id"]


def _field_options(func):
    for name in reversed(FIELD_OPTIONS):
        func = click.option(f"--{name.replace('_', '-')}", name, default=None)(func)
    return func


def _revisable_options(func):
    for name in reversed([n for n in REVISABLE if n not in ("tags", "usage_examples", "confidence", "ttl_days")]):
        func = click.option(f"--{name.replace('_', '-')}", name, default=None)(func)
    return func


@cli.command()
@click.argument("text", required=False)
@click.option("--kind", default=None, help="Kind of the one memory given by flags (with TEXT: manual, a note).")
@_field_options
@click.option("--confidence", type=int, default=None)
@click.option("--ttl-days", type=int, default=None)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--metadata", default=None, help="A JSON object.")
@click.option("--usage-example", "usage_examples", multiple=True)
@click.option("--file", "path", default=None, help="A JSONL file of memories ('-' for stdin).")
@click.option("--duplicates", type=click.Choice(["merge", "link", "keep"]), default="merge", show_default=True,
              help="A memory that repeats one of the same kind and project: merge an exact repeat (nothing "
                   "written, the one it repeats is corroborated; a near one is linked), link every one, or keep "
                   "all unlooked-at.")
@click.pass_context
def add(ctx, text, kind, confidence, ttl_days, tags, metadata, usage_examples, path, duplicates, **fields):
    """Remember TEXT (a note: `memlib add "I prefer tea" --user-id alice`, a person's own, or
    with --project-id a project's), add one memory from flags, or many from a JSONL file (one
    commit)."""
    from memlib.store.transfer import load_memories

    if path:
        if text is not None or kind or any(v is not None for v in fields.values()):
            raise InvalidInput("give either --file or the flags of one memory, not both")
        memories, labels = load_memories(path)
    else:
        if text is not None:
            if fields.get("content") is not None:
                raise InvalidInput("give the note's text as TEXT or as --content, not both")
            fields["content"], kind = text, kind or "manual"
        if not kind:
            raise InvalidInput("give a TEXT to remember (memlib add \"I prefer tea\" --user-id alice), "
                               "--kind with the memory's fields, or --file")
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
    store = open_store(ctx, create=True)
    ids = store.add(memories, labels=labels, progress=True, duplicates=duplicates)
    merged = len(store.last_merged)
    if len(ids) == 1:
        click.echo(ids[0])
        if merged:
            click.echo(f"a repeat of memory {ids[0]}: nothing written, counted as corroborating it", err=True)
    else:
        click.echo(f"added {len(ids) - merged} memories" + (f" ({merged} repeats merged)" if merged else ""))


def _scope_options(func):
    options = [
        click.option("--project-id", default=None),
        click.option("--root-task-id", default=None),
        click.option("--level", type=click.IntRange(0, 2), default=None),
        click.option("--kind", "kinds", multiple=True, help="Kind to include (repeatable)."),
        click.option("--tag", "tags", multiple=True, help="Match memories with any of these tags."),
        click.option("--source", default=None),
        click.option("--user-id", default=None, help="One person's memories (across projects)."),
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
                 kinds=kw["kinds"], tags=kw["tags"], source=kw["source"], user_id=kw["user_id"],
                 created_after=option_date(kw["since"], "--since"), created_before=option_date(kw["until"], "--until"),
                 min_confidence=kw["min_confidence"], include_expired=kw["include_expired"])


def _print_hits(hits, as_json: bool, store: MemoryInterface) -> None:
    """The hits, each followed by the memories an open contradiction links it to; an
    untrusted one (models.trusted: a tool's output, a web page) labelled so."""
    if as_json:
        echo_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo("no matching memories")
    pairs = store.disagreements([h.id for h in hits]) if hits else []
    for hit in hits:
        text = hit.memory.own_text.replace("\n", " | ")
        label = "" if hit.memory.trusted else f"[UNTRUSTED, from {hit.memory.source}] "
        click.echo(f"{hit.rank:>3}  {hit.score:8.4f}  {hit.memory.kind.value:<12} {hit.memory.id}  "
                   f"{label}{text[:90]}")
        for pair in (p for p in pairs if hit.id in p["ids"]):
            other = next(i for i in pair["ids"] if i != hit.id)
            click.echo(f"{'':15}contradicts ({pair['kind']}) {other}: "
                       f"{store.get(other).own_text.replace(chr(10), ' | ')[:70]}"
                       f" ({'newer' if pair['newer'] == other else 'older'})")


@cli.command()
@click.argument("query")
@_scope_options
@click.pass_context
def search(ctx, query, k, mode, as_json, **kw):
    """Search memories (hybrid by default) within a scope."""
    store = open_store(ctx)
    _print_hits(store.search(query, k=k, mode=mode, scope=_scope(kw)), as_json, store)


@cli.command()
@click.argument("query")
@_scope_options
@click.option("--agent", default=None, help="Who recalls (logged with each event).")
@click.option("--session", "session_id", default=None, help="The agent session it recalls in (logged with each event).")
@click.pass_context
def recall(ctx, query, k, mode, as_json, agent, session_id, **kw):
    """Search on an agent's behalf and log one recall event per hit."""
    store = open_store(ctx)
    _print_hits(store.recall(query, k=k, mode=mode, scope=_scope(kw), agent=agent, session_id=session_id),
                as_json, store)


@cli.command()
@click.argument("memory_id")
@click.option("--embedding", is_flag=True, help="Include the embedding.")
@click.option("--json", "as_json", is_flag=True, help="JSON (what it prints anyway: taken as other commands take it).")
@click.pass_context
def get(ctx, memory_id, embedding, as_json):
    """Print one memory as JSON."""
    from memlib.models import as_json

    echo_json(as_json(open_store(ctx).get(memory_id, with_embedding=embedding), embedding))


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--cascade", is_flag=True, help="Also delete the memories that hang off these.")
@click.pass_context
def delete(ctx, memory_ids, cascade):
    """Delete memories by id (one commit)."""
    click.echo(f"deleted {open_store(ctx).delete(list(memory_ids), cascade=cascade)} memories")


def _changes(fields: dict, **more) -> dict:
    """The fields a command was given (an option left out is no change)."""
    return {k: v for k, v in {**fields, **more}.items() if v is not None and v != []}


@cli.command()
@click.argument("memory_id")
@click.option("--reason", required=True, help="Why it changes (kept in the audit log).")
@click.option("--tag", "tags", multiple=True, help="The tags it has from now on (repeatable).")
@click.option("--usage-example", "usage_examples", multiple=True)
@click.option("--confidence", type=int, default=None)
@click.option("--ttl-days", type=int, default=None)
@click.option("--actor", default=None, help="Who changes it (default $MEMLIB_ACTOR or the user).")
@_revisable_options
@click.pass_context
def update(ctx, memory_id, reason, tags, usage_examples, confidence, ttl_days, actor, **fields):
    """Change what a memory says, in place (same id; re-embedded if its text changed)."""
    from memlib.lifecycle import curation

    changes = _changes(fields, tags=list(tags), usage_examples=list(usage_examples), confidence=confidence,
                       ttl_days=ttl_days)
    store = open_store(ctx)
    memory = (store.revise(memory_id, reason, **changes) if through_server(store, actor)
              else curation.revise(store, memory_id, reason, actor=actor, **changes))
    echo_json(memory.model_dump(mode="json", exclude={"embedding"}))


@cli.command()
@click.argument("memory_id", required=False)
@click.option("--reason", default=None, help="Why it is corrected (kept in the audit log).")
@click.option("--tag", "tags", multiple=True, help="The tags the correction has (repeatable).")
@click.option("--usage-example", "usage_examples", multiple=True)
@click.option("--confidence", type=int, default=None)
@click.option("--ttl-days", type=int, default=None)
@click.option("--actor", default=None, help="Who corrects it (default $MEMLIB_ACTOR or the user).")
@click.option("--undo", "undo_run", default=None, metavar="RUN", help="Undo a correction: the old memory back.")
@_revisable_options
@click.pass_context
def correct(ctx, memory_id, reason, tags, usage_examples, confidence, ttl_days, actor, undo_run, **fields):
    """Replace a memory with a corrected one (a new id); the old one leaves recall and stays in
    its history (memlib history OLD), until memlib correct --undo RUN."""
    from memlib.lifecycle import curation

    store = open_store(ctx)
    if undo_run:
        if through_server(store):
            raise InvalidInput("correct --undo runs where the store is (without --server)")
        if memory_id:
            raise InvalidInput("give a memory id to correct, or --undo RUN, not both")
        click.echo(f"memory {curation.uncorrect(store, undo_run, actor=actor)} is back; its correction is gone")
        return
    if not memory_id or reason is None:
        raise InvalidInput("give the memory id and --reason (or --undo RUN)")
    changes = _changes(fields, tags=list(tags), usage_examples=list(usage_examples), confidence=confidence,
                       ttl_days=ttl_days)
    new, run_id = (store.correct(memory_id, reason, **changes) if through_server(store, actor)
                   else curation.correct(store, memory_id, reason, actor=actor, **changes))
    click.echo(f"{new.id} corrects {memory_id} (undo: memlib correct --undo {run_id})")


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--reason", required=True, help="Why they are forgotten (kept in the audit log).")
@click.option("--actor", default=None, help="Who forgets them (default $MEMLIB_ACTOR or the user).")
@click.pass_context
def forget(ctx, memory_ids, reason, actor):
    """Remove memories as a reversible run (memlib retention undo RUN until it is purged)."""
    from memlib.lifecycle import curation

    store = open_store(ctx)
    out = (store.forget(list(memory_ids), reason) if through_server(store, actor)
           else curation.forget(store, list(memory_ids), reason, actor=actor))
    click.echo(f"forgot {out.removed} memories (run {out.run_id}); undo: memlib retention undo {out.run_id}")


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--reason", required=True, help="Why they are harmful (kept in the audit log).")
@click.option("--actor", default=None, help="Who quarantines them (default $MEMLIB_ACTOR or the user).")
@click.pass_context
def quarantine(ctx, memory_ids, reason, actor):
    """Take harmful memories out of recall and context as a reversible run (a poisoned page)."""
    from memlib.lifecycle import curation

    out = curation.forget(open_store(ctx), list(memory_ids), reason, actor=actor, action="quarantine")
    click.echo(f"quarantined {out.removed} memories (run {out.run_id}); release: memlib retention undo {out.run_id}")


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def contradictions(ctx, as_json):
    """Open contradictions the store's judge found: pairs of memories that disagree, and how
    many memories it has not read yet (memlib screen reads them now; maintain does too)."""
    if ctx.invoked_subcommand is not None:
        return
    store = open_store(ctx)
    # what is unread first: a pair is recorded in the commit that marks its memory read, so
    # pairs read after it hold every pair of what it counts as read (the other way round, a
    # reader committing in between showed nothing unread and not its pair)
    unread = store.unread()
    pairs = store.disagreements()
    if as_json:
        echo_json({"pairs": pairs, "unread": unread})
        return
    if unread:
        click.echo(f"{unread} memories not read for contradictions yet: memlib screen reads them")
    if not pairs:
        click.echo("no open contradictions")
    for pair in pairs:
        first, second = pair["ids"]
        click.echo(f"{pair['kind']}: {first} / {second}   newer {pair['newer']}   "
                   f"support {pair['support'][first]} / {pair['support'][second]}")
        for memory_id in pair["ids"]:
            click.echo(f"    {memory_id}  {store.get(memory_id).own_text.replace(chr(10), ' | ')[:100]}")


@contradictions.command("resolve")
@click.argument("memory_id")
@click.argument("other_id")
@click.option("--reason", required=True, help="Why both hold (kept in the audit log).")
@click.option("--actor", default=None, help="Who resolves it (default $MEMLIB_ACTOR or the user).")
@click.pass_context
def contradictions_resolve(ctx, memory_id, other_id, reason, actor):
    """Keep both memories of a flagged pair and close it. To keep one, correct or forget the other."""
    open_store(ctx).resolve_disagreement(memory_id, other_id, reason, actor=actor)
    click.echo(f"resolved: {memory_id} and {other_id} both kept")


@cli.command()
@click.option("--judge", default=None, metavar="NAME",
              help="Read with this judge from now on (recorded in the store): rules, none, or nli:DIR "
                   "(a local CrossEncoder NLI model; nli:MODEL-ID where a model hub is reachable).")
@click.option("--threshold", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="The nli judge's contradiction probability that flags a pair (default 0.8).")
@click.option("--all", "everything", is_flag=True, help="Read every memory again (new rules), no pair recorded twice.")
@click.option("--follow", type=click.FloatRange(0.1, 3600), default=None, metavar="SECONDS",
              help="Keep reading what is written, every SECONDS, until Ctrl-C or the process that started "
                   "this one ends (memlib serve runs one so).")
@click.option("--parent", type=int, default=None, hidden=True,
              help="With --follow: the pid of the process that started this one (memlib serve gives its own).")
@click.pass_context
def screen(ctx, judge, threshold, everything, follow, parent):
    """Read the memories the store's judge has not read yet, now: which contradict and which
    update others (maintain does it too; a memory server in the background)."""
    from memlib.judges import judge_for, reading

    if ctx.obj["settings"].server:
        raise InvalidInput(f"--server {ctx.obj['settings'].server}: screen runs where the store is (without "
                           "--server); the server reads in the background")
    store = open_store(ctx, workspace=False)
    if threshold is not None and not (judge or store.judge.spec).startswith("nli:"):
        raise InvalidInput("--threshold is the nli judge's setting (--judge nli:DIR)")
    if judge is not None or threshold is not None:
        chosen = judge_for(judge or store.judge.spec, **({} if threshold is None else {"threshold": threshold}))
        if hasattr(chosen, "load"):
            chosen.load()  # a model that cannot load is refused before the store records it
        store.use_judge(chosen)
    if follow is not None:
        reading.follow(store, follow, parent)
        return
    done = store.read_unread(everything=everything, progress=True, wait=True)
    echo_json({**done, "unread": store.unread()})


@cli.command("import")
@click.argument("path")
@click.pass_context
def import_(ctx, path):
    """Upsert memories from a JSONL file ('-' for stdin); re-running adds no duplicates."""
    from memlib.store.transfer import import_jsonl

    store = open_store(ctx, create=True)
    click.echo(f"imported {import_jsonl(store, path, progress=True)} memories")


@cli.command()
@click.argument("path")
@click.pass_context
def export(ctx, path):
    """Write every memory, embeddings included, as JSONL ('-' for stdout)."""
    from memlib.store.transfer import export_jsonl

    count = export_jsonl(open_store(ctx), path)
    if path != "-":
        click.echo(f"exported {count} memories to {path}")


@cli.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def stats(ctx, as_json):
    """Counts by level, kind and project."""
    data = open_store(ctx).stats()
    if as_json:
        echo_json(data)
        return
    click.echo(f"store {data['store']} ({data['model']}, {data['dims']} dims, {data['tokenizer']} words, "
               f"version {data['version']})")
    click.echo(f"memories: {data['memories']:,}   recall events: {data['recall_events']:,}"
               f"   pending recall segments: {data['recall_segments_pending']}")
    for title, key in (("by level", "by_level"), ("by kind", "by_kind"), ("by project", "by_project")):
        click.echo(f"{title}:")
        for name, count in data[key].items():
            click.echo(f"  {name:<60} {count:>10,}")


@cli.command()
@click.option("--history-days", type=int, default=None,
              help="Days back an as-of report can read (default 30): the version current at each "
                   "day's end is kept, other versions older than an hour are cleaned up.")
@click.option("--vector-index", is_flag=True,
              help="Build Lance's vector index now, for processes that search without the vector "
                   "cache (default: once the vectors outgrow the cache's default ceiling, about "
                   "2.2M memories).")
@click.option("--read/--no-read", default=True, show_default=True,
              help="Have the store's judge read the memories it has not read for contradictions "
                   "(--no-read: a memory server's reader or memlib screen does).")
@click.pass_context
def maintain(ctx, history_days, vector_index, read):
    """Flush recalls, fold usage into memories, read new memories for contradictions, make
    clusters made by another rule again, compact tables, update indexes, keep the as-of
    window's versions and clean up the rest."""
    options = {"vector_index": vector_index, "read": read}
    if history_days is not None:
        options["history_days"] = history_days
    echo_json(open_store(ctx).maintain(progress=True, **options))


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

    store = open_store(ctx, create=True, embedder=embedder, workspace=False)
    summary = build_sample(store, size=size, seed=seed, anchor=option_date(anchor, "--anchor"),
                           vectors=vectors, progress=True)
    echo_json(summary | {"store": store.uri})



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
    from memlib.store import history as histories

    store = open_store(ctx, **as_of_or_version(as_of))
    if memory_id:
        life = store.history(memory_id) if through_server(store) else histories.memory_history(store, memory_id)
        if as_json:
            echo_json(life)
            return
        state = life["memory"]
        click.echo(f"memory {memory_id}" + (f" as of version {store.version}" if as_of else "")
                   + (": not in the store" if state is None else f": {state['kind']}"))
        for e in life["events"]:
            shown = e["details"] if not isinstance(e["details"], dict) else (  # why first: it is cut at 100
                {k: e["details"][k] for k in ("reason",) if k in e["details"]} | e["details"])
            details = json.dumps(shown, default=str, ensure_ascii=False) if e["details"] else ""
            click.echo(f"  {e['at']:%Y-%m-%d %H:%M:%S}  {e['action']:<16} {e['status']:<9} "
                       f"{e['actor'] or '':<12} {details[:100]}")
        return
    if not as_of:
        kept = histories.versions(store)
        if as_json:
            echo_json(kept)
            return
        click.echo(f"{len(kept['versions'])} versions kept, {len(kept['tags'])} tags; open one with --as-of")
        for name, tag in sorted(kept["tags"].items(), key=lambda kv: kv[1]["version"]):
            click.echo(f"  tag {name} -> version {tag['version']}")
        return
    if export_path:
        from memlib.store.transfer import export_jsonl

        count = export_jsonl(store, export_path)
        if export_path != "-":
            click.echo(f"exported {count} memories as of version {store.version} to {export_path}")
        return
    data = store.stats()
    if as_json:
        echo_json(data)
        return
    click.echo(f"store {data['store']} as of version {data['version']} "
               f"({store.version_time():%Y-%m-%d %H:%M:%S} UTC): {data['memories']:,} memories")
    for name, count in data["by_kind"].items():
        click.echo(f"  {name:<20} {count:>10,}")
