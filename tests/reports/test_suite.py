"""The suite's title counts its experiments in words a reader expects."""

from __future__ import annotations

import pytest

from assay.reports.suite import experiment_rows, title


@pytest.mark.parametrize(("evaluated", "sample", "expected"), [
    (1, None, "suite: 1 experiment"),
    (3, None, "suite: 3 experiments"),
    (2, 5, "suite: 2 experiments, a sample of up to 5 cases each"),
    (2, 1, "suite: 2 experiments, a sample of up to 1 case each"),
])
def test_the_title_says_experiment_for_one_and_experiments_for_more(
        evaluated: int, sample: int | None, expected: str) -> None:
    """Regression: a suite where one of two configs failed said "suite: 1 experiments"; and
    `--sample 100` over two datasets of 40 cases said "sample 100 each" where 40 ran."""
    assert title({"packs_evaluated": evaluated, "sample_per_pack": sample}) == expected


def test_figures_short_of_perfect_never_read_as_perfect_and_match_the_run_table() -> None:
    """Regression: 1,999 passes of 2,000 read `100.0%`, and a mean of 0.9996 read `1`,
    where the run's own table writes 99.95% and 0.9996; 0.2 read `0.2` beside `0.216`."""
    figures = {"n": 2000, "avg": 0.9996, "accuracy": 99.95, "accuracy_n": 2000, "errors": 0}
    pack = {"scorer": "exact", "scale": [0.0, 1.0], "exit_code": 0,
            "summary": {"a": figures, "b": {**figures, "avg": 0.2, "accuracy": 20.0}}}
    rows = experiment_rows({"per_pack": {"exp": pack}})
    assert rows[0][3:6] == ("2,000", "0.9996", "99.95%")
    assert rows[1][3:6] == ("2,000", "0.200", "20.0%")
    judge = {**pack, "scale": [0.0, 10.0], "summary": {"a": {**figures, "avg": 7.5}}}
    assert experiment_rows({"per_pack": {"exp": judge}})[0][4] == "7.50"


def test_an_average_over_no_one_scale_rounds_a_tie_away_from_zero() -> None:
    """Regression: an average of configs without a shared scale was written by Python's
    format, 0.5625 as `0.562`, where the run's own table reads `0.563`."""
    figures = {"n": 16, "avg": 0.5625, "accuracy": None, "accuracy_n": 0, "errors": 0}
    pack = {"scorer": "custom", "scale": None, "exit_code": 0, "summary": {"a": figures}}
    assert experiment_rows({"per_pack": {"exp": pack}})[0][4] == "0.563"


def test_regression_the_suite_table_shows_the_errored_trials_its_figures_leave_out() -> None:
    """A run whose v2 condition errored on 9 of 30 trials read 'n 7, accuracy 85.7%, exit 1'
    in suite.md and the terminal: the errors (in suite.json) were on no table."""
    from assay.reports.suite import suite_markdown

    figures = {"avg": 0.857, "accuracy": 85.7, "n": 7, "accuracy_n": 7, "errors": 9}
    document = {"packs_evaluated": 1, "sample_per_pack": None,
                "per_pack": {"h1": {"scorer": "contains", "scale": [0, 1],
                                    "summary": {"v2": figures}, "exit_code": 1}},
                "grand_summary_by_scorer": [{"scorer": "contains", "scale": [0, 1],
                                             "conditions": {"v2": {**figures,
                                                                   "experiments": ["h1"]}}}],
                "warnings": [], "failed": []}
    text = suite_markdown(document)
    assert ("| experiment | scorer | condition | n | avg | accuracy | errored trials | exit |"
            in text)
    assert "| h1 | contains (0–1) | v2 | 7 | 0.857 | 85.7% | 9 | 1 |" in text
    assert "| total of 1 | contains (0–1) | v2 | 7 | 0.857 | 85.7% | 9 |  |" in text


def test_a_warning_naming_a_condition_is_text_in_suite_md() -> None:
    """Regression: a suite warning quoted condition names as written: `<img onerror>` in
    one was raw HTML in suite.md, though the table beside it showed it as text."""
    from assay.reports.suite import suite_markdown

    document = {"packs_evaluated": 0, "sample_per_pack": None, "per_pack": {},
                "grand_summary_by_scorer": [], "failed": [],
                "warnings": ["contains: the '<img src=x onerror=y>' total covers 1 of 2"]}
    assert "- contains: the '\\<img src=x onerror=y\\>' total covers 1 of 2" in \
        suite_markdown(document)
