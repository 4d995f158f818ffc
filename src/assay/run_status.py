"""How a run's status reads where it is shown: `running?` for one that has probably stopped.

A run killed with kill -9 keeps the status it had (`running`, `reviewing`);
`store.stalled_runs` tells when nothing seems to run it any more. Every
place that shows a status (`assay runs`, `assay history`, `assay view`) shows
such a run's status doubted, by this one rule.
"""

from __future__ import annotations

DOUBTED = "?"
"""Written after a status that the run's row still says but that is probably not so."""


def shown_status(status: str, *, stalled: bool) -> str:
    """`running?` for a stalled run, else the status as its row says it."""
    return f"{status}{DOUBTED}" if stalled else status
