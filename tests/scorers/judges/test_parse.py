"""Reading judge replies: the shapes accepted, and the replies refused rather than guessed."""

from __future__ import annotations

import pytest

from assay.scorers.judges.formats import LabelFormat, NumberFormat, SchemaFormat
from assay.scorers.judges.judgement import ReplyParseError
from assay.scorers.judges.parse import extract_json, extract_label, extract_number
from assay.scorers.judges.rubric import DEFAULT_METRICS, DEFAULT_PASS_RULE, RubricFormat


@pytest.mark.parametrize("reply, expected", [
    ("8", 8.0),
    ("  **8**  ", 8.0),
    ("8.", 8.0),
    ("7.5", 7.5),
    ('{"score": 9, "reason": "complete"}', 9.0),
    ('```json\n{"score": 6}\n```', 6.0),
    ('Here is my verdict:\n```\n{"rating": "4"}\n```\nThanks.', 4.0),
    ('My grade follows. {"reason": "close", "score": 7} Hope this helps.', 7.0),
    ("Score: 8/10", 8.0),
    ("I'd give this 3 out of 10.", 3.0),
    ("Score: 5", 5.0),
    ("Final score - 10", 10.0),
    ("The answer names slices.Contains correctly but omits the constraint.\n\n7", 7.0),
    ('{"score": "8/10"}', 8.0),
])
def test_a_score_is_read_from_many_reply_shapes(reply: str, expected: float) -> None:
    assert extract_number(reply, high=10) == expected


@pytest.mark.parametrize("reply", [
    "",
    "The answer is good.",
    "Somewhere between 6/10 and 8/10.",
    "Score: 6. On reflection, score: 8.",
    '{"reason": "fine"}',
    "true",
])
def test_an_ambiguous_or_absent_score_is_not_guessed(reply: str) -> None:
    assert extract_number(reply, high=10) is None


def test_a_denominator_other_than_the_scale_is_not_read_as_a_score() -> None:
    assert extract_number("It covers 2/3 of the points. Score: 6", high=10) == 6.0


@pytest.mark.parametrize("reply", [
    "Rating: 2 out of 5",
    "The score is 4/5: it misses the flag.",
    '{"score": "3/5", "reason": "misses the flag"}',
])
def test_a_score_on_another_scale_is_no_score_of_this_one(reply: str) -> None:
    """Read as 2 of 10 on a 0-10 judge, a 2 of 5 (40%) would fail an answer it passed."""
    assert extract_number(reply, high=10) is None
    with pytest.raises(ReplyParseError):
        NumberFormat(0, 10, 7).parse(reply)


def test_a_rubric_metric_on_another_scale_is_refused() -> None:
    reply = ('{"factual_adherence": {"score": "4/10"}, "completeness": 4, "helpfulness": 4, '
             '"unverified_claims": []}')
    with pytest.raises(ReplyParseError, match="factual_adherence"):
        RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE).parse(reply)


def test_json_is_found_bare_fenced_or_inside_prose() -> None:
    assert extract_json('[1, 2]') == [1, 2]
    assert extract_json("```json\n{\"a\": 1}\n```") == {"a": 1}
    assert extract_json('Judgement: {"a": {"b": 2}} done') == {"a": {"b": 2}}
    assert extract_json("no json at all {oops}") is None


LABELS = ["correct", "partially correct", "incorrect"]


@pytest.mark.parametrize("reply, expected", [
    ("correct", "correct"),
    ("**Incorrect**", "incorrect"),
    ("Partially_Correct.", "partially correct"),
    ('{"label": "partially correct", "reason": "misses one step"}', "partially correct"),
    ("The answer is partially correct: it misses the flag.", "partially correct"),
    ("Judgement: incorrect, it names the wrong function.", "incorrect"),
])
def test_a_label_is_read_exactly_or_from_prose(reply: str, expected: str) -> None:
    assert extract_label(reply, LABELS) == expected


@pytest.mark.parametrize("reply", [
    "It is correct in parts but incorrect overall.",
    "I cannot decide.",
    '{"label": "mostly right"}',
])
def test_two_labels_or_none_named_is_no_label(reply: str) -> None:
    assert extract_label(reply, LABELS) is None


