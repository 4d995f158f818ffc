"""Stores to browse: small runs written the way the runner writes them, with XSS payloads
planted in every text a page shows.

Two completed runs of one experiment (conditions `baseline` and an agent with
tools, its trajectory stored, a judge with rubric metrics, reasoning,
unverified claims and three repeats that disagree), a run still in flight,
and an `assay traces` analysis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.case import Case
from assay.output import Output, ToolCall, Usage
from assay.review.summary import summarize_run
from assay.score import Score
from assay.store import Store
from assay.trial import TrialResult

XSS = "window.__xss = 1"
PAYLOADS = (f"<script>{XSS}</script>", f"<img src=x onerror=\"{XSS}\">",
            f"\"><svg onload=\"{XSS}\">", f"</pre></textarea><script>{XSS}</script>",
            f"javascript:{XSS}")


def payload(i: int) -> str:
    """The i-th payload (they repeat), so every field carries a different one."""
    return PAYLOADS[i % len(PAYLOADS)]


CASES = 6
EXPERIMENT = f"shop {payload(0)}"
BASELINE = "baseline"
AGENT = f"tools {payload(2)}"
"""The agent's condition: its name is a payload too (names are text like any other)."""
CONDITIONS = (BASELINE, AGENT)
EXACT, JUDGE = "exact", f"judge {payload(3)}"
"""The scorers: a pass/fail check, and a repeated rubric judge (its name a payload)."""


def case_id(i: int) -> str:
    """The i-th case's id; the last one's carries a payload."""
    return f"case-{i}" if i < CASES - 1 else f"case-{i} {payload(1)}"

FLIPPED = {"case-1", "case-3"}
"""Cases whose verdict differs between the conditions in run B."""
ERRORED = "case-4"
"""The target failed on this case under the agent in run B."""
UNSTABLE = "case-2"
"""The repeated judge disagreed with itself on this case."""


@dataclass(frozen=True)
class Browsable:
    url: str
    run_a: str = "run-a"
    run_b: str = "run-b"
    running: str = "run-live"
    traces: str = "traces-1"
    experiment: str = EXPERIMENT


def build(url: str) -> Browsable:
    """Write the runs into the store at `url` (a fresh one)."""
    store = Store(url)
    try:
        write_run(store, "run-a", started="2025-03-01T09:00:00+00:00", flips=set())
        write_run(store, "run-b", started="2025-03-02T09:00:00+00:00", flips=FLIPPED,
             errored=ERRORED)
        store.create_run(id="run-live", experiment="live", status="running",
                         started_at="2025-03-03T09:00:00+00:00", total_trials=40,
                         config={"name": "live"})
        store.write_trials("run-live", [trial(i, "baseline", passed=True) for i in range(3)])
        store.create_run(
            id="traces-1", experiment="sessions", kind="traces", status="finished",
            started_at="2025-03-04T09:00:00+00:00", finished_at="2025-03-04T09:05:00+00:00",
            total_trials=2, summary={
                "metrics": {"sessions": 1, "exchanges": 2, "answered": 2, "source_reads": 3,
                            "wasted_reads": 1, "tool_calls": 1070, "tool_errors": 52,
                            "tool_error_rate": 52 / 1070, "turns_per_exchange": 2.5,
                            "tokens_per_exchange": 529000.7777777778,
                            "cost_usd": 30.330197700000006, "unpriced_turns": 0},
                "most_read": [{"path": f"docs/{payload(2)}.md", "questions": 2}],
                "findings": {"citation": 1, "contradiction": 0, "wiki-gap": 0,
                             "wasted-read": 0},
                "finding_list": [{"type": "citation", "severity": "error",
                                  "detail": f"wrong section {payload(3)}",
                                  "recommendation": f"cite it {payload(4)}",
                                  "exchange": "s1:1",
                                  "question": f"How do refunds work? {payload(1)}",
                                  "session": f"s1 {payload(2)}", "asked_at": "2025-03-04T09:01:00"}],
                "sessions": [f"sessions/{payload(0)}.jsonl"]})
    finally:
        store.close()
    return Browsable(url)


def write_run(store: Store, run_id: str, *, started: str, flips: set[str],
              errored: str | None = None, kind: str = "eval",
              options: dict[str, Any] | None = None) -> None:
    """A completed run of `EXPERIMENT` (or, with `kind="rejudge"`, a rejudge run)."""
    store.create_run(id=run_id, experiment=EXPERIMENT, status="running", started_at=started,
                     dataset_hash="d1", total_trials=CASES * len(CONDITIONS), kind=kind,
                     options=options,
                     config={"name": EXPERIMENT, "conditions": {c: {} for c in CONDITIONS}})
    trials = []
    for i in range(CASES):
        for condition in CONDITIONS:
            passed = not (condition == AGENT and case_id(i) in flips)
            trials.append(trial(i, condition, passed=passed,
                                 error=case_id(i) == errored and condition == AGENT))
    store.write_trials(run_id, trials)
    summary = summarize_run(store, run_id, scorers=[EXACT, JUDGE],
                            conditions=list(CONDITIONS))
    store.update_run(run_id, status="completed", summary=summary.to_dict(),
                     finished_at=started.replace("09:00", "09:30"))


