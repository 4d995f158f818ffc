"""Whether the command line's own lines (`error: ...`, a warning) are in colour.

The reports print through rich, which leaves colour out under `NO_COLOR` and
on a `TERM=dumb` terminal, and puts it in under `FORCE_COLOR`. click, which
prints the error lines, looks only at whether the stream is a terminal: a user
who set NO_COLOR (or a dumb terminal, an editor's shell) got `error:` wrapped in
escape codes under an uncoloured report. Here click is told what rich decides.
This module imports only the standard library.
"""

from __future__ import annotations

import os


def colour_wanted() -> bool | None:
    """False under NO_COLOR or TERM=dumb, True under FORCE_COLOR, None (colour on a terminal
    only, click's own choice) otherwise."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return None
