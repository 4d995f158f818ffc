"""Which runs `assay compare` compares when it is not told: the latest completed ones.

`latest` names the newest run whatever its state, which `assay report latest` wants. Two
runs to compare by default are another matter: a run stopped by Ctrl-C, aborted or still
running reached only some cases, and a rejudge holds a judge's second opinion of an older
run's answers, not a new run. Left out, the comparison is between the runs `assay runs`
and `assay history` list as the experiment's latest completed ones (of its rejudges when
the experiment is named as they print it: `m (rejudge)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.records import TRIAL_KINDS, RunRecord, labelled_experiment

if TYPE_CHECKING:
    from assay.store.store import Store

COMPLETED = "completed"
SHOWN_LEFT_OUT = 3
"""Runs named at most among those left out; the rest are counted."""
LOOKED_AT = 50
"""The newest runs looked through for those left out."""


@dataclass(frozen=True)
class ComparedRuns:
    """RUN_A and RUN_B, and what to say of the ones picked by default."""

    first: RunRecord
    second: RunRecord
    note: str = ""
    """Which runs were picked and the newer ones left out ("" when both were given)."""


def compared_runs(store: Store, run_a: str | None, run_b: str | None,
                  experiment: str | None) -> ComparedRuns:
    """RUN_A and RUN_B as given (ids, prefixes, `latest~N`); one not given (None) is of the
    latest completed runs: RUN_B the latest, RUN_A the one before it."""
    kinds = _kinds(experiment)

    def resolved(ref: str | None, default: str) -> RunRecord:
        if ref is not None:
            return store.resolve_run(ref, experiment)
        return store.resolve_run(default, experiment, kinds=kinds, status=COMPLETED)

    first, second = resolved(run_a, "latest~1"), resolved(run_b, "latest")
    if run_a is not None and run_b is not None:
        return ComparedRuns(first, second)
    return ComparedRuns(first, second, _note(store, first, second, experiment, kinds,
                                              both=run_a is None and run_b is None))


def _kinds(experiment: str | None) -> tuple[str, ...]:
    """Eval runs, or the kind an experiment named as `assay runs` prints it names."""
    labelled = labelled_experiment(experiment) if experiment else None
    return (labelled[1],) if labelled is not None else ("eval",)


def _note(store: Store, first: RunRecord, second: RunRecord, experiment: str | None,
          kinds: tuple[str, ...], *, both: bool) -> str:
    """`compared the latest two completed runs of 'm': A → B; left out: X (aborted)`."""
    scope = f" of '{experiment}'" if experiment else ""
    picked = "the latest two completed runs" if both else "the latest completed run"
    since = min(first.started_at, second.started_at)
    newer = [run for run in store.list_runs(experiment, kind=TRIAL_KINDS, limit=LOOKED_AT)
             if run.started_at >= since and run.id not in (first.id, second.id)
             and not (run.status == COMPLETED and run.kind in kinds)]
    note = f"compared {picked}{scope}: {first.id} → {second.id}"
    if not newer:
        return note
    named = [f"{run.id} ({run.status if run.status != COMPLETED else run.kind})"
             for run in newer[:SHOWN_LEFT_OUT]]
    more = f" and {len(newer) - SHOWN_LEFT_OUT} more" if len(newer) > SHOWN_LEFT_OUT else ""
    return f"{note}; left out: {', '.join(named)}{more}"
