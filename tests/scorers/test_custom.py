"""python: a user's function as a scorer, imported from the config's directory."""

from __future__ import annotations

import asyncio
import itertools
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError

from assay.case import Case
from assay.errors import UserError
from assay.output import Output
from assay.score import Score

CASE = Case(id="p1", input="What is 6 x 7?", expected="42")
ANSWER = Output(text="42")

_names = itertools.count()


def module(tmp_path: Path, source: str) -> str:
    """Write a module next to the (imaginary) config; return its unique import name."""
    name = f"user_scorers_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    return name


def test_a_bool_is_pass_or_fail(make_scorer, tmp_path):
    name = module(tmp_path, """
        def same(case, output):
            return output.text.strip() == case.expected
    """)
    scorer = make_scorer("python", function=f"{name}:same")
    assert scorer.is_sync is True
    assert scorer.check(CASE, ANSWER) == Score.binary(True)
    assert scorer.check(CASE, Output(text="41")) == Score.binary(False)


def test_a_number_passes_at_the_threshold_and_has_no_verdict_without_one(make_scorer, tmp_path):
    name = module(tmp_path, """
        def length(case, output):
            return len(output.text) / 10
    """)
    with_threshold = make_scorer("python", function=f"{name}:length", threshold=0.2)
    score = with_threshold.check(CASE, ANSWER)
    assert (score.value, score.passed) == (len("42") / 10, True)
    assert make_scorer("python", function=f"{name}:length").check(CASE, ANSWER).passed is None


def test_a_dict_gives_value_passed_reason_and_details(make_scorer, tmp_path):
    name = module(tmp_path, """
        def graded(case, output):
            return {"value": 7, "reason": "close", "details": {"steps": 3}}
    """)
    scorer = make_scorer("python", function=f"{name}:graded", scale=[0, 10], threshold=5)
    score = scorer.check(CASE, ANSWER)
    assert score == Score(value=7.0, scale=(0.0, 10.0), passed=True, reason="close",
                          details={"steps": 3})


def test_a_score_is_used_as_returned_and_args_are_passed(make_scorer, tmp_path):
    name = module(tmp_path, """
        from assay.score import Score

        def within(case, output, *, limit):
            return Score.binary(len(output.text) <= limit, f"limit {limit}")
    """)
    scorer = make_scorer("python", function=f"{name}:within", args={"limit": 1})
    assert scorer.check(CASE, ANSWER) == Score.binary(False, "limit 1")


def test_an_async_function_is_awaited(make_scorer, tmp_path):
    name = module(tmp_path, """
        import asyncio

        async def slow(case, output):
            await asyncio.sleep(0)
            return output.text == case.expected
    """)
    scorer = make_scorer("python", function=f"{name}:slow")
    assert scorer.is_sync is False
    assert asyncio.run(scorer.score(CASE, ANSWER)).passed is True


def test_an_exception_while_scoring_is_an_error_not_a_zero(make_scorer, tmp_path):
    name = module(tmp_path, """
        def broken(case, output):
            raise KeyError("rubric")

        async def broken_async(case, output):
            raise ValueError("judge unreachable")
    """)
    score = make_scorer("python", function=f"{name}:broken").check(CASE, ANSWER)
    assert score.value is None and score.passed is None
    assert score.error == f"{name}:broken raised KeyError: 'rubric'"
    failed = asyncio.run(make_scorer("python", function=f"{name}:broken_async").score(CASE, ANSWER))
    assert failed.error == f"{name}:broken_async raised ValueError: judge unreachable"


@pytest.mark.parametrize(
    ("returned", "complaint"),
    [
        ("'yes'", "returned str"),
        ("None", "returned NoneType"),
        ("float('nan')", "not a finite number"),
        ("{'score': 1}", "unknown keys ['score']"),
        ("{'reason': 'fine'}", "neither value nor passed"),
        ("{'value': 'high'}", "not a number"),
        ("{'passed': 'yes'}", "not a bool"),
    ],
)
def test_unreadable_results_are_errors_saying_why(make_scorer, tmp_path, returned, complaint):
    name = module(tmp_path, f"""
        def odd(case, output):
            return {returned}
    """)
    score = make_scorer("python", function=f"{name}:odd").check(CASE, ANSWER)
    assert score.value is None
    assert complaint in (score.error or "")


