"""report.html in a real browser: headless Chromium runs the page's script and dumps the DOM.

The page draws its cases from embedded JSON, so what a reader sees is only
known once the script has run: the first page of cases, a search that finds
a case past the first thousands, a case opened by its link, and payloads
planted in every field staying text. Chromium is Debian's `chromium`; without
it the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from assay.analysis.conditions import compare_conditions
from assay.analysis.summary import summarize
from assay.output import Output, ToolCall
from assay.records import RunRecord, ScoreRow, TrialRecord, TrialRow
from assay.reports.html import render_html
from assay.review.result import Review
from assay.score import Score

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PWNED = "document.documentElement.setAttribute('data-pwned','1')"
PAYLOADS = (f"<img src=x onerror=\"{PWNED}\">", f"<script>{PWNED}</script>",
            f"</script><script>{PWNED}</script>", f"<svg onload=\"{PWNED}\">")


def browser() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing: install Debian's chromium to run the browser tests")
        pytest.skip("chromium is not installed")
    return CHROMIUM


def dump_dom(page: Path, fragment: str = "") -> str:
    """The page's DOM after its script ran (and the tasks it queued)."""
    done = subprocess.run(
        [browser(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--user-data-dir=" + str(page.parent / "profile"), "--virtual-time-budget=5000",
         "--dump-dom", page.as_uri() + fragment],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def review_of(trials: list[TrialRecord], conditions: list[str]) -> Review:
    rows = [ScoreRow(t.case_id, t.condition, t.epoch, name, s.value, s.passed, s.error)
            for t in trials for name, s in t.scores.items()]
    summary = summarize(rows, [TrialRow(t.case_id, t.condition, t.epoch) for t in trials],
                        sorted({r.scorer for r in rows}), conditions)
    run = RunRecord("run-1", "exp", "eval", "completed", "2026-01-01T00:00:00")
    return Review(run=run, summary=summary, comparisons=compare_conditions({}, conditions),
                  previous=None, gates=[])


def simple(index: int, condition: str, passed: bool) -> TrialRecord:
    return TrialRecord(case_id=f"case-{index:05d}", condition=condition, epoch=0,
                       input=f"question {index}", expected="e",
                       output=Output(text=f"answer {index} under {condition}"),
                       tags=["even" if index % 2 == 0 else "odd"],
                       scores={"exact": Score.binary(passed, "ok" if passed else "wrong")})


def shown_cases(dom: str) -> list[str]:
    return re.findall(r'<tbody class="case [efp]" data-case="([^"]+)"', dom)


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4,000 cases under two conditions; case 3 flips, every other case agrees."""
    trials = [simple(i, c, passed=(i == 3 and c == "b") or (i != 3 and i % 5 != 0))
              for i in range(4_000) for c in ("a", "b")]
    path = tmp_path_factory.mktemp("browser") / "report.html"
    path.write_text(render_html(review_of(trials, ["a", "b"]), trials), encoding="utf-8")
    return path


def test_the_first_page_shows_fifty_cases_failures_first(big_page: Path) -> None:
    dom = dump_dom(big_page)
    cases = shown_cases(dom)
    assert len(cases) == 50
    assert cases[0] == "case-00000"  # failing under both conditions: shown first
    assert re.search(r'id="shown">4,000 of 4,000<', dom)
    assert "page 1 of 80" in dom


def test_a_search_finds_a_case_far_past_the_first_thousands(big_page: Path) -> None:
    dom = dump_dom(big_page, "#q=case-03999")
    assert shown_cases(dom) == ["case-03999"]
    assert "answer 3999 under b" in dom


def test_a_case_link_opens_it_side_by_side_with_its_full_output(big_page: Path) -> None:
    dom = dump_dom(big_page, "#case=case-00003")
    assert shown_cases(dom) == ["case-00003"]
    assert '<details class="drill" open="">' in dom
    sides = re.findall(r'<div class="side"><h4><span class="sw c\d"></span>(\w)</h4>', dom)
    assert sides == ["a", "b"]
    assert "<pre>answer 3 under a</pre>" in dom and "<pre>answer 3 under b</pre>" in dom
    assert '<span class="pill warn">flipped</span>' in dom


def agent_trial(payload: str, condition: str) -> TrialRecord:
    """A payload in every field the page draws: ids, texts, tags, tool calls, judge details."""
    score = Score(value=2.0, scale=(0.0, 10.0), passed=False, reason=payload, details={
        "judge_model": payload, "metrics": {payload: 2}, "reasoning": {payload: payload},
        "unverified_claims": [payload], "label": payload,
        "judgements": [{"passed": False, "value": 2.0, "reason": payload,
                        "metrics": {payload: 2}}, {"error": payload}]})
    output = Output(text=payload, error=None, latency_ms=5.0,
                    tool_calls=[ToolCall(payload, {payload: payload}, result=payload,
                                         duration_ms=1.0),
                                ToolCall("t", {}, error=payload)],
                    metadata={"agent": {"steps": [
                        {"turn": 1, "text": payload, "stop_reason": payload,
                         "tool_calls": [{}, {}]}]}})
    return TrialRecord(case_id=payload, condition=condition, epoch=0, input=payload,
                       expected=payload, output=output, tags=[payload], difficulty=payload,
                       scores={payload: score})


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_in_every_field_stay_text_in_the_opened_case(tmp_path: Path,
                                                                payload: str) -> None:
    conditions = [payload, "plain"]
    trials = [agent_trial(payload, c) for c in conditions]
    path = tmp_path / "report.html"
    path.write_text(render_html(review_of(trials, conditions), trials), encoding="utf-8")
    dom = dump_dom(path, "#case=" + quote(payload, safe=""))
    assert not re.search(r"<html[^>]*data-pwned", dom)  # no payload ran
    assert '<details class="drill" open="">' in dom  # the case was drawn, opened
    assert dom.count('class="tool') >= 4  # both tool calls, under both conditions
    assert "<img" not in dom and "<svg" not in dom


def opened_agent_case(tmp_path: Path, agent: dict[str, object]) -> str:
    """The page of one agent trial (one search call, `agent` as its metadata), opened."""
    output = Output(text="Io", tool_calls=[ToolCall("search", {"q": "moons"}, result="Io")],
                    metadata={"agent": {**agent, "steps": [
                        {"turn": 1, "text": "", "tool_calls": [{"name": "search"}]}]}})
    trial = TrialRecord(case_id="case-1", condition="a", epoch=0, input="q", expected="Io",
                        output=output, scores={"exact": Score.binary(True, "ok")})
    page = tmp_path / "report.html"
    page.write_text(render_html(review_of([trial], ["a"]), [trial]), encoding="utf-8")
    return dump_dom(page, "#case=case-1")


def test_a_retried_agent_trials_trajectory_says_it_is_the_last_attempt(tmp_path: Path) -> None:
    """'trajectory: 1 turns, 1 tool calls' stood beside tokens and cost of both attempts."""
    dom = opened_agent_case(tmp_path, {"attempts": 2})
    assert ("trajectory of the last of 2 attempts, the one scored: 1 turn, 1 tool call "
            "(the tokens and cost count every attempt)") in dom


def test_the_trajectory_of_an_agent_that_ran_out_of_turns_says_so(tmp_path: Path) -> None:
    """Regression: each turn said 'stop: tool_calls', and nothing said the agent never
    answered: the max_turns it reached was in the viewer only."""
    dom = opened_agent_case(tmp_path, {"stop_reason": "max_turns"})
    assert ("trajectory: 1 turn, 1 tool call; the agent stopped at max_turns after 1 turn, "
            "still calling tools; the answer scored is its last turn's text") in dom


def test_a_model_reply_cut_at_max_tokens_says_so_under_its_output(tmp_path: Path) -> None:
    """Regression: a reply that ended mid-word at the request's max_tokens showed as any
    other answer, with nothing saying it was cut."""
    output = Output(text="The largest planet is Jup",
                    metadata={"model": "m", "stop_reason": "max_tokens"})
    trial = TrialRecord(case_id="case-1", condition="a", epoch=0, input="q",
                        expected="Jupiter", output=output,
                        scores={"contains": Score.binary(False, "contains none of 'Jupiter'")})
    page = tmp_path / "report.html"
    page.write_text(render_html(review_of([trial], ["a"]), [trial]), encoding="utf-8")
    dom = dump_dom(page, "#case=case-1")
    assert ("the reply was cut at max_tokens, stop reason max_tokens; the answer scored is "
            "the cut text") in dom


def test_a_script_that_slipped_into_the_page_does_not_run_but_the_pages_own_does(
        tmp_path: Path) -> None:
    """The page's Content Security Policy allows only its own script, by hash: markup a
    model wrote that got past escaping some day would stay inert (before, it ran)."""
    trials = [simple(i, c, passed=i % 2 == 0) for i in range(3) for c in ("a", "b")]
    page = render_html(review_of(trials, ["a", "b"]), trials)
    slipped = (f"<script>{PWNED}</script><img src=x onerror=\"{PWNED}\">"
               "<base href=\"https://elsewhere.example/\">")
    path = tmp_path / "report.html"
    path.write_text(page.replace('<section id="trials-section"', slipped
                                 + '<section id="trials-section"', 1), encoding="utf-8")
    dom = dump_dom(path)
    assert slipped.split(">", 1)[0] in dom  # the foreign script is on the page
    assert not re.search(r"<html[^>]*data-pwned", dom)  # and did not run
    assert shown_cases(dom) == ["case-00001", "case-00000", "case-00002"]  # the page's did


def test_a_bidirectional_override_in_a_case_reaches_the_reader_as_a_space(
        tmp_path: Path) -> None:
    """Regression: a case id holding U+202E read the words the page drew after it ('open
    CASE: full outputs, trajectories, judges') backwards."""
    trials = [agent_trial("q\u202eid <b>", c) for c in ("a", "b")]
    path = tmp_path / "report.html"
    path.write_text(render_html(review_of(trials, ["a", "b"]), trials), encoding="utf-8")
    dom = dump_dom(path)
    assert "q id &lt;b&gt;" in dom and "\u202e" not in dom
