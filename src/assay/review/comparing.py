"""Comparisons read from the store: the conditions of one run, and two runs.

The analysis modules are pure; this is where they meet stored rows, so
`assay run`, `assay compare`, `assay report` and the regression gates share
one way of loading them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from assay.analysis.conditions import (
    CaseCollector,
    ConditionComparisons,
    ScorerCases,
    compare_conditions,
)
from assay.analysis.run_diff import RunDiff, RunRef, comparability, diff_runs, scorer_changes
from assay.errors import UserError
from assay.records import TRIAL_KINDS, JudgeIdentity, RunRecord
from assay.review.summary import configured_scorers
from assay.store.stalled_runs import status_said
from assay.wording import part_of, plural

if TYPE_CHECKING:
    from assay.store import Store


def compare_run_conditions(store: Store, run: RunRecord, *, conditions: Sequence[str] | None = None,
                           scorers: Sequence[str] | None = None,
                           baseline: str | None = None,
                           exclude: Sequence[str] = (),
                           cases: dict[str, ScorerCases] | None = None) -> ConditionComparisons:
    """Every condition of `run` against the baseline condition, per scorer, one Holm family.

    `conditions` and `scorers` give the order to show them in (the config's order);
    `exclude` names scorers that are comparisons themselves (pairwise across conditions);
    `cases` are the run's per-case values when already read (else they are read here).
    """
    if conditions is not None and len(conditions) < 2:
        # One condition: nothing to pair, and no reason to hold every case's values.
        return compare_conditions({}, list(conditions), baseline=baseline)
    read = read_cases(store, run.id) if cases is None else cases
    cases = {name: entry for name, entry in _ordered(read, scorers).items()
             if name not in exclude}
    order = list(conditions or [])
    for entry in cases.values():
        order += [c for c in entry.conditions if c not in order]
    return compare_conditions(cases, order, baseline=baseline)


def diff_stored_runs(store: Store, run_a: RunRecord, run_b: RunRecord, *,
                     cases_b: dict[str, ScorerCases] | None = None,
                     judges_b: dict[str, set[JudgeIdentity]] | None = None) -> RunDiff:
    """Run B against run A, with every reason they are not comparable (`cases_b`: run B's
    per-case values when already read; `judges_b`: its judges, as
    `Store.judge_identities` reads them, when already read)."""
    for run in (run_a, run_b):
        if run.kind not in TRIAL_KINDS:
            raise UserError(f"run {run.id} is a {run.kind} run; compare works on eval runs "
                            "(see `assay history` for how its metrics moved)")
    ref_a, ref_b = RunRef.of(run_a), RunRef.of(run_b)
    problems = comparability(ref_a, ref_b, store.judge_identities(run_a.id),
                             store.judge_identities(run_b.id) if judges_b is None else judges_b)
    problems += scorer_changes(scorer_definitions(run_a), scorer_definitions(run_b),
                               ref_a, ref_b)
    order = (run_b.summary or {}).get("scores") or []
    scorers = list(dict.fromkeys(entry["scorer"] for entry in order))
    read_b = read_cases(store, run_b.id) if cases_b is None else cases_b
    diff = diff_runs(read_cases(store, run_a.id), _ordered(read_b, scorers),
                     run_a=ref_a, run_b=ref_b, problems=problems)
    notes = [_stopped_note(store, run) for run in (run_a, run_b)
             if run.status in STOPPED_PART_WAY]
    notes += _epochs_note(run_a, run_b)
    notes += _pack_notes(run_a, run_b)
    return replace(diff, notes=[*diff.notes, *notes]) if notes else diff


def _epochs_note(run_a: RunRecord, run_b: RunRecord) -> list[str]:
    """Runs with other epoch counts pair well (each case's epochs are averaged first), but a
    case's value is then a mean of more answers on one side, so a reader should know."""
    if run_a.epochs is None or run_b.epochs is None or run_a.epochs == run_b.epochs:
        return []
    return [(f"run {run_a.id} has {plural(run_a.epochs, 'epoch')} per case and run {run_b.id} "
            f"{plural(run_b.epochs, 'epoch')}: each case is compared on the mean of its "
            "epochs, so a case's value in the run with more epochs varies less")]


def _pack_notes(run_a: RunRecord, run_b: RunRecord) -> list[str]:
    """A knowledge pack both runs read whose documents changed between them: the scores under
    its conditions moved with the documents as well as with the agent, so a reader should
    know (the comparison itself still stands; the pack may be what is being measured)."""
    before, after = run_a.pack_hashes or {}, run_b.pack_hashes or {}
    return [(f"knowledge pack '{name}' changed between the runs: its documents hash "
             f"{before[name][:12]} in run {run_a.id} and {after[name][:12]} in run {run_b.id}, "
             "so the conditions that read it were given other documents")
            for name in sorted(set(before) & set(after)) if before[name] != after[name]]


STOPPED_PART_WAY = ("running", "interrupted", "aborted", "failed")
"""Statuses of a run that may hold only some of its trials (a run being reviewed holds all)."""


def _stopped_note(store: Store, run: RunRecord) -> str:
    """`run X is aborted: 8 of its 20 trials ran, ...`: a side that holds only the cases it
    reached, which the per-case lists alone do not say."""
    ran, _ = store.count_trials(run.id)
    trials = part_of(ran, run.total_trials, "trial", of="of its")
    return (f"run {run.id} is compared on the cases it reached: {trials} ran, and it is "
            f"{status_said(store, run)}")


def scorer_definitions(run: RunRecord) -> dict[str, dict[str, Any]]:
    """Each scorer of the run's stored config by name, with its defaults filled in (so
    spelling a default out is the same scorer); as written when its kind is not known."""
    from assay.registry import scorers as kinds

    definitions = {}
    for name, spec in configured_scorers(run).items():
        try:
            params = kinds.get(str(spec.get("type"))).Params.model_validate(spec)
            definitions[name] = params.model_dump(mode="json", exclude={"name"})
        except (KeyError, ValueError):  # a plugin not installed, a config of another version
            definitions[name] = {k: v for k, v in spec.items() if k != "name"}
    return definitions


def diff_with_previous(store: Store, run: RunRecord, *,
                       cases: dict[str, ScorerCases] | None = None) -> RunDiff | None:
    """This run against the previous completed run of its experiment (a rejudged run: against
    the run whose outputs it judged again); None for the first run. `cases`: this run's
    per-case values when already read."""
    previous = previous_run(store, run)
    return None if previous is None else diff_stored_runs(store, previous, run, cases_b=cases)


def previous_run(store: Store, run: RunRecord) -> RunRecord | None:
    """The run `diff_with_previous` compares `run` with, if any."""
    origin = (run.options or {}).get("rejudge_of") if run.kind == "rejudge" else None
    return store.get_run(str(origin)) if origin else store.previous_run(run)


def read_cases(store: Store, run_id: str) -> dict[str, ScorerCases]:
    """Every scorer's per-case values, with the trials whose target failed as errors: one
    pass over the run's rows, to be shared by all that pair its cases in one command."""
    collector = CaseCollector()
    for row in store.iter_case_values(run_id):
        collector.add_value(*row)
    for condition, case_id in store.failed_trial_keys(run_id):
        collector.add_failed_key(condition, case_id)
    return collector.cases()


def _ordered(cases: dict[str, ScorerCases], scorers: Sequence[str] | None
             ) -> dict[str, ScorerCases]:
    """The scorers in the given order, any others after them."""
    order = [s for s in scorers or [] if s in cases] + [s for s in cases if s not in (scorers or [])]
    return {name: cases[name] for name in order}

