"""tool_calls: the agent-suite grader, on the customer-support agent's cases.

The agent has two tools, get_order_status(order_id) and cancel_order(order_id,
confirmation). Calls are numbered from 1 in reasons.
"""

from __future__ import annotations

from typing import Any

from assay.case import Case
from assay.output import Output, ToolCall


def case(expected_calls: list[dict[str, Any]] | None, case_id: str = "case_001") -> Case:
    return Case(id=case_id, input="where's my order #12345?", expected_tool_calls=expected_calls)


def calls(*made: tuple[str, dict[str, Any]]) -> Output:
    return Output(text="", tool_calls=[ToolCall(name, arguments) for name, arguments in made])


LOOKUP = {"name": "get_order_status", "args": {"order_id": "12345"}}
CANCEL = {"name": "cancel_order", "args": {"order_id": "12345", "confirmation": True}}


def test_happy_path_lookup_passes(make_scorer):
    score = make_scorer("tool_calls").check(
        case([LOOKUP]), calls(("get_order_status", {"order_id": "12345"})))
    assert (score.value, score.passed, score.error) == (1.0, True, None)
    assert score.reason == "the tool call matches"
    assert score.details["calls"][0]["status"] == "match"


def test_a_matching_call_the_tool_failed_passes_and_its_reason_says_it_failed(make_scorer):
    """The check is of what the agent asked for (the agent-suite grader's rule): a lookup
    answered with an error still matches. It passed reading only 'the tool call matches',
    as if the lookup had worked."""
    failed = Output(tool_calls=[ToolCall("get_order_status", {"order_id": "12345"},
                                         error="order service unavailable\nretry later")])
    score = make_scorer("tool_calls").check(case([LOOKUP]), failed)
    assert score.passed is True
    assert score.reason == ("the tool call matches, but call 1 (get_order_status) failed: "
                            "order service unavailable")
    assert score.details["failed_calls"] == [1]
    assert score.details["calls"][0]["actual"]["error"].startswith("order service")


def test_several_failed_matching_calls_are_numbered_as_they_were_made(make_scorer):
    made = Output(tool_calls=[
        ToolCall("cancel_order", {"order_id": "12345", "confirmation": True}, error="locked"),
        ToolCall("get_order_status", {"order_id": "12345"}, error="timeout")])
    score = make_scorer("tool_calls", ordered=False).check(case([LOOKUP, CANCEL]), made)
    assert score.passed is True
    assert score.reason == ("all 2 tool calls match, but calls 1 and 2 failed; "
                            "call 1 (cancel_order): locked")


def test_a_wrong_argument_is_named_with_both_values(make_scorer):
    score = make_scorer("tool_calls").check(
        case([LOOKUP]), calls(("get_order_status", {"order_id": "999"})))
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == "call 1: arg 'order_id' expected '12345', got '999'"
    assert score.details["calls"][0] == {
        "expected": {"name": "get_order_status", "arguments": {"order_id": "12345"}},
        "actual": {"name": "get_order_status", "arguments": {"order_id": "999"}},
        "status": "mismatch",
        "mismatch": "arg 'order_id' expected '12345', got '999'",
    }


def test_extra_arguments_the_agent_adds_are_allowed(make_scorer):
    score = make_scorer("tool_calls").check(
        case([LOOKUP]), calls(("get_order_status", {"order_id": "12345", "verbose": True})))
    assert score.passed is True


def test_a_missing_argument_is_named(make_scorer):
    score = make_scorer("tool_calls").check(case([CANCEL]), calls(("cancel_order",
                                                                   {"order_id": "12345"})))
    assert score.reason == "call 1: arg 'confirmation' missing, expected True"


def test_cancel_with_confirmation_given_passes(make_scorer):
    score = make_scorer("tool_calls").check(
        case([CANCEL], "case_002"),
        calls(("cancel_order", {"order_id": "12345", "confirmation": True})))
    assert score.passed is True


def test_policy_edge_cancel_without_asking_first_is_caught(make_scorer):
    # "cancel my order 12345": the agent must ask for confirmation, so no tool call yet.
    score = make_scorer("tool_calls").check(
        case([], "case_005"), calls(("cancel_order", {"order_id": "12345", "confirmation": True})))
    assert score.passed is False
    assert score.reason == ("call count mismatch: expected 0, got 1; "
                            "call 1: unexpected call cancel_order")


