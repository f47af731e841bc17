"""The words every layer shares about a memory, without its models: its kinds, its levels in the
task tree, its importance, the one rule of trust, and the numbers a caller fills.

`models` builds the memories on these; a scope, a search setting and the CLI's options read
them here, so drawing an option or checking a scope loads no pydantic model and no Arrow.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Annotated

from pydantic import BeforeValidator


def _not_boolean(value):
    """A number as a caller gives it: true and false are not 1 and 0, which pydantic's lax
    mode would make of them."""
    if isinstance(value, bool):
        raise ValueError(f"must be a number, not {str(value).lower()}")
    return value


# The versions of what a store holds, which `memlib --version` names: its tables' schema
# (memories and their logs), and its control plane's SQLite schema (2: a task belongs to a
# project). A store written by a newer memlib is refused rather than misread.
SCHEMA_VERSION = 1
CONTROL_SCHEMA_VERSION = 2

# the numbers of every model a caller fills (memories, request bodies, tool inputs, tasks)
Int = Annotated[int, BeforeValidator(_not_boolean)]
Float = Annotated[float, BeforeValidator(_not_boolean)]


class Level(IntEnum):
    PROJECT = 0
    ROOT_TASK = 1
    SUB_TASK = 2


class Kind(str, Enum):
    PROJECT = "project"
    ROOT_TASK = "root_task"
    SUB_TASK = "sub_task"
    DECISION = "decision"
    PATTERN = "pattern"
    INSIGHT = "insight"
    ISSUE = "issue"
    LEARNING = "learning"
    CONVERSATION = "conversation"
    SUMMARY = "summary"
    MANUAL = "manual"


class Importance(str, Enum):
    CRITICAL = "critical"
    IMPORTANT = "important"
    NORMAL = "normal"


# The fields a person or an agent may change in place (`curation.revise`): what a memory says
# and how much it is trusted; its kind, its place in the tree and its history stay.
REVISABLE = ("name", "description", "objective", "details", "title", "context", "decision", "consequences",
             "content", "code_example", "usage_examples", "importance", "tags", "confidence", "ttl_days")


# Trust. A memory's `source` says where it came from: a person ("manual", "workspace",
# "person"), an agent ("agent"), an import ("import"), a tool's output ("tool") or a web page
# ("web"). What came from a tool or a page nobody vouches for, nor any memory tagged
# UNTRUSTED: such a memory is untrusted (search down-weights it, `build_context` shows it
# after the trusted ones and labelled, a scope can leave it out). A memory found harmful is
# quarantined: taken out of the store as a reversible run (memlib.lifecycle.curation.forget),
# so it is never returned.
UNTRUSTED_SOURCES = ("tool", "web")
UNTRUSTED = "untrusted"


def trusted(source: str | None, tags) -> bool:
    """The one rule of trust (above)."""
    return source not in UNTRUSTED_SOURCES and UNTRUSTED not in (tags or ())
