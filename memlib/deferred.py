"""Imports put off until used: a package's names read from their modules when first asked
for (`lazy_attributes`), and what memlib's dependencies import at start-up that memlib never
uses.

`lancedb` imports `lance_namespace`, which imports `lance_namespace_urllib3_client`: the
generated REST client of Lance's namespace service, whose package `__init__` imports every API
class, each method wrapped in pydantic's `validate_call`. Building those validators is most of
the time `import lancedb` takes, and a fresh `memlib search` pays it on every call although
memlib opens local and object-store tables and never calls the client.

`defer_namespace_client` registers the client's package without running its `__init__`: its
submodules (the pydantic models `lance_namespace` reads) import from the package's path as
usual, and the first read of a name the `__init__` defines runs it then, so a caller that does
use the client gets the whole package, only later.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Callable

NAMESPACE_CLIENT = "lance_namespace_urllib3_client"


def lazy_attributes(package: str, where: dict[str, str]) -> tuple[Callable, Callable]:
    """A package's `__getattr__` and `__dir__` giving each name of `where` (name -> the module
    that defines it), imported when first read and kept in the package from then on."""
    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__


def defer_namespace_client() -> None:
    """Register the namespace client's package with its `__init__` put off until first used."""
    if NAMESPACE_CLIENT in sys.modules:
        return
    spec = importlib.util.find_spec(NAMESPACE_CLIENT)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)

    def __getattr__(name: str):
        # Anything the package's __init__ would have defined: run it now, once, in place.
        del package.__dict__["__getattr__"]
        spec.loader.exec_module(package)
        return getattr(package, name)

    package.__getattr__ = __getattr__
    sys.modules[NAMESPACE_CLIENT] = package
