"""The pipeline keeps `concurrency` trials in flight and turns failures into errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.datasets.dataset import open_dataset
from assay.errors import RunFailed, StoreError
from assay.output import Output
from assay.runner.pipeline import PipelineStats, run_pipeline
from assay.runner.plan import Plan
from assay.score import Score
from assay.trial import TrialResult


class CountingTarget:
    def __init__(self, fail: set[str] | None = None) -> None:
        self.in_flight = 0
        self.peak = 0
        self.calls: list[str] = []
        self.fail = fail or set()

    async def answer(self, case: Case) -> Output:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self.calls.append(case.id)
        await asyncio.sleep(0.001)
        self.in_flight -= 1
        if case.id in self.fail:
            raise ConnectionError("unreachable")
        return Output(text=case.input_text)


def make_plan(tmp_path: Path, cases: int, target: CountingTarget, epochs: int = 1) -> Plan:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(f'{{"id": "c{i}", "input": "q{i}"}}\n' for i in range(cases)))
    conditions = [Condition(name="a"), Condition(name="b")]
    return Plan(dataset=open_dataset(path), conditions=conditions,
                targets={"a": target, "b": target}, scorers=[], epochs=epochs)  # type: ignore[dict-item]


BOTH_WAYS = pytest.mark.parametrize("in_thread", [False, True], ids=["on-the-loop", "in-a-thread"])
"""Batches committed on the event loop (a SQLite file), and in a thread (a store across a
network): a test so marked holds for both."""


def run(plan: Plan, **kwargs: object) -> list[TrialResult]:
    committed: list[TrialResult] = []
    settings = {"concurrency": 4, "timeout": 5.0, "batch_size": 7, **kwargs}
    asyncio.run(run_pipeline(plan, committed.extend, **settings))  # type: ignore[arg-type]
    return committed


@BOTH_WAYS
def test_every_trial_runs_once_with_bounded_concurrency(tmp_path: Path, in_thread: bool) -> None:
    target = CountingTarget()
    committed = run(make_plan(tmp_path, 30, target, epochs=2), commit_in_thread=in_thread)
    keys = [r.key for r in committed]
    assert len(keys) == len(set(keys)) == 30 * 2 * 2
    assert target.peak == 4


def test_trials_already_stored_are_skipped(tmp_path: Path) -> None:
    target = CountingTarget()
    plan = make_plan(tmp_path, 10, target)
    plan.skip = {(f"c{i}", "a", 0) for i in range(5)}
    committed = run(plan)
    assert len(committed) == 15 and ("c0", "a", 0) not in {r.key for r in committed}


def test_a_target_exception_becomes_an_error_on_that_trial_only(tmp_path: Path) -> None:
    committed = run(make_plan(tmp_path, 5, CountingTarget(fail={"c2"})))
    errors = {r.key: r.output.error for r in committed if r.output.error}
    assert errors == {("c2", "a", 0): "ConnectionError: unreachable",
                      ("c2", "b", 0): "ConnectionError: unreachable"}


def test_the_error_budget_stops_the_run_and_keeps_what_finished(tmp_path: Path) -> None:
    target = CountingTarget(fail={f"c{i}" for i in range(100)})
    committed: list[TrialResult] = []
    with pytest.raises(RunFailed, match="error budget reached"):
        asyncio.run(run_pipeline(make_plan(tmp_path, 100, target), committed.extend,
                                 concurrency=2, timeout=5.0, batch_size=5, max_errors=10))
    assert 10 <= len(committed) < 200


@BOTH_WAYS
def test_the_error_budget_stops_the_run_at_the_trial_that_spends_it_not_a_batch_later(
        tmp_path: Path, in_thread: bool) -> None:
    """Regression: the budget was checked only when a batch was committed (every 200 trials),
    so `max_errors: 10` let 100 trials fail before the run stopped."""
    target = CountingTarget(fail={f"c{i}" for i in range(100)})
    committed: list[TrialResult] = []
    with pytest.raises(RunFailed, match="error budget reached: 3 trials failed"):
        asyncio.run(run_pipeline(make_plan(tmp_path, 100, target), committed.extend,
                                 concurrency=1, timeout=5.0, batch_size=200, max_errors=3,
                                 commit_in_thread=in_thread))
    assert len(committed) == 3


def test_an_error_budget_of_one_says_one_trial_failed(tmp_path: Path) -> None:
    """Regression: `max_errors: 1` stopped with 'error budget reached: 1 trials failed'."""
    target = CountingTarget(fail={f"c{i}" for i in range(10)})
    with pytest.raises(RunFailed, match="error budget reached: 1 trial failed "):
        asyncio.run(run_pipeline(make_plan(tmp_path, 10, target), [].extend,
                                 concurrency=1, timeout=5.0, batch_size=200, max_errors=1))


@pytest.mark.parametrize("concurrency", [1, 8])
@BOTH_WAYS
def test_the_error_budget_message_counts_every_failed_trial_stored(
        tmp_path: Path, in_thread: bool, concurrency: int) -> None:
    """Trials in flight when the budget is spent still finish and are stored: the message
    counts them too, so it matches the store."""
    target = CountingTarget(fail={f"c{i}" for i in range(200) if i % 2})
    committed: list[TrialResult] = []
    with pytest.raises(RunFailed) as stopped:
        asyncio.run(run_pipeline(make_plan(tmp_path, 200, target), committed.extend,
                                 concurrency=concurrency, timeout=5.0, batch_size=200,
                                 max_errors=10, commit_in_thread=in_thread))
    failed = sum(1 for r in committed if r.output.error)
    assert 10 <= failed < 10 + concurrency
    assert f"error budget reached: {failed} trials failed" in str(stopped.value)


def test_scorer_errors_count_towards_the_error_budget(tmp_path: Path) -> None:
    from assay.score import Score

    class BrokenScorer:
        name, is_sync = "broken", True

        def check(self, case: Case, output: Output) -> Score:
            return Score.failure("judge unreachable")

    plan = make_plan(tmp_path, 20, CountingTarget())
    plan.scorers = [BrokenScorer()]  # type: ignore[list-item]
    with pytest.raises(RunFailed, match="broken: judge unreachable"):
        asyncio.run(run_pipeline(plan, lambda batch: None, concurrency=2, timeout=5.0,
                                 batch_size=5, max_errors=5))


@pytest.mark.parametrize("batch_size", [1, 200], ids=["one-a-batch", "large-batches"])
@BOTH_WAYS
def test_a_run_of_consecutive_failures_stops_the_run_on_time_whatever_the_batch_size(
        tmp_path: Path, in_thread: bool, batch_size: int) -> None:
    target = CountingTarget(fail={f"c{i}" for i in range(5, 100)})
    committed: list[TrialResult] = []
    with pytest.raises(RunFailed, match="the last 10 trials ended in an error"):
        asyncio.run(run_pipeline(make_plan(tmp_path, 100, target), committed.extend,
                                 concurrency=1, timeout=5.0, batch_size=batch_size,
                                 max_consecutive_errors=10, commit_in_thread=in_thread))
    assert len(committed) == 20  # 10 good trials (5 cases x 2 conditions), then 10 failures


def test_sync_targets_get_as_many_threads_as_trials_in_flight(tmp_path: Path) -> None:
    import threading
    import time as clock

    from assay.services import Services
    from assay.targets.python import PythonParams, PythonTarget

    barrier = threading.Barrier(12, timeout=5)

    def answer(case: Case) -> str:
        barrier.wait()  # passes only when 12 calls run at once
        return "ok"

    path = tmp_path / "cases.jsonl"
    path.write_text("".join(f'{{"id": "c{i}", "input": "q"}}\n' for i in range(12)))
    condition = Condition(name="a")
    target = PythonTarget(PythonParams(type="python", function=answer), condition, Services())
    asyncio.run(target.start())
    plan = Plan(dataset=open_dataset(path), conditions=[condition], targets={"a": target},
                scorers=[], epochs=1)
    started = clock.monotonic()
    committed = run(plan, concurrency=12)
    assert len(committed) == 12 and all(r.output.error is None for r in committed)
    assert clock.monotonic() - started < 5


def test_a_run_in_which_every_trial_failed_could_not_complete(tmp_path: Path) -> None:
    """Regression: a small run whose every trial failed used to exit 0 as completed."""
    target = CountingTarget(fail={f"c{i}" for i in range(3)})
    with pytest.raises(RunFailed, match=r"every trial failed \(6 of 6\)"):
        asyncio.run(run_pipeline(make_plan(tmp_path, 3, target), lambda batch: None,
                                 concurrency=2, timeout=5.0, batch_size=100))


def test_a_judge_unreadable_on_every_case_beside_a_valid_scorer_is_counted_not_unusable(
        tmp_path: Path) -> None:
    """Regression: a judge whose replies never parsed made the run exit 3 "every trial failed,
    nothing to score" although exact_match had scored every trial. The trials are usable;
    the judge is counted as a scorer with no value yet, which the session stops the run on
    (`tests/cli/test_run_command.py`), and is not once it reads one reply."""
    class UnreadableJudge:
        name, is_sync = "judge", False
        readable: ClassVar[set[str]] = set()

        async def score(self, case: Case, output: Output) -> Score:
            if case.id in self.readable:
                return Score(value=7.0, passed=True)
            return Score.failure("unreadable judge reply: no score")

    class Exact:
        name, is_sync, bounded = "exact", True, True

        def check(self, case: Case, output: Output) -> Score:
            return Score.binary(True)

    def stats_of(plan: Plan) -> PipelineStats:
        return asyncio.run(run_pipeline(plan, committed.extend, concurrency=4, timeout=5.0,
                                        batch_size=7))

    judge = UnreadableJudge()
    plan = make_plan(tmp_path, 3, CountingTarget())
    plan.scorers = [judge, Exact()]  # type: ignore[list-item]
    committed: list[TrialResult] = []
    assert stats_of(plan).scorer_errors == {"judge": 6}
    assert len(committed) == 6
    assert all(r.scores["exact"].passed and r.scores["judge"].error for r in committed)
    judge.readable = {"c1"}
    assert stats_of(plan).scorer_errors == {}

    judge.readable = set()
    plan.scorers = [judge]  # type: ignore[list-item]
    with pytest.raises(RunFailed, match="every trial failed"):
        run(plan)


def test_a_resume_whose_every_trial_failed_is_not_a_failed_run_when_earlier_ones_answered(
        tmp_path: Path) -> None:
    """Regression: after Ctrl-C, a resume that ran only failing trials was stopped as
    "every trial failed (92 of 92)", exit 3, although the run already had 100 answers."""
    target = CountingTarget(fail={f"c{i}" for i in range(5, 10)})
    plan = make_plan(tmp_path, 10, target)
    plan.skip = {(f"c{i}", c, 0) for i in range(5) for c in "ab"}
    assert len(run(plan, answered_before=10)) == 10
    with pytest.raises(RunFailed, match=r"every trial failed \(10 of 10\)"):
        run(plan, answered_before=0)


@BOTH_WAYS
def test_trials_that_finished_are_committed_while_another_trial_still_hangs(
        tmp_path: Path, in_thread: bool) -> None:
    """With the other trials done, the ones finished waited in memory until the hung trial's
    timeout (120 s by default): a kill -9 then lost them all."""
    released = asyncio.Event()
    committed_while_hung: list[int] = []

    class HangsOnC0(CountingTarget):
        async def answer(self, case: Case) -> Output:
            if case.id == "c0":
                await released.wait()
            return Output(text="x")

    committed: list[TrialResult] = []

    async def go() -> None:
        async def release_later() -> None:
            await asyncio.sleep(1.0)
            committed_while_hung.append(len(committed))
            released.set()

        releaser = asyncio.create_task(release_later())
        await run_pipeline(make_plan(tmp_path, 4, HangsOnC0()), committed.extend,
                           concurrency=3, timeout=30.0, batch_size=100, commit_in_thread=in_thread)
        await releaser

    asyncio.run(go())
    assert committed_while_hung == [6]  # all but c0 under both conditions
    assert len(committed) == 8


def test_a_run_stopped_by_one_error_in_a_row_says_the_last_trial_not_the_last_1_trials(
        tmp_path: Path) -> None:
    """Regression: `max_consecutive_errors: 1` stopped with 'the last 1 trials all ended in
    an error'."""
    target = CountingTarget(fail={"c0"})
    with pytest.raises(RunFailed, match=r"^the last trial ended in an error \(run\."):
        asyncio.run(run_pipeline(make_plan(tmp_path, 4, target), lambda batch: None,
                                 concurrency=1, timeout=5.0, batch_size=1,
                                 max_consecutive_errors=1))


