"""What the review of a run will need, checked before its first trial is paid for.

A gate, `--baseline` or regression baseline the review could not use was refused only
once the run was over (or, in a suite, once the configs before it had run). Each is
refused here first, exit 2; and a gate on a condition `--condition` leaves out is left
out of this run, said in a warning stored with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.config.loading import scorer_name
from assay.errors import ArgumentError, UserError
from assay.runner.options import RunOptions

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.config.models import GateConfig, RegressionGateConfig
    from assay.review.finish import ReviewRequest
    from assay.store import Store


def check_reviewable(loaded: LoadedConfig, store: Store, options: RunOptions,
                     request: ReviewRequest) -> None:
    """Refuse (`UserError`, exit 2), before any trial is paid for, what the review of this
    config could not do: `--baseline` or a gate on a condition or scorer it lacks, a
    regression baseline not found, a folder the files cannot go to. `loaded` is the config
    as this run will use it (`without_gates_left_out`). A suite checks every config so
    before the first one runs."""
    from assay.review.finish import prepare  # the review's code, loaded when a run checks it

    chosen = _chosen(loaded, options)
    if request.baseline is not None and request.baseline not in chosen:
        if request.from_command_line:
            raise ArgumentError(f"--baseline '{request.baseline}': no condition "
                                f"'{request.baseline}' in this run (conditions: "
                                f"{', '.join(chosen)})")
        raise UserError(f"baseline '{request.baseline}' is not a condition of this run of "
                        f"{loaded.path.name} (conditions: {', '.join(chosen)})")
    scorers = [scorer_name(p) for p in loaded.scorer_params]
    prepare(list(loaded.config.gates), request, scorers=scorers, conditions=chosen)
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
    from assay.runner.preflight import refused_by_store

    asking = [(path, loaded) for path, loaded in configs
              if any(isinstance(gate, RegressionGateConfig) and gate.regression.baseline
                     for gate in loaded.config.gates)]
    return refused_by_store(asking, store_url, baseline_problems)


def check_suite_reviewable(configs: Sequence[tuple[Path, LoadedConfig]], store: Store,
                           options: RunOptions, request: ReviewRequest) -> None:
    """`check_reviewable` for every config of a suite, before the first one runs: one
    `UserError` naming each config refused. Checked as each run began, `--fail-under` on a
    scorer one config lacks was refused (exit 2) after the configs before it had run."""
    from assay.runner.preflight import configs_invalid

    failed: list[tuple[Path, UserError]] = []
    for path, config in configs:
        try:
            loaded, narrowed = without_gates_left_out(config, options)
            check_reviewable(loaded, store, narrowed, request)
        except UserError as exc:
            failed.append((path, exc))
    if failed:
        raise configs_invalid(failed, len(configs), "of the suite ", "; nothing was run")


def _chosen(loaded: LoadedConfig, options: RunOptions) -> list[str]:
    """The names of the conditions this run runs (`--condition`, else all)."""
    from assay.runner.plan import chosen_conditions

    return [c.name for c in chosen_conditions(loaded, options.conditions)]


def _gates_on(conditions: set[str], loaded: LoadedConfig
              ) -> list[GateConfig | RegressionGateConfig]:
    """The config's gates, threshold or regression, on one of `conditions`. A regression
    gate on a condition left out failed the run (exit 1: 'no metric to compare') where the
    threshold gate beside it was left out with a warning."""
    return [gate for gate in loaded.config.gates if gate.condition in conditions]


def _gate_name(gate: GateConfig | RegressionGateConfig) -> str:
    """A gate as the review names it: `contains@docs`, `regression contains@docs`."""
    from assay.config.models import RegressionGateConfig
    from assay.review.gates import regression_label

    if isinstance(gate, RegressionGateConfig):
        return regression_label(gate.regression)
    return f"{gate.scorer}@{gate.condition}"


def without_gates_left_out(loaded: LoadedConfig, options: RunOptions
                           ) -> tuple[LoadedConfig, RunOptions]:
    """A config's gate on a condition `--condition` left out is not checked, and the run
    says so: judged after the run it could only fail, and refusing it left no way to run
    one condition of a config that gates another. A gate on a condition the config lacks
    is still refused (`review.gates.check_thresholds`)."""
    from assay.wording import plural

    chosen = _chosen(loaded, options)
    skipped = _gates_on({c.name for c in loaded.conditions} - set(chosen), loaded)
    if not skipped:
        return loaded, options
    kept = [gate for gate in loaded.config.gates if gate not in skipped]
    names = ", ".join(_gate_name(gate) for gate in skipped)
    warning = (f"{plural(len(skipped), 'gate')} not checked: {names}, on a condition this "
               f"run leaves out (--condition {' --condition '.join(chosen)})")
    return (replace(loaded, config=loaded.config.model_copy(update={"gates": kept})),
            replace(options, warnings=[*options.warnings, warning]))
