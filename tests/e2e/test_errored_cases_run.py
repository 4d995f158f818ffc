"""Cases whose trials errored are named as errored everywhere a run reports, after a real run.

Regression: report.md listed cases whose trials errored as "2 only in A,
3 only in B", which reads like a dataset mismatch. The target is a model
called through the real OpenAI SDK; the fake LLM server rejects some
questions under one condition or the other (HTTP 400), so those trials end
in an error, never a score.
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.testing import FakeLLM
from assay.testing.script import Fault, Reply, Rule
from tests.e2e.project import run_assay, write_project

CASES = {"c0": "What is 2+2?", "c1": "Two plus two, please", "c2": "broken one",
         "c3": "Sum of 2 and 2?", "c4": "broken two", "c5": "2*2?"}
CONFIG = """name: errored
dataset: {path: cases.jsonl}
target: {type: model, model: openai/gpt-4.1-mini}
conditions:
  plain: {}
  careful: {system: "Be careful."}
scorers: [{type: contains}]
"""
REJECTED = Reply(fault=Fault("bad_request"))
RULES = [Rule(user="broken", system="careful", reply=REJECTED),  # c2, c4 under careful
         Rule(user="Two plus", when=lambda r: not r.system, reply=REJECTED)]  # c1 under plain


def test_errored_cases_are_named_as_errored_in_every_report(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG, CASES)
    with FakeLLM(RULES, default="4") as llm:
        done = run_assay(tmp_path, llm)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"

    results = json.loads((out / "results.json").read_text())
    [comparison] = results["comparisons"]["comparisons"]
    assert comparison["excluded"]["errored_in_a"] == ["c1"]
    assert comparison["excluded"]["errored_in_b"] == ["c2", "c4"]
    assert comparison["excluded"]["only_in_a"] == comparison["excluded"]["only_in_b"] == []
    assert comparison["n"] == 3
    errored = sorted((t["case_id"], t["condition"]) for t in results["trials"] if t["error"])
    assert errored == [("c1", "plain"), ("c2", "careful"), ("c4", "careful")]
    errors = {s["condition"]: s["errors"] for s in results["stats"]["scores"]}
    assert errors == {"plain": 1, "careful": 2}

    markdown = (out / "report.md").read_text()
    assert "- left out, errored in plain (1): `c1`" in markdown
    assert "- left out, errored in careful (2): `c2`, `c4`" in markdown
    assert "- `c1` · plain: ProviderError" in markdown.split("## Errors", 1)[1]
    assert "- `c4` · careful: ProviderError" in markdown.split("## Errors", 1)[1]

    html = (out / "report.html").read_text()
    assert "left out, errored in plain (1): <code>c1</code>" in html
    assert "left out, errored in careful (2): <code>c2</code>, <code>c4</code>" in html

    terminal = done.stdout
    assert "contains · careful: left out, errored in plain (1): c1" in terminal
    assert "contains · careful: left out, errored in careful (2): c2, c4" in terminal
    assert "3 of 12 trials got no answer from the target, so they have no score" in terminal
    for text in (markdown, html, terminal):
        assert "only in" not in text
