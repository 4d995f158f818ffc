"""The trials of report.html as compact JSON: every trial, each case once, texts capped by size.

Regression: the page's table stopped at 3,000 rows, and a search for a case
past that limit silently found nothing. Now every trial is on the page.
"""

from __future__ import annotations

import io
import json
from typing import Any

from assay.output import Output, ToolCall
from assay.records import TrialRecord
from assay.reports.html_trials import BATCH, CUT, TRIAL_FIELDS, TextCaps, collect
from assay.score import Score


def trial(index: int, *, passed: bool | None, condition: str = "a", value: float | None = None,
          text: str = "answer", error: str | None = None, **fields: Any) -> TrialRecord:
    score = Score(value=float(bool(passed)) if value is None else value,
                  passed=passed, reason="ok" if passed else "wrong")
    return TrialRecord(case_id=f"c{index:04d}", condition=condition, epoch=0,
                       input=fields.pop("input", "q"), expected="e",
                       output=Output(text=text, error=error), scores={"judge": score}, **fields)


def document(trials: list[TrialRecord], **kwargs: Any) -> dict[str, Any]:
    data = collect(trials, ["judge"], ["a"], epochs=1, **kwargs)
    out = io.StringIO()
    data.write(out)
    return json.loads(out.getvalue())


def test_each_case_is_kept_once_and_each_trial_points_at_it() -> None:
    trials = [trial(i, passed=True, condition=c, tags=["t1"]) for i in range(3) for c in "ab"]
    doc = document(trials)
    assert [case[0] for case in doc["cases"]] == ["c0000", "c0001", "c0002"]
    assert doc["cases"][0] == ["c0000", "q", "e", ["t1"], None]
    assert doc["conditions"] == ["a", "b"]
    assert [(t[0], t[1]) for t in doc["trials"]] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0),
                                                     (2, 1)]
    assert doc["fields"]["trial"] == list(TRIAL_FIELDS)


def test_statuses_read_errors_before_failures() -> None:
    broken = trial(1, passed=None, error="ConnectionError: refused")
    broken.scores = {}
    judged = trial(2, passed=None)
    judged.scores["judge"] = Score.failure("judge reply was not JSON")
    doc = document([broken, judged, trial(3, passed=False), trial(4, passed=True)])
    assert [t[3] for t in doc["trials"]] == ["e", "e", "f", "p"]
    assert doc["trials"][0][5] == "ConnectionError: refused" and doc["trials"][0][8] == [None]
    assert doc["trials"][1][8][0][3] == "judge reply was not JSON"


def test_a_judges_metrics_reasoning_claims_and_every_repeat_are_kept() -> None:
    judged = trial(1, passed=False, value=2.0)
    judged.scores["judge"].details = {
        "judge_model": "openai/gpt-4.1", "metrics": {"factual": 2, "safety": 5},
        "reasoning": {"factual": "wrong year", "safety": "fine"},
        "unverified_claims": ["Go 1.30 exists"], "unstable": True,
        "judgements": [{"passed": True, "value": 4.0, "reason": "close"},
                       {"passed": False, "value": 2.0, "reason": "wrong", "cached": False,
                        "usage": {"calls": 1}}],
        "prompt_hash": "abc"}
    [row] = document([judged])["trials"]
    details = row[8][0][4]
    assert details == {
        "judge": "openai/gpt-4.1", "metrics": {"factual": 2, "safety": 5},
        "reasoning": {"factual": "wrong year", "safety": "fine"},
        "claims": ["Go 1.30 exists"], "unstable": True,
        "repeats": [{"passed": True, "value": 4.0, "reason": "close"},
                    {"passed": False, "value": 2.0, "reason": "wrong"}]}


