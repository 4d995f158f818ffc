"""One config run and reviewed: what `assay run`, suites and `assay.evaluate` share.

Run (the runner stores every trial), then review (summary, comparisons,
previous-run diff, gates, files). The command line and the Python API
differ only in how they build the config and what they print.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import AssayError, RunFailed, StoreError, UserError
from assay.review.files import damaged_files
from assay.review.finish import (
    ReviewRequest,
    finish_run,
    prepare,
    report_directory,
    write_stopped_junit,
)
from assay.runner.options import RunOptions
from assay.runner.progress import ReviewProgress, choose_mode
from assay.user_code.calls import run_loop

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.config.models import GateConfig
    from assay.review.result import Review
    from assay.store import Store


async def run_and_review(loaded: LoadedConfig, store: Store, options: RunOptions,
                         request: ReviewRequest) -> Review:
    """Run a loaded config to the end and review it; raises `RunFailed` when it cannot finish."""
    from assay.runner.heap import long_lived_set_aside
    from assay.runner.session import execute_async

    check_reviewable(loaded, store, options, request)
    loaded, options = _without_gates_left_out(loaded, options, _chosen(loaded, options))
    options = replace(_with_damaged_files_resumed(loaded, store, options, request),
                      report_dir=request.asked_report_dir)
    with store.run_lock() as lock, long_lived_set_aside():  # from first trial to last file
        try:
            outcome = await execute_async(loaded, store, options, lock)
            try:
                with ReviewProgress(loaded.name, outcome.run.total_trials,
                                    mode=choose_mode(options.progress)):
                    return finish_run(store, outcome, request)
            except StoreError as exc:  # every trial is stored: a resume reviews it again
                exc.stopped(outcome.run.id)
                raise
        except (AssayError, KeyboardInterrupt, asyncio.CancelledError) as exc:
            if isinstance(exc, RunFailed) and lock.run_id is not None:
                exc.stopped(lock.run_id)
            # an earlier run's JUnit left in place would report its tests, all passing
            if request.junit is not None and lock.run_id is not None:
                write_stopped_junit(store, lock.run_id, request.junit)
            raise


def check_reviewable(loaded: LoadedConfig, store: Store, options: RunOptions,
                     request: ReviewRequest) -> None:
    """Refuse (`UserError`, exit 2), before any trial is paid for, what the review of this
    config could not do: `--baseline` or a gate on a condition or scorer it lacks, a
    regression baseline not found, a folder the files cannot go to. A suite checks every
    config so before the first one runs."""
    chosen = _chosen(loaded, options)
    if request.baseline is not None and request.baseline not in chosen:
        raise UserError(f"baseline '{request.baseline}' is not a condition of this run of "
                        f"{loaded.path.name} (conditions: {', '.join(chosen)})")
    scorers = [getattr(p, "name", None) or getattr(p, "type") for p in loaded.scorer_params]
    left = {c.name for c in loaded.conditions} - set(chosen)
    gates = [gate for gate in loaded.config.gates if gate not in _gates_on(left, loaded)]
    prepare(gates, request, scorers=scorers, conditions=chosen)
    baseline_problems(loaded, store, new_run=not options.resume)


def baseline_problems(loaded: LoadedConfig, store: Store | None, *,
                      new_run: bool = True) -> None:
    """Refuse (`UserError`, located at each `gates.N.regression.baseline`) the regression
    baselines of the config that the review of its run would not find in `store` (None:
    there is no store yet). `assay validate` said ok to a baseline no run answers to, and
    `assay run` refused it, naming neither the file nor the line."""
    from assay.config.models import RegressionGateConfig
    from assay.errors import Problem
    from assay.review.gates import baseline_problem
    from assay.runner.plan import located

    problems = []
    for index, gate in enumerate(loaded.config.gates):
        if not isinstance(gate, RegressionGateConfig) or gate.regression.baseline is None:
            continue
        problem = baseline_problem(gate.regression.baseline, store, loaded.name,
                                   new_run=new_run)
        if problem is not None:
            where = ("gates", index, "regression", "baseline")
            problems.append(Problem(problem, *located(loaded, where)))
    if problems:
        raise UserError(f"invalid config {loaded.written_path}", problems)


def unfound_baselines(configs: Sequence[tuple[Path, LoadedConfig]], store_url: str | None
                      ) -> dict[Path, UserError]:
    """`baseline_problems` of each config, against the store at `store_url`, opened only to
    read and only when a config names a baseline (one not there holds no run)."""
    from assay.config.models import RegressionGateConfig
    from assay.store import Store as OpenedStore
    from assay.store.store import no_store_at

    asking = [(path, loaded) for path, loaded in configs
              if any(isinstance(gate, RegressionGateConfig) and gate.regression.baseline
                     for gate in loaded.config.gates)]
    if not asking:
        return {}
    store = None if no_store_at(store_url) else OpenedStore(store_url, read_only=True)
    found: dict[Path, UserError] = {}
    try:
        for path, loaded in asking:
            try:
                baseline_problems(loaded, store)
            except UserError as exc:
                found[path] = exc
    finally:
        if store is not None:
            store.close()
    return found


def check_suite_reviewable(paths: list[Path], store: Store, options: RunOptions,
                           request: ReviewRequest) -> None:
    """`check_reviewable` for every config of a suite, before the first one runs: one
    `UserError` naming each config refused. Checked as each run began, `--fail-under` on a
    scorer one config lacks was refused (exit 2) after the configs before it had run."""
    from assay.config import load_config
    from assay.runner.preflight import configs_invalid

    failed: list[tuple[Path, UserError]] = []
    for path in paths:
        try:
            check_reviewable(load_config(path), store, options, request)
        except UserError as exc:
            failed.append((path, exc))
    if failed:
        raise configs_invalid(failed, len(paths), "of the suite ", "; nothing was run")


def _chosen(loaded: LoadedConfig, options: RunOptions) -> list[str]:
    """The names of the conditions this run runs (`--condition`, else all)."""
    from assay.runner.plan import chosen_conditions

    return [c.name for c in chosen_conditions(loaded, options.conditions)]


def _gates_on(conditions: set[str], loaded: LoadedConfig) -> list[GateConfig]:
    """The config's threshold gates on one of `conditions`."""
    from assay.config.models import GateConfig

    return [gate for gate in loaded.config.gates
            if isinstance(gate, GateConfig) and gate.condition in conditions]


