"""Python's cycle collector paused over a block that builds millions of live objects.

None of them is garbage, yet each new batch of allocations made the collector walk them all
again: a command's start-up (`runner.heap`) and a big YAML dataset's node tree
(`datasets.yaml_nodes`) spent longer in it than in their own work.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, then as it was (left off if it was off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
