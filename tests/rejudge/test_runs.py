"""Which runs a rejudge works on: a bad argument leaves no run behind, an unfinished rejudge
is continued by `assay rejudge --resume` (never by `assay run --resume`), and `-e` keeps
`latest` inside one experiment."""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from assay.store import Store
from assay.testing import FakeJudge, FakeLLM, Fault, Reply, Rule
from assay.testing.launcher import fake_environment
from assay.testing.script import FakeRequest
from tests.cli.evalproject import assay
from tests.fake_sdks import point_sdks_at
from tests.rejudge.rejudge_project import CASES, judged, runs, write_config

__all__ = ["judged"]


@pytest.mark.parametrize("arguments", [["--judge-model", "gpt4"], ["--judge-model", "nope/x"],
                                       ["--scorer", "exact_match"], ["-o", "planets.yaml/reports"]])
def test_a_bad_argument_exits_2_and_stores_no_run(
        judged: tuple[Path, FakeLLM], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        arguments: list[str]) -> None:
    """Regression: it exited 2 but left a `failed` run of 10 trials in `assay runs`."""
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    before = llm.received
    code, out = assay(capsys, "rejudge", *arguments)
    assert code == 2 and out.startswith("error:"), out
    assert len(runs(tmp_path)) == 1 and llm.received == before


