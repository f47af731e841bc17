"""The records of multi-agent consolidation (seed 001), with its constraints as validation:
a fragment an agent reports, the cluster of fragments about one thing, the unit that states
what a cluster's agents agree on and keeps where they disagree, and the retention contract a
unit obeys. Validation errors name the record and the field in one line (errors.invalid)."""

from __future__ import annotations

import math
import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memlib.clock import utc
from memlib.errors import invalid
from memlib.models import Float, Int, MAX_TEXT, checked_vector

TOPIC_SUM_TOLERANCE = 1e-6


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def parse(cls, data: Any, what: str | None = None):
        """One record from plain data (or itself); one line naming what is wrong."""
        if isinstance(data, cls):
            return data
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise invalid(what or cls.__name__, exc) from None


def _unit(value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"must be between 0 and 1, not {value!r}")
    return float(value)


class Fragment(_Record):
    """What one agent reported, once. `trace_pointer` names the input it came from, which
    memlib must know (consensus.store.Consensus.resolve): a memory id, a recall query id, or
    `sha256:<hex>` of an input the caller registered."""

    fragment_id: str = Field(default_factory=lambda: str(uuid.uuid4()), min_length=1, max_length=200)
    content: str = Field(min_length=1, max_length=MAX_TEXT)
    source_agent: str = Field(min_length=1, max_length=200)
    timestamp: datetime | None = None  # when it was reported; left out, when it is added (the store's clock)
    topic_candidates: list[str] = Field(default_factory=list)
    confidence: Float = 1.0
    tool_fingerprint: str = ""
    citation_count: Int = Field(default=0, ge=0)
    trace_pointer: str = Field(min_length=1)
    embedding: list[float] | None = Field(default=None, repr=False)
    metadata: dict[str, str] = Field(default_factory=dict)
    # the order memlib received it in among the store's fragments (0, 1, ...), set by
    # Consensus.add (a value given is replaced); it orders fragments reported at one time
    # (clustering.order_key). None: stored before memlib recorded it
    arrival: Int | None = Field(default=None, ge=0)

    _confidence = field_validator("confidence")(classmethod(lambda cls, v: _unit(v)))
    _embedding = field_validator("embedding")(classmethod(lambda cls, v: checked_vector(v)))

    @field_validator("timestamp", mode="before")
    @classmethod
    def _when(cls, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # seed 001: Unix time
            return datetime.fromtimestamp(value).astimezone()
        return value

    @field_validator("timestamp")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else utc(value)

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("topic_candidates")
    @classmethod
    def _topics(cls, value: list[str]) -> list[str]:
        if any(not t.strip() for t in value):
            raise ValueError("topics must not be empty")
        return list(dict.fromkeys(value))


class Cluster(_Record):
    """Fragments about one thing: their mean direction (unit length) and their topics."""

    cluster_id: str = Field(min_length=1)
    fragment_ids: list[str] = Field(min_length=1)
    centroid: list[float] = Field(repr=False)
    topic_distribution: dict[str, float]
    conflict_risk: Float = 0.0
    last_updated: datetime

    _risk = field_validator("conflict_risk")(classmethod(lambda cls, v: _unit(v)))

    @field_validator("topic_distribution")
    @classmethod
    def _distribution(cls, value: dict[str, float]) -> dict[str, float]:
        for topic, p in value.items():
            _unit(p)
        if value and abs(sum(value.values()) - 1) > TOPIC_SUM_TOLERANCE:
            raise ValueError(f"must sum to 1 (within {TOPIC_SUM_TOLERANCE}), not {sum(value.values())!r}")
        return value

    @field_validator("fragment_ids")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("must not name a fragment twice")
        return value


class Side(_Record):
    claim: str = Field(min_length=1)
    fragment_ids: list[str] = Field(min_length=1)
    agents: list[str] = Field(min_length=1)


class Disagreement(_Record):
    """A point the agents of a cluster disagree on, with each side's evidence."""

    point: str = Field(min_length=1)
    kind: str  # value (a number or date), negation or choice
    a: Side
    b: Side


class SlotConstraint(_Record):
    min_items: Int = Field(default=1, ge=0)
    min_coverage_ratio: Float = 0.0
    required: bool = True

    _ratio = field_validator("min_coverage_ratio")(classmethod(lambda cls, v: _unit(v)))


class RetentionContract(_Record):
    """What a consensus unit must keep: slots with their minimum coverage, how much each
    agent's word weighs, topics it may or must not mention, and its length budget."""

    contract_id: str = Field(min_length=1)
    version: str = Field(min_length=1)
    slots: dict[str, SlotConstraint] = Field(default_factory=dict)
    source_weights: dict[str, Float] = Field(default_factory=dict)
    topic_allowlist: list[str] = Field(default_factory=list)
    topic_blocklist: list[str] = Field(default_factory=list)
    length_budget: Int = Field(gt=0)
    max_rounds: Int = Field(default=3, ge=1)

    @field_validator("source_weights")
    @classmethod
    def _weights(cls, value: dict[str, float]) -> dict[str, float]:
        for agent, weight in value.items():
            if not (math.isfinite(weight) and weight >= 0):
                raise ValueError(f"weight of {agent!r} must be a number >= 0")
        return value

    @model_validator(mode="after")
    def _disjoint(self):
        both = sorted(set(self.topic_allowlist) & set(self.topic_blocklist))
        if both:
            raise ValueError(f"topic {both[0]!r} is on both the allow list and the block list")
        return self


class ClusterMemoryUnit(_Record):
    """What a cluster's agents agree on (an extractive summary), where they disagree, the
    fragments that are its evidence, each required slot's coverage and how it was compressed."""

    cluster_id: str = Field(min_length=1)
    consensus_summary: str
    disagreements: list[Disagreement] = Field(default_factory=list)
    evidence_pointers: list[str] = Field(min_length=1)
    slot_coverage: dict[str, float] = Field(default_factory=dict)
    compression_report: dict[str, Any] = Field(default_factory=dict)
    contract_id: str | None = None
    contract_version: str | None = None

    @field_validator("slot_coverage")
    @classmethod
    def _coverage(cls, value: dict[str, float]) -> dict[str, float]:
        for slot, ratio in value.items():
            _unit(ratio)
        return value

    def check_contract(self, contract: RetentionContract) -> None:
        """Every required slot of the contract has a coverage (seed 001)."""
        missing = [s for s, c in contract.slots.items() if c.required and s not in self.slot_coverage]
        if missing:
            raise ValueError(f"slot_coverage lacks the required slot {missing[0]!r} of contract "
                             f"{contract.contract_id} v{contract.version}")
