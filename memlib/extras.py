"""The optional parts of memlib, each a pip extra (`pip install 'memlib[NAME]'`), and the one
line a user gets when something asks for one that is not installed.

The core (`pip install memlib`) holds the store, search, the CLI, the MCP stdio server, the
analytics' DuckDB views and polars, and the default encoder (all-MiniLM-L6-v2 in 8-bit
through ONNX Runtime). Each extra below brings what one use needs, and nothing is imported
before a command needs it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from memlib.errors import MissingExtra

# extra -> what it brings (tests/test_install.py checks that pyproject and the README's install
# table name the same extras)
EXTRAS = {
    "reports": "the analytics reports: papermill, nbconvert, ipykernel, altair, vl-convert",
    "lab": "JupyterLab over the report notebooks (memlib lab)",
    "server": "the memory server (memlib serve): FastAPI, uvicorn, MCP over streamable HTTP",
    "torch": "the float all-MiniLM-L6-v2 and the other 8-bit variants through PyTorch "
             "(sentence-transformers, onnx, the packaged model), --device cuda",
    "judges": "the nli judge: a cross-encoder through sentence-transformers and PyTorch",
    "parser": "spaCy's small English pipeline, which the rules judge reads subjects with",
    "langgraph": "LangGraph's long-term memory store on memlib",
    "langchain": "a LangChain retriever on memlib",
    "scale": "the distributed mart: Daft over the Lance tables, Ray",
}


def need(extra: str, modules: str | tuple[str, ...], what: str) -> ModuleType:
    """Each of `modules` imported (the first returned), or one line saying that `what` needs
    `extra` and how to install it."""
    imported = []
    for module in (modules,) if isinstance(modules, str) else modules:
        try:
            imported.append(importlib.import_module(module))
        except ImportError:
            raise MissingExtra(f"{what}: memlib's {extra} extra is not installed ({module} is missing): "
                               f"pip install 'memlib[{extra}]'") from None
    return imported[0]


REPORTS = ("papermill", "nbconvert", "ipykernel", "altair", "vl_convert")  # what the reports extra brings
