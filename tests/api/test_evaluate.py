"""`assay.evaluate`: an eval from Python, on the engine and store `assay run` uses."""

from __future__ import annotations

import asyncio
import functools
import json
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Case, Condition, Output, Score
from assay.analysis.run_diff import flips
from assay.datasets.memory import records_sha256
from assay.errors import CostBudgetSpent, RunFailed, UserError
from assay.store import Store
from assay.testing import FakeLLM, Reply
from tests.fake_sdks import point_sdks_at

WORDS = ["hello", "world", "assay", "golden", "trial", "judge", "epoch", "store"]
DATA = [{"id": word, "input": word, "expected": word.upper()} for word in WORDS]


def shout(case: Case) -> str:
    return case.input_text.upper()


def shout_but_whisper_world(case: Case) -> str:
    return case.input_text if case.id == "world" else case.input_text.upper()


async def shout_from_version(case: Case, condition: Condition, version: int = 1) -> str:
    """Version 1 forgets every case whose id has an 'o'; version 2 gets them all right."""
    await asyncio.sleep(0)
    forgets = version == 1 and "o" in case.id
    return case.input_text if forgets else case.input_text.upper()


def is_shouted(case: Case, output: Output) -> bool:
    return output.text.isupper()


def length_ratio(case: Case, output: Output) -> dict[str, Any]:
    return {"value": len(output.text) / len(case.expected), "reason": "length vs expected"}


def evaluate(tmp_path: Path, experiment: str = "uppercase", **arguments: Any) -> assay.EvalResult:
    arguments.setdefault("data", DATA)
    arguments.setdefault("task", shout)
    arguments.setdefault("scorers", ["exact_match"])
    return assay.evaluate(experiment, store=tmp_path / "assay.db", **arguments)


async def evaluate_async(tmp_path: Path, experiment: str = "uppercase",
                         **arguments: Any) -> assay.EvalResult:
    arguments.setdefault("data", DATA)
    arguments.setdefault("task", shout)
    arguments.setdefault("scorers", ["exact_match"])
    return await assay.evaluate_async(experiment, store=tmp_path / "assay.db", **arguments)


def stored_runs(tmp_path: Path) -> list[Any]:
    store = Store(str(tmp_path / "assay.db"))
    try:
        return store.list_runs()
    finally:
        store.close()


def test_a_sync_task_with_registered_and_callable_scorers_is_run_scored_and_stored(
        tmp_path: Path) -> None:
    result = evaluate(tmp_path, task=shout_but_whisper_world,
                      scorers=["exact_match", {"type": "contains", "name": "has_it", "case_sensitive": True},
                               is_shouted, length_ratio])

    assert result.summary.scorer_names == ["exact_match", "has_it", "is_shouted",
                                           "length_ratio"]
    assert result.summary.condition_names == ["default"]
    answers = {w: (w if w == "world" else w.upper()) for w in WORDS}
    right = sum(answers[w] == w.upper() for w in WORDS) / len(WORDS)
    for scorer in ("exact_match", "has_it", "is_shouted"):
        stats = result.summary.get(scorer, "default")
        assert stats is not None and (stats.n, stats.pass_rate) == (len(WORDS), right)
    ratio = result.summary.get("length_ratio", "default")
    assert ratio is not None and ratio.pass_rate is None  # a number without a threshold
    assert ratio.mean == pytest.approx(1.0)
    [run] = stored_runs(tmp_path)
    assert (run.id, run.experiment, run.status) == (result.run_id, "uppercase", "completed")
    trials = {t.case_id: t for t in result.trials()}
    assert trials["world"].output.text == "world"
    assert trials["world"].scores["is_shouted"].passed is False
    assert trials["hello"].scores["length_ratio"].reason == "length vs expected"
    assert result.passed and result.gates == [] and result.previous is None


