"""`assay rejudge`: stored outputs judged again without calling the target, as a linked run,
with the judge's self-consistency and, over epochs, the agent/judge variance split."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from assay.store import Store
from assay.testing import FakeJudge, FakeLLM, JudgeBiases
from tests.cli.evalproject import assay
from tests.fake_sdks import point_sdks_at

REFERENCE = "Jupiter is the largest planet of the Solar System, a gas giant."
# Answers that vary from call to call (the agent's own noise), and a count of its calls.
AGENT = '''
from pathlib import Path

ANSWERS = ["Jupiter, a gas giant, is the largest planet of the Solar System.",
           "Jupiter is the largest planet.", "A gas giant is largest.", "It is a planet."]


def answer(case, shift=0):
    calls = Path("calls.txt")
    count = len(calls.read_text().splitlines()) if calls.exists() else 0
    calls.write_text(calls.read_text() + "x\\n" if calls.exists() else "x\\n")
    return ANSWERS[(count + shift) % len(ANSWERS)]
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, FakeLLM]]:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(
        {"id": f"q{i:02d}", "input": f"Which planet is the largest? ({i})",
         "expected": REFERENCE}) + "\n" for i in range(20)))
    config = {"name": "noisy", "dataset": {"path": "questions.jsonl"},
              "target": {"type": "python", "function": "agent.py:answer", "threaded": False},
              "conditions": {"base": {}, "shifted": {"args": {"shift": 1}}},
              "judge": {"model": "openai/gpt-judge"},
              "scorers": [{"type": "judge_score"}, {"type": "exact_match"}],
              "run": {"concurrency": 1, "epochs": 2}}
    (tmp_path / "assay.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("COLUMNS", "200")
    with FakeLLM(judge=FakeJudge(JudgeBiases(score_noise=1.5, seed=2))) as llm:
        point_sdks_at(llm, monkeypatch)
        yield tmp_path / "assay.yaml", llm


def test_rejudge_asks_the_judge_k_times_per_stored_answer_and_never_the_target(
        project: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config, llm = project
    assert assay(capsys, "run", str(config))[0] == 0
    target_calls = len((tmp_path / "calls.txt").read_text().splitlines())
    judge_calls = llm.received
    code, out = assay(capsys, "rejudge", "latest", "--repeats", "3", "-o", "again")
    assert code == 0, out
    assert len((tmp_path / "calls.txt").read_text().splitlines()) == target_calls
    assert llm.received - judge_calls == 20 * 2 * 2 * 3  # cases x conditions x epochs x asks
    store = Store(str(tmp_path / "assay.db"))
    original, rejudged = store.resolve_run("latest~1"), store.resolve_run("latest")
    assert rejudged.kind == "rejudge" and rejudged.options["rejudge_of"] == original.id
    assert rejudged.status == "completed"
    results = json.loads((tmp_path / "again" / "results.json").read_text())
    assert {s["scorer"] for s in results["stats"]["scores"]} == {"judge_score"}
    [consistency] = results["judges"]["consistency"]
    assert consistency["items"] == 80 and consistency["repeats"] == 3
    assert consistency["score_sd"] == pytest.approx(1.5, abs=0.4)  # the planted noise
    assert 0 < consistency["flip_rate"] < 1 and consistency["unstable"]
    splits = {v["condition"]: v for v in results["judges"]["variance"]}
    assert splits["base"]["epochs"] == 2 and splits["base"]["agent_variance"] is not None
    assert splits["base"]["judge_variance"] == pytest.approx(1.5 ** 2, rel=0.5)
    [delta] = results["judges"]["deltas"]
    assert delta["asks"] == 1 and 0 < delta["judge_share"] <= 1
    report = (tmp_path / "again" / "report.md").read_text()
    assert "## Judge self-consistency" in report and "## Agent or judge?" in report
    assert "## Unstable verdicts" in report
    assert f"judge again the stored outputs of run {original.id}" in report
    assert "judge self-consistency" in out and "the judge gives" in out
    assert results["previous_run"]["run_a"]["id"] == original.id


def test_rejudging_again_makes_fresh_calls_and_a_new_model_is_recorded(
        project: tuple[Path, FakeLLM], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    config, llm = project
    assert assay(capsys, "run", str(config))[0] == 0
    assert assay(capsys, "rejudge", "latest", "-k", "2")[0] == 0
    before = llm.received
    code, out = assay(capsys, "rejudge", "latest~1", "-k", "2", "--judge-model",
                      "openai/gpt-other", "--scorer", "judge_score")
    assert code == 0, out
    assert llm.received - before == 20 * 2 * 2 * 2  # nothing came from the cache
    run = Store(str(tmp_path / "assay.db")).resolve_run("latest")
    assert run.options["judge_model"] == "openai/gpt-other"
    models = {r.body.get("model") for r in llm.requests[before:]}
    assert models == {"gpt-other"}


def test_an_unknown_scorer_is_refused_before_any_call(
        project: tuple[Path, FakeLLM], capsys: pytest.CaptureFixture[str]) -> None:
    config, llm = project
    assert assay(capsys, "run", str(config))[0] == 0
    before = llm.received
    code, out = assay(capsys, "rejudge", "latest", "--scorer", "exact_match")
    run = Store(str(config.parent / "assay.db")).resolve_run("latest")
    assert code == 2 and f"run {run.id} of 'noisy' has no judged scorer exact_match" in out
    assert "(its judged scorers: judge_score)" in out
    assert llm.received == before


def test_a_run_without_a_judge_is_refused_naming_the_run_and_its_scorers(
        project: tuple[Path, FakeLLM], capsys: pytest.CaptureFixture[str]) -> None:
    config, _ = project
    document = yaml.safe_load(config.read_text())
    document["scorers"] = [{"type": "exact_match"}, {"type": "contains", "value": "Jupiter"}]
    del document["judge"]
    config.write_text(yaml.safe_dump(document, sort_keys=False))
    assert assay(capsys, "run", str(config))[0] == 0
    run = Store(str(config.parent / "assay.db")).resolve_run("latest")
    code, out = assay(capsys, "rejudge", "latest")
    assert code == 2
    assert (f"run {run.id} of 'noisy' has no judged scorer to judge again (its scorers: "
            "exact_match, contains)") in " ".join(out.split())