@pytest.mark.parametrize("reply, labels", [
    ("The answer is partially correct.", ["correct", "partial", "incorrect"]),
    ("Not correct: it names the wrong function.", ["correct", "incorrect"]),
    ("It isn't correct.", ["correct", "incorrect"]),
    ("It does not pass.", ["pass", "fail"]),
    ("It is not incorrect, but it misses a step.", ["correct", "incorrect"]),
])
def test_a_label_the_reply_negates_or_hedges_is_no_label(reply: str, labels: list[str]) -> None:
    """Read as the label it names, each would be the opposite verdict, or a guess."""
    assert extract_label(reply, labels) is None
    with pytest.raises(ReplyParseError):
        LabelFormat(labels, labels[:1]).parse(reply)


def test_number_format_refuses_a_score_outside_its_range() -> None:
    fmt = NumberFormat(0, 10, 7)
    with pytest.raises(ReplyParseError, match="outside the range 0..10"):
        fmt.parse('{"score": 11}')
    with pytest.raises(ReplyParseError, match="no score"):
        fmt.parse("Looks right to me.")


def test_number_format_passes_at_the_threshold_and_keeps_the_reason() -> None:
    fmt = NumberFormat(0, 10, 7)
    at = fmt.parse('{"score": 7, "reason": "minor gap"}')
    below = fmt.parse("6")
    assert (at.passed, at.value, at.reason) == (True, 7.0, "minor gap")
    assert (below.passed, below.value, below.reason) == (False, 6.0, "")
    assert fmt.parse("Mostly right.\n8").reason == "Mostly right.\n8"


def test_label_format_scores_one_for_a_passing_label() -> None:
    fmt = LabelFormat(LABELS, ["correct"])
    good, partial = fmt.parse("correct"), fmt.parse("partially correct")
    assert (good.passed, good.value, good.label) == (True, 1.0, "correct")
    assert (partial.passed, partial.value) == (False, 0.0)


SCHEMA = {
    "type": "object",
    "properties": {"quality": {"type": "integer", "minimum": 1, "maximum": 4},
                   "safe": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["quality", "safe"],
}


def test_schema_format_validates_and_reads_the_named_fields() -> None:
    fmt = SchemaFormat(SCHEMA, value_field="quality", passed_field="safe", threshold=None,
                       scale=None)
    verdict = fmt.parse('```json\n{"quality": 3, "safe": false, "reason": "leaks a key"}\n```')
    assert fmt.scale == (1.0, 4.0)
    assert (verdict.value, verdict.passed, verdict.reason) == (3.0, False, "leaks a key")
    assert verdict.data["object"]["safe"] is False
    with pytest.raises(ReplyParseError, match="does not match the schema at quality"):
        fmt.parse('{"quality": 9, "safe": true}')
    with pytest.raises(ReplyParseError, match="no JSON"):
        fmt.parse("quality 3, safe")


def test_a_json_value_outside_the_scale_given_is_refused_when_the_schema_has_no_bounds() -> None:
    """`scale: [0, 10]` over a schema whose number has no minimum or maximum stored a reply
    of 42 as 42 of 10, and passed it."""
    schema = {"type": "object", "properties": {"score": {"type": "number"}},
              "required": ["score"]}
    fmt = SchemaFormat(schema, value_field="score", passed_field=None, threshold=7,
                       scale=(0, 10))
    assert fmt.parse('{"score": 8}').value == 8.0
    with pytest.raises(ReplyParseError, match="field 'score' is 42, outside the scale 0..10"):
        fmt.parse('{"score": 42}')


def rubric_reply(scores: tuple[int, int, int], claims: list[str] | None = None) -> str:
    import json

    names = [metric.name for metric in DEFAULT_METRICS]
    body: dict[str, object] = {name: {"reasoning": f"{name} is {score}", "score": score}
                               for name, score in zip(names, scores, strict=True)}
    body["unverified_claims"] = claims or []
    return json.dumps(body)


def test_rubric_format_reads_every_metric_and_the_unverified_claims() -> None:
    fmt = RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE)
    verdict = fmt.parse(rubric_reply((5, 4, 3), ["Go 1.22 added this"]))
    assert verdict.metrics == {"factual_adherence": 5, "completeness": 4, "helpfulness": 3}
    assert verdict.value == pytest.approx((5 + 4 + 3) / 3)
    assert verdict.passed is False  # helpfulness 3 is below the default all_at_least 4
    assert verdict.data["unverified_claims"] == ["Go 1.22 added this"]
    assert verdict.data["reasoning"]["completeness"] == "completeness is 4"


