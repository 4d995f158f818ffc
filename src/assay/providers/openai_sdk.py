"""The official `openai` SDK's async client, without the API types its package imports.

`import openai`, or any `import openai.<submodule>`, first runs the package's
`__init__`, which imports every response and parameter type of every API
(`openai.types`, over 700 modules): most of a second at every start, longer
than a one-case run. assay sends wire-shaped bodies with `client.post(...,
cast_to=object)` and reads the decoded JSON, so it needs the client, its HTTP
transports and its exceptions, none of those types (nor httpx's command line).

So `openai` and `openai.types` are registered as packages whose `__init__` has
not run yet, and the client's own modules are imported: they are the SDK's
real classes, imported as usual. The first time anything asks such a package
for a name it does not hold yet (`openai.OpenAI`, `from openai import ...`,
user code or another library importing `openai`), its `__init__` runs in place
and the package is whole, so nothing else sees a difference. A process that
had imported `openai` already keeps it as it is.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from importlib.machinery import PathFinder
from typing import Any


def _deferred_package(name: str) -> None:
    """Register package `name` with its `__init__` not run; the first missing name runs it."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        raise ImportError(f"no package {name}")
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()
    started = False

    def __getattr__(attribute: str) -> Any:  # a module's __getattr__ (PEP 562)
        nonlocal started
        if PathFinder.find_spec(attribute, package.__path__) is not None:
            # a submodule not imported yet: the import system asks with hasattr, then imports it
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        with lock:
            if not started:
                started = True
                loader.exec_module(package)
                if attribute in package.__dict__:
                    return package.__dict__[attribute]
        raise AttributeError(f"module {name!r} has no attribute {attribute!r}")

    package.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = package


def _import_httpx_without_its_cli() -> None:
    """Import httpx without `httpx._main`, its command line (click, rich's progress and syntax
    highlighting, pygments), which its `__init__` imports whenever it can: httpx then keeps a
    stub `main`. The block is lifted at once, so `import httpx._main` still works later."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    sys.modules["httpx._main"] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import httpx  # noqa: F401
    finally:
        if sys.modules.get("httpx._main", 0) is None:
            del sys.modules["httpx._main"]


_import_httpx_without_its_cli()
_deferred_package("openai")
_deferred_package("openai.types")

import openai._exceptions as exceptions
from openai._base_client import DefaultAioHttpClient, DefaultAsyncHttpxClient
from openai._client import AsyncOpenAI

__all__ = ["AsyncOpenAI", "DefaultAioHttpClient", "DefaultAsyncHttpxClient", "exceptions"]
