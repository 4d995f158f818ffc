"""One trial keeps whatever its target or scorers do to themselves: an error, a timeout,
`sys.exit()`, a catastrophic regex; none of it ends the run or hangs it."""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.output import Output, Usage
from assay.providers.config import ProviderConfig
from assay.providers.ledger import Ledger
from assay.providers.pool import ProviderPool
from assay.runner import deadline
from assay.runner.trial import run_trial
from assay.score import Score
from assay.scorers.custom import PythonScorer
from assay.scorers.judges.kinds import JudgeScore
from assay.scorers.text import Contains, Regex
from assay.scorers.tool_calls import ToolCalls
from assay.services import Services
from assay.targets.python import PythonParams, PythonTarget
from assay.testing import FakeLLM, FakeRequest, Fault, Reply, Rule
from assay.trial import TrialResult
from assay.workers import WorkerPool, using

CASE = Case(id="c1", input="q", expected="x")


def trial(function: Callable[..., Any], scorers: list[Any] | None = None, *,
          threaded: bool = True, timeout: float | None = 5.0) -> TrialResult:
    target = PythonTarget(PythonParams(type="python", function=function, threaded=threaded),
                          Condition(name="default"), Services())
    chosen = scorers if scorers is not None else [Contains(Contains.Params(type="contains"),
                                                           Services())]

    async def go() -> TrialResult:
        pool = WorkerPool(2)
        with using(pool):
            await target.start()
            result = await run_trial(target, CASE, Condition(name="default"), 0, chosen,
                                     timeout)
        pool.shutdown(wait=False)
        return result

    return asyncio.run(go())


def bounded_trial(function: Callable[..., Any], max_output_bytes: int = 1_000) -> TrialResult:
    """One trial of `function`, unscored, its output bounded at `max_output_bytes`."""
    target = PythonTarget(PythonParams(type="python", function=function),
                          Condition(name="default"), Services())

    async def go() -> TrialResult:
        await target.start()
        return await run_trial(target, CASE, Condition(name="default"), 0, [], 5.0,
                               max_output_bytes=max_output_bytes)

    return asyncio.run(go())


def python_scorer(function: Callable[..., Any], **params: Any) -> PythonScorer:
    return PythonScorer(PythonScorer.Params(type="python", function=function, **params),
                        Services())


def exits_zero(case: Case) -> str:
    sys.exit(0)


async def exits_async(case: Case) -> str:
    sys.exit(3)


def raises_keyboard_interrupt(case: Case) -> str:
    raise KeyboardInterrupt


async def raises_keyboard_interrupt_async(case: Case) -> str:
    raise KeyboardInterrupt


def presses_ctrl_c_twice(case: Case) -> str:
    """The first Ctrl-C asks the run to stop; the second raises where this function runs."""
    signal.raise_signal(signal.SIGINT)
    signal.raise_signal(signal.SIGINT)
    return "not reached"


def closes_a_generator(case: Case) -> str:
    raise GeneratorExit


class Abort(BaseException):
    """A user's own BaseException, not an Exception."""


def aborts(case: Case) -> str:
    raise Abort("stop")


async def aborts_async(case: Case) -> str:
    raise Abort("stop")


@pytest.mark.parametrize(("function", "threaded", "said"), [
    (exits_zero, True, "called sys.exit(0)"),
    (exits_zero, False, "called sys.exit(0)"),
    (exits_async, True, "called sys.exit(3)"),
    (raises_keyboard_interrupt, True, "raised KeyboardInterrupt"),
    # regression: on the event loop, the function's own KeyboardInterrupt stopped the run
    # as Ctrl-C does
    (raises_keyboard_interrupt, False, "raised KeyboardInterrupt"),
    (raises_keyboard_interrupt_async, True, "raised KeyboardInterrupt"),
    (closes_a_generator, False, "raised GeneratorExit"),
    # regression: a BaseException of the user's own escaped with a traceback, exit 1 and
    # the batch in flight lost
    (aborts, True, "raised Abort: stop"),
    (aborts, False, "raised Abort: stop"),
    (aborts_async, True, "raised Abort: stop"),
])
def test_a_target_leaving_the_interpreter_is_that_trials_error_not_the_runs_exit(
        function: Callable[..., Any], threaded: bool, said: str) -> None:
    result = trial(function, threaded=threaded)
    assert result.output.error is not None and said in result.output.error
    assert function.__name__ in result.output.error
    assert result.scores == {}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_while_a_target_runs_on_the_event_loop_stops_the_run_not_the_trial() -> None:
    """Python raises Ctrl-C's KeyboardInterrupt in the main thread, in whatever runs there:
    a second press while a `threaded: false` target ran was stored as that trial's error."""
    with pytest.raises(KeyboardInterrupt):
        trial(presses_ctrl_c_twice, threaded=False)


