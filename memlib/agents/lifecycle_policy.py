"""The memory lifecycle policy (seed 002): what an agent recalls before a step and what it
writes back after. The runtime calls only `build_recall_query` and `build_write_request`;
the policy decides.

`ConservativePolicy` (the default) recalls at most 3 memories for a non-empty goal, and
writes nothing back unless told to (`automatic_write_back`): a transcript is not knowledge,
and writing every exchange back would fill long-term memory with noise. While a pending loop
is active it neither recalls (the loop resumes with the context it had) nor writes back (a
resumed step is not a finished task). `DisabledPolicy` always answers None.

Both are configured from a TOML file (`[recall] top_k`, `[write_back] automatic`), validated
like the retention policies: one line names what is wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memlib.agents import review
from memlib.agents.review import REVIEWS
from memlib.errors import InvalidInput, invalid
from memlib.interface import MemoryInterface
from memlib.models import Int, Memory, Summary

MAX_SUMMARY = 2_000


@dataclass(frozen=True)
class RecallInput:
    goal: str
    agent: str
    project_id: str | None = None
    session_id: str | None = None
    pending_loop_active: bool = False


@dataclass(frozen=True)
class RecallQuery:
    text: str
    limit: int
    project_id: str | None = None


@dataclass(frozen=True)
class WriteInput:
    goal: str
    response: str
    agent: str
    project_id: str | None = None
    session_id: str | None = None
    succeeded: bool = True
    pending_loop_active: bool = False
    source: str = "write_back"  # where the outcome came from ("tool", "web": untrusted)


class MemoryLifecyclePolicy(Protocol):
    def build_recall_query(self, request: RecallInput) -> RecallQuery | None: ...

    def build_write_request(self, request: WriteInput) -> list[Memory] | None: ...


class _Recall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    top_k: Int = Field(default=3, ge=1, le=100)


class _WriteBack(BaseModel):
    model_config = ConfigDict(extra="forbid")
    automatic: bool = False
    review: Literal["none", "untrusted", "all"] = "none"  # hold for a person's review (agents/review.py)


class PolicyConfig(BaseModel):
    """The TOML file's settings."""

    model_config = ConfigDict(extra="forbid")
    policy: str = Field(default="conservative", pattern="^(conservative|disabled)$")
    recall: _Recall = Field(default_factory=_Recall)
    write_back: _WriteBack = Field(default_factory=_WriteBack)


class DisabledPolicy:
    """Memory switched off: never recalls, never writes back."""

    review = "none"

    def build_recall_query(self, request: RecallInput) -> RecallQuery | None:
        return None

    def build_write_request(self, request: WriteInput) -> list[Memory] | None:
        return None


class ConservativePolicy:
    def __init__(self, recall_limit: int = 3, automatic_write_back: bool = False, recall: bool = True,
                 review: str = "none"):
        if review not in REVIEWS:
            raise InvalidInput(f"review must be one of {', '.join(REVIEWS)}, not {review!r}")
        self.recall_limit = recall_limit
        self.automatic_write_back = automatic_write_back
        self.recall = recall
        self.review = review  # what write-back holds for a person's review

    def build_recall_query(self, request: RecallInput) -> RecallQuery | None:
        text = request.goal.strip()
        if not self.recall or not text or request.pending_loop_active:
            return None
        return RecallQuery(text=text, limit=self.recall_limit, project_id=request.project_id)

    def build_write_request(self, request: WriteInput) -> list[Memory] | None:
        """A summary of a finished task, with its provenance, never the same content twice
        (its id is derived from the content hash, so the store refuses a repeat)."""
        if (not self.automatic_write_back or request.pending_loop_active or not request.succeeded
                or not request.project_id or not request.response.strip() or not request.goal.strip()):
            return None
        goal = " ".join(request.goal.split())
        content = f"Task: {goal}\nOutcome: {request.response.strip()}"[:MAX_SUMMARY]
        digest = content_hash(request.project_id, content)
        return [Summary(id=hash_id(digest), project_id=request.project_id, title=goal[:120],
                        content=content, source=request.source, agent=request.agent,
                        metadata={"session_id": request.session_id, "agent": request.agent,
                                  "content_hash": digest})]


def write_back(store: MemoryInterface, policy: MemoryLifecyclePolicy, request: WriteInput, plane=None) -> list[str]:
    """Write what the policy asks for, leaving out what the store already holds (the same
    content has the same id); what its review setting holds back (agents/review.py) waits in
    the store's control plane (`plane`, opened when not given) instead. Returns the ids
    written. A session with a pending loop (its latest saved state) writes nothing back,
    whatever the caller's `pending_loop_active` says: the session decides."""
    if request.session_id is not None and not request.pending_loop_active:
        from memlib.sessions.layers import Sessions

        if Sessions(store).pending_loop(request.session_id) is not None:
            request = dataclasses.replace(request, pending_loop_active=True)
    memories = policy.build_write_request(request) or []
    stored = store.lookup([m.id for m in memories], ["id"])
    new = [m for m in memories if m.id not in stored]
    kept = [m for m in new if review.held(getattr(policy, "review", "none"), m)]
    if kept:
        if plane is None:
            from memlib.control import ControlPlane

            plane = ControlPlane.open(store.uri, settings=store.settings)
        waiting = {t["memory"]["id"] for t in review.pending(plane)}
        review.submit(plane, [m for m in kept if m.id not in waiting], agent=request.agent,
                      session_id=request.session_id)
    new = [m for m in new if m not in kept]
    return store.add(new, actor=request.agent) if new else []


def content_hash(project_id: str, content: str) -> str:
    return hashlib.sha256(f"{project_id}\n{' '.join(content.split())}".encode()).hexdigest()


def hash_id(digest: str) -> str:
    """A UUIDv4-shaped id from a content hash: the same content always has the same id."""
    return str(uuid.UUID(bytes=bytes.fromhex(digest[:32]), version=4))


def load_lifecycle_policy(path: str | Path | None = None) -> MemoryLifecyclePolicy:
    """The policy a TOML file configures (the conservative default without one)."""
    if path is None:
        return ConservativePolicy()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise InvalidInput(f"lifecycle policy {path}: cannot be read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"lifecycle policy {path}: cannot be parsed: {exc}") from None
    try:
        config = PolicyConfig.model_validate(data)
    except ValidationError as exc:
        raise invalid(f"lifecycle policy {path}", exc) from None
    if config.policy == "disabled":
        return DisabledPolicy()
    return ConservativePolicy(config.recall.top_k, config.write_back.automatic, config.recall.enabled,
                              config.write_back.review)