def test_rubric_format_accepts_plain_numbers_per_metric() -> None:
    fmt = RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE)
    verdict = fmt.parse('{"factual_adherence": 4, "completeness": 5, "helpfulness": 4}')
    assert verdict.passed is True
    assert verdict.data["unverified_claims"] == []


@pytest.mark.parametrize("reply, problem", [
    ('{"factual_adherence": 4, "completeness": 5}', "'helpfulness' is missing"),
    ('{"factual_adherence": 4, "completeness": 6, "helpfulness": 4}', "'completeness' has no"),
    (('{"factual_adherence": 4, "completeness": 5, "helpfulness": 4, '
     '"unverified_claims": "none"}'), "not a list"),
    ("4, 5, 4", "no JSON object"),
])
def test_rubric_format_refuses_incomplete_replies(reply: str, problem: str) -> None:
    with pytest.raises(ReplyParseError, match=problem):
        RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE).parse(reply)


@pytest.mark.parametrize("reply", ["**Score:** 9", "The score is 9.", "Rating = 9", "Grade — 9"])
def test_a_labelled_score_may_be_decorated(reply: str) -> None:
    assert extract_number(reply, high=10) == 9.0


def test_a_reply_nested_past_the_parsers_depth_is_no_json_not_a_recursion_error() -> None:
    """Regression: `json.loads` raised RecursionError, which is not a ValueError, out of
    the judge's reading of a reply nested 5,000 deep."""
    assert extract_json("[" * 5000 + "]" * 5000) is None
    assert extract_json("prose {" + '"a": [' * 5000) is None


@pytest.mark.parametrize("reply", ['{"score": NaN}', '{"score": Infinity}', "NaN", '"1e999"',
                                   '{"score": 1' + "0" * 400 + "}", "-1" + "0" * 400])
def test_a_score_that_is_not_a_finite_number_is_no_score(reply: str) -> None:
    """Regression: NaN came through as a score (a custom schema judge stored value NaN), and
    a JSON integer past a float's range (10**400) raised OverflowError out of the reading."""
    assert extract_number(reply, high=10) is None


def test_a_reply_of_thousands_of_digits_is_read_without_backtracking() -> None:
    """Regression: each of the score patterns was tried from every position inside a run
    of 5,000 digits, several seconds per reply (a judge that seemed to hang)."""
    from tests.fuzzing import within

    with within(2):
        assert extract_number("9" * 5000, high=10) is None  # past a float: no number
        assert extract_number('{"score": "' + "9" * 5000 + '"}', high=10) is None
        assert extract_number("Score: " + "9" * 5000 + "8/10 or 8/10", high=10) is None


def test_a_reply_naming_a_label_thousands_of_times_is_read_in_one_sweep() -> None:
    """Regression: each place a label was named was compared with every other, so a reply
    holding the word "a" 20,000 times took a pairwise judge (labels A and B) 20 s to read."""
    from tests.fuzzing import within

    with within(2):
        assert extract_label("a " * 20_000, ["A", "B"]) == "A"
        assert extract_label("a " * 20_000 + "not a", ["A", "B"]) is None


@pytest.mark.parametrize("reply", ['{"score": 8, "score": 3}', '{"Score": 8, "score": 3}',
                                   'My verdict: {"score": 8, "score": 3}'])
def test_a_score_given_twice_with_two_values_is_no_score(reply: str) -> None:
    """Regression: the last of the two was read (3, a fail), unsaid: a guess."""
    assert extract_number(reply, high=10) is None
    assert extract_number('{"score": 8, "score": 8}', high=10) == 8.0


def test_a_fence_never_closed_before_a_long_run_of_spaces_is_read_at_once() -> None:
    """Regression: a reply opening a fence and then writing 500,000 spaces was tried at every
    split of the spaces, minutes a reply (20,000 spaces took 1.3 s)."""
    from tests.fuzzing import within

    with within(2):
        assert extract_number("```json" + " " * 200_000, high=10) is None
    assert extract_json('Here:\n```json  \n{"score": 6}\n```') == {"score": 6}


def test_a_reply_naming_a_label_300_000_times_without_a_space_is_read_at_once() -> None:
    """Regression: the word before each place a label was named was searched for back to
    the start of a reply that had no space ('a' and a NUL, 300,000 times): minutes."""
    from tests.fuzzing import within

    with within(5):
        assert extract_label("a\x00" * 300_000, ["A", "B"]) == "A"
    assert extract_label("x" * 100 + "n't a", ["A", "B"]) is None
