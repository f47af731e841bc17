"""The session layers (memlib/sessions) as an agent ends a session: with its lifecycle
policy, which may write the session's outcome back as memory first."""

from __future__ import annotations

from memlib.agents.lifecycle_policy import MemoryLifecyclePolicy, WriteInput, write_back
from memlib.errors import Refused
from memlib.sessions import layers
from memlib.sessions.layers import Session
from memlib.sessions.tables import PENDING_LOOPS, SESSIONS, SHORT_TERM

__all__ = ["PENDING_LOOPS", "SESSIONS", "SHORT_TERM", "Session", "Sessions"]


class Sessions(layers.Sessions):
    def owned(self, session_id: str, agent: str) -> Session:
        """The session, which must be `agent`'s own (an agent works in its sessions only)."""
        session = self.get(session_id)
        if session.agent != agent:
            raise Refused(f"session {session_id!r} is agent {session.agent!r}'s, not {agent!r}'s")
        return session

    def end(self, session_id: str, policy: MemoryLifecyclePolicy | None = None) -> Session:
        """Mark the session ended and clear its transcript and pending loop. With a lifecycle
        policy, the transcript is first offered to it for write-back: the first user turn as
        the goal, the last assistant turn as the outcome (the policy decides whether and what
        to write)."""
        session = self.get(session_id)
        if policy is not None and session.status == "active":
            turns = self.transcript(session_id)
            asked = next((t.content for t in turns if t.role == "user"), "")
            answered = next((t.content for t in reversed(turns) if t.role == "assistant"), "")
            write_back(self.store, policy, WriteInput(
                asked, answered, session.agent, session.project_id, session_id,
                pending_loop_active=self.pending_loop(session_id) is not None))
        return super().end(session_id)