def test_a_scorer_function_calling_sys_exit_is_a_scorer_error_on_the_trial() -> None:
    def judge(case: Case, output: Output) -> bool:
        sys.exit(0)

    result = trial(lambda case: "x", [python_scorer(judge)])
    assert result.output.error is None
    assert "judge called sys.exit(0)" in (result.scores["python"].error or "")


@pytest.mark.parametrize("threaded", [True, False])
def test_a_scorer_raising_its_own_base_exception_is_a_scorer_error_on_the_trial(
        threaded: bool) -> None:
    def judge(case: Case, output: Output) -> bool:
        raise Abort("stop")

    async def judge_async(case: Case, output: Output) -> bool:
        raise Abort("stop")

    result = trial(lambda case: "x", [python_scorer(judge if threaded else judge_async)],
                   threaded=threaded)
    assert "raised Abort: stop" in (result.scores["python"].error or "")


def test_a_scorer_that_never_returns_times_out_and_the_other_scorers_keep_their_verdicts(
) -> None:
    release = threading.Event()

    def stuck(case: Case, output: Output) -> bool:
        release.wait(30)
        return True

    started = time.monotonic()
    scorers = [Contains(Contains.Params(type="contains"), Services()),
               python_scorer(stuck, name="stuck")]
    result = trial(lambda case: "x", scorers, timeout=0.5)
    release.set()
    assert time.monotonic() - started < 10
    assert result.scores["contains"].passed is True
    assert "timeout: the scorer did not finish within 0.5s" in (result.scores["stuck"].error
                                                                 or "")


async def ignores_cancellation(case: Case, *rest: Any) -> bool:
    """User code that swallows every cancellation and waits on."""
    while True:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            pass


