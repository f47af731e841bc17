"""The markdown workspace (seed 003): SPIRIT.md, OWNER.md, MEMORY.md, daily logs and TOOLS.md
that a person edits, kept in step with a store.

It owns the files' formats (markdown), their records (records), the mapping of entries to
memories (convert), the files on disk (files: paths, atomic writes, the lock), the sync
(sync) and the watcher (watch). It imports the store, the models and lifecycle's retention
runs (a deletion from a file is one, so it can be undone); agents and the CLI import it.
"""

from memlib.workspace.records import OwnerProfile, SpiritConfig, ToolDefinition
from memlib.workspace.sync import Report
from memlib.workspace.workspace import Workspace

__all__ = ["OwnerProfile", "Report", "SpiritConfig", "ToolDefinition", "Workspace"]
