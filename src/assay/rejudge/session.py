"""`assay rejudge RUN`: the stored outputs judged again, each answer asked k times.

No target is called: every trial's stored output is handed to the run's
judged scorers again (all of them, or `--scorer`), rebuilt from the run's
stored config, with `repeats` set to k and, with `--judge-model`, another
judge. Every ask is a real call: the scorers judge under a cache namespace
of the new run, so no reply of the original run (or of an earlier
rejudge) is reused. The verdicts are kept as a run of kind `rejudge`,
linked to the original (`options.rejudge_of`), and reviewed like any run:
its report shows the judge's self-consistency (flip rate, score SD,
Krippendorff's alpha over the asks, the unstable cases) and, with several
epochs, how much of each condition's score variance is the agent's and how
much the judge's, and the judge's share of each delta's uncertainty at the
original run's asks per answer.

Like a run, a rejudge is checked before its row exists (a bad argument
leaves no run), stops with `RunFailed` when its judges keep failing, and,
stopped or interrupted, is continued with `assay rejudge --resume`
(`runs`): the verdicts it stored are kept and the rest are judged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from assay.config.loading import scorer_name, scorer_type
from assay.errors import UserError
from assay.judging.stored_config import StoredCases, stored_cases, stored_config
from assay.registry import scorers as scorer_registry
from assay.rejudge.runs import KIND, original_run, resumed_request, unfinished_rejudge
from assay.rejudge.trials import JudgeBudget, judge_stored_trials, judging_stored
from assay.services import Services

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.records import RunRecord
    from assay.review.finish import ReviewRequest
    from assay.review.result import Review
    from assay.runner.progress import Progress
    from assay.scorers.base import Scorer, ScorerParams
    from assay.store import Store
    from assay.store.run_lock import RunLock
    from assay.trial import TrialKey

__all__ = ["KIND", "RejudgeRequest", "build_judges", "rejudge", "rejudge_async"]

DEFAULT_REPEATS = 3
"""Asks per answer: three, as judge repeats are usually run."""


@dataclass
class RejudgeRequest:
    run: str = "latest"
    """The run to judge again (id, prefix, `latest`, `latest~N`)."""
    experiment: str | None = None
    """Resolve `latest` within this experiment."""
    repeats: int | None = None
    """Asks per answer (default `DEFAULT_REPEATS`)."""
    scorers: list[str] = field(default_factory=list)
    """Only these judged scorers (all of them when empty)."""
    judge_model: str | None = None
    concurrency: int | None = None
    resume: str | None = None
    """Continue this unfinished rejudge run instead (`latest`: the newest one)."""
    progress: bool | None = None
    """As `RunOptions.progress`: None the bar on a terminal, True also lines, False nothing."""
    on_run: Callable[[str], None] | None = None
    """As `RunOptions.on_run`: told the rejudge run's id once this process holds it (a new
    run or the one resumed), before its first verdict, so a caller stopped by Ctrl-C or a
    failure names that run, not the experiment's latest rejudge (another process's, when
    two judge one experiment again at once)."""


def rejudge(store: Store, request: RejudgeRequest, review: ReviewRequest) -> Review:
    """Judge the run's stored outputs again, store the verdicts as a new run, review it."""
    return asyncio.run(rejudge_async(store, request, review))


