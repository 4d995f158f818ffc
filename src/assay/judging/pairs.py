"""Pairwise judging of stored outputs: the conditions of one run, or two runs over the same cases.

The `pairwise` scorer against conditions cannot score a trial alone, so the
runner calls `judge_condition_pairs` once every trial is stored: the run's
trials are read back in case order (one case's trials at a time, never the
whole run), each condition's answer is paired with the baseline
condition's answer of the same case and epoch, and the verdict is stored
as the scorer's score on the candidate's trial. Verdicts are stored as trials
are, every `FLUSH_SECONDS` (`before_write` first stores the LLM replies they
used), and pairs already judged are skipped, so a run killed while it judged
them resumes paying for none it kept.

`compare_runs_pairwise` pairs run A's and run B's answers of the same case,
condition and epoch the same way, for `assay compare --pairwise`: they are read
first (`read_answer_pairs`), then judged with no read of the store held open;
it stores nothing (the response cache keeps what was paid for).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING

from assay.analysis.pairwise_verdicts import (
    OrderedVerdicts,
    PairwiseResult,
    adjust_pairwise,
    pairwise_result,
)
from assay.case import Case
from assay.errors import AssayError, RunFailed, UserError
from assay.judging.batched_commits import BatchedCommits
from assay.judging.bounded import bounded_map
from assay.providers.cache import trial_epoch
from assay.records import TrialRecord
from assay.score import Score
from assay.trial import TrialKey

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.records import RunRecord
    from assay.scorers.judges.pairwise import PairwiseJudge
    from assay.services import Services
    from assay.store import Store

BATCH = 100


@dataclass(frozen=True, slots=True)
class PairJob:
    """Answer B against answer A for one case and epoch; the verdict belongs to `key`."""

    scorer: PairwiseJudge
    case: Case
    key: TrialKey
    answer_a: str
    answer_b: str
    against: str


def trial_case(trial: TrialRecord) -> Case:
    """The stored trial's case as the judge needs it (its input and expected answer)."""
    return Case(id=trial.case_id, input=trial.input, expected=trial.expected,
                tags=list(trial.tags), difficulty=trial.difficulty)


def usable(trial: TrialRecord | None) -> bool:
    return trial is not None and trial.error is None


def condition_pair_jobs(trials: Iterable[TrialRecord], scorers: list[PairwiseJudge],
                        conditions: list[str], done: dict[str, set[TrialKey]]
                        ) -> Iterator[PairJob]:
    """The pairs still to judge, one case's trials at a time (`trials` in case order)."""
    for _case_id, group in groupby(trials, key=lambda t: t.case_id):
        by_key = {(t.condition, t.epoch): t for t in group}
        for scorer in scorers:
            baseline = scorer.params.baseline or conditions[0]
            for (condition, epoch), trial in by_key.items():
                base = by_key.get((baseline, epoch))
                if condition == baseline or condition not in conditions or \
                        trial.key in done[scorer.name]:
                    continue
                if base is None or not usable(base) or not usable(trial):
                    continue
                yield PairJob(scorer, trial_case(trial), trial.key, base.output.text,
                              trial.output.text, baseline)


async def judge_condition_pairs(store: Store, run_id: str, scorers: list[PairwiseJudge],
                                conditions: list[str], *, concurrency: int,
                                before_write: Callable[[], None] | None = None) -> int:
    """Judge every pair of the run still missing a verdict; returns how many were stored.
    `before_write` runs before each batch is stored (the runner's: stop when the run was
    taken over, store the replies the batch used)."""
    if not scorers:
        return 0
    done = {scorer.name: store.scored_keys(run_id, scorer.name) for scorer in scorers}
    jobs = condition_pair_jobs(store.iter_trials(run_id), scorers, conditions, done)
    stored = 0

    def commit(batch: list[tuple[TrialKey, str, Score]]) -> None:
        nonlocal stored
        if before_write is not None:
            before_write()
        stored += store.write_scores(run_id, batch)

    verdicts = BatchedCommits(commit, size=BATCH)
    try:
        async for job, score in bounded_map(jobs, judge_one, concurrency=concurrency):
            verdicts.add((job.key, job.scorer.name, score))
    finally:
        verdicts.flush()  # what was judged is kept, even on Ctrl-C
    return stored


@dataclass(frozen=True, slots=True)
class AnswerPair:
    """Run A's and run B's stored answers to one case, condition and epoch (`key`)."""

    case: Case
    key: TrialKey
    answer_a: str
    answer_b: str


def answer_pairs(trials_a: Iterable[TrialRecord], trials_b: Iterable[TrialRecord]
                 ) -> Iterator[AnswerPair]:
    """Run A's and run B's trials of the same case, condition and epoch (both streams in
    key order, merged as they come)."""
    iter_a = iter(trials_a)
    current = next(iter_a, None)
    for trial in trials_b:
        while current is not None and current.key < trial.key:
            current = next(iter_a, None)
        if current is not None and current.key == trial.key and usable(current) \
                and usable(trial):
            yield AnswerPair(trial_case(trial), trial.key, current.output.text,
                             trial.output.text)


