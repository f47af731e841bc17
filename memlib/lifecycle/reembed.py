"""`memlib reembed`: move a store to another embedding model of the same dimensions, in
place, resumable and undoable.

A run, audited as `reembed` events with one run_id:
1. started (one `reembed_vector` event per memory whose vector changed follows): the version before is tagged (`reembed-<run>`), so its vectors stay readable
   whatever maintain cleans up; the store then records the new model, so every write from
   now on (by any process) embeds with it and every query embeds as the rows will be;
2. the memories the store held before the run are embedded again in id order, a chunk per
   commit, each row on the condition that it has the revision it was read at (a row another
   process changed meanwhile is read again and done at the end); after each chunk a
   `progress` event names the last id done, so a run killed anywhere resumes there
   (`memlib reembed` again, with the same model);
3. the consensus fragments are embedded again with the new model and their clusters made
   again (memlib.consensus.store.renew; a run cut short before does it when resumed, or
   `memlib maintain` does);
4. done. Until the run's tag is dropped (`memlib reembed --forget RUN`), `--undo RUN` puts
   the old vectors back for the rows whose text is unchanged (and embeds the others with the
   old model) and records the old model again.

While a run is in progress the store holds vectors of both models: a search may miss what it
would find before or after. A store with Lance's vector index gets it built again at the end.
A model of other dimensions needs a new store: export, then import into a store made with it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pyarrow as pa

from memlib.consensus.store import renew
from memlib.embeddings import embed_in_context
from memlib.errors import InvalidInput, NotFound
from memlib.interface import StoreInterface
from memlib.lifecycle.vector_index import ensure_vector_index
from memlib.models import lead_of

CHUNK = 1_024  # memories embedded and committed at a time
ACTION = "reembed"
Step = Callable[[str], None]


def _nothing(step: str) -> None:
    pass


@dataclass
class Outcome:
    run_id: str
    model_from: str
    model_to: str
    memories: int
    resumed: bool = False


def runs(store: StoreInterface) -> list[dict[str, Any]]:
    """Every reembed run with its latest status (started, done, undone, forgotten), oldest first."""
    out: dict[str, dict] = {}
    for event in store.audit_events(f"action = '{ACTION}'"):
        run = out.setdefault(event["run_id"], {"run_id": event["run_id"], "started_at": event["at"]})
        details = event["details"] or {}
        if event["status"] == "progress":
            run["through"] = details.get("through")
            continue
        run.update({"status": event["status"], "at": event["at"],
                    **{k: v for k, v in details.items() if k != "through"}})
    return list(out.values())


def reembed(store: StoreInterface, embedder, progress: bool = False, actor: str | None = None,
            on_step: Step = _nothing) -> Outcome:
    """Embed every memory again with `embedder` (see the module docstring); resumes a run
    that did not finish when it names the same model."""
    store.check_writable()
    if embedder.dims != store.dims:
        raise InvalidInput(f"{embedder.name} makes {embedder.dims}-dimension vectors, the store holds "
                           f"{store.dims}: export it and import into a store made with that model")
    unfinished = [r for r in runs(store) if r["status"] == "started"]
    if unfinished:
        run = unfinished[-1]
        if run["to"] != embedder.name:
            raise InvalidInput(f"reembed run {run['run_id']} to {run['to']} did not finish: run it again "
                               f"with that model, or undo it (memlib reembed --undo {run['run_id']})")
        resumed = True
    else:
        if store.model_name == embedder.name:
            raise InvalidInput(f"the store is embedded with {embedder.name} already")
        run, resumed = _start(store, embedder, actor), False
        on_step("started")
    store.embedder = embedder  # this handle embeds as the store now records
    done = _embed_all(store, embedder, run, progress, actor, on_step)
    _rebuild_vector_index(store)
    renew(store, actor=actor, progress=progress, reembedded=lambda: True)
    store.log_event(ACTION, [run["run_id"]], status="done", actor=actor, run_id=run["run_id"],
                    details={"from": run["from"], "to": run["to"], "memories": done})
    on_step("done")
    return Outcome(run["run_id"], run["from"], run["to"], done, resumed)


def _start(store: StoreInterface, embedder, actor: str | None) -> dict[str, Any]:
    run_id = str(uuid.uuid4())
    with store.lock.held():
        store.refresh()
        before = store.version
        tag = f"reembed-{run_id}"
        store.tag(tag, before)
        run = {"run_id": run_id, "from": store.model_name, "to": embedder.name, "tag": tag,
               "version_before": before}
        store.log_event(ACTION, [run_id], status="started", actor=actor, run_id=run_id,
                        details={k: v for k, v in run.items() if k != "run_id"})
        store.record_model(embedder)
    return run


def _held(store: StoreInterface, version: int) -> list[str]:
    """The ids the store held at `version`, in id order."""
    return sorted(store.dataset_at(version).to_table(columns=["id"]).column("id").to_pylist())


def _written_since(store: StoreInterface, held: list[str]) -> list[str]:
    """The ids the store holds now that it did not hold then (`held`)."""
    store.refresh()
    return sorted(set(store.dataset().to_table(columns=["id"]).column("id").to_pylist()) - set(held))


def _redo(store: StoreInterface, embedder, ids: list[str], run_id: str, actor: str | None) -> None:
    """Embed these again until none is left that another process changed meanwhile."""
    for _ in range(10):
        if not ids:
            return
        ids = _chunk(store, embedder, ids, run_id, actor)


def _embed_all(store: StoreInterface, embedder, run: dict[str, Any], progress: bool, actor: str | None, on_step: Step) -> int:
    held = _held(store, run["version_before"])
    through = run.get("through")
    ids = held if through is None else held[np.searchsorted(np.asarray(held, dtype=object), through, side="right"):]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(ids), desc="reembed", unit="memory", disable=None)
    done, again = 0, []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        done += len(chunk)
        again += _chunk(store, embedder, chunk, run["run_id"], actor)
        store.log_event(ACTION, [run["run_id"]], status="progress", actor=actor, run_id=run["run_id"],
                        details={"through": chunk[-1]})
        on_step(f"chunk {start // CHUNK}")
        if bar is not None:
            bar.update(len(chunk))
    # rows written during the run by a handle that had not yet seen the new model (it looks
    # within max_staleness): embedded again, as are the rows changed while their chunk was written
    _redo(store, embedder, again + _written_since(store, held), run["run_id"], actor)
    if bar is not None:
        bar.close()
    return done


def _chunk(store: StoreInterface, embedder, ids: list[str], run_id: str, actor: str | None) -> list[str]:
    """Embed these memories again and write their vectors, each on the condition that its
    revision is the one read; returns the ids another process changed first."""
    store.refresh()
    rows = store.lookup(ids, ["text", "revision", "kind", "context"])
    live = [i for i in ids if i in rows]  # deleted meanwhile: nothing to do
    if not live:
        return []
    vectors = embed_in_context(embedder, [rows[i]["text"] for i in live], [lead_of(rows[i]) for i in live])
    return _write_vectors(store, live, vectors, [rows[i]["revision"] or 0 for i in live], run_id, actor)


def _write_vectors(store: StoreInterface, ids: list[str], vectors: np.ndarray, revisions: list[int], run_id: str,
                   actor: str | None) -> list[str]:
    field = store.schema.field("embedding")
    frame = pa.table({
        "id": pa.array(ids, pa.string()),
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()), store.dims)
        .cast(field.type),
        "revision": pa.array([r + 1 for r in revisions], pa.int64()),
    })
    applied, _ = store.merge_columns(frame, "reembed_vector", actor=actor, details={"run": run_id})
    return sorted(set(ids) - set(applied))


def _rebuild_vector_index(store: StoreInterface) -> None:
    """Lance's vector index, if the store has one, trained again on the new vectors."""
    if store.has_vector_index():
        ensure_vector_index(store, force=True, again=True)