def test_a_missing_call_is_a_count_mismatch_naming_the_call(make_scorer):
    score = make_scorer("tool_calls").check(
        case([LOOKUP, CANCEL]), calls(("get_order_status", {"order_id": "12345"})))
    assert score.reason == ("call count mismatch: expected 2, got 1; "
                            "call 2: expected cancel_order, got no call")
    assert [row["status"] for row in score.details["calls"]] == ["match", "missing"]


def test_order_matters_by_default(make_scorer):
    swapped = calls(("cancel_order", {"order_id": "12345", "confirmation": True}),
                    ("get_order_status", {"order_id": "12345"}))
    score = make_scorer("tool_calls").check(case([LOOKUP, CANCEL]), swapped)
    assert score.reason == "call 1: expected get_order_status, got cancel_order"


def test_unordered_mode_matches_calls_as_a_multiset(make_scorer):
    swapped = calls(("cancel_order", {"order_id": "12345", "confirmation": True}),
                    ("get_order_status", {"order_id": "12345"}))
    scorer = make_scorer("tool_calls", ordered=False)
    assert scorer.check(case([LOOKUP, CANCEL]), swapped).passed is True
    twice = scorer.check(case([LOOKUP, LOOKUP]), calls(("get_order_status",
                                                        {"order_id": "12345"})))
    assert twice.passed is False
    assert twice.reason.startswith("call count mismatch: expected 2, got 1; expected call 2")


def test_unordered_mode_points_at_the_nearest_call(make_scorer):
    made = calls(("cancel_order", {"order_id": "12345", "confirmation": False}),
                 ("get_order_status", {"order_id": "12345"}))
    score = make_scorer("tool_calls", ordered=False).check(case([LOOKUP, CANCEL]), made)
    assert score.reason == ("expected call 2: no call matches cancel_order; nearest is call 1: "
                            "arg 'confirmation' expected True, got False")


def test_unordered_mode_finds_a_full_matching_where_greedy_would_not(make_scorer):
    # The loose expectation (any lookup) must not take the only call the strict one fits.
    loose = {"name": "get_order_status", "args": {}}
    made = calls(("get_order_status", {"order_id": "12345"}),
                 ("get_order_status", {"order_id": "67890"}))
    assert make_scorer("tool_calls", ordered=False).check(case([loose, LOOKUP]), made).passed


def test_allow_extra_calls_in_order(make_scorer):
    made = calls(("get_order_status", {"order_id": "12345"}),
                 ("get_order_status", {"order_id": "67890"}),
                 ("cancel_order", {"order_id": "12345", "confirmation": True}))
    scorer = make_scorer("tool_calls", allow_extra_calls=True)
    score = scorer.check(case([LOOKUP, CANCEL]), made)
    assert score.passed is True
    assert score.reason == "all 2 tool calls match (1 extra allowed)"
    statuses = sorted(row["status"] for row in score.details["calls"])
    assert statuses == ["extra_allowed", "match", "match"]
    backwards = scorer.check(case([CANCEL, LOOKUP]), made)
    assert backwards.passed is False
    assert backwards.reason == "call 2: expected get_order_status, got no such call"


def test_allow_extra_calls_unordered(make_scorer):
    made = calls(("cancel_order", {"order_id": "12345", "confirmation": True}),
                 ("get_order_status", {"order_id": "67890"}))
    scorer = make_scorer("tool_calls", ordered=False, allow_extra_calls=True)
    assert scorer.check(case([CANCEL]), made).passed is True


def test_a_case_without_expected_tool_calls_is_not_applicable_by_default(make_scorer):
    """Regression: a missing key used to mean "no calls allowed", so an agent that used its
    tools on questions that named none failed every one of them."""
    scorer = make_scorer("tool_calls")
    assert scorer.check(case(None), calls(("get_order_status", {"order_id": "1"}))) is None
    assert scorer.check(case(None), calls()) is None


def test_an_explicit_empty_list_means_no_calls_allowed(make_scorer):
    scorer = make_scorer("tool_calls")
    assert scorer.check(case([]), calls()).reason == "no tool calls, as expected"
    assert scorer.check(case([]), calls(("get_order_status", {"order_id": "1"}))).passed \
        is False


def test_no_calls_can_still_be_what_a_missing_key_means(make_scorer):
    scorer = make_scorer("tool_calls", if_missing="no_calls")
    assert scorer.check(case(None), calls()).reason == "no tool calls, as expected"
    assert scorer.check(case(None), calls(("get_order_status", {"order_id": "1"}))).passed \
        is False


def test_no_expected_tool_calls_can_be_an_error_instead(make_scorer):
    score = make_scorer("tool_calls", if_missing="error").check(case(None), calls())
    assert score.value is None
    assert score.error == "case 'case_001' has no expected_tool_calls"