def test_a_target_ignoring_its_cancellation_times_out_not_hangs_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An async target with `except CancelledError: pass` in a loop held its trial (the
    run, Ctrl-C and SIGTERM with it) for ever past `run.timeout`."""
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.2)
    started = time.monotonic()
    result = trial(ignores_cancellation, timeout=0.2)
    assert time.monotonic() - started < 10
    assert result.output.error == "timeout: no answer within 0.2s"


def test_an_async_scorer_ignoring_its_cancellation_times_out_not_hangs_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.2)
    started = time.monotonic()
    scorers = [Contains(Contains.Params(type="contains"), Services()),
               python_scorer(ignores_cancellation, name="stuck")]
    result = trial(lambda case: "x", scorers, timeout=0.2)
    assert time.monotonic() - started < 10
    assert result.scores["contains"].passed is True
    assert "timeout: the scorer did not finish within 0.2s" in (result.scores["stuck"].error
                                                                 or "")


def test_a_catastrophic_regex_is_a_scorer_error_not_a_hang() -> None:
    regex = Regex(Regex.Params(type="regex", pattern=r"(a+)+$"), Services())
    started = time.monotonic()
    result = trial(lambda case: "a" * 5000 + "!", [regex], timeout=None)
    assert time.monotonic() - started < 30  # `re` would never return
    assert "catastrophic backtracking" in (result.scores["regex"].error or "")


def test_a_scorer_with_nothing_to_judge_gives_no_verdict_and_says_so() -> None:
    tool_calls = ToolCalls(ToolCalls.Params(type="tool_calls"), Services())
    result = trial(lambda case: "x", [tool_calls])
    assert result.scores == {}
    assert result.output.metadata["not_applicable"] == ["tool_calls"]


def test_a_scorer_returning_a_score_inline_is_not_sent_to_a_thread() -> None:
    seen: list[str] = []

    class Inline(Contains):
        def check(self, case: Case, output: Output) -> Score:
            seen.append(threading.current_thread().name)
            return Score.binary(True)

    result = trial(lambda case: "x", [Inline(Contains.Params(type="contains"), Services())])
    assert result.scores["contains"].passed is True
    assert seen == [threading.main_thread().name]


def test_an_answer_longer_than_max_output_bytes_is_cut_and_the_cut_recorded() -> None:
    result = bounded_trial(lambda case: "ab" * 1_000_000)
    assert result.output.text == "ab" * 500
    assert result.output.metadata["truncated"]["bytes"] == 2_000_000


def test_metadata_and_tool_call_arguments_past_max_output_bytes_are_cut_and_the_cut_recorded(
) -> None:
    """Regression: only the text was cut; a 30 MB metadata string and 20 MB of tool-call
    arguments were stored whole."""
    def flooding(case: Case) -> dict[str, Any]:
        return {"output": "yes", "metadata": {"blob": "m" * 3_000_000, "kind": "x"},
                "tool_calls": [{"name": "t", "arguments": {"a": "q" * 2_000_000}},
                               {"name": "u", "arguments": {"b": 1}}]}

    output = bounded_trial(flooding).output
    assert output.text == "yes"
    assert len(json.dumps(output.to_dict())) < 3_000
    assert output.metadata["blob"] == "m" * (1_000 - 2 - 2)
    cut = output.metadata["truncated_parts"]
    assert cut["metadata"]["bytes"] > 3_000_000
    assert cut["metadata"]["kept_bytes"] <= 1_000
    assert cut["tool_calls"]["bytes"] > 2_000_000
    assert cut["tool_calls"]["calls"] == 2 and cut["tool_calls"]["kept_calls"] == 1
    assert output.tool_calls[0].name == "t"
    assert output.tool_calls[0].arguments["a"].startswith("q" * 900)


@pytest.mark.parametrize("part", ["metadata", "tool_calls", "transcript"])
def test_an_answer_part_that_contains_itself_is_the_trials_error_not_a_hang(part: str) -> None:
    """Regression: metadata holding a reference to itself sent the bounding of the answer's
    parts into an endless walk; the run printed nothing and never ended."""
    def looping(case: Case) -> dict[str, Any]:
        loop: dict[str, Any] = {"note": "x"}
        loop["self"] = loop
        parts = {"metadata": {"trace": loop},
                 "tool_calls": [{"name": "t", "arguments": {"a": loop}}],
                 "transcript": [{"role": "user", "content": "q", "extra": loop}]}
        return {"output": "x", part: parts[part]}

    finished: list[TrialResult] = []
    worker = threading.Thread(target=lambda: finished.append(bounded_trial(looping)),
                              daemon=True)
    worker.start()
    worker.join(30)
    assert finished, "the trial never ended"
    output = finished[0].output
    assert output.error is not None
    assert part in output.error and "refers to itself" in output.error, output.error


def test_small_metadata_and_tool_calls_are_kept_as_they_are() -> None:
    def small(case: Case) -> dict[str, Any]:
        return {"output": "x", "metadata": {"model": "m1", "steps": [1, 2]},
                "tool_calls": [{"name": "search", "arguments": {"q": "x"}, "result": "ok"}]}

    output = bounded_trial(small).output
    assert output.metadata == {"model": "m1", "steps": [1, 2]}
    assert output.tool_calls[0].arguments == {"q": "x"}
    assert output.tool_calls[0].result == "ok"


def test_a_lone_surrogate_in_an_answer_is_replaced_and_noted() -> None:
    """Regression: a reply cut in the middle of an emoji could not be stored."""
    result = trial(lambda case: "half an emoji \ud83d")
    assert result.output.text == "half an emoji \ufffd"
    assert result.output.metadata["replaced_surrogates"] == 1
    result.output.text.encode("utf-8")  # storable


def test_a_secret_in_a_trial_error_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef123456")

    def leaky(case: Case) -> str:
        raise RuntimeError("401 for key sk-live-abcdef123456")

    result = trial(leaky)
    assert result.output.error == "RuntimeError: 401 for key ***"


def test_inline_scorers_keep_their_order_and_a_secret_in_their_error_is_masked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef123456")

    class Leaky(Contains):
        def check(self, case: Case, output: Output) -> Score:
            raise RuntimeError("refused key sk-live-abcdef123456")

    first = Regex(Regex.Params(type="regex", name="first", pattern="x"), Services())
    leaky = Leaky(Contains.Params(type="contains", name="leaky"), Services())
    last = Contains(Contains.Params(type="contains", name="last"), Services())
    result = trial(lambda case: "x", [first, leaky, last])
    assert list(result.scores) == ["first", "leaky", "last"]
    assert result.scores["leaky"].error == "scorer failed: RuntimeError: refused key ***"
    assert (result.scores["first"].passed, result.scores["last"].passed) == (True, True)


def judge_over(llm: FakeLLM, **params: Any) -> JudgeScore:
    """A judge_score judge whose model `openai/gpt-4.1` is the fake server at `llm`."""
    services = services_over(llm)
    return JudgeScore(JudgeScore.Params.model_validate(
        {"type": "judge_score", "model": "openai/gpt-4.1", **params}), services)


def test_a_judge_cut_by_the_deadline_keeps_the_cost_of_the_asks_it_was_answered() -> None:
    """Regression: a judge asked twice (`repeats: 2`) whose second ask hung past
    run.timeout stored no tokens or cost on its timed-out score, though its first ask was
    answered and paid: the run's judge cost read $0.0016 beside the $0.0051 that the
    ledger's calls per model said the judge's calls cost."""
    asks = itertools.count()

    def first_answered_then_hangs(request: FakeRequest) -> Reply:
        return Reply(json={"reason": "right", "score": 8},
                     latency=30 if next(asks) else None)

    with FakeLLM(default=first_answered_then_hangs) as llm:
        judge = judge_over(llm, repeats=2)
        result = trial(lambda case: "x", [judge], timeout=1)
    score = result.scores["judge_score"]
    assert score.error == "timeout: the scorer did not finish within 1s"
    assert score.usage is not None and score.usage.calls == 1
    assert score.usage.input_tokens > 0 and (score.usage.cost_usd or 0) > 0
    ledger = judge.services.providers.stats().total  # type: ignore[union-attr]
    assert (ledger.calls, ledger.cost_usd) == (1, score.usage.cost_usd)


def test_a_target_cut_by_the_deadline_keeps_the_calls_it_was_answered() -> None:
    """An agent answered on its first turn and left waiting on its next call had the
    first call counted in the run's ledger but not on its timed-out trial."""
    ledger = Ledger()

    async def answered_once_then_waits(case: Case) -> str:
        ledger.record("openai/gpt-4.1", Usage(input_tokens=120, output_tokens=30,
                                              cost_usd=0.0005, calls=1))
        await asyncio.sleep(30)
        return "never"

    result = trial(answered_once_then_waits, timeout=0.5)
    assert result.output.error == "timeout: no answer within 0.5s"
    assert result.output.usage == Usage(input_tokens=120, output_tokens=30, cost_usd=0.0005,
                                        calls=1)


