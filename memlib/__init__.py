"""memlib: an analytics-first memory store for AI agents."""

import os as _os

# Models are loaded from installed packages only; nothing is fetched at run time.
_os.environ.setdefault("HF_HUB_OFFLINE", "1")
_os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
_os.environ.setdefault("LANCE_LOG", "error")
_os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")

from memlib.errors import (  # noqa: E402
    EmbedderMismatch,
    InvalidInput,
    InvalidMemory,
    MemlibError,
    NotFound,
    StoreError,
)
from memlib.models import (  # noqa: E402
    Conversation,
    Decision,
    Importance,
    Insight,
    Issue,
    Kind,
    Learning,
    Level,
    Manual,
    Memory,
    Pattern,
    Project,
    RootTask,
    SubTask,
    Summary,
)
from memlib.scope import Scope  # noqa: E402
from memlib.store import MemoryStore  # noqa: E402

__all__ = [
    "Conversation", "Decision", "EmbedderMismatch", "Importance", "Insight", "InvalidInput",
    "InvalidMemory", "Issue", "Kind", "Learning", "Level", "Manual", "MemlibError", "Memory",
    "MemoryStore", "NotFound", "Pattern", "Project", "RootTask", "Scope", "StoreError",
    "SubTask", "Summary",
]
