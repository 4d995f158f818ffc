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
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from assay.errors import UserError
from assay.judging.bounded import bounded_map
from assay.judging.stored_config import StoredCases, stored_cases, stored_config
from assay.registry import scorers as scorer_registry
from assay.services import Services
from assay.trial import TrialResult

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.records import RunRecord, TrialRecord
    from assay.review.finish import ReviewRequest
    from assay.review.result import Review
    from assay.scorers.base import Scorer, ScorerParams
    from assay.store import Store

KIND = "rejudge"
DEFAULT_REPEATS = 3
"""Asks per answer: three, as judge repeats are usually run."""


@dataclass
class RejudgeRequest:
    run: str
    """The run to judge again (id, prefix, `latest`, `latest~N`)."""
    repeats: int = DEFAULT_REPEATS
    scorers: list[str] = field(default_factory=list)
    """Only these judged scorers (all of them when empty)."""
    judge_model: str | None = None
    concurrency: int | None = None


def rejudge(store: Store, request: RejudgeRequest, review: ReviewRequest) -> Review:
    """Judge the run's stored outputs again, store the verdicts as a new run, review it."""
    return asyncio.run(rejudge_async(store, request, review))


async def rejudge_async(store: Store, request: RejudgeRequest, review: ReviewRequest) -> Review:
    from assay.review.finish import finish_run
    from assay.runner.ending import REVIEWING, ending, record_end
    from assay.runner.pipeline import PipelineStats
    from assay.runner.session import RunOutcome, new_run_id

    original = store.resolve_run(request.run)
    if original.kind not in ("eval", KIND):
        raise UserError(f"run {original.id} is a {original.kind} run; rejudge works on eval "
                        "runs")
    loaded = stored_config(original)
    services = Services(base_dir=loaded.base_dir, config=loaded.config, store=store)
    judges = build_judges(loaded, services, request)
    run_id = new_run_id()
    for judge in judges:
        judge.cache_namespace = f"rejudge-{run_id}"  # type: ignore[attr-defined]
    cases = stored_cases(original, loaded)
    conditions = _conditions(original, store)
    store.create_run(
        id=run_id, experiment=original.experiment, kind=KIND, config=original.config,
        config_hash=original.config_hash, config_path=original.config_path,
        dataset_path=original.dataset_path, dataset_hash=original.dataset_hash,
        git_commit=original.git_commit, assay_version=original.assay_version,
        total_trials=original.total_trials, options=_options(original, loaded, request, judges))
    status, error = "failed", None
    try:
        for judge in judges:
            await judge.setup()
        await _judge_trials(store, original, run_id, judges, cases, request, loaded)
        pairs = [judge for judge in judges if getattr(judge, "deferred", False)]
        if pairs:
            from assay.judging.pairs import judge_condition_pairs

            await judge_condition_pairs(store, run_id, pairs, conditions,  # type: ignore[arg-type]
                                        concurrency=_concurrency(request, loaded))
        status = REVIEWING
    except BaseException as exc:
        status, error = ending(exc)
        raise
    finally:
        await services.aclose()
        record_end(store, run_id, status, error)
    run = store.get_run(run_id)
    assert run is not None
    warnings = list(services.warnings) + ([cases.note] if cases.note else [])
    # The original's gates judged its whole run; a rejudge keeps only its judges' verdicts.
    config = loaded.config.model_copy(update={"gates": []})
    outcome = RunOutcome(run=run, config=config, stats=PipelineStats(),
                         scorers=[judge.name for judge in judges], conditions=conditions,
                         warnings=warnings, usage=services.providers.stats().to_dict()
                         if services.providers else {})
    return finish_run(store, outcome, review)


def build_judges(loaded: LoadedConfig, services: Services, request: RejudgeRequest
                 ) -> list[Scorer]:
    """The run's judged scorers, asked `repeats` times, with another model if asked."""
    judged = [params for params in loaded.scorer_params
              if "model" in type(params).model_fields and "prompt" in type(params).model_fields]
    names = [getattr(p, "name", None) or getattr(p, "type") for p in judged]
    unknown = sorted(set(request.scorers) - set(names))
    if unknown:
        raise UserError(f"run's config has no judged scorer {', '.join(unknown)} "
                        f"(judged scorers: {', '.join(names) or 'none'})")
    if not judged:
        raise UserError("the run has no judged scorer to judge again")
    out: list[Scorer] = []
    for params, name in zip(judged, names):
        if request.scorers and name not in request.scorers:
            continue
        overrides: dict[str, Any] = {"repeats": request.repeats}
        if request.judge_model:
            overrides["model"] = request.judge_model
        changed = type(params).model_validate({**params.model_dump(by_alias=True,
                                                                   exclude_unset=True),
                                               **overrides})
        out.append(scorer_registry.get(getattr(params, "type"))(
            cast("ScorerParams", changed), services))
    return out


async def _judge_trials(store: Store, original: RunRecord, run_id: str, judges: list[Scorer],
                        cases: StoredCases, request: RejudgeRequest,
                        loaded: LoadedConfig) -> None:
    """Every stored trial with its output, judged again; committed in batches."""
    from assay.providers.cache import trial_epoch
    from assay.runner.trial import score_output

    per_trial = [judge for judge in judges if not getattr(judge, "deferred", False)]
    timeout = loaded.config.run.timeout

    async def judge(trial: TrialRecord) -> TrialResult:
        case = cases.case_of(trial)
        scores = {}
        if trial.error is None and per_trial:
            wanted = [j for j in per_trial if j.name in trial.scores]
            with trial_epoch(trial.epoch):
                scores = await score_output(wanted, case, trial.output, timeout)
        return TrialResult(case=case, condition=trial.condition, epoch=trial.epoch,
                           output=trial.output, scores=scores)

    batch: list[TrialResult] = []
    async for _trial, result in bounded_map(store.iter_trials(original.id), judge,
                                            concurrency=_concurrency(request, loaded)):
        batch.append(result)
        if len(batch) >= loaded.config.run.batch_size:
            store.write_trials(run_id, batch)
            batch.clear()
    store.write_trials(run_id, batch)


def _options(original: RunRecord, loaded: LoadedConfig, request: RejudgeRequest,
             judges: list[Scorer]) -> dict[str, Any]:
    """What the new run records of how it was made; `asks` is how many asks per answer the
    original run's verdicts rest on, for the judge's share of its deltas."""
    asks = {}
    for params in loaded.scorer_params:
        name = getattr(params, "name", None) or getattr(params, "type")
        if any(judge.name == name for judge in judges):
            asks[name] = int(getattr(params, "repeats", 1) or 1)
    return {"rejudge_of": original.id, "repeats": request.repeats,
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
