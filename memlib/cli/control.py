"""Control-plane commands (memlib.control): `memlib tasks ...` to look after tasks and
approvals, `memlib queue ...` to enqueue, claim, heartbeat, ack and nack work."""

from __future__ import annotations

import json
import sys

import click

from memlib.cli.app import cli, echo_json, open_store
from memlib.errors import InvalidInput


def _plane(ctx, create: bool = False):
    from memlib.control import ControlPlane

    return ControlPlane.open(create=create, settings=ctx.obj["settings"])


def _json(text: str | None, option: str):
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{option} is not JSON: {exc.msg} at character {exc.pos}") from None


def _dump(model) -> dict:
    return model.model_dump(mode="json")


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
worker_option = click.option("--worker", required=True, help="The worker's name (the lease's holder).")


@cli.group()
def tasks():
    """The control plane's tasks, their events, approvals and results."""


@tasks.command("list")
@click.option("--status", type=click.Choice(["queued", "running", "blocked", "done", "failed", "dead", "rejected",
                                             "cancelled"]), default=None)
@click.option("--session", "session_id", default=None)
@click.option("--kind", default=None)
@click.option("--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@json_option
@click.pass_context
def tasks_list(ctx, status, session_id, kind, limit, as_json):
    """Tasks, oldest first, with their status (and the counts by status)."""
    plane = _plane(ctx)
    found = plane.tasks.list(status=status, session_id=session_id, kind=kind, limit=limit)
    if as_json:
        echo_json([_dump(t) for t in found])
        return
    counts = plane.tasks.counts()
    click.echo("  ".join(f"{k} {v}" for k, v in counts.items()))
    for t in found:
        click.echo(f"{t.task_id}  {t.status:<9} p{t.priority:<4} {t.kind:<20} attempts {t.attempts}/{t.max_attempts}"
                   f"  {t.created_at:%Y-%m-%d %H:%M:%S}  {t.session_id or '-'}")


@tasks.command("show")
@click.argument("task_id")
@click.pass_context
def tasks_show(ctx, task_id):
    """One task as JSON: the task, its events, its approvals and its result."""
    from memlib.errors import NotFound

    plane = _plane(ctx)
    task = plane.tasks.get(task_id)
    try:
        result = _dump(plane.results.get(task_id))
    except NotFound:
        result = None
    echo_json({"task": _dump(task), "events": [_dump(e) for e in plane.events.list(task_id=task_id)],
               "approvals": [_dump(a) for a in plane.approvals.list(status=None, task_id=task_id)],
               "result": result})


@tasks.command("cancel")
@click.argument("task_id")
@click.option("--by", default=None, help="Who cancels.")
@click.option("--reason", default=None)
@click.pass_context
def tasks_cancel(ctx, task_id, by, reason):
    """Cancel a task that has not finished."""
    task = _plane(ctx).tasks.cancel(task_id, by=by, reason=reason)
    click.echo(f"task {task.task_id}: {task.status}")


@tasks.command("requeue")
@click.argument("task_id")
@click.option("--by", default=None)
@click.pass_context
def tasks_requeue(ctx, task_id, by):
    """Give a dead letter (or a failed task) a fresh set of attempts."""
    task = _plane(ctx).tasks.requeue(task_id, by=by)
    click.echo(f"task {task.task_id}: {task.status}")


@tasks.command("approvals")
@click.option("--all", "everything", is_flag=True, help="Decided ones too (default: pending only).")
@json_option
@click.pass_context
def tasks_approvals(ctx, everything, as_json):
    """Approval tickets (pending ones block their tasks)."""
    found = _plane(ctx).approvals.list(status=None if everything else "pending")
    if as_json:
        echo_json([_dump(a) for a in found])
        return
    for a in found:
        click.echo(f"{a.approval_id}  {a.status:<8} task {a.task_id}  {a.requested_at:%Y-%m-%d %H:%M}  {a.request}")


def _decision(name: str, approve: bool, what: str):
    @tasks.command(name)
    @click.argument("approval_id")
    @click.option("--by", required=True, help=f"Who {name}s.")
    @click.option("--reason", default=None)
    @click.pass_context
    def decide(ctx, approval_id, by, reason):
        approval = _plane(ctx).approvals.decide(approval_id, approve, by=by, reason=reason)
        click.echo(f"approval {approval.approval_id}: {approval.status} by {approval.decided_by}")

    decide.help = f"{name.capitalize()} a pending request: {what}."
    return decide


tasks_approve = _decision("approve", True, "its task is queued again")
tasks_reject = _decision("reject", False, "its task is rejected")


@cli.group()
def queue():
    """The dispatch queue: enqueue, claim with a lease, heartbeat, ack, nack; backpressure."""


@queue.command("enqueue")
@click.argument("kind", required=False)
@click.option("--payload", default=None, metavar="JSON", help="The task's instructions as JSON.")
@click.option("--priority", type=int, default=0, show_default=True, help="Higher is claimed first.")
@click.option("--session", "session_id", default=None)
@click.option("--agent", default=None, help="Who enqueues.")
@click.option("--project", "project_id", default=None, help="The project the work is for (claimed by its workers).")
@click.option("--max-attempts", type=int, default=5, show_default=True)
@click.option("--approval", default=None, metavar="TEXT", help="Hold the task until this request is approved.")
@click.option("--file", "path", type=click.File("r"), default=None,
              help="A JSONL file of tasks ({\"kind\": ..., \"payload\": ...} per line; '-' for stdin), one transaction.")
@click.option("--wait", type=float, default=0, show_default=True, help="Seconds to wait for room in a full queue.")
@click.pass_context
def queue_enqueue(ctx, kind, payload, priority, session_id, agent, project_id, max_attempts, approval, path, wait):
    """Queue one task (KIND), or a whole file of them at once."""
    plane = _plane(ctx, create=True)
    if path is not None:
        if kind is not None:
            raise InvalidInput("give KIND or --file, not both")
        items = [_json(line, f"--file line {n}") for n, line in enumerate(path, start=1) if line.strip()]
        done = plane.queue.enqueue_many(items, wait=wait)
        click.echo(f"enqueued {len(done)} tasks")
        return
    if kind is None:
        raise InvalidInput("give the task's KIND (or --file)")
    task = plane.queue.enqueue(kind, _json(payload, "--payload"), wait=wait, priority=priority, session_id=session_id,
                               agent=agent, project_id=project_id, max_attempts=max_attempts, approval=approval)
    click.echo(task.task_id)


@queue.command("claim")
@worker_option
@click.option("--lease", type=float, default=30.0, show_default=True, help="Seconds the task is the worker's.")
@click.option("--wait", type=float, default=0, show_default=True, help="Seconds to wait for a free task.")
@click.option("--project", "projects", multiple=True, help="Only tasks of this project (repeat for more).")
@click.pass_context
def queue_claim(ctx, worker, lease, wait, projects):
    """Lease the next task to WORKER; prints it as JSON with the lease's token (exit 3 when
    nothing is free)."""
    got = _plane(ctx).queue.claim(worker, lease=lease, wait=wait, projects=projects or None)
    if got is None:
        click.echo("nothing to claim", err=True)
        sys.exit(3)
    echo_json({"task": _dump(got.task), "token": got.token, "attempt": got.attempt,
               "lease_until": got.until.isoformat()})


def _lease(ctx, task_id: str, token: str, worker: str):
    plane = _plane(ctx)
    return plane, plane.queue.lease_of(task_id, token, worker)


@queue.command("heartbeat")
@click.argument("task_id")
@click.argument("token")
@worker_option
@click.option("--extend", type=float, default=30.0, show_default=True)
@click.pass_context
def queue_heartbeat(ctx, task_id, token, worker, extend):
    """Extend a lease the worker holds."""
    plane, lease = _lease(ctx, task_id, token, worker)
    click.echo(f"task {task_id}: leased to {worker} until {plane.queue.heartbeat(lease, extend).until.isoformat()}")


@queue.command("ack")
@click.argument("task_id")
@click.argument("token")
@worker_option
@click.option("--output", default=None, metavar="JSON", help="The task's result as JSON.")
@click.option("--failed", is_flag=True, help="The task failed for good (no retry).")
@click.pass_context
def queue_ack(ctx, task_id, token, worker, output, failed):
    """Finish a task the worker holds, with its result."""
    plane, lease = _lease(ctx, task_id, token, worker)
    result = plane.queue.ack(lease, _json(output, "--output"), status="failed" if failed else "succeeded")
    click.echo(f"task {task_id}: {result.status} after {result.duration_s:.3f} s")


@queue.command("nack")
@click.argument("task_id")
@click.argument("token")
@worker_option
@click.option("--error", default=None)
@click.option("--retry-in", type=float, default=None, help="Seconds before a retry (default: backoff).")
@click.pass_context
def queue_nack(ctx, task_id, token, worker, error, retry_in):
    """Give a task back after a failed attempt (retried, or a dead letter when out of attempts)."""
    plane, lease = _lease(ctx, task_id, token, worker)
    task = plane.queue.nack(lease, error, retry_in=retry_in)
    click.echo(f"task {task_id}: {task.status} (attempt {task.attempts} of {task.max_attempts})")


@queue.command("stats")
@json_option
@click.pass_context
def queue_stats(ctx, as_json):
    """Queue depth, tasks in flight, blocked and dead, and the backpressure limits."""
    plane = _plane(ctx)
    data = {**plane.queue.depth(), **plane.queue.settings()}
    if as_json:
        echo_json(data)
    else:
        click.echo("  ".join(f"{k.replace('_', ' ')} {v}" for k, v in data.items()))


@queue.command("dead")
@click.option("--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@json_option
@click.pass_context
def queue_dead(ctx, limit, as_json):
    """Dead letters: tasks that used every attempt (memlib tasks requeue gives them more)."""
    found = _plane(ctx).queue.dead_letters(limit=limit)
    if as_json:
        echo_json([_dump(t) for t in found])
        return
    for t in found:
        click.echo(f"{t.task_id}  {t.kind:<20} attempts {t.attempts}  {t.updated_at:%Y-%m-%d %H:%M:%S}  {t.last_error or ''}")


@queue.command("config")
@click.option("--max-in-flight", type=int, default=None, help="Tasks leased at once, at most (default 32).")
@click.option("--max-queued", type=int, default=None, help="Tasks waiting, at most (default 100000).")
@click.pass_context
def queue_config(ctx, max_in_flight, max_queued):
    """Show or set the backpressure limits (every process on the store uses them)."""
    settings = _plane(ctx, create=True).queue.configure(max_in_flight=max_in_flight, max_queued=max_queued)
    click.echo("  ".join(f"{k.replace('_', ' ')} {v}" for k, v in settings.items()))


# -- memories held for review (memlib.agents.review) --------------------------------------------


@cli.group()
def review():
    """Memories a lifecycle policy held for review: list, accept, reject."""


@review.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def review_list(ctx, as_json):
    """The memories waiting for review, oldest first."""
    from memlib.agents import review as reviews
    from memlib.control.db import path_for

    settings = ctx.obj["settings"]
    if path_for(settings.store, settings).exists():
        waiting = reviews.pending(_plane(ctx))
    else:  # no control plane yet: nothing was ever held (a store that is not there says so)
        open_store(ctx, workspace=False)
        waiting = []
    if as_json:
        echo_json([{**w, "requested_at": w["requested_at"].isoformat()} for w in waiting])
        return
    if not waiting:
        click.echo("nothing waits for review")
    for w in waiting:
        memory = w["memory"]
        text = " ".join(str(memory.get("content") or memory.get("title") or "").split())
        click.echo(f"{w['approval_id']}  {memory['kind']:<9} from {memory['source']:<10} "
                   f"by {w['requested_by'] or '-':<12} {text[:80]}")


@review.command("accept")
@click.argument("approval_id")
@click.option("--by", required=True, help="Who accepts it.")
@click.option("--reason", default=None)
@click.pass_context
def review_accept(ctx, approval_id, by, reason):
    """Save the held memory."""
    from memlib.agents import review as reviews

    memory_id = reviews.accept(open_store(ctx), _plane(ctx), approval_id, by, reason)
    click.echo(f"accepted: saved as memory {memory_id}")


@review.command("reject")
@click.argument("approval_id")
@click.option("--by", required=True, help="Who rejects it.")
@click.option("--reason", required=True, help="Why (kept in the audit log).")
@click.pass_context
def review_reject(ctx, approval_id, by, reason):
    """Turn the held memory down: never saved; the rejection is kept in the audit log."""
    from memlib.agents import review as reviews

    reviews.reject(open_store(ctx), _plane(ctx), approval_id, by, reason)
    click.echo(f"rejected: {approval_id}")
