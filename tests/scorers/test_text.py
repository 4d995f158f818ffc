"""exact_match, contains, regex and token_f1: what passes, what fails, and the reasons given."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from assay.case import Case
from assay.output import Output
from assay.scorers.text import token_f1


def case(expected: Any = None, **fields: Any) -> Case:
    return Case(id="q1", input="What is the capital of France?", expected=expected, **fields)


def out(text: str) -> Output:
    return Output(text=text)


# exact_match


def test_exact_match_ignores_surrounding_whitespace_by_default(make_scorer):
    score = make_scorer("exact_match").check(case("Paris"), out("  Paris\n"))
    assert (score.value, score.passed, score.error) == (1.0, True, None)


def test_exact_match_is_case_sensitive_by_default_and_says_what_differed(make_scorer):
    score = make_scorer("exact_match").check(case("Paris"), out("paris"))
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == "expected 'Paris', got 'paris'"


def test_exact_match_ignore_case_uses_unicode_case_folding(make_scorer):
    scorer = make_scorer("exact_match", ignore_case=True)
    assert scorer.check(case("Straße"), out("STRASSE")).passed is True


def test_exact_match_squad_style_options_drop_punctuation_and_articles(make_scorer):
    scorer = make_scorer("exact_match", ignore_case=True, ignore_punctuation=True,
                         ignore_articles=True)
    assert scorer.check(case("Eiffel Tower"), out("The Eiffel Tower!")).passed is True
    assert scorer.check(case("“Eiffel” Tower"), out("eiffel tower")).passed is True
    assert scorer.check(case("Eiffel Tower"), out("Eiffel Tower 2")).passed is False


def test_exact_match_whitespace_modes(make_scorer):
    assert make_scorer("exact_match", whitespace="exact").check(
        case("Paris"), out("Paris\n")).passed is False
    assert make_scorer("exact_match").check(
        case("New York"), out("New  York")).passed is False
    assert make_scorer("exact_match", whitespace="collapse").check(
        case("New York"), out(" New \n York ")).passed is True


def test_exact_match_nfkc_makes_full_width_letters_equal_to_plain_ones(make_scorer):
    assert make_scorer("exact_match").check(case("Paris"), out("Ｐａｒｉｓ")).passed is False
    assert make_scorer("exact_match", nfkc=True).check(case("Paris"), out("Ｐａｒｉｓ")).passed


def test_exact_match_accepts_any_of_a_list_of_expected_answers(make_scorer):
    scorer = make_scorer("exact_match")
    score = scorer.check(case(["Paris", "Paris, France"]), out("Paris, France"))
    assert score.passed is True
    assert score.details["matched"] == "Paris, France"
    failed = scorer.check(case(["Paris", "Paris, France"]), out("Lyon"))
    assert failed.reason == "matches none of 2 expected answers, got 'Lyon'"


def test_exact_match_compares_a_numeric_expected_value_as_text(make_scorer):
    assert make_scorer("exact_match").check(case(42), out("42")).passed is True


def test_exact_match_value_overrides_expected_and_may_be_a_template(make_scorer):
    scorer = make_scorer("exact_match", value="{{ metadata.capital }}")
    item = case("ignored", metadata={"capital": "Paris"})
    assert scorer.check(item, out("Paris")).passed is True
    assert make_scorer("exact_match", value="Lyon").check(item, out("Lyon")).passed is True


def test_exact_match_without_expected_is_an_error_not_a_pass(make_scorer):
    score = make_scorer("exact_match").check(case(None), out(""))
    assert score.value is None and score.passed is None
    assert score.error is not None and "case 'q1' has no expected value" in score.error


def test_a_template_naming_a_field_the_case_lacks_is_that_cases_error(make_scorer):
    score = make_scorer("exact_match", value="{{ metadata.capital }}").check(case(), out("x"))
    assert score.value is None
    assert score.error is not None and "case 'q1'" in score.error


def test_exact_match_with_a_mapping_as_expected_is_an_error(make_scorer):
    score = make_scorer("exact_match").check(case({"city": "Paris"}), out("Paris"))
    assert score.error is not None and "mapping" in score.error


def test_exact_match_empty_output_fails(make_scorer):
    score = make_scorer("exact_match").check(case("Paris"), out(""))
    assert (score.value, score.passed) == (0.0, False)


# contains


def test_contains_defaults_to_expected_and_ignores_case(make_scorer):
    score = make_scorer("contains").check(case("Paris"), out("The capital is paris."))
    assert score.passed is True
    assert score.details == {"found": ["Paris"], "missing": []}


def test_contains_case_sensitive(make_scorer):
    score = make_scorer("contains", case_sensitive=True).check(case("Paris"), out("paris"))
    assert score.passed is False
    assert score.reason == "contains none of 'Paris'"


def test_contains_any_passes_on_one_value_all_needs_every_value(make_scorer):
    text = out("Go has goroutines and channels.")
    values = ["goroutines", "channels", "generics"]
    assert make_scorer("contains", value=values).check(case(), text).passed is True
    all_of = make_scorer("contains", value=values, mode="all").check(case(), text)
    assert all_of.passed is False
    assert all_of.reason == "missing 'generics'"
    assert all_of.details["found"] == ["goroutines", "channels"]


def test_contains_renders_a_template_value_per_case(make_scorer):
    scorer = make_scorer("contains", value="{{ expected }}")
    assert scorer.check(case("Paris"), out("It is Paris.")).passed is True
    assert scorer.check(case("Rome"), out("It is Paris.")).passed is False


def test_contains_handles_non_ascii_text(make_scorer):
    scorer = make_scorer("contains", value="東京")
    assert scorer.check(case(), out("首都は東京です")).passed is True


def test_contains_without_any_value_is_an_error(make_scorer):
    score = make_scorer("contains").check(case(None), out("anything"))
    assert score.error is not None and "no expected value" in score.error


def test_contains_treats_an_empty_expected_string_as_missing_not_as_always_found(make_scorer):
    assert make_scorer("contains").check(case(""), out("anything")).error is not None


@pytest.mark.parametrize(("value", "loc", "prefix"), [
    ("{{ expected ", ("value",), "template syntax error"),
    (["plain", "{% if %}"], ("value",), "item 1: template syntax error"),
])
def test_a_broken_template_is_a_config_error_on_the_value_field(make_scorer, value, loc, prefix):
    with pytest.raises(ValidationError) as raised:
        make_scorer("contains", value=value)
    (error,) = raised.value.errors()
    assert error["loc"] == loc
    assert error["msg"].startswith(f"Value error, {prefix}")


# regex


def test_regex_must_match_reports_the_match(make_scorer):
    score = make_scorer("regex", pattern=r"order #(\d+)").check(case(), out("See order #123."))
    assert score.passed is True
    assert score.details == {"match": "order #123", "groups": ["123"]}


def test_regex_must_match_false_passes_only_when_absent(make_scorer):
    scorer = make_scorer("regex", pattern=r"(?i)as an ai", must_match=False)
    assert scorer.check(case(), out("Paris.")).passed is True
    failed = scorer.check(case(), out("As an AI, I think Paris."))
    assert failed.passed is False
    assert "must not match" in failed.reason


@pytest.mark.parametrize("pattern", ["{{ expected }}", "moons: {{expected}}$",
                                     "{{ metadata.city | lower }}"])
def test_a_regex_pattern_written_as_a_template_is_refused_as_a_config_error(make_scorer,
                                                                           pattern):
    """Regression: `pattern: "{{ expected }}"` was matched as those characters, so every case
    failed without a word."""
    with pytest.raises(ValidationError, match="a regex pattern is not a template"):
        make_scorer("regex", pattern=pattern)


def test_a_regex_with_escaped_braces_or_counts_is_a_regex(make_scorer):
    assert make_scorer("regex", pattern=r"\{\{ x \}\}").check(case(), out("{{ x }}")).passed
    assert make_scorer("regex", pattern=r"\d{2,3}").check(case(), out("42")).passed


def test_regex_flags_by_name(make_scorer):
    scorer = make_scorer("regex", pattern=r"^paris$", flags=["ignorecase", "multiline"])
    assert scorer.check(case(), out("Answer:\nParis\n")).passed is True
    assert make_scorer("regex", pattern=r"^paris$").check(case(), out("Answer:\nParis")).passed \
        is False


def test_regex_full_match_needs_the_whole_output(make_scorer):
    scorer = make_scorer("regex", pattern=r"\d+", full_match=True)
    assert scorer.check(case(), out(" 42\n")).passed is True
    assert scorer.check(case(), out("42 apples")).passed is False


def test_regex_invalid_pattern_or_flag_fails_validation(make_scorer):
    with pytest.raises(ValidationError, match="invalid regular expression"):
        make_scorer("regex", pattern="(unclosed")
    with pytest.raises(ValidationError):
        make_scorer("regex", pattern="x", flags=["caseless"])


# token_f1


def test_token_f1_is_one_after_squad_normalisation(make_scorer):
    score = make_scorer("token_f1").check(case("the Eiffel Tower"), out("Eiffel tower."))
    assert (score.value, score.passed) == (1.0, True)


def test_token_f1_partial_overlap_reports_precision_and_recall(make_scorer):
    score = make_scorer("token_f1").check(case("Paris"), out("Paris is the capital of France"))
    precision, recall = 1 / 5, 1 / 1  # 'the' is dropped: 5 output tokens, 1 in common
    assert score.details["precision"] == pytest.approx(precision)
    assert score.details["recall"] == pytest.approx(recall)
    assert score.value == pytest.approx(2 * precision * recall / (precision + recall))
    assert score.passed is False  # below the default threshold of 0.5


def test_token_f1_reason_rounds_a_tie_as_every_report_does(make_scorer):
    """Regression: 5 of 8 answer tokens expected gave a reason of 'precision 0.62', where
    every report rounds 0.625 to 0.63."""
    score = make_scorer("token_f1").check(case("one two three four five"),
                                          out("one two three four five six seven eight"))
    assert score.details["precision"] == 0.625
    assert "(precision 0.63, recall 1.00)" in score.reason


def test_token_f1_counts_tokens_as_a_multiset():
    f1, precision, recall = token_f1(["x", "x", "y"], ["x", "y", "y"])
    assert (precision, recall) == (2 / 3, 2 / 3)  # one x and one y are shared
    assert f1 == pytest.approx(2 / 3)


def test_token_f1_takes_the_best_of_several_expected_answers(make_scorer):
    score = make_scorer("token_f1").check(case(["Lyon", "Paris France"]), out("Paris"))
    assert score.details["best_expected"] == "Paris France"
    assert score.value == pytest.approx(2 * 1 * 0.5 / 1.5)


def test_token_f1_threshold_decides_passed(make_scorer):
    item, answer = case("Paris France"), out("Paris")
    assert make_scorer("token_f1", threshold=0.6).check(item, answer).passed is True
    assert make_scorer("token_f1", threshold=0.7).check(item, answer).passed is False


def test_token_f1_empty_output_scores_zero_and_says_so(make_scorer):
    score = make_scorer("token_f1").check(case("Paris"), out(""))
    assert score.value == 0.0
    assert "no tokens" in score.reason


def test_token_f1_unicode_accents_and_curly_quotes(make_scorer):
    assert make_scorer("token_f1").check(case("Café “Flore”"), out("café flore!")).value == 1.0


def test_token_f1_without_expected_is_an_error(make_scorer):
    assert make_scorer("token_f1").check(case(None), out("Paris")).error is not None


@pytest.mark.parametrize("kind", ["regex", "numeric"])
def test_an_invalid_pattern_is_reported_on_the_pattern_field_the_same_way(make_scorer, kind):
    with pytest.raises(ValidationError) as raised:
        make_scorer(kind, pattern="[a-")
    (error,) = raised.value.errors()
    assert error["loc"] == ("pattern",)
    assert error["msg"].startswith("Value error, invalid regular expression: unterminated")


def test_a_template_of_a_missing_expected_is_an_error_naming_the_case_not_none(make_scorer):
    """Regression: `value: "{{ expected }}"` with no expected rendered the text `None`, so the
    case failed, or passed when the answer happened to say None."""
    score = make_scorer("contains", value="{{ expected }}").check(case(None), out("None"))
    assert score.value is None and score.error is not None and "case 'q1'" in score.error
    compound = make_scorer("contains", value="It is {{ expected }}").check(case(None), out("x"))
    assert compound.error is not None and "missing value" in compound.error


def test_a_template_of_a_list_expected_means_each_item_never_its_python_repr(make_scorer):
    """Regression: a list rendered as "['Phobos', 'Deimos']", so a correct answer failed."""
    moons = case(["Phobos", "Deimos"])
    answer = out("Mars has two moons, Phobos and Deimos.")
    assert make_scorer("contains", value="{{ expected }}", mode="all").check(
        moons, answer).passed is True
    assert make_scorer("contains", value="{{ expected }}", mode="all").check(
        moons, out("Only Phobos")).passed is False
    assert make_scorer("exact_match", value="{{ expected }}").check(
        moons, out("Deimos")).passed is True
    rendered = make_scorer("contains", value="moons: {{ expected }}").check(
        moons, out('moons: ["Phobos", "Deimos"]'))
    assert rendered.passed is True  # inside text, a list renders as JSON


def test_token_f1_exactly_at_the_threshold_passes(make_scorer):
    # 1 token in common, 9 answer tokens, 1 expected: F1 = 2/10. Computed as 2PR/(P+R)
    # in floats this was 0.19999999999999998 and failed a threshold of 0.2.
    answer = out("Apollo eleven landed crew members walked on lunar ground")
    score = make_scorer("token_f1", threshold=0.2).check(case("Apollo"), answer)
    assert score.details["precision"] == pytest.approx(1 / 9)
    assert score.value == 0.2
    assert score.passed is True


def test_token_f1_overlap_is_the_size_of_the_multisets_intersection():
    from collections import Counter

    pairs = [(["a", "a", "b", "c"], ["a", "b", "b"]), (["x", "y"], ["y", "y", "y", "x"]),
             (["p", "q"], ["r", "s"]), (["a"], ["a", "a", "a"])]
    for predicted, gold in pairs:
        common = sum((Counter(predicted) & Counter(gold)).values())
        f1, precision, recall = token_f1(predicted, gold)
        assert (precision * len(predicted), recall * len(gold)) == (common, common)
        assert f1 == 2 * common / (len(predicted) + len(gold))


def test_collapsed_whitespace_is_every_unicode_space_run_made_one_space():
    import re

    from assay.scorers._normalize import Normalization

    collapse = Normalization(whitespace="collapse").build()
    for text in [" a\t\tb\n", "\u00a0x\u2003\u3000y\x1c", "", " \r\n ", "one"]:
        assert collapse(text) == re.sub(r"\s+", " ", text).strip()