@pytest.mark.parametrize(
    ("returned", "options", "complaint"),
    [
        ("Score(value=float('nan'))", {}, "value=nan, not a finite number"),
        ("Score(value=float('inf'), scale=(0, 10))", {}, "value=inf, not a finite number"),
        ("Score(value=None)", {}, "Score(value=None) without an error"),
        ("Score(value=None, passed=True)", {}, "Score(value=None) without an error"),
        ("Score(value=7.0)", {}, "value=7, outside the scale 0..1"),
        ("Score(value=-0.5)", {}, "value=-0.5, outside the scale 0..1"),
        ("Score(value=11.0)", {"scale": [0, 10]}, "value=11, outside the scale 0..10"),
        ("Score(value=3.0, scale=(0, 2))", {"scale": [0, 10]}, "outside the scale 0..2"),
        ("Score(value=0.5, scale=(1, 1))", {}, "scale=(1, 1), not a finite (min, max)"),
        ("Score(value='high')", {}, "value='high', not a number"),
        ("Score(value=1.0, passed='yes')", {}, "passed='yes', not a bool"),
        ("Score(value=0.0, error='judge down')", {}, "both an error and a value"),
        ("Score(value=None, error='  ')", {}, "an empty error"),
        ("7.0", {}, "value=7, outside the scale 0..1"),
        ("{'value': 12, 'reason': 'r'}", {"scale": [0, 10]}, "value=12, outside the scale 0..10"),
    ],
)
def test_a_score_that_is_not_a_finite_value_on_its_scale_is_an_error_saying_why(
        make_scorer, tmp_path, returned, options, complaint):
    name = module(tmp_path, f"""
        from assay.score import Score

        def odd(case, output):
            return {returned}
    """)
    score = make_scorer("python", function=f"{name}:odd", **options).check(CASE, ANSWER)
    assert (score.value, score.passed) == (None, None)
    assert score.error is not None and score.error.startswith(f"{name}:odd returned ")
    assert complaint in score.error


def test_a_returned_score_keeps_its_own_scale_or_takes_the_configured_one(make_scorer, tmp_path):
    name = module(tmp_path, """
        from assay.score import Score

        def on_five(case, output):
            return Score(value=4, scale=(1, 5), passed=True, reason="good")

        def plain(case, output):
            return Score(value=7)
    """)
    own = make_scorer("python", function=f"{name}:on_five", scale=[0, 10]).check(CASE, ANSWER)
    assert own == Score(value=4.0, scale=(1.0, 5.0), passed=True, reason="good")
    configured = make_scorer("python", function=f"{name}:plain", scale=[0, 10]).check(CASE, ANSWER)
    assert configured == Score(value=7.0, scale=(0.0, 10.0))
    assert configured.normalized == pytest.approx(0.7)


def test_a_returned_failure_is_kept_with_its_reason(make_scorer, tmp_path):
    name = module(tmp_path, """
        from assay.score import Score

        def gave_up(case, output):
            return Score.failure("no reference to compare with")
    """)
    score = make_scorer("python", function=f"{name}:gave_up").check(CASE, ANSWER)
    assert score == Score.failure("no reference to compare with")


@pytest.mark.parametrize("scale", [[1, 1], [10, 0], [0, float("inf")]])
def test_the_configured_scale_must_be_finite_and_ordered(make_scorer, tmp_path, scale):
    name = module(tmp_path, "def f(case, output):\n    return 1\n")
    with pytest.raises(ValidationError, match="min < max"):
        make_scorer("python", function=f"{name}:f", scale=scale)


def test_a_file_path_works_as_well_as_a_module_name(make_scorer, tmp_path):
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "grading.py").write_text(
        "def exact(case, output):\n    return output.text == case.expected\n")
    scorer = make_scorer("python", function="checks/grading.py:exact")
    assert scorer.check(CASE, ANSWER).passed is True


def test_import_problems_are_config_errors_naming_the_function(make_scorer, tmp_path):
    with pytest.raises(UserError, match="'no_such_module:f'.*No module named 'no_such_module'"):
        make_scorer("python", function="no_such_module:f")
    name = module(tmp_path, "VALUE = 1\n")
    with pytest.raises(UserError, match=f"'{name}:missing': module '{name}' has no 'missing'"):
        make_scorer("python", function=f"{name}:missing")
    with pytest.raises(UserError, match=f"'{name}:VALUE' is not callable"):
        make_scorer("python", function=f"{name}:VALUE")
    crashing = module(tmp_path, "import not_installed_anywhere\n")
    with pytest.raises(UserError, match=f"'{crashing}:f'.*not_installed_anywhere"):
        make_scorer("python", function=f"{crashing}:f")
    with pytest.raises(UserError, match=r"'nowhere\.py:f': file not found: .*nowhere\.py"):
        make_scorer("python", function="nowhere.py:f")


def test_the_function_spec_must_be_module_colon_function(make_scorer):
    with pytest.raises(ValidationError):
        make_scorer("python", function="just_a_module")