def test_an_agents_tool_calls_and_turns_are_its_trajectory() -> None:
    agent = trial(1, passed=True)
    agent.output.tool_calls = [
        ToolCall("search", {"q": "moons"}, result="Io, Europa", duration_ms=12.345),
        ToolCall("open", {"path": "/x"}, error="not found", duration_ms=3.0)]
    agent.output.metadata = {"agent": {"steps": [
        {"turn": 1, "text": "", "stop_reason": "tool_use", "input_tokens": 10,
         "output_tokens": 5, "latency_ms": 120.4, "cached": False,
         "tool_calls": [{"name": "search"}, {"name": "open"}]},
        {"turn": 2, "text": "Io", "stop_reason": "end_turn", "input_tokens": 30,
         "output_tokens": 2, "latency_ms": 80.0, "cached": True, "tool_calls": []}]}}
    [row] = document([agent])["trials"]
    assert row[9] == [["search", '{"q": "moons"}', "Io, Europa", None, 12],
                      ["open", '{"path": "/x"}', None, "not found", 3.0]]
    assert row[10] == [[1, "", 2, 120, 10, 5, False, "tool_use"],
                       [2, "Io", 0, 80, 30, 2, True, "end_turn"]]


def test_long_texts_are_cut_and_say_where_the_whole_text_is() -> None:
    long = "word " * 100
    [row] = document([trial(1, passed=True, text=long)],
                     caps=TextCaps(text=50, reason=20, tool=20))["trials"]
    assert row[4] == long[:50] + CUT


def test_caps_shrink_as_a_run_grows_but_keep_a_readable_excerpt() -> None:
    assert TextCaps.for_trials(1_000) == TextCaps()
    big = TextCaps.for_trials(100_000)
    assert 600 <= big.text < TextCaps().text
    assert TextCaps.for_trials(10_000_000).text == 600


def test_nothing_in_a_text_can_close_the_script_block_it_sits_in() -> None:
    attack = "</script><script>window.pwned = 1</script><!-- & \u2028"
    out = io.StringIO()
    collect([trial(1, passed=False, text=attack)], ["judge"], ["a"], epochs=1).write(out)
    text = out.getvalue()
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text)["trials"][0][4] == attack


def test_a_value_json_cannot_hold_becomes_null() -> None:
    odd = trial(1, passed=True)
    odd.output.latency_ms = float("nan")
    odd.scores["judge"].value = float("inf")
    [row] = document([odd])["trials"]
    assert row[6] is None and row[8][0][0] is None


def test_chat_input_shows_every_message_with_its_role() -> None:
    chat = trial(1, passed=True, input=[{"role": "system", "content": "be brief"},
                                        {"role": "user", "content": "what is it?"}])
    assert document([chat])["cases"][0][1] == "system: be brief\nuser: what is it?"


def test_trials_and_cases_past_a_batch_are_all_listed_in_order() -> None:
    trials = [trial(i, passed=i % 3 != 0, condition=c) for i in range(BATCH * 2 + 3) for c in "ab"]
    doc = document(trials)
    assert [case[0] for case in doc["cases"]] == [f"c{i:04d}" for i in range(BATCH * 2 + 3)]
    assert [(row[0], row[1]) for row in doc["trials"]] == [
        (i, c) for i in range(BATCH * 2 + 3) for c in (0, 1)]
    assert [row[3] for row in doc["trials"][:6]] == ["f", "f", "p", "p", "p", "p"]


def test_a_number_orjson_refuses_changes_only_its_own_trial_in_a_batch() -> None:
    huge = trial(1, passed=True)
    huge.scores["judge"].details = {"judge_model": "m", "metrics": {"depth": 2**70}}
    plain = [trial(i, passed=True) for i in (0, 2)]
    alone = document(plain)["trials"]
    rows = document([plain[0], huge, plain[1]])["trials"]
    assert rows[1][8][0][4] == {"judge": "m", "metrics": {"depth": 2**70}}
    assert [rows[0], rows[2][1:]] == [alone[0], alone[1][1:]]  # [0]: the case's place


def test_a_retried_agent_trial_carries_its_attempts_and_a_single_attempt_none() -> None:
    """Its tools and steps are the last attempt's while its tokens and cost are every
    attempt's: the page says whose trajectory it shows."""
    retried, once = trial(1, passed=True), trial(2, passed=True)
    retried.output.metadata = {"agent": {"attempts": 2, "steps": []}}
    once.output.metadata = {"agent": {"attempts": 1, "steps": []}}
    rows = document([retried, once])["trials"]
    assert [row[TRIAL_FIELDS.index("attempts")] for row in rows] == [2, None]
