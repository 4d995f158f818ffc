"""The garbage collector during a run: what existed before it is set aside.

Reference counting frees almost everything a trial allocates; the cyclic
collector's cost is its full collections, each of which walks every object
still alive, above all the hundreds of thousands that the imports, the
config and the clients made before the first trial and that live to the
end. `gc.freeze()` keeps those out of its walks for the run, and a larger
young generation lets it start less often. Both are undone afterwards, so a
program calling `assay.evaluate` gets its own settings back. Nothing is
left uncollected: the collector still runs and still frees cycles, and what
was set aside is looked at again once the run is over. Runs that overlap (a
program calling `assay.evaluate` from several threads) share the settings: the
first to start changes them, the last to end gives them back.

Before the run, a command's start-up (imports, the config, the store) makes
hundreds of thousands of objects and hardly any garbage: `assay run` keeps
the collector off through it (`collector_off_for_start_up`), which spares
the quickstart some 150 collections, and a run turns it on for itself whatever its
caller's setting, since a long run needs it to keep its memory bounded.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

from assay.collector import collector_paused

YOUNG_OBJECTS = 20_000
"""Allocations between two collections of the youngest generation (Python's default: 700)."""


_lock = threading.Lock()
_runs = 0
"""Blocks of `long_lived_set_aside` under way in this process."""
_found = (gc.get_threshold(), gc.isenabled())
"""The collector's threshold and whether it was on, as the first of them found it."""
_freezing = False
"""Whether the first of them froze the heap; not when the program had frozen its own
objects (`gc.freeze()` before forking workers), which `gc.unfreeze()` would thaw."""


@contextlib.contextmanager
def long_lived_set_aside() -> Iterator[None]:
    """Run the block with the objects made before it out of the collector's walks.

    Overlapping blocks share the change: each one saving and restoring on its own left
    the collector's threshold at the run's 20,000 in a program after two runs in threads,
    the second having saved the first's setting as its caller's."""
    global _runs, _found, _freezing
    with _lock:
        if _runs == 0:
            threshold = gc.get_threshold()
            _found = (threshold, gc.isenabled())
            _freezing = gc.get_freeze_count() == 0
            if _freezing:
                gc.freeze()
            gc.set_threshold(max(threshold[0], YOUNG_OBJECTS), *threshold[1:])
            gc.enable()
        _runs += 1
    try:
        yield
    finally:
        with _lock:
            _runs -= 1
            if _runs == 0:
                threshold, enabled = _found
                if not enabled:
                    gc.disable()
                gc.set_threshold(*threshold)
                if _freezing:
                    gc.unfreeze()


def collector_off_for_start_up() -> contextlib.AbstractContextManager[None]:
    """Run the block (a command from its start) with the collector off, except during a run
    (`long_lived_set_aside`); the setting is given back afterwards."""
    return collector_paused()
