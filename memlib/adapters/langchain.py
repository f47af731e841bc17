"""A LangChain retriever over memlib (`langchain_core.retrievers.BaseRetriever`).

    from memlib.adapters.langchain import MemlibRetriever
    retriever = MemlibRetriever(store=memlib_store, project_id=PROJECT_ID, k=5)
    docs = retriever.invoke("why do ledger retries fail?")

Each document is a hit of memlib's search within the scope (hybrid by default), recorded as a
recall of the retriever's agent: its text, and the memory's id, kind, project, score and rank
as metadata. `scope` takes any memlib.Scope; `project_id` is the common case.
"""

from __future__ import annotations

from typing import Any

from memlib.extras import need

need("langchain", "langchain_core", "memlib.adapters.langchain")

from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from pydantic import ConfigDict, Field  # noqa: E402

from memlib.models import Int
from memlib.scope import Scope


class MemlibRetriever(BaseRetriever):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: Any = Field(description="A memlib.MemoryStore (or anything with its recall).")
    project_id: str | None = None
    scope: Scope | None = None
    k: Int = Field(default=4, ge=1, le=200)
    mode: str = "hybrid"
    agent: str = "langchain"

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        scope = self.scope or Scope(project_id=self.project_id)
        hits = self.store.recall(query, k=self.k, mode=self.mode, scope=scope, agent=self.agent, tool="langchain")
        return [Document(page_content=h.text, id=h.id, metadata={
            "id": h.id, "kind": h.memory.kind.value, "project_id": getattr(h.memory, "project_id", None),
            "score": h.score, "rank": h.rank}) for h in hits]