async def rejudge_async(store: Store, request: RejudgeRequest, review: ReviewRequest) -> Review:
    """The rejudge, held by the run lock from before its row exists to its last file.

    Everything that can be checked is checked before the run's row is created (or an
    unfinished one is taken up again): the runs, the scorers, the judge model and its
    provider's settings (a missing key), the output folder. A bad argument so leaves no
    run behind."""
    from assay.review.finish import finish_run, prepare

    resumed = None
    if request.resume is not None:
        resumed = unfinished_rejudge(store, request.resume, request.experiment)
        request = resumed_request(resumed, request)
    original = original_run(store, request.run, request.experiment)
    loaded = stored_config(original)
    services = Services(base_dir=loaded.base_dir, config=loaded.config, store=store)
    with store.run_lock() as lock:
        try:
            judges = build_judges(loaded, services, request,
                                  run=f"run {original.id} of '{original.experiment}'")
            for judge in judges:  # resolves each judge's provider: a missing key stops here
                await judge.setup()
            prepare([], review, scorers=[judge.name for judge in judges],
                    conditions=_conditions(original, store))
            if resumed is not None:
                lock.acquire(resumed.id)  # before anything is paid for
            cases = stored_cases(original, loaded)
            run_id = resumed.id if resumed else _create(store, original, loaded, request,
                                                        judges, lock, review)
            if request.on_run is not None:
                request.on_run(run_id)
            outcome = await _judge(store, original, run_id, judges, cases, loaded, request,
                                   services, lock)
        finally:
            await services.aclose()
        return finish_run(store, outcome, review)


def _create(store: Store, original: RunRecord, loaded: LoadedConfig, request: RejudgeRequest,
            judges: list[Scorer], lock: RunLock, review: ReviewRequest) -> str:
    """The new rejudge run's row, linked to `original`, with the folder asked for its files
    (a resume that asks for none writes them there); its id."""
    from assay.runner.session import new_run_id

    run_id = new_run_id()
    lock.acquire(run_id)  # before its row exists, so no resume can take it first
    store.create_run(
        id=run_id, experiment=original.experiment, kind=KIND, config=original.config,
        config_hash=original.config_hash, config_path=original.config_path,
        dataset_path=original.dataset_path, dataset_hash=original.dataset_hash,
        git_commit=original.git_commit, assay_version=original.assay_version,
        total_trials=original.total_trials, options=_options(original, loaded, request, judges),
        report_dir=review.asked_report_dir(run_id))
    return run_id


async def _judge(store: Store, original: RunRecord, run_id: str, judges: list[Scorer],
                 cases: StoredCases, loaded: LoadedConfig, request: RejudgeRequest,
                 services: Services, lock: RunLock) -> Any:
    """Judge what the run has not stored yet, record how it ended; its `RunOutcome`."""
    from assay.runner.pipeline import PipelineStats
    from assay.runner.session import RunOutcome, require_measures, require_pair_measures
    from assay.store.run_ending import REVIEWING, ending, record_end

    for judge in judges:  # every ask is a real call: no reply of another run is reused
        judge.cache_namespace = f"rejudge-{run_id}"  # type: ignore[attr-defined]
    if services.providers is not None:  # its replies say which trial of this run paid for them
        services.providers.cache.run_id = run_id
    conditions = _conditions(original, store)
    status, error = "failed", None
    skip: set[TrialKey] = set()
    try:
        store.update_run(run_id, status="running", finished_at=None, error=None)
        store.delete_errored_trials(run_id, score_errors=True)  # a resume judges them again
        skip = store.done_keys(run_id)
        judge_one = judging_stored(judges, cases, loaded.config.run.timeout)
        with _progress(original, services, request, len(skip)) as progress:
            tally = await judge_stored_trials(
                store, original.id, run_id, judge_one, skip=skip,
                concurrency=_concurrency(request, loaded),
                batch_size=loaded.config.run.batch_size,
                budget=JudgeBudget.of(loaded.config.run), commit_check=lock.check,
                on_committed=progress.update)
        # a judge with no verdict on any answer measured nothing: exit 3, as `assay run` does;
        # the store is asked, as there, only after an error or on a resume
        failed = bool(skip or tally.stats.errors)
        require_measures(store, run_id, conditions=False, scorers=failed,
                         scorer_conditions=failed)
        pairs = [judge for judge in judges if getattr(judge, "deferred", False)]
        if pairs:
            from assay.judging.pairs import judge_condition_pairs

            await judge_condition_pairs(store, run_id, pairs, conditions,  # type: ignore[arg-type]
                                        concurrency=_concurrency(request, loaded),
                                        before_write=lock.check)
            require_pair_measures(store, run_id)
        status = REVIEWING
    except BaseException as exc:
        status, error = ending(exc)
        raise
    finally:
        if lock.lost_to is None:  # a run taken over is not ours to end
            record_end(store, run_id, status, error)
    run = store.get_run(run_id)
    assert run is not None
    warnings = list(services.warnings) + ([cases.note] if cases.note else [])
    # The original's gates judged its whole run; a rejudge keeps only its judges' verdicts.
    config = loaded.config.model_copy(update={"gates": []})
    usage: dict[str, object] = services.providers.stats().to_dict() if services.providers \
        else {}
    if skip:  # the ledger holds this process's calls, the run's costs those stored before too
        usage["resumed"] = True
    return RunOutcome(run=run, config=config, stats=PipelineStats(),
                      scorers=[judge.name for judge in judges], conditions=conditions,
                      warnings=warnings, usage=usage)


