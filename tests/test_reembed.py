"""`memlib reembed`: a store moved to another model of the same dimensions in place, every
vector its text's under the new model; other handles follow; a run killed midway (a real
SIGKILL) resumes where it stopped; undo puts the old vectors back; a model of other
dimensions is refused in one line."""

from __future__ import annotations

import signal
import subprocess
import sys

import numpy as np
import pytest

from memlib import Insight, InvalidInput, MemoryStore, Project
from memlib.embeddings import DEFAULT_MODEL, GLOSSES, INT8_MODEL, INT8_ROWS_MODEL, HashEmbedder, minilm
from memlib.errors import EmbedderMismatch
from memlib.lifecycle import reembed
from workers import CHILD_PATH

MEMLIB = [sys.executable, "-m", "memlib.cli"]


@pytest.fixture(scope="module")
def int8():
    return minilm(quantized=True)


@pytest.fixture(scope="module")
def floats():
    """The float model, every store's before 2026-11-25."""
    return minilm(quantized=False)


def _vectors(store) -> dict[str, np.ndarray]:
    store.refresh()
    rows = store.dataset().to_table(columns=["id", "embedding"]).to_pylist()
    return {r["id"]: np.asarray(r["embedding"], np.float32) for r in rows}


def _texts(store) -> dict[str, str]:
    rows = store.dataset().to_table(columns=["id", "text"]).to_pylist()
    return {r["id"]: r["text"] for r in rows}


@pytest.fixture
def filled(tmp_path, floats):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=floats)
    project = Project(name="payments")
    store.add([project, *(Insight(project_id=project.id, content=f"ledger note {i}: retries carry key {i}")
                          for i in range(30))])
    return store, project


def test_a_store_moves_to_the_quantized_model_and_back(filled, int8, floats):
    store, project = filled
    before = _vectors(store)
    other = MemoryStore.open(store.uri)  # a handle open during the run follows the new model
    assert other.embedder.name == DEFAULT_MODEL
    out = reembed.reembed(store, int8)
    assert (out.model_from, out.model_to, out.memories, out.resumed) == (DEFAULT_MODEL, INT8_MODEL, 31, False)
    assert MemoryStore.open(store.uri).model_name == INT8_MODEL
    after, texts = _vectors(store), _texts(store)
    ids = sorted(after)
    expected = int8.embed([texts[i] for i in ids])
    assert np.allclose(np.stack([after[i] for i in ids]), expected, atol=1e-6)
    assert not np.allclose(np.stack([after[i] for i in ids]), np.stack([before[i] for i in ids]), atol=1e-4)
    other.refresh()
    assert other.embedder.name == INT8_MODEL
    (new_id,) = other.add([Insight(project_id=project.id, content="a note written after the move")])
    assert np.allclose(_vectors(store)[new_id], int8.embed(["a note written after the move"])[0], atol=1e-6)
    assert store.search("ledger retries key 7", k=1)[0].memory.content.startswith("ledger note 7")
    # undo: the old vectors back for the rows that did not change, the old model recorded
    reembed.undo(store, out.run_id)
    restored = _vectors(store)
    assert all(np.array_equal(restored[i], before[i]) for i in before)
    assert np.allclose(restored[new_id], floats.embed(["a note written after the move"])[0], atol=1e-5)
    assert MemoryStore.open(store.uri).model_name == DEFAULT_MODEL
    assert [r["status"] for r in reembed.runs(store)] == ["undone"]
    with pytest.raises(InvalidInput, match="cannot be undone"):
        reembed.undo(store, out.run_id)


def _fragment_vectors(store):
    from memlib.consensus.tables import FRAGMENTS

    rows = store.concept_table(FRAGMENTS).to_lance().to_table(columns=["content", "embedding"])
    return rows.column("content").to_pylist(), np.asarray(rows.column("embedding").to_pylist(), np.float32)


