"""`python -m assay.testing`: the options build the server they describe, and a planted flaw
set on the command line comes out in an `assay run` it launches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats

from assay.testing import FakeLLM
from assay.testing.__main__ import build_parser, build_server, main
from assay.testing.answerer import FakeAnswerer


def server(*argv: str) -> FakeLLM:
    return build_server(build_parser().parse_args(list(argv)))


def test_the_options_plant_the_biases_they_name(tmp_path: Path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_text('{"Which planet?": "pass"}')
    llm = server("--first-position-rate", "0.7", "--labels", str(labels),
                 "--label-agreement", "0.8", "--score-noise", "1.5", "--seed", "3")
    assert llm.judge is not None
    biases = llm.judge.biases
    assert (biases.first_position_rate, biases.label_agreement, biases.score_noise,
            biases.seed) == (0.7, 0.8, 1.5, 3)
    assert biases.true_label("Question:\nWhich planet?\n...") == "pass"
    assert isinstance(llm.default, FakeAnswerer)


def test_reply_and_no_judge_turn_the_parts_off() -> None:
    llm = server("--reply", "ok", "--no-judge")
    assert llm.judge is None and llm.default == "ok"


def test_scripted_answers_come_from_a_file(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text('{"largest planet": "Jupiter."}')
    llm = server("--answers", str(answers))
    assert isinstance(llm.default, FakeAnswerer)
    assert llm.default.answers == {"largest planet": "Jupiter."}


def test_a_planted_label_agreement_is_what_assay_measures(tmp_path: Path) -> None:
    """40 right answers all labelled fail, a judge agreeing 25% of the time: assay's pass
    rate for the judge is the planted disagreement, within binomial bounds."""
    n = 40
    cases = [{"id": f"q{i}", "input": f"What is item {i}?", "expected": f"Item {i} is a rock.",
              "label": "fail"} for i in range(n)]
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(case) for case in cases))
    (tmp_path / "answer.py").write_text(
        "def answer(case):\n    return case.expected\n")
    (tmp_path / "eval.yaml").write_text(
        "name: planted\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'answer:answer'}\n"
        "judge: {model: openai/gpt-judge}\nscorers: [{type: judge_score}]\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, "-m", "assay.testing", "--labels", str(tmp_path / "cases.jsonl"),
         "--label-agreement", "0.25", "--seed", "11", "--", "assay", "run", "eval.yaml",
         "-o", "out", "--no-progress"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    summary = json.loads((tmp_path / "out" / "results.json").read_text())["summary"]
    found = summary["judge_score"]["conditions"]
    [condition] = found.values()
    assert condition["errors"] == 0
    passed = round(condition["accuracy"] * n / 100)
    low, high = stats.binom.interval(0.999, n, 0.75)
    assert low <= passed <= high, passed


@pytest.mark.parametrize(("option", "said"), [
    ("ratelimit=0.3", "unknown fault kind 'ratelimit': use one of rate_limit, server_error, "),
    ("rate_limit", "--fault rate_limit: give KIND=RATE, e.g. rate_limit=0.1"),
    ("rate_limit=often", "--fault rate_limit=often: give KIND=RATE, e.g. rate_limit=0.1"),
    ("timeout=1.5", "fault rate 1.5 for 'timeout' is not between 0 and 1"),
])
def test_a_fault_option_the_server_cannot_send_is_refused_naming_it(
        option: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `--fault ratelimit=0.3` was taken; each request it drew printed a
    KeyError traceback and dropped its connection, and the run looked like one of flaky
    connections, not of rate limits."""
    with pytest.raises(SystemExit) as exited:
        main(["--fault", option, "--", "python", "-c", "pass"])
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_the_fault_kinds_given_are_the_ones_injected() -> None:
    llm = server("--fault", "rate_limit=0.1", "--fault", "cut=0.05")
    assert llm.fault_rates == {"rate_limit": 0.1, "cut": 0.05}
