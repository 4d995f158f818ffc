"""Preflight: everything that can be checked before a run spends anything.

The config's keys and references, every dataset line, the user code it
names, each scorer's templates rendered on the first case, the provider of
every model, each target's own checks, and, for a config that requires
it, a passing calibration of each judge in the store. `assay validate` is
exactly this; `assay run` of a suite does it for every config before the
first one runs, so a broken config is found before the others have spent money.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from assay.config.loading import LoadedConfig
from assay.datasets.dataset import Scan
from assay.errors import ArgumentError, Problem, UserError
from assay.runner.plan import Plan, build_plan, check_target, located, scorer_problem
from assay.services import Services
from assay.wording import plural

if TYPE_CHECKING:
    from assay.providers.endpoints import MissingSetting
    from assay.store import Store

T = TypeVar("T")


@dataclass
class Preflight:
    """A config that passed every check, and what the checks found out."""

    loaded: LoadedConfig
    plan: Plan
    scan: Scan
    warnings: list[str] = field(default_factory=list)


def preflight(loaded: LoadedConfig, *, sample: int | None = None,
              conditions: list[str] | None = None) -> Preflight:
    """Check a loaded config without running a trial; raises `UserError` naming each problem."""
    services = Services(base_dir=loaded.base_dir, config=loaded.config)
    plan = build_plan(loaded, services, sample=sample, conditions=conditions)
    scan = plan.dataset.scan()
    warnings = check_plan(loaded, plan, scan, services)
    asyncio.run(_check_targets(loaded, plan))
    return Preflight(loaded, plan, scan, [*warnings, *services.warnings])


def check_plan(loaded: LoadedConfig, plan: Plan, scan: Scan, services: Services) -> list[str]:
    """The checks `assay run` makes before its first trial, and `assay validate` with it,
    so one refuses exactly what the other does: raises `UserError` naming each problem,
    returns the warnings (the dataset's own first, the models' last)."""
    warnings = scan.warnings()
    if plan.dataset.sample and plan.dataset.sample > scan.count:
        warnings.append(f"a sample of {plan.dataset.sample:,} cases was asked of a "
                        f"dataset that gives {scan.count:,}: every case runs")
    plan.require_trials()
    plan.validate_templates(loaded)
    warnings += plan.check_conditions(loaded)
    plan.check_packs(loaded)
    plan.check_mcp_programs(loaded)
    warnings += check_references(loaded, plan)
    warnings += [w for w in check_models(loaded, plan, services) if w not in warnings]
    return warnings


def preflight_suite(paths: Sequence[Path], *, sample: int | None = None,
                    conditions: list[str] | None = None, store_url: str | None = None,
                    store_words: str = "") -> list[tuple[Path, LoadedConfig]]:
    """Preflight every config of a suite, its judges' calibrations in the store at `store_url`
    too (`store_words` as for `require_calibrated`); one UserError names every invalid
    config. Returns each config as loaded, for the checks that need the store."""
    passed, failed = preflight_each(paths, sample=sample, conditions=conditions,
                                    store_url=store_url, store_words=store_words)
    if failed:
        raise configs_invalid(failed, len(paths), "of the suite ", "; nothing was run")
    return [(path, checked.loaded) for path, checked in passed]


def preflight_each(paths: Sequence[Path], *, sample: int | None = None,
                   conditions: list[str] | None = None, store_url: str | None = None,
                   store_words: str = "") -> tuple[list[tuple[Path, Preflight]], list[tuple[Path, UserError]]]:
    """Preflight every config, each whatever the others' problems, and the calibrations of
    the judges of those that require them (in the store at `store_url`): the configs that
    passed, and the error of each one that did not, in the order of `paths`."""
    from assay.config import load_config

    checked: list[tuple[Path, Preflight]] = []
    failed: dict[Path, UserError] = {}
    for path in paths:
        try:
            checked.append((path, preflight(load_config(path), sample=sample,
                                            conditions=conditions)))
        except UserError as exc:
            failed[path] = exc
    failed.update(uncalibrated(checked, store_url, store_words))
    return ([(path, done) for path, done in checked if path not in failed],
            [(path, failed[path]) for path in paths if path in failed])


def require_calibrated(loaded: LoadedConfig, plan: Plan, store: Store | None, *,
                       store_words: str = "") -> None:
    """`UserError` naming each judged scorer of `plan` without a passing calibration in
    `store`, at its line in the config. The `assay calibrate` it suggests names the config
    as written and, in `store_words` (` --store URL`), the store the command line named, so
    the calibration lands where the next run looks for it."""
    from assay.calibration.requirement import require_calibrations

    require_calibrations(plan.scorers, store, experiment=loaded.config.name,
                         calibrate_with=shlex.quote(loaded.written_path) + store_words,
                         locate=partial(scorer_problem, loaded))


def uncalibrated(passed: Sequence[tuple[Path, Preflight]], store_url: str | None,
                 store_words: str = "") -> dict[Path, UserError]:
    """Per config of `passed` that sets `judge.require_calibration`, the error a run of it
    stops with when a judge of it has no passing calibration in the store (`assay run` checks
    this once the store is open). The store is opened only when a config asks, and only to
    read: one that is not there (or an empty file) holds no calibration."""
    asking = [(path, checked) for path, checked in passed
              if checked.loaded.config.judge.require_calibration]
    return refused_by_store(asking, store_url, lambda checked, store: require_calibrated(
        checked.loaded, checked.plan, store, store_words=store_words))


def refused_by_store(asking: Sequence[tuple[Path, T]], store_url: str | None,
                     check: Callable[[T, Store | None], None]) -> dict[Path, UserError]:
    """The error `check` raises of each of `asking` against the store at `store_url`, opened
    once, only to read, and only when one asks (None to `check` when there is none: a store
    not there holds no run and no calibration)."""
    if not asking:
        return {}
    from assay.store.store import no_store_at, open_to_read  # SQLAlchemy: only when asked

    store = None if no_store_at(store_url) else open_to_read(store_url)
    found: dict[Path, UserError] = {}
    try:
        for path, item in asking:
            try:
                check(item, store)
            except UserError as exc:
                found[path] = exc
    finally:
        if store is not None:
            store.close()
    return found


def configs_invalid(failed: Sequence[tuple[Path, UserError]], total: int, of: str = "",
                    then: str = "") -> UserError:
    """One error naming every invalid config of `total` with its own problems:
    '1 of 4 configs {of}is invalid{then}'. When the command line alone is at fault (every
    error an `ArgumentError`), the configs are not called invalid: see `command_line_unfit`."""
    if failed and all(isinstance(exc, ArgumentError) for _, exc in failed):
        return command_line_unfit(failed, total, of, then)
    problems = [problem for path, exc in failed for problem in _located(path, exc)]
    verb = "is" if len(failed) == 1 else "are"
    return UserError(f"{len(failed)} of {total} configs {of}{verb} invalid{then}", problems)


def _located(path: Path, exc: UserError) -> list[Problem]:
    """A config's problems under the suite's error: each as it is when every one names the
    config's file (`b.yaml:14 [target.threaded]: ...`), where 'b.yaml: invalid config b.yaml'
    above them named it twice more; else the error whole, under the config's path."""
    if exc.problems and all(problem.file for problem in exc.problems):
        return list(exc.problems)
    return [Problem(str(exc).replace("\n", "\n    "), file=str(path))]


