"""memlib through a memory server: `MemoryStore.connect(url, token)` (or `memlib --server URL`
with $MEMLIB_TOKEN) gives the calls an agent or a service makes, with the results an embedded
store gives: memories as memlib's models, hits with their rank, score, memory and text.

    store = MemoryStore.connect("http://127.0.0.1:8765", token)
    store.add([Insight(project_id=P, content="...")])
    hits = store.search("ledger retries", scope=Scope(project_id=P))

Writes are the token's agent's (an `agent` or `actor` argument naming another is refused by
the server). What a server does not offer (maintain, reports, export: the work done where the
store is) is refused in one line. A server's refusal comes back as the same error an embedded
store raises: NotFound for 404, Refused for 401 and 403, InvalidInput for the rest of 4xx; an
unreachable server is a StoreError naming the URL.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from memlib.errors import InvalidInput, NotFound, Refused, StoreError
from memlib.models import DERIVED, Memory, as_memories, parse_memory
from memlib.scope import Scope

if TYPE_CHECKING:
    from memlib.lifecycle.retention import RunOutcome

SERVED = ("add", "get", "search", "recall", "revise", "correct", "adjust_confidence", "forget", "history",
          "disagreements", "unread", "count",
          "start_session", "append", "transcript", "end_session", "build_context", "tool")


@dataclasses.dataclass
class RemoteHit:
    """One hit of a search through a server: what `memlib.search.Hit` offers a caller."""

    id: str
    score: float
    rank: int
    sources: dict[str, float]
    memory: Memory
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "score": self.score, "sources": self.sources,
                "memory": self.memory.model_dump(mode="json", exclude={"embedding"})}


class Client:
    """A memory server's API in memlib's terms (see the module's docstring)."""

    def __init__(self, url: str, token: str | None, timeout: float = 60.0, http=None):
        """`http`: the httpx.Client to send with (an in-process app's test client); one to
        `url` by default."""
        import httpx

        if not token:
            raise InvalidInput(f"a token is needed for the memory server at {url}: give one, or set $MEMLIB_TOKEN")
        self.uri = url.rstrip("/")
        self.last_merged: dict[str, str] = {}
        self._http = http if http is not None else httpx.Client(base_url=self.uri, timeout=timeout)
        self._http.headers["Authorization"] = f"Bearer {token}"

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise InvalidInput(f"{name} is not offered by a memory server ({self.uri}); it serves "
                           f"{', '.join(SERVED)}: run this where the store is, without --server")

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs) -> Any:
        import httpx

        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach the memory server at {self.uri}: {exc}") from None
        if response.status_code < 400:
            return response.json()
        try:
            message = response.json()["error"]
        except (ValueError, KeyError, TypeError):
            message = response.text.strip()[:300] or response.reason_phrase
        kind = NotFound if response.status_code == 404 else Refused if response.status_code in (401, 403) \
            else InvalidInput if response.status_code < 500 else StoreError
        raise kind(message)

    # -- memories ----------------------------------------------------------------------------

    def add(self, memories: Iterable[Memory | dict] | str, vectors=None, progress: bool = False, labels=None,
            actor: str | None = None, duplicates: str = "merge", key: str | None = None,
            user_id: str | None = None, project_id: str | None = None) -> list[str]:
        """See `Store.add`; `key`: an idempotency key (a retry with it writes nothing twice)."""
        if vectors is not None:
            raise InvalidInput("a memory server embeds what it is sent: give no vectors")
        memories = as_memories(memories, user_id, project_id)
        body = {"memories": [_plain(m) for m in memories], "duplicates": duplicates}
        out = self._call("POST", "/v1/memories", json=body, headers={"Idempotency-Key": key} if key else None)
        self.last_merged = out["merged"]  # as Store.add: {the id a repeat would have had: the one it repeats}
        return out["ids"]

    def get(self, memory_id: str, with_embedding: bool = False) -> Memory:
        return parse_memory(_fields(self._call("GET", f"/v1/memories/{memory_id}")), f"memory {memory_id}")

    def search(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None) -> list[RemoteHit]:
        return self._hits(self._call("POST", "/v1/search", json={"query": text, "k": k, "mode": mode,
                                                                  "scope": _scope(scope)}))

    def recall(self, text: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               agent: str | None = None, tool: str | None = None, session_id: str | None = None) -> list[RemoteHit]:
        """See `MemoryStore.recall`: logged as the token's agent's recall."""
        return self._hits(self._call("POST", "/v1/recall", json={
            "query": text, "k": k, "mode": mode, "scope": _scope(scope), "session_id": session_id}))

    def revise(self, memory_id: str, reason: str, **changes) -> Memory:
        return parse_memory(_fields(self._call("PATCH", f"/v1/memories/{memory_id}",
                                               json={"reason": reason, "changes": changes})))

    def correct(self, memory_id: str, reason: str, **changes) -> tuple[Memory, str]:
        out = self._call("POST", f"/v1/memories/{memory_id}/correct", json={"reason": reason, "changes": changes})
        return parse_memory(_fields(out["memory"])), out["run_id"]

    def adjust_confidence(self, memory_id: str, delta: int, reason: str) -> Memory:
        """See `curation.adjust_confidence`: the memory after the change."""
        return parse_memory(_fields(self._call("POST", f"/v1/memories/{memory_id}/confidence",
                                               json={"delta": delta, "reason": reason})["memory"]))

    def forget(self, memory_ids: Sequence[str], reason: str) -> RunOutcome:
        """See `curation.forget`: the run's id and how many memories it removed."""
        from memlib.lifecycle.retention import RunOutcome

        out = self._call("POST", "/v1/forget", json={"memory_ids": list(memory_ids), "reason": reason})
        return RunOutcome(out["run_id"], out["forgotten"])

    def history(self, memory_id: str) -> dict:
        """See `store.history.memory_history`: the memory as it is (or None) and its events."""
        life = self._call("GET", f"/v1/memories/{memory_id}/history")
        for event in life["events"]:
            event["at"] = datetime.fromisoformat(event["at"])
        return life

    def disagreements(self, ids: list[str] | None = None) -> list[dict[str, Any]]:
        return self._call("POST", "/v1/disagreements", json={"ids": ids})["pairs"]

    def unread(self, ids: list[str] | None = None) -> int | None:
        """See MemoryStore.unread: of the memories the token may read (None: of the whole
        store, not said to a token limited to projects)."""
        return self._call("POST", "/v1/disagreements", json={"ids": ids})["unread"]

    def count(self, scope: Scope | None = None) -> int:
        """See `Store.count`: of the memories the token may read."""
        return self._call("POST", "/v1/count", json={"scope": None if scope is None else _scope(scope)})["count"]

    # -- sessions, context, tools ------------------------------------------------------------

    def start_session(self, project_id: str | None = None, preferences: dict | None = None) -> dict:
        return self._call("POST", "/v1/sessions", json={"project_id": project_id, "preferences": preferences or {}})

    def append(self, session_id: str, role: str, content: str) -> dict:
        return self._call("POST", f"/v1/sessions/{session_id}/turns", json={"role": role, "content": content})

    def transcript(self, session_id: str) -> list[dict]:
        return self._call("GET", f"/v1/sessions/{session_id}/transcript")

    def end_session(self, session_id: str) -> dict:
        return self._call("POST", f"/v1/sessions/{session_id}/end")

    def build_context(self, session_id: str, goal: str, budget_tokens: int = 4_000) -> dict:
        return self._call("POST", "/v1/context", json={"session_id": session_id, "goal": goal,
                                                       "budget_tokens": budget_tokens})

    def tool(self, name: str, session_id: str | None = None, **arguments) -> dict:
        """An agent tool (memlib.agents.tools) by name, as over MCP."""
        return self._call("POST", f"/v1/tools/{name}", json=arguments,
                          headers={"X-Session-Id": session_id} if session_id else None)

    def _hits(self, data: list[dict]) -> list[RemoteHit]:
        return [RemoteHit(id=h["memory"]["id"], score=h["score"], rank=h["rank"], sources=h["sources"],
                          memory=parse_memory(h["memory"], f"hit {h['rank']}"), text=h["text"]) for h in data]


def _plain(memory: Memory | dict) -> dict:
    if isinstance(memory, Memory):
        return memory.model_dump(mode="json", exclude={"embedding"})
    if isinstance(memory, dict):
        return memory
    raise InvalidInput(f"a memory must be a memlib model or a dict, not {type(memory).__name__}")


def _scope(scope: Scope | None) -> dict[str, Any]:
    """A Scope as the server's body takes it (its fields that differ from the defaults)."""
    if scope is None:
        return {}
    scope = Scope.given(scope)
    if scope.any_of:
        raise InvalidInput("a memory server takes scopes without any_of")
    out = {}
    for f in dataclasses.fields(Scope):
        value = getattr(scope, f.name)
        if f.name == "any_of" or value == (f.default if f.default is not dataclasses.MISSING else f.default_factory()):
            continue
        out[f.name] = list(value) if isinstance(value, tuple) else value.isoformat() if hasattr(value, "isoformat") else value
    return out


def _fields(data: dict) -> dict:
    """A memory as the server shows it, without what is derived from its fields (models.as_json)."""
    return {k: v for k, v in data.items() if k not in DERIVED}
