"""One run from start to finish: plan, start, resume, execute, record.

This is the only place that decides how a run's trials ended, in its status:
`running` while it goes, then `reviewing` once every trial is stored (the
review marks it `completed` when its report files are written),
`interrupted` (Ctrl-C), `aborted` (error or cost budget) or `failed` (an
unexpected error). The runner stops once the trials are committed: it never
summarises or judges them.
"""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay._version import __version__
from assay.config.bounds import RUN_OPTION_MAX
from assay.config.loading import LoadedConfig
from assay.config.models import EvalConfig
from assay.errors import RunFailed, RunLocked, StoreError, UserError
from assay.records import RunRecord
from assay.runner.options import RunOptions
from assay.runner.pipeline import Commit, PipelineStats, run_pipeline
from assay.runner.plan import Plan, build_plan, check_target
from assay.runner.preflight import check_plan, require_calibrated, setting_needed_at
from assay.runner.progress import Progress, choose_mode
from assay.runner.tool_names import warn_of_unoffered_tools
from assay.services import Services
from assay.shown_numbers import dollars
from assay.store import Store
from assay.store.run_ending import REVIEWING, ending, record_end
from assay.store.run_lock import LockHolder, RunLock
from assay.trial import TrialKey, TrialResult
from assay.user_code.process_exit import exits_guarded

__all__ = ["RunOptions", "RunOutcome", "execute_async"]


