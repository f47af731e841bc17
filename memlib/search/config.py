"""A store's search settings and the limits of a query: what the CLI's options and a store's
record need, without the query path (Lance) behind them."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlib.errors import InvalidInput
from memlib.vocabulary import Float, Int

MODES = ("vector", "fts", "hybrid")
MAX_K = 1_000


class SearchConfig(BaseModel):
    """Knobs of a store's search; chosen by measurement (see bench/README.md). A store records
    the ones it was created with (`MemoryStore.open(..., search=...)`) and searches with them
    from then on, whoever opens it; a recorded value that is not valid is refused on open."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fusion: Literal["convex", "rrf"] = "convex"  # hybrid: score-aware, or ranks only
    alpha: Float = Field(0.4, ge=0, le=1)          # convex: weight of the vector list, 1 - alpha of full text
    rrf_k: Int = Field(60, ge=1)
    candidates: Int = Field(50, ge=1, le=MAX_K)    # per list in hybrid mode, at least k
    nprobes: Int = Field(16, ge=1)                 # IVF partitions probed when a vector index exists
    refine_factor: Int | None = Field(4, ge=1)     # re-rank that many times k by exact distance
    ef: Int | None = Field(None, ge=1)             # HNSW search breadth inside each probed partition
    exact_below: Int = Field(20_000, ge=0)         # a scope this small is scanned exactly (numpy), not probed
    neighbours: Float = Field(0.8, ge=0, le=1)     # hybrid: share of the best adjacent turn's score a turn gains
    # hybrid: share of the best score a candidate gains when written in the period the query names
    dated: Float = Field(1.0, ge=0, le=1)
    # hybrid: share of the best score a candidate gains when its own words hold the kind of thing
    # the query asks for (a time for "when", a number for "how many", a place for "where")
    answer: Float = Field(0.15, ge=0, le=1)
    # hybrid: share of the best score a conversation turn gains when its speaker is the one the query names
    speaker: Float = Field(0.15, ge=0, le=1)
    # how the full-text index cuts text into words: 'icu' finds words in Chinese and Japanese
    # (which have no spaces) as well as in English; 'simple' splits at what is not a letter or
    # digit, so a run of Chinese is one word (the tokenizer of stores made before 'icu')
    tokenizer: Literal["icu", "simple"] = "icu"

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str, where: str, missing: dict[str, Any] | None = None) -> "SearchConfig":
        """The config recorded as `text`; a one-line error naming `where` if it is not valid.
        `missing`: the values of settings `text` does not name (a store's record from before
        a setting existed holds the value the store was made with, not today's default)."""
        try:
            data = json.loads(text)
            if isinstance(data, dict):
                data = {**(missing or {}), **data}
            return cls.model_validate(data)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{where}: search settings are not JSON ({exc.msg})") from None
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or "the record"
            raise InvalidInput(f"{where}: search setting {field}: {error['msg']}") from None