def test_the_consensus_fragments_move_with_the_store_and_back(filled, int8, floats):
    """Fragments and their clusters follow a run and its undo: a fragment's vector is its
    text's under the store's model, and the clusters say which model made them."""
    from memlib.consensus import Consensus, Fragment

    store, _ = filled
    consensus = Consensus(store)
    pointer = consensus.register_input("a tool's output")
    consensus.add([Fragment(fragment_id=f"f{i}", content=text, source_agent="a", trace_pointer=pointer)
                   for i, text in enumerate(["the ledger retries three times", "ledger retries: 3",
                                             "the image resizer caps at 4096 px"])])
    out = reembed.reembed(store, int8)
    texts, vectors = _fragment_vectors(store)
    assert np.allclose(vectors, int8.embed(texts), atol=1e-6)
    assert Consensus(store).made_by()["model"] == INT8_MODEL and Consensus(store).outdated() is None
    reembed.undo(store, out.run_id)
    texts, vectors = _fragment_vectors(store)
    assert np.allclose(vectors, floats.embed(texts), atol=1e-5)
    assert Consensus(store).made_by()["model"] == DEFAULT_MODEL


KILLED = CHILD_PATH + """
import os, signal, sys
from memlib import MemoryStore
from memlib.embeddings import minilm
from memlib.lifecycle import reembed

reembed.CHUNK = 8
def on_step(step):
    print(step, flush=True)
    if step == "chunk 1":
        os.kill(os.getpid(), signal.SIGKILL)
reembed.reembed(MemoryStore.open(sys.argv[1]), minilm(quantized=True), on_step=on_step)
"""


def test_a_run_killed_midway_resumes_where_it_stopped(filled, int8, monkeypatch):
    store, _ = filled
    proc = subprocess.run([sys.executable, "-c", KILLED, store.uri], capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL and proc.stdout.split() == ["started", "chunk", "0", "chunk", "1"]
    (run,) = reembed.runs(store)
    assert run["status"] == "started" and run["through"] is not None
    with pytest.raises(InvalidInput, match="did not finish: run it again with that model"):
        reembed.reembed(store, HashEmbedder())  # another model while one run is open
    embedded = []
    monkeypatch.setattr(reembed, "CHUNK", 8)
    original = reembed._chunk
    monkeypatch.setattr(reembed, "_chunk", lambda s, e, ids, *a: embedded.append(len(ids)) or original(s, e, ids, *a))
    before = _vectors(store)
    out = reembed.reembed(store, int8)
    assert out.resumed and sum(embedded) == 31 - 16  # the two chunks done before the kill are not done again
    after = _vectors(store)
    # every memory's vector written once by the run (the quantized model's vectors depend a
    # little on the batch a text is embedded in, so the events say which rows it wrote)
    written = [e["subject_id"] for e in store.audit.events("action = 'reembed_vector'")]
    assert sorted(written) == sorted(after) and len(set(written)) == 31
    assert sum(not np.array_equal(before[i], after[i]) for i in after) == 31 - 16
    assert [r["status"] for r in reembed.runs(store)] == ["done"]


def test_the_cli_refuses_in_one_line_and_a_mismatch_names_reembed(filled, tmp_path):
    store, _ = filled

    def run(*args):
        return subprocess.run([*MEMLIB, "--store", store.uri, *args], capture_output=True, text=True, timeout=300)

    for args, message in [((), "give one of --embedder NAME"), (("--runs", "--undo", "x"), "give one of"),
                          (("--embedder", "minilm"), "is embedded with sentence-transformers/all-MiniLM-L6-v2 already"),
                          (("--embedder", "nowhere"), "not one of default, minilm, minilm-int8, minilm-int8-zh, minilm-int8-rows"),
                          (("--undo", "nosuch"), "no reembed run 'nosuch'")]:
        out = run("reembed", *args)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 1 and len(lines) == 1 and message in lines[0], out.stderr
    with pytest.raises(EmbedderMismatch, match="'memlib reembed --embedder NAME' moves it"):
        MemoryStore.open(store.uri, embedder=minilm(quantized=True))
    assert MemoryStore.open(store.uri).model_name == DEFAULT_MODEL  # a store keeps the model it recorded
    with pytest.raises(InvalidInput, match="makes 16-dimension vectors, the store holds 384"):
        reembed.reembed(store, HashEmbedder(16))
    out = run("reembed", "--embedder", "default")
    assert out.returncode == 0 and "finished reembed run" in out.stdout, out.stderr
    assert MemoryStore.open(store.uri).model_name == INT8_ROWS_MODEL + GLOSSES
