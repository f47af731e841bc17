"""The store: the tables of one LanceDB URI and everything that writes them.

`Store` (tables, versions, add/upsert/update/delete), `batch` (validation before a write),
`versions` (time travel), `audit` and `recall_log` (append-only logs), `transfer` (JSONL),
`tables` (opening them). It imports only the shared vocabulary (models, errors, scope,
clock, embeddings); everything else in memlib builds on it.
"""

from memlib.store.store import Store

__all__ = ["Store"]
