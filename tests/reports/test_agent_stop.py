"""An agent trial that ran out of turns is said to have, in the words every report uses."""

from __future__ import annotations

from assay.reports.agent_stop import ran_out_of_turns


def test_a_trial_stopped_at_max_turns_says_how_many_turns_and_what_was_scored() -> None:
    metadata = {"agent": {"stop_reason": "max_turns", "steps": [{}, {}, {}]}}
    assert ran_out_of_turns(metadata) == (
        "the agent stopped at max_turns after 3 turns, still calling tools; the answer "
        "scored is its last turn's text")


def test_an_agent_that_answered_and_a_target_that_is_no_agent_say_nothing() -> None:
    assert ran_out_of_turns({"agent": {"stop_reason": "answer", "steps": [{}]}}) is None
    assert ran_out_of_turns({}) is None
    assert ran_out_of_turns(None) is None
