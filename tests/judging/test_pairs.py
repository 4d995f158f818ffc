"""Pairwise judging of stored outputs: a run's conditions after its trials, and two runs.

A python target answers well under one condition and poorly under the other; the fake
LLM server's judge compares the answers, with or without a planted position bias.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from assay.judging.pairs import judge_condition_pairs
from assay.judging.stored_config import stored_config
from assay.registry import scorers
from assay.services import Services
from assay.store import Store
from assay.testing import FakeJudge, FakeLLM, JudgeBiases
from assay.testing.launcher import fake_environment
from assay.testing.script import FakeRequest, Rule
from tests.cli.evalproject import assay
from tests.fake_sdks import point_sdks_at

REFERENCE = "Jupiter is the largest planet of the Solar System, a gas giant."
AGENT = '''
def answer(case, good):
    if good:
        return "Jupiter, a gas giant, is the largest planet of the Solar System."
    return "It is a planet."
'''


def write(root: Path, scorer: dict[str, object], **run: object) -> Path:
    (root / "agent.py").write_text(AGENT)
    (root / "questions.jsonl").write_text("".join(json.dumps(
        {"id": f"q{i:02d}", "input": f"Which planet is the largest? ({i})",
         "expected": REFERENCE}) + "\n" for i in range(30)))
    config = {"name": "pairs", "dataset": {"path": "questions.jsonl"},
              "target": {"type": "python", "function": "agent.py:answer"},
              "conditions": {"poor": {"args": {"good": False}}, "good": {"args": {"good": True}}},
              "judge": {"model": "openai/gpt-judge"}, "scorers": [scorer],
              "run": {"concurrency": 8, **run}}
    (root / "assay.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return root / "assay.yaml"


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           request: pytest.FixtureRequest) -> Iterator[FakeLLM]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("COLUMNS", "200")
    rate = getattr(request, "param", 0.5)
    with FakeLLM(judge=FakeJudge(JudgeBiases(first_position_rate=rate, seed=1))) as llm:
        point_sdks_at(llm, monkeypatch)
        yield llm


def test_a_run_judges_each_condition_against_the_baseline_after_its_trials(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write(tmp_path, {"type": "pairwise"})
    code, out = assay(capsys, "run", str(config), "-o", "out")
    assert code == 0, out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    [pair] = results["judges"]["pairwise"]
    assert (pair["label_b"], pair["label_a"]) == ("good", "poor")
    assert (pair["wins"], pair["ties"], pair["losses"]) == (30, 0, 0)
    assert pair["significant"] and pair["preferred"] == "good"
    assert pair["positions"]["consistency"] == 1.0
    assert pair["positions"]["first_position_rate"] == 0.5  # the good answer came first once
    rows = {(s["scorer"], s["condition"]) for s in results["stats"]["scores"]}
    assert ("pairwise", "poor") not in rows and ("pairwise", "good") in rows
    assert all("pairwise" not in c["scorer"] for c in results["comparisons"]["comparisons"])
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| pairwise | good vs poor | 30 | 30/0/0 |" in report
    assert "pairwise verdicts" in out and "good vs poor" in out
    # each pair asked twice, once per order; the baseline's trials carry no pairwise score
    judged = [t for t in results["trials"] if "pairwise" in t["scores"]]
    assert {t["condition"] for t in judged} == {"good"} and len(judged) == 30


@pytest.mark.parametrize("served", [1.0], indirect=True)
def test_a_judge_that_always_picks_the_first_answer_wins_nothing(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write(tmp_path, {"type": "pairwise"})
    assert assay(capsys, "run", str(config), "-o", "out")[0] == 0
    [pair] = json.loads((tmp_path / "out" / "results.json").read_text())["judges"]["pairwise"]
    assert (pair["wins"], pair["ties"], pair["inconsistent"]) == (0, 30, 30)
    assert pair["positions"]["first_position_rate"] == 1.0
    assert not pair["significant"]


def test_a_run_whose_pairwise_judge_gave_no_verdict_on_any_pair_exits_3_with_its_error(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with every pairwise reply unreadable, the run ended with exit 0 and a
    warning, though it had measured nothing with its judge."""
    served.judge = None  # every judge request now gets "ok", which holds no verdict
    config = write(tmp_path, {"type": "pairwise"})
    code, out = assay(capsys, "run", str(config), "-o", "out")
    assert code == 3, out
    assert ("error: scorer pairwise has no value: it errored on all 30 of its trials with an "
            "answer, so the run measured nothing with it; first error: ") in out
    assert "--retry-errors" in out