def test_an_async_task_under_two_conditions_is_compared_with_the_baseline(
        tmp_path: Path) -> None:
    result = evaluate(tmp_path, task=shout_from_version, scorers=["exact_match", is_shouted],
                      conditions={"v1": {}, "v2": {"args": {"version": 2}}})

    forgotten = sorted(w for w in WORDS if "o" in w)
    assert result.comparisons.baseline == "v1"
    by_scorer = {e.comparison.scorer: e.comparison for e in result.comparisons.entries}
    assert set(by_scorer) == {"exact_match", "is_shouted"}
    for comparison in by_scorer.values():
        assert (comparison.label_a, comparison.label_b) == ("v1", "v2")
        assert comparison.delta_pp == pytest.approx(100 * len(forgotten) / len(WORDS))
        assert sorted(comparison.wins) == forgotten and comparison.losses == ()


def test_the_second_run_of_an_experiment_is_diffed_with_the_first_per_case(
        tmp_path: Path) -> None:
    first = evaluate(tmp_path, task=shout, scorers=["exact_match", is_shouted])
    second = evaluate(tmp_path, task=shout_but_whisper_world,
                      scorers=["exact_match", is_shouted])

    assert first.previous is None
    diff = second.compare_previous
    assert diff is not None and diff is second.previous
    assert (diff.run_a.id, diff.run_b.id) == (first.run_id, second.run_id)
    assert diff.comparable  # the same records hash the same
    for entry in diff.entries:
        newly_failing, newly_passing = flips(entry)
        assert (newly_failing, newly_passing) == (["world"], [])
        assert entry.comparison.delta_pp == pytest.approx(-100 / len(WORDS))
    assert {e.comparison.scorer for e in diff.entries} == {"exact_match", "is_shouted"}
    other = evaluate(tmp_path, experiment="another", task=shout)
    assert other.previous is None  # history hangs on the experiment's name


def test_gates_and_fail_on_regression_decide_passed(tmp_path: Path) -> None:
    many = [{"id": f"word{i}", "input": f"word {i}", "expected": f"WORD {i}"} for i in range(30)]
    good = evaluate(tmp_path, data=many, gates=[{"scorer": "exact_match", "min_pass_rate": 0.9}])
    assert good.passed and [g.passed for g in good.gates] == [True]

    worse = evaluate(tmp_path, data=many, task=shout_from_version, fail_on_regression=True,
                     gates=[{"scorer": "exact_match", "min_pass_rate": 0.9}])
    stats = worse.summary.get("exact_match", "default")
    assert stats is not None and stats.pass_rate == 0.0  # every id ("word7") has an "o"
    assert not worse.passed
    failed = {g.gate for g in worse.gates if not g.passed}
    assert failed == {"exact_match@default pass rate", "regression exact_match@default pass rate"}


def test_the_stored_config_names_functions_and_keeps_no_secret(tmp_path: Path) -> None:
    def task(case: Case, condition: Condition, api_key: str = "") -> str:
        assert api_key == "sk-live-123"  # the task gets the real value
        return case.input_text.upper()

    result = evaluate(tmp_path, task=task, scorers=["exact_match", is_shouted],
                      conditions={"default": {"args": {"api_key": "sk-live-123"}}}, epochs=2)

    config = result.run.config
    assert config is not None
    here = f"{__name__}:"
    assert config["target"] == {
        "type": "python",
        "function": here + "test_the_stored_config_names_functions_and_keeps_no_secret."
                           "<locals>.task"}
    assert config["scorers"][1] == {"type": "python", "function": here + "is_shouted",
                                    "name": "is_shouted"}
    assert config["conditions"]["default"]["args"]["api_key"] == "***"
    assert "sk-live-123" not in json.dumps(result.to_dict())
    stats = result.summary.get("exact_match", "default")
    assert config["run"]["epochs"] == 2 and (stats.n, stats.judged) == (8, 16)  # cases, trials
    assert result.run.dataset_path == "<memory>"
    assert result.run.dataset_hash == records_sha256(DATA)
    json.dumps(result.to_dict())  # the whole result is JSON-able


def test_a_record_without_input_is_a_user_error_naming_its_index(tmp_path: Path) -> None:
    data = [{"input": "hello", "expected": "HELLO"}, {"question_text": "oops"},
            {"input": "x", "expected_tool_calls": "not a list"}]
    with pytest.raises(UserError) as raised:
        evaluate(tmp_path, data=data)
    message = str(raised.value)
    assert "data[1] [input]: missing key 'input'" in message
    assert "data[2] [expected_tool_calls]" in message
    assert stored_runs(tmp_path) == []  # nothing ran