@dataclass
class RunOutcome:
    """A run whose trials are all stored, and what the review needs to know of it."""

    run: RunRecord
    config: EvalConfig
    stats: PipelineStats
    scorers: list[str]
    """The scorers' names in the config's order."""
    conditions: list[str]
    """The conditions that ran, in the config's order."""
    warnings: list[str] = field(default_factory=list)
    usage: dict[str, object] = field(default_factory=dict)


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def git_commit(directory: Path) -> str | None:
    """The commit of the working directory, `+dirty` when it has changes; None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True,
                              text=True, timeout=5, check=False)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=directory, capture_output=True, text=True, timeout=5,
                               check=False)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


async def execute_async(loaded: LoadedConfig, store: Store, options: RunOptions,
                        lock: RunLock | None = None) -> RunOutcome:
    """The run itself, awaited by `api.running.run_and_review` inside the caller's event loop.

    The run is held by `lock` from before anything starts, so a second process resuming it
    is refused (`RunLocked`). A caller that goes on to review the run passes its own lock
    and releases it afterwards; without one, the lock is released here."""
    with exits_guarded():  # user code's os._exit fails its trial, never ends the run with 0
        if lock is not None:
            return await _execute(loaded, store, options, lock)
        with store.run_lock() as own:
            return await _execute(loaded, store, options, own)


async def _execute(loaded: LoadedConfig, store: Store, options: RunOptions,
                   lock: RunLock) -> RunOutcome:
    config = loaded.config
    resumed = _find_resumable(loaded, store, options)
    if resumed:
        lock.acquire(resumed.id)  # before anything starts or is paid for
        _held(options, resumed.id)
        resumed = store.get_run(resumed.id) or resumed  # as its last holder left it
        options = _resume_options(resumed, options)
    if options.epochs:
        config.run.epochs = options.epochs
    services = Services(base_dir=loaded.base_dir, config=config, store=store,
                        use_cache=options.use_cache, keyless_from_cache=True)
    plan = build_plan(loaded, services, sample=options.sample, conditions=options.conditions,
                      dataset=options.dataset)
    scan = plan.dataset.scan()  # every dataset problem is reported before anything runs
    services.warnings.extend(options.warnings)
    for warning in check_plan(loaded, plan, scan, services):
        services.warn(warning)
    if config.judge.require_calibration:
        require_calibrated(loaded, plan, store, store_words=options.store_words)
    packs = _pack_versions(plan, services)
    if resumed:
        _refuse_changes(resumed, plan, scan.sha256, packs)
    if resumed and _nothing_left(plan, store, resumed, options):
        return await _as_ended(plan, config, store, resumed, services)
    run_id: str | None = None
    stored: str | None = None
    """The run once its row is in the store: a resume of it can find it."""
    status, error = "failed", None
    usage: dict[str, object] = {}
    try:
        await _start(plan, loaded)
        if resumed:
            run_id = stored = resumed.id
            if options.retry_errors:  # a scorer's failure too (a judge that was down)
                store.delete_errored_trials(run_id, score_errors=True)
            plan.skip = store.done_keys(run_id)
            # the config it goes on with: only its pace may differ (the hash is the same),
            # and a report showing the old `max_cost_usd` beside the cost spent past it
            # would contradict itself
            store.update_run(run_id, status="running", finished_at=None, error=None,
                             total_trials=plan.total, config=loaded.stored)
        else:
            run_id = new_run_id()
            lock.acquire(run_id)  # before its row exists, so no resume can take it first
            _held(options, run_id)
            store.create_run(
                id=run_id, experiment=config.name, config=loaded.stored,
                config_hash=loaded.hash, config_path=str(loaded.path),
                dataset_path=str(plan.dataset.path), dataset_hash=scan.sha256,
                git_commit=git_commit(loaded.base_dir), assay_version=__version__,
                total_trials=plan.total, options=_kept(options),
                pack_hashes={name: digest for name, (_, digest) in packs.items()} or None,
                report_dir=options.report_dir(run_id) if options.report_dir else None)
            stored = run_id
        stats = await _run_trials(plan, store, run_id, loaded, options, lock)
        await _judge_pairs(plan, store, run_id, options.concurrency or config.run.concurrency,
                           _keeping(plan, lock))
        status = REVIEWING
    except BaseException as exc:
        status, error = ending(exc)
        if isinstance(exc, StoreError) and stored:
            exc.stopped(stored)
        raise
    finally:
        if services.providers is not None:  # read before the providers close
            usage = services.providers.stats().to_dict()
            if resumed:  # the ledger holds this process's calls, the run's costs all of them
                usage["resumed"] = True
        await _close(plan, services)
        if run_id is not None and lock.lost_to is None:  # a run taken over is not ours to end
            record_end(store, run_id, status, error)
    return _outcome(plan, config, store, run_id, stats, services, usage)


def _pack_versions(plan: Plan, services: Services) -> dict[str, tuple[Path, str]]:
    """Each pack the plan reads: its folder and the content hash of its documents now."""
    from assay.context.pack_context import pack_version

    return {name: pack_version(services, name) for name in plan.used_packs()}


def _refuse_changes(run: RunRecord, plan: Plan, dataset_hash: str,
                    packs: dict[str, tuple[Path, str]]) -> None:
    """A `UserError` when the dataset or a pack the run reads is not as the run started
    with it: resuming would mix trials that read two versions of it. A run stored before
    packs were hashed is not held to its packs."""
    if run.dataset_hash != dataset_hash:
        raise _changed(run, "the dataset", plan.dataset.path, dataset_hash, run.dataset_hash)
    for name, (folder, digest) in packs.items():
        then = (run.pack_hashes or {}).get(name)
        if then is not None and then != digest:
            raise _changed(run, f"knowledge pack '{name}'", folder, digest, then)


def _changed(run: RunRecord, what: str, path: object, now: str, then: str | None
             ) -> UserError:
    return UserError(f"cannot resume run {run.id}: {what} changed since it started ({path} "
                     f"reads sha256 {now[:12]} now, {(then or 'unknown')[:12]} then); put it "
                     "back as it was, or run without --resume to start a new run")


def _nothing_left(plan: Plan, store: Store, resumed: RunRecord, options: RunOptions) -> bool:
    """Whether the resumed run is completed with no trial left to run (a resume for its
    lost files): every trial of the plan stored, and none errored for `--retry-errors`."""
    if resumed.status != "completed":
        return False
    if options.retry_errors and store.count_errored_trials(resumed.id):
        return False
    return len(store.done_keys(resumed.id)) >= plan.total


async def _as_ended(plan: Plan, config: EvalConfig, store: Store, run: RunRecord,
                    services: Services) -> RunOutcome:
    """A completed run with nothing left to run, as it ended, for the review to write its
    files again: no target, server or scorer is started, and the run's row is not touched."""
    usage: dict[str, object] = {}
    if services.providers is not None:
        usage = {**services.providers.stats().to_dict(), "resumed": True}
    await _close(plan, services)
    stats = PipelineStats(unscored={s.name for s in plan.trial_scorers},
                          without_verdict={c.name for c in plan.conditions})
    return _outcome(plan, config, store, run.id, stats, services, usage)


def _outcome(plan: Plan, config: EvalConfig, store: Store, run_id: str | None,
             stats: PipelineStats, services: Services, usage: dict[str, object]
             ) -> RunOutcome:
    """What the review needs of the run, read back as the store now holds it."""
    run = store.get_run(run_id) if run_id is not None else None
    assert run is not None
    return RunOutcome(run=run, config=config, stats=stats,
                      scorers=[s.name for s in plan.scorers],
                      conditions=[c.name for c in plan.conditions],
                      warnings=list(services.warnings), usage=usage)


