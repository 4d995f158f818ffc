"""A crash of assay's own process leaves on stderr the stack of the code that crashed it.

A `python` target or scorer runs in assay's process unless it asks for
`isolation: process`, so a C extension that dereferences a bad pointer ends
assay on the spot: no Python handler runs, and all a user saw was the shell's
`Segmentation fault`, with no word of which function or line. Python's
`faulthandler` writes the crashing thread's frames from the signal handler
itself, and those name the user's file and line. The stored run is left
unfinished, and `assay runs` then offers `--resume`.
"""

from __future__ import annotations

import faulthandler

STDERR = 2


def report_crashes() -> None:
    """Have a fatal signal (SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL) print the Python stack
    of the thread it hit. Descriptor 2 is used as it is: the streams around it may be wrapped
    by then, and a closed one has been reopened on /dev/null (`closed_streams`)."""
    faulthandler.enable(file=STDERR, all_threads=False)