def command_line_unfit(failed: Sequence[tuple[Path, UserError]], total: int, of: str = "",
                       then: str = "") -> ArgumentError:
    """The command line's error, where `failed` configs cannot take a value it gives: each
    problem once, with the configs it concerns, and alone when it concerns them all. A
    suite run with `--baseline nosuch` said '2 of 2 configs of the suite are invalid', and
    the same line under each."""
    configs: dict[str, list[str]] = {}
    for path, exc in failed:
        configs.setdefault(str(exc), []).append(str(path))
    if len(configs) == 1 and len(failed) == total:
        return ArgumentError(f"the command line does not fit the configs {of.rstrip()}{then}",
                             [Problem(message) for message in configs])
    return ArgumentError(f"the command line does not fit {len(failed)} of {total} configs "
                         f"{of.rstrip()}{then}",
                         [Problem(message, file=", ".join(paths))
                          for message, paths in configs.items()])


def check_references(loaded: LoadedConfig, plan: Plan) -> list[str]:
    """Every case against every scorer that compares with a field of it (`expected`, a
    recorded answer, `value:`): a scorer with nothing to compare against in any case is a
    config error, found before anything is paid for; in some cases, a warning naming them,
    since each of their trials would be that scorer's error."""
    checks = [(index, scorer) for index, scorer in enumerate(plan.scorers)
              if scorer.compares_with_reference]
    optional = [(index, scorer) for index, scorer in enumerate(plan.scorers)
                if scorer.may_not_apply]
    if not checks and not optional:
        return []
    lacking: dict[int, list[str]] = {index: [] for index, _ in checks}
    first: dict[int, str] = {}
    applies: set[int] = set()
    first_unapplied: dict[int, str] = {}
    cases = 0
    for case in plan.dataset.peek():
        cases += 1
        for index, scorer in checks:
            problem = scorer.reference_problem(case)
            if problem is not None:
                lacking[index].append(case.id)
                first.setdefault(index, problem)
        for index, scorer in optional:
            if index not in applies:
                why = scorer.not_applicable(case)
                if why is None:
                    applies.add(index)
                else:
                    first_unapplied.setdefault(index, why)
    nowhere = "does not apply to the only case" if cases == 1 else \
        f"applies to none of the {cases} cases"
    problems = [scorer_problem(loaded, index, Problem(
        f"{scorer.name} {nowhere}, so it would measure nothing ({first_unapplied[index]})"))
        for index, scorer in optional if index not in applies and index in first_unapplied]
    warnings = []
    for index, scorer in checks:
        ids = lacking[index]
        if not ids:
            continue
        if len(ids) == cases:
            problems.append(scorer_problem(loaded, index, Problem(
                f"{scorer.name} has nothing to compare against in "
                f"{'the only case' if cases == 1 else f'any of the {cases} cases'} "
                f"({first[index]})")))
            continue
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        warnings.append(f"{scorer.name}: nothing to compare against in {len(ids)} of "
                        f"{plural(cases, 'case')} ({shown}); each of their trials will be this "
                        f"scorer's error. First: {first[index]}")
    if problems:
        raise UserError(f"invalid config {loaded.written_path}", problems)
    return warnings


