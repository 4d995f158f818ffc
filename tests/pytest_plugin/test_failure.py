"""What a missed eval reports: the failed gates, the cases behind them, and why."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Case
from assay.errors import UserError
from assay.pytest_plugin import EvalFailed, assert_eval
from assay.pytest_plugin.failure import CASES_SHOWN

CAPITALS = {"france": "Paris", "germany": "Berlin", "italy": "Rome", "spain": "Madrid"}


def capitals(known: dict[str, str]) -> list[dict[str, Any]]:
    return [{"id": country, "input": f"Capital of {country}?", "expected": capital}
            for country, capital in known.items()]


def answer_from(known: dict[str, str]):  # type: ignore[no-untyped-def]
    def answer(case: Case) -> str:
        if case.id == "spain":
            raise ConnectionError("the service did not answer")
        return known.get(case.id, "I don't know")
    return answer


def run(tmp_path: Path, known: dict[str, str], **arguments: Any) -> assay.EvalResult:
    return assay.evaluate("capitals", data=capitals(CAPITALS), task=answer_from(known),
                          scorers=["exact_match"], store=str(tmp_path / "assay.db"),
                          output=tmp_path / "run", **arguments)


def test_a_missed_threshold_names_each_case_its_reason_and_answer(tmp_path: Path) -> None:
    result = run(tmp_path, {"france": "Paris", "germany": "Bonn"})
    with pytest.raises(EvalFailed) as raised:
        assert_eval(result, thresholds={"exact_match": 0.75})
    report = str(raised.value)
    assert report.splitlines()[:2] == [
        f"eval 'capitals' missed 1 of 1 gate (run {result.run_id})",
        # the errored case (spain) counts among the cases, as not passed
        ("  FAIL exact_match@default pass rate: 25.0% passed over 4 cases (min 75.0%); "
         "1 errored trial counts as not passed (without it: 33.3% over the 3 cases scored, "
         "the score table's pass rate)")]
    assert "exact_match @ default: 3 of 4 trials did not pass" in report
    assert "  germany: expected 'Berlin', got 'Bonn' | answer: 'Bonn'" in report
    assert "  italy: expected 'Rome', got \"I don't know\"" in report
    assert "  spain: error: ConnectionError: the service did not answer" in report
    assert "france" not in report.split("did not pass")[1]
    assert report.endswith(f"report: {tmp_path / 'run' / 'report.md'}")
    assert isinstance(raised.value, AssertionError) and raised.value.result is result


def test_an_eval_that_meets_its_thresholds_returns_its_result(tmp_path: Path) -> None:
    result = run(tmp_path, {"france": "Paris", "germany": "Berlin", "italy": "Rome"})
    assert assert_eval(result, thresholds={"exact_match": 0.75}) is result


@pytest.mark.parametrize(("threshold", "says"), [
    ("exact_mach", "gate on unknown scorer 'exact_mach'; did you mean 'exact_match'?"),
    ("exact_match@candidate", "gate exact_match@candidate names a condition this run"),
])
def test_a_threshold_on_what_the_run_does_not_have_is_refused_as_the_fixtures_is(
        tmp_path: Path, threshold: str, says: str) -> None:
    """A typo in a threshold's name failed the test as a missed gate, 'no results for this
    condition', with nothing to say the scorer or condition did not exist."""
    result = run(tmp_path, {"france": "Paris"})
    with pytest.raises(UserError, match=re.escape(says)):
        assert_eval(result, thresholds={threshold: 0.5})


def test_the_configs_own_gates_count_without_thresholds(tmp_path: Path) -> None:
    result = run(tmp_path, {}, gates=[{"scorer": "exact_match", "min_pass_rate": 0.5}])
    with pytest.raises(EvalFailed, match="FAIL exact_match@default pass rate: 0.0%"):
        assert_eval(result)


def test_a_long_list_of_cases_is_cut_and_counted(tmp_path: Path) -> None:
    many = [{"id": f"q{index:02d}", "input": "?", "expected": "yes"} for index in range(25)]
    result = assay.evaluate("many", data=many, task=lambda case: "no", scorers=["exact_match"],
                            store=str(tmp_path / "assay.db"), reports=False)
    with pytest.raises(EvalFailed) as raised:
        assert_eval(result, thresholds={"exact_match": 0.5})
    report = str(raised.value)
    assert report.count("expected 'yes', got 'no'") == CASES_SHOWN
    assert f"  ... and {25 - CASES_SHOWN} more" in report
    assert "report:" not in report  # no files were written


def test_a_missed_mean_lists_the_lowest_scores(tmp_path: Path) -> None:
    def length(case: Case, output: str) -> float:
        return min(len(output) / 10, 1.0)

    data = [{"id": word, "input": word} for word in ("a", "bbbbbbbbbb", "ccc")]
    result = assay.evaluate("lengths", data=data, task=lambda case: case.input_text,
                            scorers=[length], store=str(tmp_path / "assay.db"), reports=False)
    with pytest.raises(EvalFailed) as raised:
        assert_eval(result, thresholds={"length.mean": 0.9})
    lines = str(raised.value).splitlines()
    listed = lines[lines.index("length @ default: lowest scores of 3 trials") + 1:]
    assert [line.split(":")[0].strip() for line in listed] == ["a", "ccc", "bbbbbbbbbb"]


def test_a_failed_regression_gate_names_the_cases_that_newly_fail(tmp_path: Path) -> None:
    data = [{"id": f"q{index}", "input": str(index), "expected": str(index)}
            for index in range(10)]

    def evaluate(task: Any, **arguments: Any) -> assay.EvalResult:
        return assay.evaluate("numbers", data=data, task=task, scorers=["exact_match"],
                              store=str(tmp_path / "assay.db"), reports=False, **arguments)

    evaluate(lambda case: case.input_text)
    worse = evaluate(lambda case: case.input_text if case.id in ("q0", "q1") else "?",
                     fail_on_regression=True)
    with pytest.raises(EvalFailed) as raised:
        assert_eval(worse)
    report = str(raised.value)
    assert "FAIL regression exact_match@default pass rate: -80.0pp" in report
    newly = report.split("worse since run ")[1].splitlines()
    assert newly[1] == "  exact_match @ default, newly failing: " + ", ".join(
        f"q{i}" for i in range(2, 10))


def test_with_epochs_a_failed_regression_gate_says_passing_less_often(tmp_path: Path) -> None:
    """A case that passed 1 of 2 epochs and now 0 of 2 is not 'newly failing': it was
    failing before, in one epoch."""
    data = [{"id": f"q{index}", "input": str(index), "expected": str(index)}
            for index in range(10)]
    calls: dict[str, int] = {}

    def half(case: Any) -> str:  # every other call of a case answers wrong
        calls[case.id] = calls.get(case.id, 0) + 1
        return case.input_text if calls[case.id] % 2 else "?"

    def evaluate(task: Any, **arguments: Any) -> assay.EvalResult:
        return assay.evaluate("epochs", data=data, task=task, scorers=["exact_match"],
                              epochs=2, concurrency=1, store=str(tmp_path / "assay.db"),
                              reports=False, **arguments)

    evaluate(half)
    worse = evaluate(lambda case: "?", fail_on_regression=True)
    with pytest.raises(EvalFailed) as raised:
        assert_eval(worse)
    report = str(raised.value)
    assert "newly failing" not in report
    listed = report.split("worse since run ")[1].splitlines()[1]
    assert listed.startswith("  exact_match @ default, passing less often: q0, q1")