def recorded_options(options: RunOptions) -> dict[str, object]:
    """The command-line choices that shape a run's trials, kept so a resume repeats them."""
    return {"sample": options.sample, "epochs": options.epochs,
            "conditions": options.conditions}


def _kept(options: RunOptions) -> dict[str, object]:
    """What a run keeps of its options: the choices, and the suite it is part of."""
    kept = recorded_options(options)
    if options.suite is not None:
        kept["suite"] = options.suite
    return kept


def _as_typed(option: str, value: object) -> str:
    """An option as it is typed: `--condition a --condition b`, not `['a', 'b']`."""
    values = value if isinstance(value, (list, tuple)) else [value]
    return " ".join(f"--{option} {item}" for item in values)


def _resume_options(run: RunRecord, options: RunOptions) -> RunOptions:
    """The options of the run being resumed; a different explicit choice is refused."""
    return resumed_options(f"run {run.id}", run.options or {}, options)


def resumed_options(what: str, stored: dict[str, object], options: RunOptions) -> RunOptions:
    """`options` with the choices `what` (a run, a suite) was started with, `stored`; a
    different explicit choice is refused, as resuming would mix two different runs."""
    merged: dict[str, object] = {}
    for name, value in recorded_options(options).items():
        before = stored.get(name)
        if value is not None and value != before:
            option = "condition" if name == "conditions" else name
            was = _as_typed(option, before) if before is not None else f"no --{option}"
            raise UserError(f"cannot resume {what} with {_as_typed(option, value)}: it "
                            f"was started with {was} (resuming would mix two different runs)")
        merged[name] = before
    _refuse_out_of_bounds(what, merged)
    return replace(options, **merged)  # type: ignore[arg-type]


def _refuse_out_of_bounds(what: str, stored: dict[str, object]) -> None:
    """Refuse a stored option a new run would refuse: a run started with `--epochs
    100000000000` before the option was bounded was resumed with it, and never began."""
    for name, value in stored.items():
        high = RUN_OPTION_MAX.get(name)
        if high is None or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise UserError(f"cannot resume {what}: it was started with "
                            f"{_as_typed(name, value)}, and --{name} takes 1 to {high:,}; "
                            "start a new run without --resume")


def _held(options: RunOptions, run_id: str) -> None:
    if options.on_run is not None:
        options.on_run(run_id)


def _find_resumable(loaded: LoadedConfig, store: Store, options: RunOptions) -> RunRecord | None:
    if not options.resume:
        return None
    if isinstance(options.resume, str):
        run = store.resolve_run(options.resume)
    else:
        runs = store.list_runs(loaded.name, kind="eval", limit=20)
        unfinished = [r for r in runs if r.status != "completed"]
        if not unfinished:
            raise UserError(_nothing_to_resume(loaded.name, runs[0] if runs else None,
                                               options.store_words))
        run = _newest_not_held(store, unfinished, loaded, options)
    if run.kind != "eval":  # a rejudge calls no target: resumed here it would call one
        how = (f"continue it with `{run.resume_command}`" if run.kind == "rejudge"
               else "`assay run --resume` resumes eval runs only")
        raise UserError(f"run {run.id} is a {run.kind} run, not an eval run: {how}")
    if run.experiment != loaded.name:
        raise UserError(f"run {run.id} belongs to experiment '{run.experiment}', "
                        f"not '{loaded.name}'")
    if run.config_hash != loaded.hash:
        from assay.config.changes import config_changes

        changes = config_changes(run.config, loaded.stored, loaded.source)
        if changes:
            raise UserError(f"cannot resume run {run.id}: the config changed since it started "
                            "(resuming would mix results of two configs); put these back, or "
                            "run without --resume to start a new run:", changes)
        why = ("its text is the same, so a ${VAR} in it now has another value"
               if isinstance(run.config, dict) else "or a ${VAR} in it now has another value")
        raise UserError(f"cannot resume run {run.id}: the config changed since it started, "
                        f"{why} (resuming would mix results of two configs)")
    return run


def _nothing_to_resume(experiment: str, latest: RunRecord | None, store_words: str) -> str:
    """Why `--resume` has no run to continue, naming the latest run when it completed: after
    a kill -9 that came as the run ended, the user cannot tell it did."""
    if latest is None:
        return (f"nothing to resume: experiment '{experiment}' has no run yet (run without "
                "--resume to start one)")
    return (f"nothing to resume: experiment '{experiment}' has no unfinished run; its latest, "
            f"{latest.id}, completed (`assay report {latest.id}{store_words}` shows it); run "
            "without --resume to start a new one")