async def _check_targets(loaded: LoadedConfig, plan: Plan) -> None:
    for target in plan.targets.values():
        await check_target(loaded, target, start=False)


def check_models(loaded: LoadedConfig, plan: Plan, services: Services) -> list[str]:
    """Every model a run would call names a known provider, and asks no temperature its API
    refuses (exit 2, located at its key, if not), `assay run` checking it as `assay validate`
    does; returns the warnings, a missing API key among them (a run needs it, a check does
    not)."""
    from assay.providers.pool import get_pool

    uses = list(_model_uses(loaded, plan))
    if not uses:
        return []
    pool = get_pool(services)
    problems: list[Problem] = []
    warnings: list[str] = []
    known: dict[str, bool] = {}  # model -> whether its provider is known
    for use in uses:
        if use.model not in known:
            try:
                warning = pool.validate_model(use.model)
            except UserError as exc:
                problems.append(Problem(str(exc), *located(loaded, use.model_at)))
                known[use.model] = False
                continue
            known[use.model] = True
            warnings += [warning] if warning else []
        if use.temperature is None or not known[use.model]:
            continue
        highest = pool.max_temperature(use.model)
        if use.temperature > highest:
            problem = Problem(f"temperature {use.temperature:g} is more than {use.model} "
                              f"accepts (0 to {highest:g})", *located(loaded, use.temperature_at))
            problems += [] if problem in problems else [problem]
    if problems:
        raise UserError(f"invalid config {loaded.written_path}", problems)
    return warnings


def setting_needed_at(loaded: LoadedConfig, plan: Plan, exc: MissingSetting) -> UserError:
    """`exc` (a provider's key or region the environment lacks, which stops a run as it
    starts) with the config line of each model of that provider the run calls: it named
    the variable to set but not which model of which config needed it."""
    from assay.providers.endpoints import MissingSetting

    lines: list[Problem] = []
    for use in _model_uses(loaded, plan):
        problem = Problem(use.model, *located(loaded, use.model_at))
        if use.model.partition("/")[0] == exc.provider and problem not in lines:
            lines.append(problem)
    return exc if not lines or exc.problems else MissingSetting(exc.needs, exc.remedy, lines)


@dataclass(frozen=True)
class _ModelUse:
    """A model the run would call, the temperature it would ask, and where each is set."""

    model: str
    model_at: tuple[str | int, ...]
    temperature: float | None
    temperature_at: tuple[str | int, ...]


def _model_uses(loaded: LoadedConfig, plan: Plan) -> Iterator[_ModelUse]:
    """The target's model under each condition, then each judge's, first use first."""
    for condition in loaded.conditions:
        params = loaded.target_params.get(condition.name)
        model = getattr(params, "model", None)
        if model:
            overrides = loaded.config.conditions[condition.name].overrides()
            yield _ModelUse(
                model, _set_at(overrides, condition.name, "model", ("target", "model")),
                getattr(params, "temperature", None),
                _set_at(overrides, condition.name, "temperature", ("target", "temperature")))
    for index, scorer in enumerate(plan.scorers):
        if "model" not in type(scorer.params).model_fields:
            continue
        own_model = getattr(scorer.params, "model", None)
        model = own_model or loaded.config.judge.model
        if not model:
            continue
        own_temperature = getattr(scorer.params, "temperature", None)
        yield _ModelUse(
            model, ("scorers", index, "model") if own_model else ("judge", "model"),
            own_temperature if own_temperature is not None else loaded.config.judge.temperature,
            ("scorers", index, "temperature") if own_temperature is not None
            else ("judge", "temperature"))


def _set_at(overrides: Mapping[str, object], condition: str, key: str,
            otherwise: tuple[str, str]) -> tuple[str | int, ...]:
    return ("conditions", condition, key) if key in overrides else otherwise