def undo(store: StoreInterface, run_id: str, progress: bool = False, actor: str | None = None) -> Outcome:
    """Put back the vectors a run replaced, from its tagged version: a memory whose text is
    unchanged gets its old vector, one changed since is embedded with the old model; the
    store records the old model again."""
    from memlib.embeddings import embedder_for

    store.check_writable()
    known = {r["run_id"]: r for r in runs(store)}
    run = known.get(run_id)
    if run is None:
        raise NotFound(f"no reembed run {run_id!r} (see 'memlib reembed --runs')")
    if run["status"] not in ("started", "done"):
        raise InvalidInput(f"reembed run {run_id} was {run['status']}; it cannot be undone")
    if run["tag"] not in store.tags():
        raise InvalidInput(f"reembed run {run_id} was forgotten: its old vectors are gone")
    old_embedder = embedder_for(run["from"], store.dims, store.settings)
    with store.lock.held():
        store.record_model(old_embedder)
    old = store.dataset_at(run["version_before"])
    before = old.to_table(columns=["id", "text", "embedding"])
    ids = before.column("id").to_pylist()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(ids), desc="undo reembed", unit="memory", disable=None)
    again: list[str] = []
    for start in range(0, len(ids), CHUNK):
        part = before.slice(start, CHUNK)
        chunk = part.column("id").to_pylist()
        store.refresh()
        now = store.lookup(chunk, ["text", "revision"])
        same = [k for k, i in enumerate(chunk) if i in now and now[i]["text"] == part.column("text")[k].as_py()]
        kept = set(same)
        if same:
            vectors = np.asarray(part.column("embedding").combine_chunks().flatten().to_numpy(
                zero_copy_only=False), np.float32).reshape(-1, store.dims)[same]
            again += _write_vectors(store, [chunk[k] for k in same], vectors,
                                    [now[chunk[k]]["revision"] or 0 for k in same], run_id, actor)
        changed = [i for k, i in enumerate(chunk) if i in now and k not in kept]
        again += _chunk(store, old_embedder, changed, run_id, actor) if changed else []
        if bar is not None:
            bar.update(len(chunk))
    # and the memories written since the run began: embedded with the old model
    _redo(store, old_embedder, again + _written_since(store, ids), run_id, actor)
    if bar is not None:
        bar.close()
    _rebuild_vector_index(store)
    renew(store, actor=actor, progress=progress, reembedded=lambda: True)
    store.log_event(ACTION, [run_id], status="undone", actor=actor, run_id=run_id,
                    details={"from": run["to"], "to": run["from"]})
    return Outcome(run_id, run["to"], run["from"], len(ids))


def forget(store: StoreInterface, run_id: str, actor: str | None = None) -> None:
    """Drop a finished run's tag: its old vectors can then be cleaned up, and it can no
    longer be undone."""
    store.check_writable()
    run = {r["run_id"]: r for r in runs(store)}.get(run_id)
    if run is None:
        raise NotFound(f"no reembed run {run_id!r} (see 'memlib reembed --runs')")
    if run["status"] == "started":
        raise InvalidInput(f"reembed run {run_id} did not finish: run it again or undo it first")
    if run["tag"] in store.tags():
        store.untag(run["tag"])
    store.log_event(ACTION, [run_id], status="forgotten", actor=actor, run_id=run_id,
                    details={"tag": run["tag"]})