@pytest.mark.parametrize(("arguments", "expected"), [
    ({"scorers": ["exact_mach"]}, "did you mean 'exact_match'?"),
    ({"scorers": [lambda case, output: True]}, "scorers[0]: a lambda has no name"),
    ({"scorers": "exact_match"}, "scorers must be a list"),
    ({"scorers": [42]}, "scorers[0]: expected a scorer kind's name"),
    ({"task": 42}, "task must be a function"),
    ({"task": {"type": "python", "function": shout, "model": "x"}}, "unknown key 'model'"),
    ({"data": {"input": "hello"}}, "needs a 'path'"),
    ({"data": 42}, "data must be a list of records"),
    ({"data": []}, "the dataset has no records"),
    ({"epochs": 0}, "[run.epochs]"),
    ({"conditions": {"a": {}, "b": 5}}, "conditions['b']: a condition's overrides are a dict"),
    ({"gates": ["exact_match"]}, "gates[0]: a gate is a dict such as"),
    ({"conditions": {"a": {}}, "baseline": "b"}, "baseline 'b' is not a condition"),
    ({"gates": [{"scorer": "nope", "min_pass_rate": 0.5}]}, "unknown scorer 'nope'"),
])
def test_bad_arguments_are_user_errors_that_say_what_to_fix(
        tmp_path: Path, arguments: dict[str, Any], expected: str) -> None:
    with pytest.raises(UserError) as raised:
        evaluate(tmp_path, **arguments)
    assert expected in str(raised.value)


def test_bad_arguments_are_headed_by_assay_evaluate_not_a_file_of_that_name(
        tmp_path: Path) -> None:
    """Regression: an unknown scorer read 'invalid config /home/me/assay.evaluate', a file
    that does not exist, while a missing dataset read 'invalid config assay.evaluate'."""
    with pytest.raises(UserError) as raised:
        evaluate(tmp_path, scorers=["nope"], base_dir=tmp_path)
    assert str(raised.value).startswith("invalid config assay.evaluate\n")
    assert str(tmp_path) not in str(raised.value)


def test_records_of_an_unknown_layout_are_told_what_an_evaluate_call_can_change(
        tmp_path: Path) -> None:
    """Regression: records with no known input key were told to 'map it with
    dataset.fields', a key that records given in memory cannot have."""
    with pytest.raises(UserError) as raised:
        evaluate(tmp_path, data=[{"prompt": "hello", "answer": "HELLO"}])
    message = str(raised.value)
    assert "data[0] [input]: cannot tell which key holds the input (keys: answer, prompt)" \
        in message
    assert "dataset.fields" not in message and "name it 'input' in each record" in message


def test_an_error_of_the_run_is_raised_without_the_check_for_a_running_loop_behind_it(
        tmp_path: Path) -> None:
    def broken(case: Case) -> str:
        raise ValueError("the service is down")

    with pytest.raises(RunFailed) as raised:
        evaluate(tmp_path, task=broken)
    shown = "".join(traceback.format_exception(raised.value))
    assert "no running event loop" not in shown and "During handling" not in shown


async def exits_in_a_task_never_awaited(case: Case) -> str:
    async def exits() -> None:
        sys.exit(0)

    if case.id == "trial":
        asyncio.get_running_loop().create_task(exits())
        await asyncio.sleep(0.05)
    return case.input_text.upper()


def test_sys_exit_in_a_task_the_target_never_awaited_fails_the_run_not_the_program(
        tmp_path: Path) -> None:
    """asyncio lets a task's SystemExit out of the event loop: `assay.evaluate` raised it,
    ending the caller's program with the 0 the user code asked for, as if all went well."""
    with pytest.raises(RunFailed, match=r"called sys.exit\(0\) in an asyncio task it started"):
        evaluate(tmp_path, task=exits_in_a_task_never_awaited)


