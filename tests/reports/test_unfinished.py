"""An answer that was never finished is said to be, in the words every report uses: an
agent out of turns, a reply cut at max_tokens."""

from __future__ import annotations

import pytest

from assay.reports.unfinished import ran_out_of_turns, unfinished


def test_a_trial_stopped_at_max_turns_says_how_many_turns_and_what_was_scored() -> None:
    metadata = {"agent": {"stop_reason": "max_turns", "steps": [{}, {}, {}]}}
    assert ran_out_of_turns(metadata) == (
        "the agent stopped at max_turns after 3 turns, still calling tools; the answer "
        "scored is its last turn's text")
    assert unfinished(metadata) == ran_out_of_turns(metadata)


def test_an_agent_that_answered_and_a_target_that_is_no_agent_say_nothing() -> None:
    assert ran_out_of_turns({"agent": {"stop_reason": "answer", "steps": [{}]}}) is None
    assert ran_out_of_turns({}) is None
    assert ran_out_of_turns(None) is None


@pytest.mark.parametrize("reason", ["max_tokens", "length", "MAX_TOKENS"])
def test_a_model_reply_cut_at_max_tokens_says_so_whatever_the_provider_calls_it(
        reason: str) -> None:
    """Anthropic says `max_tokens`, OpenAI `length`, Gemini `MAX_TOKENS`: a reply ending
    mid-sentence read as a wrong answer with nothing saying it was cut."""
    assert unfinished({"model": "m", "stop_reason": reason}) == (
        f"the reply was cut at max_tokens, stop reason {reason}; the answer scored is the "
        "cut text")


def test_an_agent_whose_last_turn_was_cut_says_so_and_one_cut_earlier_does_not() -> None:
    cut_last = {"agent": {"stop_reason": "answer",
                          "steps": [{"stop_reason": "tool_use"}, {"stop_reason": "length"}]}}
    assert unfinished(cut_last) is not None and "cut at max_tokens" in unfinished(cut_last)
    cut_before = {"agent": {"stop_reason": "answer",
                            "steps": [{"stop_reason": "length"}, {"stop_reason": "stop"}]}}
    assert unfinished(cut_before) is None


def test_a_finished_reply_says_nothing() -> None:
    assert unfinished({"stop_reason": "end_turn"}) is None
    assert unfinished({"stop_reason": "stop"}) is None
    assert unfinished({"stop_reason": None}) is None
