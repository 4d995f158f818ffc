"""Standard streams closed before assay started: `assay run c.yaml >&-`, a service manager.

With its stdout closed, Python sets `sys.stdout` to None, and the first line a
command printed stopped it with an AttributeError, exit 3, a run begun and left
failed with none of its trials. Worse, the closed descriptor is the lowest free
one: the next file assay opens (the store's database, a report) would take it,
and whatever later wrote to "stdout" (a child process, a library's print) would
write into that file. So each closed standard descriptor is opened on the null
device before anything else is, and its Python stream is made anew: what was to
be printed there goes nowhere, as the user asked, and the command runs to its end
with its own exit code. This module imports only the standard library.
"""

from __future__ import annotations

import io
import os
import sys

STREAMS = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))


def open_closed_streams() -> None:
    """Open each closed standard descriptor on the null device, and give Python a stream
    for each that has none."""
    for descriptor, name, mode in STREAMS:
        if not _is_open(descriptor):
            _open_on_null_device(descriptor, mode)
        if getattr(sys, name) is None and _is_open(descriptor):
            setattr(sys, name, io.TextIOWrapper(
                open(descriptor, mode + "b", closefd=False),  # noqa: SIM115 (kept open)
                encoding="utf-8", errors="replace", line_buffering=mode == "w"))


def _is_open(descriptor: int) -> bool:
    try:
        os.fstat(descriptor)
    except OSError:
        return False
    return True


def _open_on_null_device(descriptor: int, mode: str) -> None:
    try:
        point_at_null_device(descriptor, mode)
    except OSError:  # no null device: nothing better to offer, the descriptor stays closed
        pass


def point_at_null_device(descriptor: int, mode: str = "w") -> None:
    """Make `descriptor` the null device: what is written to it goes nowhere (a stream
    closed at start, or one whose reader has gone). Raises OSError without one."""
    null = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
    if null == descriptor:  # the lowest free descriptor is this one unless a lower is closed
        return
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)