PROGRAM_STOPPED_BY_SIGTERM = """
import asyncio, os, signal, sys, time
import assay

def stop(signum, frame):
    sys.exit(5)  # the program's own way to stop on SIGTERM

signal.signal(signal.SIGTERM, stop)

async def on_the_loop(case):
    if case.id == "c3":
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs inside this code
    await asyncio.sleep(0.01)
    return "a"

def in_a_thread(case):
    if case.id == "c3":
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs in the main thread's loop
    time.sleep(0.05)
    return "a"

def answers(case):
    return "a"

async def scorer_on_the_loop(case, output):
    return await on_the_loop(case) == output

where = sys.argv[1]
task = {"on_the_loop": on_the_loop, "in_a_thread": in_a_thread, "in_a_scorer": answers}[where]
scorer = scorer_on_the_loop if where == "in_a_scorer" else "exact_match"
result = assay.evaluate("stopped", data=[{"id": f"c{i}", "input": "q", "expected": "a"}
                                         for i in range(200)],
                        task=task, scorers=[scorer], concurrency=2, reports=False,
                        store=sys.argv[2])
print("the run went on to the end", result.passed)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("where", ["on_the_loop", "in_a_thread", "in_a_scorer"])
def test_a_programs_own_sigterm_handler_stops_it_as_it_asks(tmp_path: Path, where: str) -> None:
    """Its `sys.exit(5)` was taken for the target's own: raised inside the target (or a
    scorer), it was that trial's (or score's) error and the run went on; raised in the event loop, it was said as a
    `sys.exit` in a task the target never awaited (RunFailed)."""
    script = tmp_path / "program.py"
    script.write_text(PROGRAM_STOPPED_BY_SIGTERM, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), where, str(tmp_path / "assay.db")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "went on" not in done.stdout and "Traceback" not in done.stderr
    store = Store(str(tmp_path / "assay.db"))
    try:  # stopped as Ctrl-C stops it, not failed ('SystemExit: 5'): a resume goes on
        (run,) = store.list_runs("stopped")
        assert run.status == "interrupted", run.error
    finally:
        store.close()


def test_timeout_none_means_no_deadline_as_null_does_in_a_config(tmp_path: Path) -> None:
    """It was dropped as an unset argument, and the run held each trial to the 300 s
    default; the unset `sample` and `max_errors` are still left out."""
    result = evaluate(tmp_path, timeout=None)
    assert result.run.config["run"] == {"epochs": 1, "concurrency": 8, "timeout": None,
                                        "seed": 0}


def test_a_cost_budget_stops_the_run_and_a_raised_one_finishes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run.max_cost_usd` could not be given from Python: a paid run had no budget."""
    with FakeLLM(default=Reply(text="a", input_tokens=1000, output_tokens=0)) as llm:
        point_sdks_at(llm, monkeypatch)
        arguments: dict[str, Any] = {
            "data": [{"id": f"c{i}", "input": f"q{i}", "expected": "a"} for i in range(12)],
            "task": {"type": "model", "model": "fake/m"}, "scorers": ["contains"],
            "providers": {"fake": {"kind": "openai", "base_url": llm.base_url,
                                   "prices": {"m": {"input_per_mtok": 10, "output_per_mtok": 0}}}},
            "concurrency": 1}  # each call costs $0.01
        with pytest.raises(CostBudgetSpent, match=r"spent \$0\.0400 of \$0\.0350"):
            evaluate(tmp_path, "budgeted", max_cost_usd=0.035, **arguments)
        assert llm.received == 4
        finished = evaluate(tmp_path, "budgeted", max_cost_usd=1, resume=True, **arguments)
    assert finished.summary.get("contains", "default").n == 12 and llm.received == 12