def test_a_scorer_that_fails_without_calls_has_no_usage() -> None:
    async def fails(case: Case, output: Output) -> bool:
        raise RuntimeError("no verdict")

    result = trial(lambda case: "x", [python_scorer(fails)])
    assert result.scores["python"].usage is None


def services_over(llm: FakeLLM, timeout: float = 60) -> Services:
    """Services whose provider `openai` is the fake server at `llm`, each call given
    `timeout` seconds."""
    services = Services()
    services.providers = ProviderPool(
        {"openai": ProviderConfig(name="openai", kind="openai", base_url=llm.base_url,
                                  timeout=timeout)},
        environ={"OPENAI_API_KEY": "sk-test-trial"}, warn=services.warn)
    return services


RATE_LIMITED_FOR_AN_HOUR = Reply(fault=Fault("rate_limit", retry_after=3600))


def model_trial(llm: FakeLLM, timeout: float, call_timeout: float = 60) -> TrialResult:
    """One unscored trial of a model target whose model is the fake server at `llm`."""
    from assay.targets.model import ModelParams, ModelTarget

    target = ModelTarget(ModelParams(type="model", model="openai/gpt-4.1"),
                         Condition(name="default"), services_over(llm, call_timeout))

    async def go() -> TrialResult:
        await target.start()
        return await run_trial(target, CASE, Condition(name="default"), 0, [], timeout)

    return asyncio.run(go())


def test_a_model_cut_by_the_deadline_while_it_waits_out_a_429_says_so() -> None:
    """Regression: a model whose API answered 429 with Retry-After: 3600 stored only
    'timeout: no answer within 5s', as if the model were slow: nothing said that each call
    was turned away and waiting to be sent again."""
    with FakeLLM(default=RATE_LIMITED_FOR_AN_HOUR) as llm:
        result = model_trial(llm, timeout=5)
    assert result.output.error == (
        "timeout: no answer within 5s; openai/gpt-4.1 was waiting 60s to try again (retry 1 "
        "of 4; Retry-After asked for 3600s) after HTTP 429 rate limited: Rate limit reached; "
        "slow down.")


def test_a_judge_cut_by_the_deadline_while_it_waits_out_a_429_says_so() -> None:
    """Regression: the judge's score said only 'timeout: the scorer did not finish within
    5s' while its every call was turned away by a 429 asking for an hour."""
    with FakeLLM(default=RATE_LIMITED_FOR_AN_HOUR) as llm:
        result = trial(lambda case: "x", [judge_over(llm)], timeout=5)
    error = result.scores["judge_score"].error
    assert error is not None and error.startswith(
        "timeout: the scorer did not finish within 5s; openai/gpt-4.1 was waiting 60s to try "
        "again (retry 1 of 4; Retry-After asked for 3600s) after HTTP 429 rate limited")


def test_a_model_cut_by_the_deadline_while_a_retry_is_under_way_names_the_try_before() -> None:
    """Regression: a call that failed (HTTP 500) and was sent again to an endpoint that then
    never answered stored only 'timeout: no answer within 5s'."""
    failed_then_hangs = Rule(reply=[Reply(fault=Fault("server_error")),
                                    Reply(fault=Fault("timeout", hang_seconds=60))])
    with FakeLLM([failed_then_hangs]) as llm:
        result = model_trial(llm, timeout=5)
    assert result.output.error == (
        "timeout: no answer within 5s; openai/gpt-4.1 was on its retry 1 of 4 (the try "
        "before: HTTP 500 server error: Internal server error.)")