def test_arguments_key_and_name_only_expectations(make_scorer):
    expected = [{"name": "get_order_status", "arguments": {"order_id": "12345"}},
                {"name": "cancel_order"}]
    made = calls(("get_order_status", {"order_id": "12345"}),
                 ("cancel_order", {"order_id": "1", "confirmation": False}))
    assert make_scorer("tool_calls").check(case(expected), made).passed is True


def test_values_compare_as_json_true_is_not_one_and_strings_are_not_numbers(make_scorer):
    scorer = make_scorer("tool_calls")
    as_one = scorer.check(case([CANCEL]), calls(("cancel_order",
                                                 {"order_id": "12345", "confirmation": 1})))
    assert as_one.reason == "call 1: arg 'confirmation' expected True, got 1"
    as_int = scorer.check(case([LOOKUP]), calls(("get_order_status", {"order_id": 12345})))
    assert as_int.reason == "call 1: arg 'order_id' expected '12345', got 12345"
    nested = {"name": "search", "args": {"filters": {"status": ["shipped"]}, "limit": 5}}
    same = calls(("search", {"filters": {"status": ["shipped"]}, "limit": 5.0}))
    assert scorer.check(case([nested]), same).passed is True


def test_malformed_expectations_are_errors_naming_the_entry(make_scorer):
    scorer = make_scorer("tool_calls")
    no_name = scorer.check(case([{"args": {}}]), calls())
    assert no_name.error == "case 'case_001' expected_tool_calls[0] needs a 'name'"
    both = scorer.check(case([{"name": "x", "args": {}, "arguments": {}}]), calls())
    assert both.error is not None and "arguments twice" in both.error


def test_a_tool_the_agent_saw_renamed_meets_a_case_naming_it_by_its_servers_name(make_scorer):
    """Two MCP servers offered `search`: the agent called `docs__search`, recorded with its
    server's name; a case may expect `search` or `docs__search`, not the other server's."""
    renamed = Output(text="", tool_calls=[ToolCall("docs__search", {"q": "x"}, tool="search")])
    scorer = make_scorer("tool_calls")
    for expected in ("search", "docs__search"):
        assert scorer.check(case([{"name": expected}]), renamed).passed, expected
    assert not scorer.check(case([{"name": "wiki__search"}]), renamed).passed
    assert ToolCall.from_dict(renamed.tool_calls[0].to_dict()) == renamed.tool_calls[0]


def test_a_call_of_a_tool_the_agent_was_not_offered_matches_no_expected_call(make_scorer):
    """Regression: a case expecting `get_order_stat` (a typo no server offers) passed when the
    model made up the same name: the call, answered 'unknown tool', matched by name, while
    the run had warned that every such trial fails tool_calls."""
    made_up = Output(tool_calls=[ToolCall("get_order_stat", {"order_id": "12345"},
                                          error="unknown tool 'get_order_stat'")],
                     metadata={"agent": {"tools": ["get_order_status", "cancel_order"]}})
    expected = case([{"name": "get_order_stat", "args": {"order_id": "12345"}}])
    for params in ({}, {"allow_extra_calls": True}, {"ordered": False}):
        score = make_scorer("tool_calls", **params).check(expected, made_up)
        assert score.passed is False, params
        assert "get_order_stat is no tool the agent was offered" in (score.reason or ""), params


def test_calls_of_a_target_that_lists_no_tools_match_by_name_alone(make_scorer):
    score = make_scorer("tool_calls").check(
        case([{"name": "anything"}]), calls(("anything", {})))
    assert score.passed is True


def test_a_case_expecting_no_call_fails_any_call_even_where_extra_calls_are_allowed(
        make_scorer):
    """Regression: with `allow_extra_calls: true` (the mcp-context example's setting), a case
    with `expected_tool_calls: []`, which means no call is allowed, passed an agent that
    searched, reading 'no tool calls, as expected (1 extra allowed)'; so did
    `if_missing: no_calls`."""
    searched = calls(("get_order_status", {"order_id": "12345"}))
    for params in ({"allow_extra_calls": True},
                   {"allow_extra_calls": True, "ordered": False}):
        score = make_scorer("tool_calls", **params).check(case([]), searched)
        assert (score.passed, score.reason) == (
            False, ("call count mismatch: expected 0, got 1; call 1: unexpected call "
                    "get_order_status")), params
    no_calls = make_scorer("tool_calls", allow_extra_calls=True, if_missing="no_calls")
    assert no_calls.check(case(None), searched).passed is False
    assert no_calls.check(case(None), calls()).passed is True