def test_a_partial_task_and_scorer_are_named_after_their_functions(tmp_path: Path) -> None:
    """They were stored as `functools:partial`, and the scorer reported as `partial`."""
    def ends_with(case: Case, output: Output, suffix: str) -> bool:
        return output.text.endswith(suffix)

    result = evaluate(tmp_path, task=functools.partial(shout_from_version, version=2),
                      scorers=[functools.partial(ends_with, suffix="O")])
    assert [stats.scorer for stats in result.summary.scores] == ["ends_with"]
    config = result.run.config
    assert config["target"]["function"].endswith(":shout_from_version")
    assert config["scorers"][0]["function"].endswith(":" + ends_with.__qualname__)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_in_the_callers_event_loop_the_signal_handlers_are_swapped_once_per_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call of an async target swapped the signal handlers twice (to count Ctrl-C, and
    back), which `assay.evaluate` spares by watching its whole loop: the same run awaited
    in the caller's loop took half as long again for fast trials."""
    import signal

    real_signal = signal.signal

    async def shout_at_once(case: Case) -> str:  # done before another call starts
        return case.input_text.upper()

    def swaps_for(cases: int) -> int:
        swaps: list[int] = []
        monkeypatch.setattr(signal, "signal", lambda *a: swaps.append(1) or real_signal(*a))
        data = [{"id": f"c{i}", "input": "a", "expected": "A"} for i in range(cases)]
        asyncio.run(evaluate_async(tmp_path, f"swaps-{cases}", data=data,
                                   task=shout_at_once, reports=False))
        monkeypatch.undo()
        return len(swaps)

    before = real_signal(signal.SIGINT, signal.default_int_handler)  # as in a program
    try:
        assert swaps_for(100) == swaps_for(10)
    finally:
        real_signal(signal.SIGINT, before)


