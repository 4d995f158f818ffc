"""`assay run examples/knowledge-packs` end to end, through the real SDKs and the fake LLM server.

The fake model answers a question correctly only when retrieved passages
are in its prompt; the fake judge reads the reference and the answer it is
shown and scores 9 when they agree, 3 when they do not. So the `pack`
condition must beat `training`, and every number in the results comes from
requests that really crossed the wire.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.testing import FakeLLM, Reply, Rule
from assay.testing.script import FakeRequest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "knowledge-packs"
QUESTIONS = {json.loads(line)["question"]: json.loads(line)["ground_truth"]
             for line in (EXAMPLE / "questions.jsonl").read_text().splitlines()}


def answer(request: FakeRequest) -> Reply:
    prompt = request.last_user
    question = next((q for q in QUESTIONS if q in prompt), None)
    if question is not None and prompt.strip() != question:  # passages came with it
        return Reply(text=QUESTIONS[question], input_tokens=900, output_tokens=120)
    return Reply(text="I am not sure; it may depend on the Go version.", input_tokens=60,
                 output_tokens=20)


def judge(request: FakeRequest) -> Reply:
    match = re.search(r"Reference answer:\n(.*)\n\nAnswer to grade:\n(.*)", request.last_user,
                      re.DOTALL)
    assert match, "the judge prompt shows the reference and the answer"
    agree = match.group(1).strip() == match.group(2).strip()
    return Reply(json={"reason": "matches" if agree else "misses the point",
                       "score": 9 if agree else 3})


RULES = [Rule(when=lambda r: r.response_schema is not None, reply=judge),
         Rule(reply=answer)]


def assay(cwd: Path, llm: FakeLLM, *args: str, model: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-test-e2e-key",
           "ANTHROPIC_BASE_URL": llm.root_url, "ANTHROPIC_API_KEY": "sk-ant-test-e2e-key",
           "ASSAY_MODEL": model, "ASSAY_JUDGE_MODEL": "openai/gpt-4.1",
           "ASSAY_STORE": str(cwd / "assay.db"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "kp", ignore=shutil.ignore_patterns(".assay"))
    return tmp_path / "kp"


@pytest.mark.parametrize("model", ["openai/gpt-4.1-mini", "anthropic/claude-haiku-4-5"])
def test_pack_beats_training_and_a_second_run_makes_no_calls(example: Path, model: str) -> None:
    with FakeLLM(RULES) as llm:
        first = assay(example, llm, "--sample", "12", "-o", "first", model=model)
        calls_first = llm.received
        second = assay(example, llm, "--sample", "12", "-o", "second", model=model)
        calls_second = llm.received - calls_first
        protocols = {r.protocol for r in llm.requests}
    assert first.returncode == 0, first.stderr
    assert calls_first == 12 * 2 * 2  # an answer and a verdict per case and condition
    assert protocols == ({"openai", "anthropic"} if model.startswith("anthropic")
                         else {"openai"})
    results = json.loads((example / "first" / "results.json").read_text())
    summary = results["summary"]["judge_score"]["conditions"]
    assert summary["pack"]["accuracy"] == 100.0 and summary["pack"]["avg"] == 9
    assert summary["training"]["accuracy"] == 0.0 and summary["training"]["avg"] == 3
    conditions = {c["condition"]: c for c in results["stats"]["conditions"]}
    assert conditions["pack"]["input_tokens"] == 12 * 900
    assert conditions["pack"]["cost_usd"] > conditions["training"]["cost_usd"] > 0
    assert conditions["pack"]["judge_cost_usd"] > 0  # judges' spending is counted apart
    comparison = results["comparisons"]["comparisons"][0]
    assert comparison["delta_pp"] == 100.0 and comparison["significant"]

    assert second.returncode == 0, second.stderr
    assert calls_second == 0  # answers and verdicts all come from the cache
    again = json.loads((example / "second" / "results.json").read_text())
    assert again["summary"] == results["summary"]
    cache_hits = {c["condition"]: c["cache_hits"] for c in again["stats"]["conditions"]}
    assert cache_hits == {"training": 12, "pack": 12}


def test_the_api_key_reaches_no_artefact(example: Path) -> None:
    with FakeLLM(RULES) as llm:
        result = assay(example, llm, "--sample", "3", "-o", "out",
                       model="anthropic/claude-haiku-4-5")
    assert result.returncode == 0, result.stderr
    artefacts = [example / "assay.db", *(example / "out").iterdir()]
    artefacts += list(example.glob("assay.db-*"))
    for secret in ("sk-test-e2e-key", "sk-ant-test-e2e-key"):
        assert secret not in result.stdout + result.stderr
        for path in artefacts:
            assert secret.encode() not in path.read_bytes(), path


def test_a_30_percent_fault_rate_still_completes_every_trial(example: Path) -> None:
    with FakeLLM(RULES, fault_rates={"rate_limit": 0.15, "server_error": 0.15},
                 retry_after=0.01, seed=3) as llm:
        result = assay(example, llm, "--sample", "10", "-o", "out", "--no-cache",
                       model="openai/gpt-4.1-mini")
        faults = sum(llm.faults.values())
    assert result.returncode == 0, result.stderr
    assert faults > 5
    results = json.loads((example / "out" / "results.json").read_text())
    assert len(results["trials"]) == 20
    assert all(t["error"] is None and t["scores"]["judge_score"]["error"] is None
               for t in results["trials"])