def trial(i: int, condition: str, *, passed: bool, error: bool = False) -> TrialResult:
    case = Case(id=case_id(i), input=f"Question {i}: {payload(i)}",
                expected=f"answer {i} {payload(i + 1)}", tags=[f"tag-{i % 2}", payload(i + 2)],
                difficulty="easy")
    if error:
        return TrialResult(case, condition, 0, Output(error=f"TimeoutError {payload(i)}",
                                                      latency_ms=900.0))
    output = _output(i, condition)
    return TrialResult(case, condition, 0, output, {
        EXACT: Score.binary(passed, f"compared {payload(i + 3)}"),
        JUDGE: _judge(i, passed),
    })


def _output(i: int, condition: str) -> Output:
    text = f"The answer is {i}. {payload(i + 4)}"
    usage = Usage(input_tokens=120, output_tokens=30, cost_usd=0.0012)
    if condition != AGENT:
        return Output(text=text, usage=usage, latency_ms=210.0)
    calls = [ToolCall("lookup", {"query": f"item {i} {payload(i)}"},
                      result=f"found {payload(i + 1)}", duration_ms=14.0),
             ToolCall("fetch", {"path": payload(i + 2)}, error=f"not found {payload(i + 3)}",
                      duration_ms=3.5)]
    steps = [{"turn": 1, "text": f"Let me look. {payload(i + 1)}", "stop_reason": "tool_use",
              "input_tokens": 60, "output_tokens": 10, "cost_usd": 0.0005, "latency_ms": 80.0,
              "cached": False,
              "tool_calls": [{"id": "c1", "name": "lookup", "server": f"srv {payload(i)}",
                              "is_error": False, "duration_ms": 14.0},
                             {"id": "c2", "name": "fetch", "server": "docs", "is_error": True,
                              "duration_ms": 3.5}]},
             {"turn": 2, "text": text, "stop_reason": "end_turn", "input_tokens": 60,
              "output_tokens": 20, "cost_usd": 0.0007, "latency_ms": 90.0, "cached": False,
              "tool_calls": []}]
    transcript: list[dict[str, Any]] = [{"role": "user", "content": f"Question {i}: {payload(i)}"},
                  {"role": "assistant", "content": f"Let me look. {payload(i + 1)}",
                   "tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": payload(i)}}]},
                  {"role": "tool", "tool_call_id": "c1", "content": f"found {payload(i + 1)}"},
                  {"role": "assistant", "content": text}]
    return Output(text=text, tool_calls=calls, transcript=transcript, usage=usage,
                  latency_ms=400.0,
                  metadata={"agent": {"turns": 2, "tool_calls": 2, "tool_errors": 1,
                                      "stop_reason": "end_turn", "attempts": 1, "steps": steps},
                            "note": payload(i + 3)})


def _judge(i: int, passed: bool) -> Score:
    value = 4.0 if passed else 2.0
    repeats = [{"passed": passed, "value": value, "metrics": {"factual": value},
                "reasoning": {"factual": f"repeat {k} {payload(i + k)}"},
                "unverified_claims": [f"claim {payload(i + k + 1)}"], "attempts": 1,
                "cached": False} for k in range(2)]
    unstable = case_id(i) == UNSTABLE
    repeats.append({"passed": passed != unstable, "value": 3.0 if unstable else value,
                    "metrics": {"factual": 3.0}, "unverified_claims": [], "attempts": 1,
                    "reasoning": {"factual": f"the third {payload(i)}"}, "cached": False})
    return Score(value=value, scale=(1.0, 5.0), passed=passed,
                 reason=f"lowest: factual {value:g} ({payload(i + 2)})",
                 details={"judge_model": f"judge-model {payload(i)}", "prompt_hash": "p1",
                          "metrics": {"factual": value, "complete": 4.0},
                          "reasoning": {"factual": f"Grounded {payload(i + 3)}",
                                        "complete": "Covers it."},
                          "unverified_claims": [f"It ships in 2 days {payload(i + 4)}"],
                          "judgements": repeats, "repeats": 3, "reduce": "median",
                          "unstable": unstable, "pass_votes": 2 if unstable else 3},
                 usage=Usage(input_tokens=300, output_tokens=80, cost_usd=0.002))