def test_data_may_be_a_hugging_face_dataset_spec_as_in_a_config(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "saved"
    datasets.Dataset.from_list(DATA).save_to_disk(str(folder))
    result = evaluate(tmp_path, data={"hf": str(folder)})  # it said "needs a 'path'"
    assert result.summary.get("exact_match", "default").n == len(WORDS)
    assert result.run.dataset_path == f"hf:{folder}"


def test_data_may_be_cases_or_a_dataset_file_relative_to_base_dir(tmp_path: Path) -> None:
    cases = [Case(id=w, input=w, expected=w.upper(), tags=["t"]) for w in WORDS]
    from_cases = evaluate(tmp_path, data=cases)
    (tmp_path / "words.jsonl").write_text("".join(json.dumps(r) + "\n" for r in DATA))
    from_file = evaluate(tmp_path, data="words.jsonl", base_dir=tmp_path, sample=3)

    assert from_cases.summary.get("exact_match", "default").pass_rate == 1.0
    assert from_cases.summary.by_tag[0][0] == "t"
    assert from_file.run.dataset_path == str(tmp_path / "words.jsonl")
    assert from_file.summary.get("exact_match", "default").n == 3
    assert from_file.run.config["dataset"] == {"path": "words.jsonl"}


def test_a_scorer_that_raises_is_an_error_on_the_trial_never_a_zero(tmp_path: Path) -> None:
    def picky(case: Case, output: Output) -> Score:
        if case.id == "hello":
            raise ValueError("cannot read this one")
        return Score.binary(True)

    result = evaluate(tmp_path, scorers=[picky])
    stats = result.summary.get("picky", "default")
    assert stats is not None and (stats.n, stats.errors, stats.pass_rate) == (7, 1, 1.0)
    [hello] = [t for t in result.trials() if t.case_id == "hello"]
    assert "picky raised ValueError: cannot read this one" in hello.scores["picky"].error


def test_a_scorer_raising_on_every_case_stops_the_run_and_keeps_every_trial(
        tmp_path: Path) -> None:
    """A scorer that raised on every case once aborted the run with the target's outputs
    lost; then the run completed and exited 0 with that scorer measuring nothing, beside a
    run of 20 cases or more that the same scorer stopped (20 errors in a row). Now any run
    stops on it (exit 3) with every trial kept: the outputs, the other scorer's verdicts,
    and the errors, for `--resume RUN --retry-errors`."""
    def broken(case: Case, output: Output) -> bool:
        raise ValueError("no")

    with pytest.raises(RunFailed) as raised:
        evaluate(tmp_path, scorers=["exact_match", broken])
    assert str(raised.value).startswith(
        f"scorer broken has no value: it errored on all {len(WORDS)} of its trials with an "
        "answer, so the run measured nothing with it; first error: ")
    assert "broken raised ValueError: no" in str(raised.value)
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("uppercase")
    trials = list(store.iter_trials(run.id))
    assert run.status == "aborted" and len(trials) == len(WORDS)
    assert all(t.output.text and t.scores["exact_match"].passed for t in trials)
    assert all("ValueError" in (t.scores["broken"].error or "") for t in trials)


def test_a_scorer_function_gets_the_text_the_output_or_unannotated_both(
        tmp_path: Path) -> None:
    """Regression: an unannotated `output == case.expected` compared an Output with a string
    and scored 0% without a word; an unannotated `output.upper()` was an error."""
    def shouted_text(case: Case, output: str) -> bool:
        return output == output.upper()

    def shouted_output(case: Case, output: Output) -> bool:
        return output.text == output.text.upper()

    def equals_expected(case, output):  # type: ignore[no-untyped-def]
        return output == case.expected and output.upper() in output

    def reads_the_output(case, output):  # type: ignore[no-untyped-def]
        return output.text == output and output.tool_calls == [] and len(output) > 0

    def output_method_on_an_output(case: Case, output: Output) -> bool:
        return output.upper() == output  # type: ignore[attr-defined, no-any-return]

    result = evaluate(tmp_path, scorers=[shouted_text, shouted_output, equals_expected,
                                         reads_the_output])
    for name in ("shouted_text", "shouted_output", "equals_expected", "reads_the_output"):
        assert result.summary.get(name, "default").pass_rate == 1.0, name
    with pytest.raises(RunFailed, match="scorer output_method_on_an_output has no value"):
        evaluate(tmp_path, "attribute", scorers=["exact_match", output_method_on_an_output])
    store = Store(str(tmp_path / "assay.db"))  # it failed on every trial: the run stops on it
    [run] = store.list_runs("attribute")
    [trial] = [t for t in store.iter_trials(run.id) if t.case_id == "hello"]
    error = trial.scores["output_method_on_an_output"].error or ""
    assert "annotate the parameter `output: str`" in error and "output.text" in error


def test_the_callers_event_loop_keeps_its_default_executor(tmp_path: Path) -> None:
    """Regression: the run replaced the loop's default executor and shut it down, so the
    caller's next `asyncio.to_thread` failed."""
    async def caller() -> int:
        await evaluate_async(tmp_path)
        return await asyncio.to_thread(lambda: 42)

    assert asyncio.run(caller()) == 42


def test_it_prints_nothing_unless_verbose(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    evaluate(tmp_path)
    assert capsys.readouterr().out == ""
    result = evaluate(tmp_path, verbose=True)
    printed = capsys.readouterr().out
    assert f"uppercase · run {result.run_id}" in printed
    assert "exact_match" in printed and "vs previous run" in printed


def test_inside_an_event_loop_evaluate_async_runs_and_evaluate_says_to_use_it(
        tmp_path: Path) -> None:
    async def main() -> assay.EvalResult:
        with pytest.raises(UserError, match="evaluate_async"):
            assay.evaluate("inside", data=DATA, task=shout, scorers=["exact_match"],
                           store=tmp_path / "assay.db")
        return await assay.evaluate_async("inside", data=DATA, task=shout_from_version,
                                          scorers=["exact_match"], store=tmp_path / "assay.db")

    result = asyncio.run(main())
    assert result.summary.get("exact_match", "default").n == len(WORDS)


def test_the_result_shown_in_a_notebook_keeps_the_stores_password_out(tmp_path: Path) -> None:
    """Its repr (what a notebook shows for `result`) quoted the store URL whole."""
    result = assay.EvalResult.of(evaluate(tmp_path),
                                 "postgresql+psycopg://team:s3cret@db.example/evals")
    assert "s3cret" not in repr(result)
    assert result.store_url.endswith(":s3cret@db.example/evals")  # still there to open


def test_the_trials_are_read_after_the_working_directory_moved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the default store, `.assay/assay.db`, `result.trials()` after a notebook's
    `%cd` opened the store at the new place: 'cannot open the store .assay/assay.db'."""
    (tmp_path / "project").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    result = assay.evaluate("moved", data=DATA, task=shout, scorers=["exact_match"],
                            reports=False)
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert len(list(result.trials())) == len(DATA)
    assert result.store_url == "sqlite:///.assay/assay.db"  # as given, as the summary says
    assert not (tmp_path / "elsewhere" / ".assay").exists()


def test_an_open_store_is_used_and_left_open(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "assay.db"))
    try:
        result = assay.evaluate("kept-open", data=DATA, task=shout, scorers=["exact_match"],
                                store=store)
        assert store.get_run(result.run_id) is not None
    finally:
        store.close()


CALLS: list[str] = []
STOP_AFTER: list[int] = []
RUNNING: list[asyncio.Task[Any]] = []


async def interruptible(case: Case) -> str:
    """Answers until it has answered STOP_AFTER[0] cases, then stops the run as Ctrl-C does
    (by cancelling it: a KeyboardInterrupt raised here would be this trial's error)."""
    if STOP_AFTER and len(CALLS) >= STOP_AFTER[0]:
        RUNNING[0].cancel()
        await asyncio.sleep(10)
    CALLS.append(case.id)
    return case.input_text.upper()


def test_an_interrupted_run_resumes_with_only_its_missing_trials(tmp_path: Path) -> None:
    CALLS.clear()
    STOP_AFTER[:] = [3]
    arguments: dict[str, Any] = {"task": interruptible, "concurrency": 1}

    async def interrupted_run() -> None:
        RUNNING[:] = [asyncio.create_task(evaluate_async(tmp_path, **arguments))]
        await RUNNING[0]

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(interrupted_run())
    [interrupted] = stored_runs(tmp_path)
    assert interrupted.status == "interrupted"

    with pytest.raises(UserError, match="the dataset changed"):
        evaluate(tmp_path, data=DATA[:-1], resume=True, **arguments)
    STOP_AFTER.clear()
    resumed = evaluate(tmp_path, resume=True, **arguments)

    assert resumed.run_id == interrupted.id and resumed.run.status == "completed"
    assert sorted(CALLS) == sorted(WORDS)  # each case answered once over both attempts
    assert resumed.summary.get("exact_match", "default").n == len(WORDS)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from assay.cli import main

    with pytest.raises(SystemExit) as exited:
        main(list(args))
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out + captured.err


def test_runs_are_seen_by_assay_runs_history_and_compare(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    first = evaluate(tmp_path, experiment="seen-by-cli")
    second = evaluate(tmp_path, experiment="seen-by-cli", task=shout_but_whisper_world)
    store = str(tmp_path / "assay.db")

    code, listed = cli(capsys, "runs", "--store", store)
    assert code == 0 and first.run_id in listed and second.run_id in listed
    code, history = cli(capsys, "history", "seen-by-cli", "--store", store)
    assert code == 0 and "seen-by-cli · 2 runs" in history
    code, compared = cli(capsys, "compare", first.run_id, second.run_id, "--store", store)
    assert code == 0 and "newly failing exact_match@default (1): world" in compared


def test_a_target_spec_runs_as_in_a_config_file(tmp_path: Path) -> None:
    upper = "import sys; print(sys.stdin.read().upper(), end='')"
    result = evaluate(tmp_path, task={"type": "command", "command": [sys.executable, "-c", upper],
                                      "stdin": "text"},
                      data=DATA[:3])
    stats = result.summary.get("exact_match", "default")
    assert stats is not None and (stats.n, stats.pass_rate) == (3, 1.0)
    assert result.run.config["target"]["type"] == "command"


def test_the_api_is_exported_from_the_package() -> None:
    from assay import api

    assert (assay.evaluate, assay.evaluate_async, assay.EvalResult) == (
        api.evaluate, api.evaluate_async, api.EvalResult)
    assert assay.evaluate.__name__ == "evaluate" and {"evaluate", "evaluate_async",
                                                      "EvalResult"} <= set(assay.__all__)


def test_the_errors_evaluate_raises_can_be_caught_from_the_package(tmp_path: Path) -> None:
    """Regression: `evaluate`'s docstring said it raises `UserError` and `RunFailed`, which
    a caller had to import from `assay.errors`, a module the package calls internal."""
    from assay import errors

    assert (assay.UserError, assay.RunFailed, assay.AssayError) == (
        errors.UserError, errors.RunFailed, errors.AssayError)
    assert {"UserError", "RunFailed", "AssayError"} <= set(assay.__all__)
    with pytest.raises(assay.UserError, match="assay.evaluate"):
        evaluate(tmp_path, scorers=["nope"], base_dir=tmp_path)
