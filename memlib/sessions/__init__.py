"""The session layers of an agent's memory (seed 002): a session and its preferences, its
short-term transcript and its pending loops, each in its own table beside the memories
(layers.py), laid out in tables.py. Agents hold them (memlib.agents.Sessions, which offers
a session's outcome to the agent's lifecycle policy as it ends); the reports read the
sessions through memlib.analytics. May import the store part."""

from memlib.sessions.layers import Session, Sessions

__all__ = ["Session", "Sessions"]