def _without_gates_left_out(loaded: LoadedConfig, options: RunOptions,
                            chosen: list[str]) -> tuple[LoadedConfig, RunOptions]:
    """A config's gate on a condition `--condition` left out is not checked, and the run
    says so: judged after the run it could only fail, and refusing it left no way to run
    one condition of a config that gates another. A gate on a condition the config lacks
    is still refused (`review.gates.check_thresholds`)."""
    from assay.wording import plural

    skipped = _gates_on({c.name for c in loaded.conditions} - set(chosen), loaded)
    if not skipped:
        return loaded, options
    kept = [gate for gate in loaded.config.gates if gate not in skipped]
    names = ", ".join(f"{gate.scorer}@{gate.condition}" for gate in skipped)
    warning = (f"{plural(len(skipped), 'gate')} not checked: {names}, on a condition this "
               f"run leaves out (--condition {' --condition '.join(chosen)})")
    return (replace(loaded, config=loaded.config.model_copy(update={"gates": kept})),
            replace(options, warnings=[*options.warnings, warning]))


def _with_damaged_files_resumed(loaded: LoadedConfig, store: Store, options: RunOptions,
                                request: ReviewRequest) -> RunOptions:
    """`--resume` with no unfinished run: the latest completed run is resumed (nothing runs,
    its files are written again) when its files are missing or cut short."""
    if options.resume is not True:
        return options
    runs = store.list_runs(loaded.name, kind="eval", limit=20)
    if not runs or any(run.status != "completed" for run in runs):
        return options  # the runner resumes the unfinished one, or says there is none
    latest = runs[0]
    if not damaged_files(report_directory(latest, request), latest.id):
        return options
    return replace(options, resume=latest.id)


def run_config(path: Path | LoadedConfig, store: Store, options: RunOptions | None = None,
               request: ReviewRequest | None = None) -> Review:
    """Run the config at `path` (or one already loaded) and review it (blocking)."""
    from assay.config import load_config

    loaded = load_config(path) if isinstance(path, Path) else path
    return run_loop(run_and_review(loaded, store, options or RunOptions(),
                                      request or ReviewRequest()))
