"""The default model loads offline from its package and embeds to unit vectors."""

from __future__ import annotations

import numpy as np
import pytest

from memlib.embeddings import GLOSSES, INT8_MODEL, HashEmbedder, default_embedder, minilm


def test_default_model_is_offline_and_normalised(model):
    # loaded from the package's files only (local_files_only), with nothing set globally
    assert model.name == INT8_MODEL + GLOSSES and model.quantized and model.dims == 384
    vectors = model.embed(["deploy the payment service", "ship the payments backend", "bake bread"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_hash_embedder_is_deterministic_and_lexical():
    emb = HashEmbedder(64)
    a, b, c = emb.embed(["red apple pie", "red apple pie", "blue ocean"])
    assert np.array_equal(a, b)
    assert a @ b > 0.99 and abs(a @ c) < 0.5


def test_a_plugged_in_model_is_recorded_and_reloaded(tmp_path, model):
    """Any sentence-transformers model path can back a store; reopening finds it again."""
    from memlib import MemoryStore, Project
    from memlib.embeddings import SentenceTransformerEmbedder

    path = model.model_path
    custom = SentenceTransformerEmbedder(path)
    store = MemoryStore.open(str(tmp_path / "s"), embedder=custom)
    store.add([Project(name="espresso machine maintenance"), Project(name="tax filing deadlines")])
    reopened = MemoryStore.open(str(tmp_path / "s"))
    assert reopened.model_name == path and reopened.dims == 384
    hits = reopened.search("coffee", k=1, mode="vector")
    assert hits[0].memory.name == "espresso machine maintenance"


@pytest.fixture(scope="module")
def floats():
    return minilm(quantized=False)


def test_small_batches_through_onnx_runtime_equal_the_pytorch_vectors(floats, monkeypatch):
    """A query (a batch of one) goes through ONNX Runtime; its vector is PyTorch's."""
    from memlib import embeddings

    model = floats
    texts = ["ledger", "Ledger retries must be idempotent, always!",
             "a long note " + "about the payment ledger and its retries " * 60,  # past 256 tokens
             "日本語のメモ", ""]
    small = np.concatenate([model.embed([t]) for t in texts])
    assert model._small() is not None  # the fast path really ran
    monkeypatch.setattr(embeddings, "SMALL_BATCH", 0)  # everything through PyTorch
    big = model.embed(texts)
    assert np.allclose(small, big, atol=2e-5)
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0, atol=1e-5)


def test_one_model_embeds_and_counts_from_many_threads(model):
    """A server embeds in the background (warming, a save's early embedding) while it answers
    calls: threads at once get the vectors and token counts one thread gets."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"ledger retry {i} after the payment gateway timed out" for i in range(24)]
    alone = model.embed(texts)
    counts = [model._count_tokens(t) for t in texts]

    def work(i: int):
        return model.embed([texts[i]])[0], model._count_tokens(texts[i]), model.embed(texts[i:i + 12])

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(len(texts))))
    for i, (one, count, batch) in enumerate(results):
        assert np.allclose(one, alone[i], atol=2e-5) and count == counts[i]
        assert np.allclose(batch, alone[i:i + 12], atol=2e-5)


def test_the_encoder_device_is_a_choice_checked_against_the_machine(monkeypatch):
    import subprocess
    import sys

    import torch

    from memlib.embeddings import SentenceTransformerEmbedder, checked_device, runs_on
    from memlib.errors import InvalidInput
    from memlib.settings import Settings

    assert checked_device("cpu") == "cpu"
    for bad, message in (("tpu", "device must be cpu, cuda"), ("cuda:x", "device must be")):
        with pytest.raises(InvalidInput, match=message):
            checked_device(bad)
    if not torch.cuda.is_available():
        with pytest.raises(InvalidInput, match="torch sees 0 CUDA GPU"):
            checked_device("cuda")
    monkeypatch.setenv("MEMLIB_DEVICE", "cpu")
    assert SentenceTransformerEmbedder("/nowhere").device == "cpu"
    assert SentenceTransformerEmbedder("/nowhere", **runs_on(Settings.resolve())).device == "cpu"
    monkeypatch.setenv("MEMLIB_DEVICE", "quantum")
    with pytest.raises(InvalidInput, match="MEMLIB_DEVICE must be .*'quantum'"):
        Settings.resolve()
    with pytest.raises(InvalidInput, match="'quantum'"):
        SentenceTransformerEmbedder("/nowhere", device="quantum")
    monkeypatch.delenv("MEMLIB_DEVICE")
    proc = subprocess.run([sys.executable, "-m", "memlib.cli", "--device", "tpu", "stats"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.strip().splitlines() == [
        "memlib: error: device must be cpu, cuda, cuda:N or mps, not 'tpu'"]


def test_the_quantized_model_gives_a_text_one_vector_close_to_the_float_ones(model, floats):
    """In 8-bit integers each text runs alone (its activations' scale is its own), so its
    vector is the same in any batch, and close to the float model's."""
    texts = ["ledger", "Ledger retries must be idempotent, always!", "日本語のメモ", "",
             "a long note " + "about the payment ledger and its retries " * 60]
    model = model.inner  # the default glosses Chinese words (test_glosses): here, the model alone
    together = model.embed(texts)
    alone = np.concatenate([model.embed([t]) for t in texts])
    assert np.array_equal(together, alone)
    assert np.array_equal(model.embed(texts[::-1])[::-1], together)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    cosines = (together * floats.embed(texts)).sum(axis=1)
    assert cosines.min() > 0.95 and cosines.mean() > 0.97


def test_every_named_embedder_is_found_again_by_the_name_a_store_records(model):
    """One registry (embeddings.NAMED) gives the embedder of a user's name and of a store's
    recorded model name; `--help` lists it."""
    import subprocess
    import sys
    from pathlib import Path

    from memlib.embeddings import DEFAULT_MODEL, NAMED, embedder_for, named

    assert list(NAMED) == ["default", "minilm", "minilm-int8", "minilm-int8-zh", "hash"]
    assert NAMED["default"] is NAMED["minilm-int8-zh"]
    assert embedder_for(named("minilm-int8").name, 384).name == INT8_MODEL
    assert embedder_for(model.name, 384).name == model.name == default_embedder().name
    assert embedder_for(DEFAULT_MODEL, 384).name == DEFAULT_MODEL
    again = embedder_for(named("hash").name, 384)
    assert isinstance(again, HashEmbedder) and embedder_for(HashEmbedder(64).name, 64).dims == 64
    assert named("minilm").name == DEFAULT_MODEL
    out = subprocess.run([str(Path(sys.executable).with_name("memlib")), "init", "--help"],
                         capture_output=True, text=True, timeout=120).stdout
    assert all(f"'{name}'" in " ".join(out.split()) for name in NAMED)
