"""The session tables' layout (seed 002's session layers, memlib/sessions/layers.py), and
the one the analytics views read (`SOURCES`)."""

from __future__ import annotations

import pyarrow as pa

from memlib.interface import TableSource

SESSIONS = "sessions"
SHORT_TERM = "short_term"
PENDING_LOOPS = "pending_loops"
TS = pa.timestamp("us", tz="UTC")
SCHEMAS = {
    SESSIONS: pa.schema([("session_id", pa.string()), ("agent", pa.string()), ("project_id", pa.string()),
                         ("status", pa.string()), ("started_at", TS), ("ended_at", TS),
                         ("preferences", pa.string())]),
    SHORT_TERM: pa.schema([("session_id", pa.string()), ("seq", pa.int64()), ("role", pa.string()),
                           ("content", pa.string()), ("at", TS)]),
    PENDING_LOOPS: pa.schema([("session_id", pa.string()), ("loop_id", pa.string()), ("goal", pa.string()),
                              ("step", pa.int64()), ("state", pa.string()), ("saved_at", TS)]),
}
SOURCES = (TableSource("raw_sessions", SESSIONS, lambda dims: SCHEMAS[SESSIONS]),)
