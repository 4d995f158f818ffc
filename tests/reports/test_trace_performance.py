"""The Performance rows of `assay traces`: a rate reads 0% or 100% only when it is."""

from __future__ import annotations

from assay.reports.trace_performance import performance


def test_regression_one_tool_error_in_a_thousand_calls_is_not_a_rate_of_0_percent() -> None:
    """It read 'tool error rate 0%' beside 1 tool error."""
    rows = dict(performance({"tool_calls": 1000, "tool_errors": 1, "tool_error_rate": 0.001},
                            None))
    assert rows["tool error rate"] == "0.1%"


def test_regression_a_hit_rate_just_below_its_target_is_not_printed_at_the_target() -> None:
    """79.6% read '80% (target 80%)'."""
    rows = dict(performance({"wiki_hit_rate": 0.796}, 0.8))
    assert rows["wiki hit rate (answered without reading source files)"] == "79.6% (target 80%)"


def test_whole_rates_keep_their_whole_percent() -> None:
    rows = dict(performance({"wiki_hit_rate": 0.8, "tool_error_rate": 0.0}, 0.8))
    assert rows["wiki hit rate (answered without reading source files)"] == "80% (target 80%)"
    assert rows["tool error rate"] == "0%"


def test_regression_sessions_that_logged_no_token_usage_read_unknown_tokens_not_0() -> None:
    """It read 'tokens per question 0' beside 'cost unknown (no model response logged a
    cost)', for logs that say nothing of either."""
    rows = dict(performance({"exchanges": 5, "tokens_per_exchange": None,
                             "cost_usd": None, "unpriced_turns": 10}, None))
    assert rows["tokens per question"] == "unknown (no model response logged its token usage)"
    assert rows["cost"] == "unknown (no model response logged a cost)"


def test_wasted_reads_say_what_they_are_out_of() -> None:
    """Regression: 'wasted reads 12' said nothing of the 33 reads of answered questions it
    was out of (the other 10 reads were for questions left unanswered)."""
    rows = dict(performance({"wasted_reads": 12, "answered_source_reads": 33,
                             "source_reads": 43}, None))
    assert rows["wasted reads (read, never cited in the answer)"] == (
        "12 of 33 source-file reads in answered questions")
    assert rows["source-file reads (a file counted once per question)"] == "43"


def test_a_run_stored_without_the_reads_of_answered_questions_shows_the_count_alone() -> None:
    rows = dict(performance({"wasted_reads": 12}, None))
    assert rows["wasted reads (read, never cited in the answer)"] == "12"