class HangsOnC0(CountingTarget):
    async def answer(self, case: Case) -> Output:
        if case.id == "c0":
            await asyncio.sleep(30)
        return Output(text="x")


def refusing_commit(results: list[TrialResult]) -> None:
    raise StoreError("the store db stopped answering (no answer to a statement within 120s)")


@BOTH_WAYS
def test_ctrl_c_while_the_store_does_not_answer_still_stops_the_run_as_interrupted(
        tmp_path: Path, in_thread: bool) -> None:
    """The last commit, made on the way out of a stopped run, failed on a store that did not
    answer, and its error replaced the cancellation: `assay run` exited 3, not 130."""
    async def stopped() -> None:
        main = asyncio.current_task()
        assert main is not None
        asyncio.get_running_loop().call_later(0.3, main.cancel)  # as Ctrl-C does
        await run_pipeline(make_plan(tmp_path, 3, HangsOnC0()), refusing_commit,
                           concurrency=4, timeout=60.0, batch_size=100, commit_in_thread=in_thread)

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(stopped())


@BOTH_WAYS
def test_a_store_that_fails_the_last_commit_of_a_run_not_stopped_says_so(
        tmp_path: Path, in_thread: bool) -> None:
    with pytest.raises(StoreError, match="stopped answering"):
        asyncio.run(run_pipeline(make_plan(tmp_path, 2, CountingTarget()), refusing_commit,
                                 concurrency=2, timeout=5.0, batch_size=100,
                                 commit_in_thread=in_thread))
