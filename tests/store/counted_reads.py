"""How often a command reads each stored run, by the Store method that reads it.

A big run's report or comparison costs what reading its rows costs, so the
tests that hold "each run is read once" count the calls of every method that
reads a run's trials or scores.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from assay.store import Store

RUN_READS = ("iter_trials", "iter_trial_rows", "iter_score_rows", "iter_case_values",
             "failed_trial_keys", "iter_scores", "judge_identities")
"""The Store methods that read a run's trials or scores row by row."""


def count_run_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """(method, run id) -> calls, counted from now on."""
    reads: Counter[tuple[str, str]] = Counter()
    for name in RUN_READS:
        monkeypatch.setattr(Store, name, _counted(name, getattr(Store, name), reads))
    return reads


def _counted(name: str, method: Any, reads: Counter[tuple[str, str]]) -> Any:
    def counted(store: Store, run_id: str, *args: Any, **kwargs: Any) -> Any:
        reads[(name, run_id)] += 1
        return method(store, run_id, *args, **kwargs)
    return counted


def reads_of(reads: Counter[tuple[str, str]], run_id: str) -> dict[str, int]:
    """The reads of one run, by method."""
    return {name: count for (name, run), count in reads.items() if run == run_id}