def _progress(original: RunRecord, services: Services, request: RejudgeRequest,
              done: int) -> Progress:
    """The progress display of the judging, as `assay run` shows a run's."""
    from assay.runner.progress import Progress, choose_mode

    def ledger() -> Any:
        return services.providers.stats() if services.providers is not None else None

    return Progress(original.total_trials or 0, f"{original.experiment} (rejudge)",
                    mode=choose_mode(request.progress), already_done=done, ledger=ledger)


def build_judges(loaded: LoadedConfig, services: Services, request: RejudgeRequest, *,
                 run: str = "the run") -> list[Scorer]:
    """The run's judged scorers, asked `repeats` times, with another model if asked. `run`
    names the run in the errors (`run ID of 'EXPERIMENT'`)."""
    judged = [params for params in loaded.scorer_params
              if "model" in type(params).model_fields and "prompt" in type(params).model_fields]
    names = [scorer_name(p) for p in judged]
    unknown = sorted(set(request.scorers) - set(names))
    if unknown:
        raise UserError(f"{run} has no judged scorer {', '.join(unknown)} "
                        f"(its judged scorers: {', '.join(names) or 'none'})")
    if not judged:
        others = ", ".join(scorer_name(p) for p in loaded.scorer_params) or "none"
        raise UserError(f"{run} has no judged scorer to judge again (its scorers: {others}); "
                        "rejudge asks a run's LLM judges again to measure their noise")
    out: list[Scorer] = []
    for params, name in zip(judged, names):
        if request.scorers and name not in request.scorers:
            continue
        overrides: dict[str, Any] = {"repeats": request.repeats or DEFAULT_REPEATS}
        if request.judge_model:
            overrides["model"] = request.judge_model
        changed = type(params).model_validate({**params.model_dump(by_alias=True,
                                                                   exclude_unset=True),
                                               **overrides})
        out.append(scorer_registry.get(scorer_type(params))(
            cast("ScorerParams", changed), services))
    return out


def _options(original: RunRecord, loaded: LoadedConfig, request: RejudgeRequest,
             judges: list[Scorer]) -> dict[str, Any]:
    """What the new run records of how it was made; `asks` is how many asks per answer the
    original run's verdicts rest on, for the judge's share of its deltas."""
    asks = {}
    for params in loaded.scorer_params:
        name = scorer_name(params)
        if any(judge.name == name for judge in judges):
            asks[name] = int(getattr(params, "repeats", 1) or 1)
    return {"rejudge_of": original.id, "repeats": request.repeats or DEFAULT_REPEATS,
            "judge_model": request.judge_model, "scorers": [j.name for j in judges],
            "asks": asks, "epochs": (original.options or {}).get("epochs")}


def _conditions(run: RunRecord, store: Store) -> list[str]:
    stored = (run.summary or {}).get("conditions") or []
    names = [str(c.get("condition")) for c in stored if isinstance(c, dict)]
    if names:
        return names
    return sorted({key[1] for key in store.done_keys(run.id)})


def _concurrency(request: RejudgeRequest, loaded: LoadedConfig) -> int:
    return request.concurrency or loaded.config.run.concurrency