def test_a_missing_api_key_exits_2_and_stores_no_run(
        judged: tuple[Path, FakeLLM], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    code, out = assay(capsys, "rejudge")
    assert code == 2 and "OPENAI_API_KEY" in out, out
    assert len(runs(tmp_path)) == 1


def test_an_aborted_rejudge_is_resumed_keeping_its_verdicts_and_judging_the_rest(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, max_consecutive_errors=3)
    _, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.rules.append(Rule(user=re.compile(r"\(\d*[5-9]\)"), reply=Reply(fault=Fault(
        "bad_request"))))  # the judge refuses cases q05 to q09
    code, out = assay(capsys, "rejudge", "--no-progress", "-k", "2")
    assert code == 3 and "the judges failed on the last 3 answers" in out, out
    stopped = runs(tmp_path)[0]
    store = Store(str(tmp_path / "assay.db"))
    kept = {t.key: t.scores["judge_score"] for t in store.iter_trials(stopped.id)
            if "judge_score" in t.scores and t.scores["judge_score"].error is None}
    assert 0 < len(kept) < CASES - 1
    llm.rules.clear()
    before = llm.received
    code, out = assay(capsys, "rejudge", "--resume", stopped.id, "--no-progress")
    assert code == 0, out
    missing = CASES - 1 - len(kept)  # the broken case has no answer to judge
    assert llm.received - before == missing * 2
    resumed = store.get_run(stopped.id)
    assert resumed is not None and resumed.status == "completed" and len(runs(tmp_path)) == 2
    after = {t.key: t.scores["judge_score"] for t in store.iter_trials(stopped.id)
             if "judge_score" in t.scores}
    assert len(after) == CASES - 1 and all(s.error is None for s in after.values())
    assert all(after[key].value == score.value for key, score in kept.items())
    store.close()


def test_a_resumed_rejudge_says_its_calls_are_its_own_beside_the_whole_runs_cost(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a rejudge resumed after judging 5 answers printed 'total cost $X (judges
    $X); 10 LLM calls answered', the whole run's cost beside this process's calls alone, as
    if 10 calls had cost all of it; `assay run --resume` says 'answered by this resume'."""
    config = write_config(tmp_path, max_consecutive_errors=3)
    _, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.rules.append(Rule(user=re.compile(r"\(\d*[5-9]\)"), reply=Reply(fault=Fault(
        "bad_request"))))
    assert assay(capsys, "rejudge", "--no-progress", "-k", "1")[0] == 3
    llm.rules.clear()
    code, out = assay(capsys, "rejudge", "--resume", "--no-progress")
    assert code == 0, out
    assert re.search(r"\d+ LLM calls? answered by this resume", out), out


def _rejudged_unread(capsys: pytest.CaptureFixture[str], judged: tuple[Path, FakeLLM],
                     unread: str, change: Callable[[dict[str, Any]], object]) -> tuple[int, str]:
    """(exit code, output) of a rejudge whose judge replies no verdict to every request
    holding `unread`, after a run of the project's config as `change` edits it."""
    import json

    import yaml

    config, llm = judged
    settings = yaml.safe_load(config.read_text())
    change(settings)
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.rules.append(Rule(reply="no verdict today", when=lambda r: unread in json.dumps(r.body)))
    return assay(capsys, "rejudge", "--no-progress", "-k", "1")


def test_a_rejudge_whose_one_judge_never_gave_a_verdict_exits_3_as_a_run_does(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a rejudge whose rubric judge gave no readable reply on any of the 9
    answers (its other judge fine) exited 0 with 'warning: scorer rubric has no value',
    where `assay run` stops on the same (exit 3): it measured nothing of that judge."""
    code, out = _rejudged_unread(capsys, judged, "factual_adherence",
                                 lambda settings: settings["scorers"].append({"type": "rubric"}))
    assert code == 3, out
    stopped = runs(tmp_path)[0]
    assert ("scorer rubric has no value: it errored on all 9 of its trials with an answer, so "
            "the run measured nothing with it") in out
    assert f"assay rejudge --resume {stopped.id}" in out and stopped.status == "aborted"


def test_a_rejudge_whose_judge_never_gave_a_verdict_under_one_condition_exits_3(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a judge that gave no readable reply on any answer of one condition (its
    answers fine under the other) let the rejudge exit 0, having measured nothing of the
    judge there."""
    (tmp_path / "agent.py").write_text(
        "def answer(case, long=False):\n"
        "    return 'Jupiter is the largest planet' + (', at length.' if long else '.')\n")
    code, out = _rejudged_unread(capsys, judged, "at length", lambda settings: settings.update(
        conditions={"short": {}, "long": {"args": {"long": True}}}))
    assert code == 3, out
    assert (f"scorer judge_score has no value under condition long: it errored on all {CASES} "
            "of its trials there with an answer") in out
    assert runs(tmp_path)[0].status == "aborted"


def test_run_resume_refuses_a_rejudge_and_names_how_to_continue_it(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay run --resume` took up a rejudge as an eval run, called the target
    and judged once, its report still saying no target was called."""
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.fault_rates["bad_request"] = 1.0
    assert assay(capsys, "rejudge", "--no-progress")[0] == 3
    stopped = runs(tmp_path)[0]
    llm.fault_rates.clear()
    before = llm.received
    code, out = assay(capsys, "run", str(config), "--resume", stopped.id)
    assert code == 2, out
    assert f"is a rejudge run, not an eval run: continue it with `assay rejudge --resume " \
           f"{stopped.id}`" in out
    assert llm.received == before and runs(tmp_path)[0].status == "aborted"
    code, out = assay(capsys, "rejudge")  # latest is the stopped rejudge: not judged again
    assert code == 2 and f"assay rejudge --resume {stopped.id}" in out


def test_rejudge_resume_of_an_eval_run_names_the_config_that_resumes_it(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """It said 'run R is a eval run, not a rejudge: resume it with `assay run CONFIG
    --resume R`', where the run knows its config (`RunRecord.resume_command`, as every other
    such message says it)."""
    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    [run] = runs(tmp_path)
    code, out = assay(capsys, "rejudge", "--resume", run.id)
    assert code == 2, out
    assert (f"run {run.id} is an eval run, not a rejudge: resume it with `assay run "
            f"{run.config_path} --resume {run.id}`") in out
    assert run.config_path and "CONFIG" not in out


def test_a_rejudge_whose_judges_all_answered_asks_the_store_nothing_more(
        judged: tuple[Path, FakeLLM], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A rejudge asked the store for scorers with no value after every judging, where a run
    asks only after an error or on a resume: with no error there can be none."""
    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    asked: list[str] = []
    real = Store.scorers_without_value

    def counted(store: Store, run_id: str) -> list[tuple[str, int, str]]:
        asked.append(run_id)
        return real(store, run_id)

    monkeypatch.setattr(Store, "scorers_without_value", counted)
    code, out = assay(capsys, "rejudge", "--no-progress")
    assert code == 0, out
    assert asked == []


def test_resume_keeps_the_options_the_rejudge_was_started_with(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    code, _ = assay(capsys, "rejudge", "--resume")
    assert code == 2
    llm.fault_rates["bad_request"] = 1.0
    assert assay(capsys, "rejudge", "--no-progress", "-k", "2")[0] == 3
    code, out = assay(capsys, "rejudge", "--resume", "-k", "3")
    assert code == 2 and "leave out --repeats" in out
    assert "with --repeats 3: it was started with --repeats 2" in out


def test_resume_accepts_the_options_the_rejudge_was_started_with_given_again(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`assay rejudge --resume -k 2` of a rejudge started with `-k 2` was refused ('leave out
    --repeats'), where `assay run --resume --epochs 2` of a run started so goes on."""
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.fault_rates["bad_request"] = 1.0
    assert assay(capsys, "rejudge", "--no-progress", "-k", "2")[0] == 3
    llm.fault_rates["bad_request"] = 0.0
    code, out = assay(capsys, "rejudge", "--resume", "--no-progress", "-k", "2")
    assert code == 0, out
    assert runs(tmp_path)[0].status == "completed"


def test_a_resumed_rejudge_writes_its_files_where_it_was_asked_to(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay rejudge latest -o rejudged` stopped by its failing judges and
    continued with the command it printed, `assay rejudge --resume ID`, wrote its files to
    .assay/runs/ID/ and left rejudged/ empty."""
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress", "-o", "judged")[0] == 0
    llm.fault_rates["bad_request"] = 1.0
    assert assay(capsys, "rejudge", "--no-progress", "-k", "1", "-o", "rejudged")[0] == 3
    llm.fault_rates["bad_request"] = 0.0
    code, out = assay(capsys, "rejudge", "--resume", "--no-progress")
    assert code == 0, out
    assert sorted(path.name for path in (tmp_path / "rejudged").iterdir()) == \
        ["report.html", "report.md", "results.json"]
    assert not (tmp_path / ".assay" / "runs").exists()


def test_experiment_option_resolves_latest_within_that_experiment(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `latest` was global, so another experiment's run was judged again."""
    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    other = write_config(tmp_path, name="moons")
    assert assay(capsys, "run", str(other), "--no-progress")[0] == 0
    code, out = assay(capsys, "rejudge", "-e", "planets", "-k", "1", "--no-progress")
    assert code == 0, out
    newest, moons, planets = runs(tmp_path)
    assert newest.experiment == "planets" and newest.options["rejudge_of"] == planets.id
    assert moons.experiment == "moons"


def test_a_rejudge_killed_and_resumed_counts_what_its_judges_spent_as_an_unbroken_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a rejudge killed with one ask of a trial answered and kept in the response
    cache, the other still waited for, judged that trial again on resume with the kept ask
    answered at no cost: its tokens and cost, in every report, missed a call it had paid for."""
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path)
    judge = FakeJudge()
    asked: list[int] = []

    def second_ask(request: FakeRequest) -> bool:
        asked.append(1)
        return len(asked) == 2

    held = Rule(when=second_ask, reply=lambda r: replace(judge(r), latency=60.0), times=1)
    killed, unbroken = tmp_path / "killed.db", tmp_path / "unbroken.db"
    with FakeLLM(judge=judge) as llm:
        point_sdks_at(llm, monkeypatch)
        monkeypatch.setenv("ASSAY_STORE", str(killed))
        assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
        shutil.copy(killed, unbroken)
        llm.rules.append(held)
        kept_before = cached(killed)

        def rejudge(store: Path, *more: str) -> subprocess.Popen[str]:
            env = {**fake_environment(llm), "ASSAY_STORE": str(store)}
            return subprocess.Popen([sys.executable, "-m", "assay", "rejudge", "-k", "2",
                                     "--no-progress", *more], cwd=tmp_path, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        first = rejudge(killed)
        deadline = time.monotonic() + 60
        while cached(killed) < kept_before + 4:  # the held ask's twin, asked with it, is kept
            assert time.monotonic() < deadline and first.poll() is None, "nothing was kept"
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.communicate()
        assert rejudge(killed, "--resume").wait(timeout=120) == 0
        assert rejudge(unbroken).wait(timeout=120) == 0
    assert judge_tokens(killed) == judge_tokens(unbroken)
    assert judge_tokens(unbroken)[1] > 0


def cached(store: Path) -> int:
    """The replies in the store's response cache."""
    with contextlib.closing(sqlite3.connect(store)) as db:
        return int(db.execute("select count(*) from response_cache").fetchone()[0])


def judge_tokens(store: Path) -> tuple[int, int]:
    """What the store's completed rejudge counted its judges' verdicts as reading: (trials,
    input tokens)."""
    with contextlib.closing(sqlite3.connect(store)) as db:
        trials, tokens = db.execute(
            "select count(distinct case_id), sum(s.input_tokens) from scores s join runs r on "
            "r.id = s.run_id where r.kind = 'rejudge' and r.status = 'completed'").fetchone()
        return int(trials), int(tokens or 0)
