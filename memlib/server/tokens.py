"""Who may use a memory server: one bearer token per agent, kept hashed in the store's
`server_tokens` table (so every server process on the store, and `memlib serve tokens` beside
it, read the same tokens, on a disk or in a bucket).

A token is `mlt_<id>_<secret>`: the id finds its row, the secret (32 random bytes) is checked
against the row's SHA-256 in constant time; it is shown once, when created, and never stored
or logged. A token fixes its agent's name (every write it makes is that agent's) and the
projects it may read and write (`projects`; empty: all) and only read (`read_projects`).
Revoking one stamps `revoked_at`; a server sees it within `REFRESH_SECONDS`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from dataclasses import dataclass

import pyarrow as pa

from memlib.errors import InvalidInput, NotFound, text_id
from memlib.interface import StoreInterface
from memlib.scope import sql_literal

TABLE = "server_tokens"
TS = pa.timestamp("us", tz="UTC")
SCHEMA = pa.schema([pa.field("token_id", pa.string(), nullable=False), ("agent", pa.string()),
                    ("secret_sha256", pa.string()), ("projects", pa.list_(pa.string())),
                    ("read_projects", pa.list_(pa.string())), ("created_at", TS), ("revoked_at", TS)])
TOKEN = re.compile(r"^mlt_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
AGENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")
REFRESH_SECONDS = 1.0


@dataclass(frozen=True)
class Caller:
    """Who a request comes from, as its token says: the agent and what it may touch."""

    token_id: str
    agent: str
    projects: tuple[str, ...] = ()       # read and write; () with no read_projects: every project
    read_projects: tuple[str, ...] = ()  # read only

    @property
    def every_project(self) -> bool:
        return not self.projects and not self.read_projects

    def may_read(self, project_id: str | None) -> bool:
        return self.every_project or project_id in self.projects or project_id in self.read_projects

    def may_write(self, project_id: str | None) -> bool:
        return self.every_project or project_id in self.projects

    @property
    def readable(self) -> tuple[str, ...]:
        return (*self.projects, *self.read_projects)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _projects(values, what: str) -> list[str]:
    if isinstance(values, (str, bytes)):  # else its letters would be the projects
        raise InvalidInput(f"{what} are a list of project ids, not one text {values!r}")
    out = list(dict.fromkeys(values or ()))
    for value in out:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"{what} must be project ids, not {value!r}")
    return out


class Tokens:
    """The tokens of one store."""

    def __init__(self, store: StoreInterface):
        self.store = store
        self._known: dict[str, dict] = {}
        self._read_at = float("-inf")
        self._version: int | None = None
        self._lock = threading.Lock()

    def create(self, agent: str, projects=(), read_projects=()) -> tuple[str, dict]:
        """A new token for `agent`: (the token, shown only now; its row without the hash)."""
        if not isinstance(agent, str) or not AGENT.match(agent):
            raise InvalidInput(f"agent must be 1 to 100 letters, digits or . _ @ - (starting with a letter or "
                               f"digit), not {agent!r}")
        projects, read = _projects(projects, "projects"), _projects(read_projects, "read projects")
        read = [p for p in read if p not in projects]
        found = self.store.lookup([*projects, *read], ["id", "kind"])
        unknown = next((p for p in (*projects, *read) if (found.get(p) or {}).get("kind") != "project"), None)
        if unknown is not None:
            raise InvalidInput(f"{unknown!r} is not a project of this store (memlib search --kind project lists them)")
        token_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        row = {"token_id": token_id, "agent": agent, "secret_sha256": _digest(secret), "projects": projects,
               "read_projects": read, "created_at": self.store.clock.now(), "revoked_at": None}
        self.store.concept_table(TABLE, SCHEMA).add(pa.Table.from_pylist([row], schema=SCHEMA))
        self.store.log_event("token_create", [token_id], actor=agent,
                             details={"projects": projects, "read_projects": read})
        return f"mlt_{token_id}_{secret}", _public(row)

    def list(self) -> list[dict]:
        table = self.store.concept_table(TABLE)
        rows = [] if table is None else table.to_lance().to_table().to_pylist()
        return sorted((_public(r) for r in rows), key=lambda r: (r["created_at"], r["token_id"]))

    def revoke(self, token_id: str) -> dict:
        table = self.store.concept_table(TABLE)
        token_id = text_id(token_id, "token").removeprefix("mlt_").split("_")[0]
        rows = [] if table is None else table.to_lance().to_table(
            filter=f"token_id = {sql_literal(token_id)}").to_pylist()
        if not rows:
            raise NotFound(f"no token {token_id!r} (memlib serve tokens list)")
        if rows[0]["revoked_at"] is None:
            now = self.store.clock.now()
            table.update(where=f"token_id = {sql_literal(token_id)}", values={"revoked_at": now})
            rows[0]["revoked_at"] = now
            self.store.log_event("token_revoke", [token_id], actor=rows[0]["agent"])
        return _public(rows[0])

    def caller(self, token: str) -> Caller | None:
        """Who `token` stands for, or None (unknown, malformed or revoked)."""
        found = TOKEN.match(token or "")
        if not found:
            return None
        token_id, secret = found.groups()
        row = self._rows().get(token_id)
        if row is None and self._read_at < time.monotonic() - 0.05:  # just created elsewhere?
            row = self._rows(force=True).get(token_id)
        if row is None or row["revoked_at"] is not None or \
                not hmac.compare_digest(row["secret_sha256"], _digest(secret)):
            return None
        return Caller(token_id, row["agent"], tuple(row["projects"] or ()), tuple(row["read_projects"] or ()))

    def _rows(self, force: bool = False) -> dict[str, dict]:
        """The tokens, read again when older than REFRESH_SECONDS and the table changed."""
        with self._lock:
            if force or time.monotonic() - self._read_at > REFRESH_SECONDS:
                table = self.store.concept_table(TABLE)
                if table is not None:
                    table.checkout_latest()
                    if table.version != self._version:
                        self._known = {r["token_id"]: r for r in table.to_lance().to_table().to_pylist()}
                        self._version = table.version
                self._read_at = time.monotonic()
            return self._known


def _public(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "secret_sha256"}