def test_pairs_already_judged_are_not_judged_again(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write(tmp_path, {"type": "pairwise"})
    assert assay(capsys, "run", str(config))[0] == 0
    store = Store(str(tmp_path / "assay.db"))
    run = store.resolve_run("latest")
    loaded = stored_config(run)
    judge = scorers.get("pairwise")(loaded.scorer_params[0], Services(config=loaded.config))
    calls = served.received
    stored = asyncio.run(judge_condition_pairs(store, run.id, [judge], ["poor", "good"],
                                               concurrency=4))
    assert stored == 0 and served.received == calls


def test_a_config_that_pairs_conditions_needs_two_of_them(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write(tmp_path, {"type": "pairwise"})
    code, out = assay(capsys, "run", str(config), "--condition", "good")
    assert code == 2 and "compares conditions, but this run has 1 (good)" in out


def test_compare_pairwise_judges_run_b_against_run_a_case_by_case(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write(tmp_path, {"type": "judge_score"})
    assert assay(capsys, "run", str(config))[0] == 0
    text = config.read_text().replace("good: false", "good: true")
    config.write_text(text)  # the "poor" condition now answers well too
    assert assay(capsys, "run", str(config))[0] == 0
    code, out = assay(capsys, "compare", "latest~1", "latest", "--pairwise", "--json")
    assert code == 0, out
    pairs = {p["label_b"].split(" ")[0]: p for p in json.loads(out)["pairwise"]}
    assert (pairs["poor"]["wins"], pairs["poor"]["losses"]) == (30, 0)
    assert pairs["good"]["ties"] == 30 and not pairs["good"]["significant"]
    code, out = assay(capsys, "compare", "latest~1", "latest", "--pairwise")
    assert "pairwise verdicts" in out


def test_compare_pairwise_with_a_judge_that_fails_on_every_pair_exits_3_with_its_error(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with the judge down or unreadable on every pair, `assay compare
    --pairwise` printed 'no verdict: no pair was judged' rows and exited 0."""
    config = write(tmp_path, {"type": "judge_score"})
    assert assay(capsys, "run", str(config))[0] == 0
    assert assay(capsys, "run", str(config))[0] == 0
    served.judge = None  # every judge request now gets "ok", which holds no verdict
    code, out = assay(capsys, "compare", "latest~1", "latest", "--pairwise", "--json")
    assert code == 3, out
    assert "error: the pairwise judge failed on every pair (60 of 60), so there is no " \
           "verdict; first error: " in out, out
    assert "no pair was judged" not in out


def test_compare_pairwise_of_runs_with_no_judge_names_the_flag_that_gives_one(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: runs whose config had no `judge:` were refused twice over with 'give it
    `model:` or set `judge: {model: provider/model}` in the config', where compare has no
    config to edit and --judge-model is what gives the judge."""
    config = write(tmp_path, {"type": "contains", "value": "Jupiter"})
    data = yaml.safe_load(config.read_text())
    del data["judge"]
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    assert assay(capsys, "run", str(config))[0] == 0
    assert assay(capsys, "run", str(config))[0] == 0
    code, out = assay(capsys, "compare", "latest~1", "latest", "--pairwise")
    assert code == 2, out
    flat = " ".join(out.split())
    assert "names no judge model" in flat and "give one with --judge-model provider/model" in flat
    assert "in the config" not in flat
    code, out = assay(capsys, "compare", "latest~1", "latest", "--pairwise",
                      "--judge-model", "openai/gpt-judge")
    assert code == 0, out
    assert "pairwise verdicts" in out


def test_compare_pairwise_asks_the_judge_with_no_read_of_the_store_held_open(
        served: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: `assay compare --pairwise` judged inside its one read moment of the store,
    so for the minutes of LLM calls SQLite's write-ahead log could not be checkpointed and
    grew while other runs wrote. The answers are read in the moment, then judged outside."""
    from assay.judging import pairs

    config = write(tmp_path, {"type": "judge_score"})
    assert assay(capsys, "run", str(config))[0] == 0
    assert assay(capsys, "run", str(config))[0] == 0
    checkpoints: list[tuple[int, int, int]] = []
    judge_one = pairs.judge_one

    async def judged_while_another_run_writes(job: pairs.PairJob) -> object:
        # waits out the response cache's writes, as another run would; not a held read
        with contextlib.closing(sqlite3.connect(tmp_path / "assay.db", timeout=1)) as db:
            with db:
                db.execute("CREATE TABLE IF NOT EXISTS other_run (n INTEGER)")
                db.execute("INSERT INTO other_run VALUES (1)")
            checkpoints.append(db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
        return await judge_one(job)

    monkeypatch.setattr(pairs, "judge_one", judged_while_another_run_writes)
    code, out = assay(capsys, "compare", "latest~1", "latest", "--pairwise", "--json")
    assert code == 0, out
    assert len(checkpoints) == 60 and all(busy == 0 for busy, _, _ in checkpoints), checkpoints


def test_a_run_killed_while_it_judges_pairs_resumes_with_the_verdicts_it_had(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: verdicts were stored 100 at a time, so kill -9 while a run judged its
    pairs lost every verdict of a run with fewer, and the resume paid for each pair again;
    they are now stored as they come, as trials are."""
    monkeypatch.chdir(tmp_path)
    config = write(tmp_path, {"type": "pairwise"}, concurrency=2)
    store = tmp_path / "assay.db"
    with FakeLLM(judge=FakeJudge(JudgeBiases(seed=1)), latency=0.1) as llm:  # 60 calls: 3 s
        env = {**fake_environment(llm), "ASSAY_STORE": str(store)}
        first = subprocess.Popen([sys.executable, "-m", "assay", "run", str(config),
                                  "--no-progress"], cwd=tmp_path, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not (judged := verdicts(store)) and first.poll() is None:
            assert time.monotonic() < deadline, "no pair was judged"
            time.sleep(0.01)
        asked_at_first_verdicts = llm.received
        first.send_signal(signal.SIGKILL)
        first.wait()
        assert judged and asked_at_first_verdicts < 60, "verdicts are stored as they come"
        asked_before = llm.received
        resumed = subprocess.run([sys.executable, "-m", "assay", "run", str(config),
                                  "--resume", "--no-progress"], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=120)
        asked_by_resume = llm.received - asked_before
    assert resumed.returncode == 0, resumed.stderr
    assert verdicts(store) == 30
    assert asked_by_resume <= 2 * (30 - judged)  # both orders of each pair not yet stored


def verdicts(store: Path) -> int:
    """The pairwise verdicts stored so far (0 before the tables exist)."""
    try:
        with contextlib.closing(sqlite3.connect(store)) as db:
            return db.execute("select count(*) from scores where scorer = 'pairwise'"
                              ).fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_pair_a_killed_run_had_half_judged_costs_on_resume_what_it_costs_unbroken(
        tmp_path: Path) -> None:
    """Regression: a run killed while it judged a pair, one order answered and kept in the
    response cache, resumed it with that order answered from the cache at $0, so the run's
    judge cost (terminal, report.md, results.json) missed a call it had paid for."""
    config = write(tmp_path, {"type": "pairwise"}, concurrency=1)
    config.write_text(config.read_text().replace("gpt-judge", "gpt-4.1"))  # a priced judge
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(questions.read_text().splitlines(keepends=True)[:3]))
    judge = FakeJudge(JudgeBiases(seed=1))
    asked: list[int] = []

    def second_ask(request: FakeRequest) -> bool:
        asked.append(1)
        return judge.recognises(request) and len(asked) == 2

    held = Rule(when=second_ask, reply=lambda r: replace(judge(r), latency=60.0), times=1)
    with FakeLLM(rules=[held], judge=judge) as llm:
        killed, unbroken = tmp_path / "killed.db", tmp_path / "unbroken.db"

        def run(store: Path, *more: str) -> subprocess.Popen[str]:
            env = {**fake_environment(llm), "ASSAY_STORE": str(store)}
            return subprocess.Popen([sys.executable, "-m", "assay", "run", str(config),
                                     "--no-progress", *more], cwd=tmp_path, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        first = run(killed)
        deadline = time.monotonic() + 60
        while count(killed, "response_cache") < 1:  # one order answered, the other held
            assert time.monotonic() < deadline and first.poll() is None, "no reply was kept"
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.communicate()
        resumed = run(killed, "--resume").communicate(timeout=120)
        unbroken_run = run(unbroken).communicate(timeout=120)
    assert verdicts(killed) == verdicts(unbroken) == 3, (resumed, unbroken_run)
    assert judge_cost(killed) == pytest.approx(judge_cost(unbroken))


def count(store: Path, table: str) -> int:
    """The rows of `table` (0 before the tables exist)."""
    try:
        with contextlib.closing(sqlite3.connect(store)) as db:
            return int(db.execute(f"select count(*) from {table}").fetchone()[0])
    except sqlite3.Error:
        return 0


def judge_cost(store: Path) -> float:
    """What the stored pairwise verdicts cost."""
    with contextlib.closing(sqlite3.connect(store)) as db:
        return float(db.execute("select sum(cost_usd) from scores where scorer = 'pairwise'"
                                ).fetchone()[0])