def _newest_not_held(store: Store, unfinished: list[RunRecord], loaded: LoadedConfig,
                     options: RunOptions) -> RunRecord:
    """The newest of `unfinished` that no live process holds: when two run one experiment at
    once, the newest is often the other's, still running, and `--resume` was refused for it
    while the run this one should continue waited behind it. `RunLocked` when every one is
    held, naming each run and the process that runs it."""
    locks = store.run_lock()
    holders = []
    for run in unfinished:
        holder = locks.holder(run.id)
        if holder is None or locks.is_gone(holder):
            return run
        holders.append((run, holder))
    raise RunLocked(_all_held(loaded, options, holders))


HELD_SHOWN = 5
"""How many runs held by other processes a refused `--resume` names; the rest are counted."""


def _all_held(loaded: LoadedConfig, options: RunOptions,
              holders: list[tuple[RunRecord, LockHolder]]) -> str:
    """Why `--resume` has no run to continue when other assay processes run every unfinished
    one: each run and its process, and the ways on (wait, stop one and resume its run here,
    or start a new run)."""
    listing = f"`assay runs{options.store_words}`"
    if len(holders) == 1:
        [(run, holder)] = holders
        kill = f"`kill {holder.pid}`" if holder.pid is not None else "kill it"
        return (f"nothing to resume: the only unfinished run of experiment '{loaded.name}', "
                f"{run.id}, is being run by another assay ({holder.describe()}); wait for it "
                f"to finish ({listing} shows how far it got), or stop that process (Ctrl-C "
                f"where it runs, or {kill}) and run with --resume again to continue the run "
                "here, or run without --resume to start a new run")
    named = [f"{run.id} ({holder.describe()})" for run, holder in holders[:HELD_SHOWN]]
    if len(holders) > HELD_SHOWN:
        named.append(f"and {len(holders) - HELD_SHOWN} more")
    return (f"nothing to resume: each of the {len(holders)} unfinished runs of experiment "
            f"'{loaded.name}' is being run by another assay: {', '.join(named)}; wait for "
            f"them to finish ({listing} shows how far each got), or stop one of those "
            "processes (Ctrl-C where it runs, or kill its process id) and run with --resume "
            "again to continue its run here, or run without --resume to start a new run")


async def _start(plan: Plan, loaded: LoadedConfig) -> None:
    from assay.providers.endpoints import MissingSetting

    try:
        for scorer in plan.scorers:
            await scorer.setup()
        for target in plan.targets.values():
            await check_target(loaded, target, start=True)
    except MissingSetting as exc:
        raise setting_needed_at(loaded, plan, exc) from None
    warn_of_unoffered_tools(plan)


async def _close(plan: Plan, services: Services) -> None:
    for target in plan.targets.values():
        try:
            await target.close()
        except Exception:  # noqa: BLE001, S110 - closing must not hide the run's own outcome
            pass
    await services.aclose()


async def _run_trials(plan: Plan, store: Store, run_id: str, loaded: LoadedConfig,
                      options: RunOptions, lock: RunLock) -> PipelineStats:
    settings = loaded.config.run
    concurrency = options.concurrency or settings.concurrency
    label = loaded.name
    usable = store.count_usable_trials(run_id) if plan.skip else 0  # skip: the stored trials
    errored = store.count_errored_trials(run_id) if plan.skip else 0
    services = _services(plan)
    if services is not None and services.providers is not None:  # started: a model is used
        # its replies say which trial of this run paid for them
        services.providers.cache.run_id = run_id
    if plan.skip and settings.max_cost_usd is not None and services is not None:
        from assay.providers.pool import get_pool  # the budget is the run's: count its spend

        get_pool(services).count_spent_before(store.spent_usd(run_id))
    with Progress(plan.total, label, mode=choose_mode(options.progress),
                  already_done=len(plan.skip), errored_before=errored,
                  ledger=_ledger(plan)) as progress:
        stats = await run_pipeline(
            plan, _committer(plan, store, run_id, lock), concurrency=concurrency,
            timeout=settings.timeout, batch_size=settings.batch_size,
            max_output_bytes=settings.max_output_bytes,
            max_errors=settings.max_errors,
            max_consecutive_errors=settings.max_consecutive_errors, on_committed=progress.update,
            budget_exceeded=_cost_check(plan, settings.max_cost_usd),
            answered_before=usable, stored_before=len(plan.skip),
            commit_in_thread=store.across_a_network)
    require_measures(store, run_id, conditions=bool(plan.skip or stats.without_verdict),
                     scorers=bool(plan.skip or stats.scorer_errors),
                     scorer_conditions=bool(plan.skip or stats.scorer_failed))
    return stats


