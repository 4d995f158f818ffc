"""A run whose provider damages some replies loses no trial and scores none of them.

The target is a model called through the real OpenAI SDK against the fake LLM server.
Some questions get a 200 with an HTML page, a body cut half-way, or JSON whose answer is a
number; the judge cannot be read for one question. Every trial is stored; each damaged
reply is retried and then recorded as that trial's error (never a score), and the judge
reply that cannot be read is recorded as unreadable (never a score).
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.testing import FakeLLM
from assay.testing.script import Fault, Reply, Rule
from tests.e2e.project import run_assay, write_project

CASES = {"c0": "What is 2+2?", "c1": "html page please", "c2": "cut reply please",
         "c3": "numeric content please", "c4": "unjudgeable please", "c5": "2*2?"}
CONFIG = """name: damaged
dataset: {path: cases.jsonl}
target: {type: model, model: openai/gpt-4.1-mini}
conditions:
  plain: {}
  careful: {system: "Be careful."}
judge: {model: openai/gpt-judge}
providers: {openai: {max_retries: 2, backoff: 0.01}}
scorers: [{type: contains}, {type: judge_score, parse_retries: 1}]
"""
NUMERIC = {"id": "x", "model": "gpt-4.1-mini", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": 4}}]}
RULES = [
    Rule(model="gpt-judge", user="unjudgeable", reply="I would rather not say."),
    Rule(model="gpt-judge", reply=Reply(json={"score": 9, "reason": "right"})),
    Rule(user="html page", reply=Reply(fault=Fault("html"))),
    Rule(user="cut reply", reply=Reply(fault=Fault("cut"))),
    Rule(user="numeric content", reply=Reply(body=NUMERIC)),
]


def test_damaged_replies_are_each_a_trial_error_and_an_unreadable_judge_is_no_score(
        tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG, CASES)
    with FakeLLM(RULES, default="4") as llm:
        done = run_assay(tmp_path, llm)
    assert done.returncode in (0, 1), done.stderr
    assert "internal error" not in done.stderr + done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    trials = {(t["case_id"], t["condition"]): t for t in results["trials"]}
    assert len(trials) == len(CASES) * 2  # no trial lost
    for (case_id, _condition), trial in trials.items():
        if case_id in ("c1", "c2", "c3"):
            assert trial["error"] and "ProviderError" in trial["error"], trial
            assert "gave up after 3 attempts" in trial["error"]
            assert all(s.get("value") is None for s in trial["scores"].values()), trial
        else:
            assert not trial["error"], trial
    for condition in ("plain", "careful"):
        unjudged = trials[("c4", condition)]["scores"]["judge_score"]
        assert unjudged["value"] is None and unjudged["passed"] is None
        assert unjudged["error"].startswith("unreadable judge reply")
        judged = trials[("c0", condition)]["scores"]["judge_score"]
        assert judged["value"] == 9 and judged["passed"] is True
    terminal = done.stdout  # the unread judge is said where people look, with an example
    assert ("judge_score could not score 2 answers, left out of its figures, not counted as 0 "
            "(first: c4 (careful): unreadable judge reply") in " ".join(terminal.split())
    assert "contains could not score" not in terminal