def read_answer_pairs(store: Store, run_a: RunRecord, run_b: RunRecord) -> list[AnswerPair]:
    """Every answer pair of the two runs, read at once: in the caller's moment of the store
    (`one_moment`), which then ends before the judge is asked. Judging is minutes of LLM
    calls, and a read held open that long keeps SQLite's write-ahead log from being
    checkpointed, so it grows while other runs write."""
    return list(answer_pairs(store.iter_trials(run_a.id), store.iter_trials(run_b.id)))


async def judge_one(job: PairJob) -> Score:
    """One pair's verdict; a failure of the judge is the pair's error, never a verdict."""
    # each epoch's pair is its own sample, in the cache too; the verdict's trial pays for it
    with trial_epoch(job.key[2], job.key):
        try:
            return await job.scorer.judge_pair(job.case, job.answer_a, job.answer_b,
                                               against=job.against)
        except AssayError:
            raise  # a bad key or a spent budget stops the judging
        except Exception as exc:  # noqa: BLE001 - the provider already retried
            return Score.failure(f"pairwise judge failed: {type(exc).__name__}: {exc}")


async def compare_runs_pairwise(store: Store, run_a: RunRecord, run_b: RunRecord,
                                pairs: Sequence[AnswerPair], *, judge_model: str | None,
                                concurrency: int | None = None) -> list[PairwiseResult]:
    """Run B's answers against run A's (`pairs`, from `read_answer_pairs`), case by case,
    per condition, asked in both orders.

    The judge is run B's `pairwise` scorer when its config has one (its model, prompt and
    repeats), else the built-in pairwise judge with run B's judge model; `judge_model`
    replaces the model either way.
    """
    from assay.judging.stored_config import stored_config
    from assay.services import Services

    loaded = stored_config(run_b)
    services = Services(base_dir=loaded.base_dir, config=loaded.config, store=store)
    judge = pair_judge(loaded, services, judge_model, run_id=run_b.id)
    verdicts: dict[str, list[OrderedVerdicts]] = {}
    failures = JudgeFailures()
    try:
        await judge.setup()
        jobs = (PairJob(judge, pair.case, pair.key, pair.answer_a, pair.answer_b, run_a.id)
                for pair in pairs)
        async for job, score in bounded_map(jobs, judge_one,
                                            concurrency=concurrency or loaded.config.run
                                            .concurrency):
            failures.add(score)
            details = score.details or {}
            name = job.key[0] if job.key[2] == 0 else f"{job.key[0]}#{job.key[2]}"
            verdicts.setdefault(job.key[1], []).append(OrderedVerdicts(
                name, details.get("a_first") if score.error is None else None,
                details.get("b_first") if score.error is None else None))
    finally:
        await services.aclose()
    if not verdicts:
        raise UserError(f"runs {run_a.id} and {run_b.id} share no answered case, condition "
                        "and epoch to compare")
    failures.refuse_no_verdict()
    return adjust_pairwise([pairwise_result(found, label_a=f"{condition} in {run_a.id}",
                                            label_b=f"{condition} in {run_b.id}",
                                            scorer=judge.name)
                            for condition, found in verdicts.items()])


@dataclass(slots=True)
class JudgeFailures:
    """The pairs asked and the ones the judge gave no verdict on. A judge that failed on
    every pair (down, a misspelt model, replies it cannot read) left `assay compare
    --pairwise` printing rows of dashes and exiting 0, where `assay run`, `rejudge`,
    `calibrate` and `traces` stop with exit 3 and the judge's first error."""

    asked: int = 0
    failed: int = 0
    first_error: str | None = None

    def add(self, score: Score) -> None:
        self.asked += 1
        if score.error is not None:
            self.failed += 1
            self.first_error = self.first_error or score.error

    def refuse_no_verdict(self) -> None:
        """Raise `RunFailed` (exit 3) when pairs were asked and none got a verdict."""
        if self.asked and self.failed == self.asked:
            raise RunFailed(f"the pairwise judge failed on every pair ({self.failed} of "
                            f"{self.asked}), so there is no verdict; first error: "
                            f"{(self.first_error or '')[:300]}")


def pair_judge(loaded: LoadedConfig, services: Services, judge_model: str | None, *,
               run_id: str) -> PairwiseJudge:
    """The config's pairwise scorer, or the built-in one; with `judge_model` if given.

    A run whose config names no judge model (no `judge:`, no pairwise scorer's `model:`)
    is refused with the flag that gives one: the scorer's own refusal asks for a config
    key, and `assay compare` has no config to edit."""
    from assay.scorers.judges.pairwise import PairwiseJudge

    params = next((p for p in loaded.scorer_params if getattr(p, "type", None) == "pairwise"),
                  None)
    data = params.model_dump(exclude_unset=True) if params is not None else {"type": "pairwise"}
    if judge_model:
        data["model"] = judge_model
    if not data.get("model") and not loaded.config.judge.model:
        raise UserError(f"run {run_id} names no judge model (its config gives no judge.model),"
                        " so --pairwise has no judge: give one with --judge-model provider/model")
    data["against"] = "conditions"
    return PairwiseJudge(PairwiseJudge.Params.model_validate(data), services)