def require_measures(store: Store, run_id: str, *, conditions: bool, scorers: bool,
                     scorer_conditions: bool = False) -> None:
    """`RunFailed` when the run measured nothing under a condition (no trial of it gave a
    verdict: the target failed on all of them, a model name misspelt in one condition), with
    a scorer (it errored on every trial with an answer: a judge whose replies never parse, a
    scorer with a bug), or with a scorer under a condition (it errored on every answer of
    that condition: a judge whose context the condition's long answers overflow), however
    few its trials: before, such a run exited 0 beside the other results (a longer run stops
    on `max_consecutive_errors` in a row first, in the pipeline). Every trial is stored, for
    `--retry-errors`. Each check asks the store only when this process saw the case or the
    run is a resume (`conditions`, `scorers`, `scorer_conditions`). A rejudge asks it of
    its judges (`scorers`) too."""
    found = [f"condition {condition} has no result: all {trials} of its trials failed, so "
             f"the run measured nothing under it; first error: {first[:300]}"
             for condition, trials, first in
             (store.conditions_without_verdict(run_id) if conditions else [])]
    found += [f"scorer {scorer} has no value: it errored on all {errors} of its trials with an "
              f"answer, so the run measured nothing with it; first error: {first[:300]}"
              for scorer, errors, first in
              (store.scorers_without_value(run_id) if scorers else [])]
    found += [f"scorer {scorer} has no value under condition {condition}: it errored on all "
              f"{errors} of its trials there with an answer, so the run measured nothing with "
              f"it under {condition}; first error: {first[:300]}"
              for scorer, condition, errors, first in
              (store.scorer_conditions_without_value(run_id) if scorer_conditions else [])]
    if found:
        raise RunFailed(found[0])


def _services(plan: Plan) -> Services | None:
    """What the run's targets share (its provider pool among them); None with no target."""
    return next(iter(plan.targets.values())).services if plan.targets else None


def _ledger(plan: Plan) -> Callable[[], Any]:
    """The run's call ledger so far, for the progress display (None before any provider)."""
    services = _services(plan)

    def read() -> Any:
        pool = services.providers if services else None
        return pool.stats() if pool is not None else None

    return read


async def _judge_pairs(plan: Plan, store: Store, run_id: str, concurrency: int,
                       before_write: Callable[[], None]) -> None:
    """The scorers that pair conditions, once every trial is stored (see `judging.pairs`),
    then held to the trials' checks."""
    if not plan.pair_scorers:
        return
    from assay.judging.pairs import judge_condition_pairs

    await judge_condition_pairs(store, run_id, plan.pair_scorers,  # type: ignore[arg-type]
                                [c.name for c in plan.conditions], concurrency=concurrency,
                                before_write=before_write)
    require_pair_measures(store, run_id)


def require_pair_measures(store: Store, run_id: str) -> None:
    """`require_measures` of the scorers that pair conditions, judged once the trials were
    checked: a pairwise judge whose replies never parsed ended the run with exit 0."""
    require_measures(store, run_id, conditions=False, scorers=True, scorer_conditions=True)


def _keeping(plan: Plan, lock: RunLock) -> Callable[[], None]:
    """What comes before a batch is stored: stop if another process took the run over
    (`RunLocked`), and store the LLM replies the batch used, so a resumed run finds them."""
    services = _services(plan)

    def keep() -> None:
        lock.check()
        pool = services.providers if services else None
        if pool is not None:
            pool.cache.save()

    return keep


def _committer(plan: Plan, store: Store, run_id: str, lock: RunLock) -> Commit:
    """Store a batch of trials, after what `_keeping` does."""
    keep = _keeping(plan, lock)

    def commit(batch: list[TrialResult]) -> dict[TrialKey, str]:
        keep()
        return store.write_trials(run_id, batch).refused

    return commit


def _cost_check(plan: Plan, limit: float | None):  # type: ignore[no-untyped-def]
    if limit is None:
        return None
    services = _services(plan)

    def exceeded() -> str | None:
        pool = services.providers if services else None
        if pool is None or pool.ledger.budget_spent < limit:
            return None
        return (f"cost budget reached: {dollars(pool.ledger.budget_spent)} spent"
                f"{pool.ledger.before_resume()} (run.max_cost_usd = {limit:g})")

    return exceeded
