"""A run killed with SIGKILL resumes where it stopped: every trial once, none run twice, and
one process at a time. Each test runs on SQLite and on PostgreSQL (the `store_url` fixture)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, select
from sqlalchemy.exc import SQLAlchemyError

from assay.context.pack_config import DEFAULT_PATTERNS
from assay.context.pack_index import content_hash
from assay.store import Store, schema
from assay.store import store_url as normalised_url
from tests.cli.evalproject import assay as assay_in_process
from tests.terminal import as_at_a_terminal

AGENT = '''
import asyncio, os

async def answer(case, condition):
    gate = os.environ.get("GATE")
    while gate and not os.path.exists(gate):  # held until the test opens the gate
        await asyncio.sleep(0.01)
    with open(os.environ["CALLS_LOG"], "a") as log:
        log.write(f"{case.id} {condition.name}\\n")
    await asyncio.sleep(0.01)
    return case.expected
'''

CONFIG = """
name: killable
dataset: {path: cases.jsonl}
target: {type: python, function: "agent:answer"}
conditions: {a: {}, b: {}}
scorers: [{type: exact_match}]
run: {concurrency: 4, batch_size: 5}
"""


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    """The test's store, read directly (the runs under test write it from other processes)."""
    opened = create_engine(normalised_url(store_url))
    yield opened
    opened.dispose()


def killable_project(tmp_path: Path, store_url: str, cases: int = 150) -> dict[str, str]:
    """Write the project; returns the environment its `assay` processes run with."""
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "assay.yaml").write_text(CONFIG)
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i:03d}", "input": "q", "expected": "a"}) + "\n"
        for i in range(cases)))
    return {**os.environ, "ASSAY_STORE": store_url, "CALLS_LOG": str(tmp_path / "calls-1.log")}


def assay(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "assay", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stored_trials(engine: Engine) -> list[tuple[str, str]]:
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(schema.trials.c.case_id, schema.trials.c.condition))
            return [(case_id, condition) for case_id, condition in rows]
    except SQLAlchemyError:  # the tables are not there yet
        return []


def lock_holders(engine: Engine) -> list[int]:
    try:
        with engine.connect() as conn:
            return list(conn.execute(select(schema.run_locks.c.pid)).scalars())
    except SQLAlchemyError:
        return []


def calls(log: Path) -> set[tuple[str, ...]]:
    return {tuple(line.split()) for line in log.read_text().splitlines()} if log.exists() \
        else set()


def kill_mid_run(tmp_path: Path, env: dict[str, str], engine: Engine) -> set[tuple[str, str]]:
    """Start the run, SIGKILL it once 40 trials are stored; what it stored."""
    first = assay("run", "assay.yaml", "--no-progress", cwd=tmp_path, env=env)
    deadline = time.monotonic() + 60
    while len(stored_trials(engine)) < 40 and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = set(stored_trials(engine))
    assert 40 <= len(before) < 300, "the kill should land mid-run"
    return before


def test_sigkill_then_resume_runs_only_the_missing_trials(
        tmp_path: Path, store_url: str, engine: Engine) -> None:
    env = killable_project(tmp_path, store_url)
    before = kill_mid_run(tmp_path, env, engine)
    assert len(lock_holders(engine)) == 1  # the killed process could not give its lock back

    env["CALLS_LOG"] = str(tmp_path / "calls-2.log")
    second = assay("run", "assay.yaml", "--resume", "--no-progress", cwd=tmp_path, env=env)
    _, err = second.communicate(timeout=120)
    assert second.returncode == 0, err.decode()  # the dead holder's lock is taken over

    after = stored_trials(engine)
    assert len(after) == len(set(after)) == 300  # every trial present exactly once
    resumed_calls = calls(tmp_path / "calls-2.log")
    assert not resumed_calls & before  # nothing stored before the kill ran again
    assert len(resumed_calls) == 300 - len(before)
    with engine.connect() as conn:
        runs = conn.execute(select(schema.runs.c.status)).scalars().all()
    assert runs == ["completed"]  # one run, finished by the resume
    assert lock_holders(engine) == []  # and given back


def test_a_second_resume_of_a_run_being_resumed_is_refused_and_runs_nothing(
        tmp_path: Path, store_url: str, engine: Engine) -> None:
    """Regression: two `--resume` of one run both ran every missing trial (paid twice), and
    one died with an IntegrityError that dumped SQL and case data."""
    env = killable_project(tmp_path, store_url)
    before = kill_mid_run(tmp_path, env, engine)

    gate = tmp_path / "gate"
    first = assay("run", "assay.yaml", "--resume", "--no-progress", cwd=tmp_path,
                  env={**env, "GATE": str(gate), "CALLS_LOG": str(tmp_path / "calls-2.log")})
    try:
        wait_while_running(first, lambda: first.pid in lock_holders(engine),
                           "the first resume never took the lock")

        second = subprocess.run(
            [sys.executable, "-m", "assay", "run", "assay.yaml", "--resume", "--no-progress"],
            cwd=tmp_path, env={**env, "CALLS_LOG": str(tmp_path / "calls-3.log")},
            capture_output=True, text=True, timeout=120)
        assert second.returncode == 3, second.stderr
        [line] = [line for line in second.stderr.splitlines() if line.strip()]
        assert "is being run by another assay (process " + str(first.pid) in line
        for leak in ("Traceback", "IntegrityError", "[SQL", "INSERT"):
            assert leak not in second.stderr
        assert not (tmp_path / "calls-3.log").exists()  # not one trial paid twice
    finally:
        gate.touch()
    _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err.decode()
    after = stored_trials(engine)
    assert len(after) == len(set(after)) == 300
    assert len(calls(tmp_path / "calls-2.log")) == 300 - len(before)


def test_resume_continues_the_unfinished_run_no_process_holds_not_the_newest(
        tmp_path: Path, store_url: str, engine: Engine) -> None:
    """With a killed run and a newer one of its experiment still running, `--resume` picked
    the running one and was refused ('is being run by another assay'), exit 3."""
    env = killable_project(tmp_path, store_url)
    before = kill_mid_run(tmp_path, env, engine)
    with engine.connect() as conn:
        [killed] = conn.execute(select(schema.runs.c.id)).scalars().all()

    gate = tmp_path / "gate"
    running = assay("run", "assay.yaml", "--no-progress", cwd=tmp_path,
                    env={**env, "GATE": str(gate), "CALLS_LOG": str(tmp_path / "calls-2.log")})
    try:
        wait_while_running(running, lambda: running.pid in lock_holders(engine)
                           and len(runs_of(engine)) >= 2, "the new run never took its lock")
        resumed = subprocess.run(
            [sys.executable, "-m", "assay", "run", "assay.yaml", "--resume", "--no-progress"],
            cwd=tmp_path, env={**env, "CALLS_LOG": str(tmp_path / "calls-3.log")},
            capture_output=True, text=True, timeout=120, check=False)
        assert resumed.returncode == 0, resumed.stderr
        assert len(calls(tmp_path / "calls-3.log")) == 300 - len(before)
        assert runs_of(engine)[killed] == "completed"
    finally:
        gate.touch()
    _, err = running.communicate(timeout=120)
    assert running.returncode == 0, err.decode()
    assert sorted(runs_of(engine).values()) == ["completed", "completed"]


def wait_while_running(process: subprocess.Popen[bytes], done: Callable[[], bool],
                       what: str) -> None:
    """Wait up to a minute for `done()`, failing with `what` (or the process's stderr if it
    ended first)."""
    deadline = time.monotonic() + 60
    while not done():
        assert process.poll() is None, process.communicate()[1].decode()
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def runs_of(engine: Engine) -> dict[str, str]:
    with engine.connect() as conn:
        return dict(conn.execute(select(schema.runs.c.id, schema.runs.c.status)).all())


def test_resume_refuses_a_changed_variable_and_reuses_the_sample(
        tmp_path: Path, store_url: str, engine: Engine) -> None:
    """Regression: a resume used to mix two models (a ${VAR} changed) or grow past --sample."""
    (tmp_path / "agent.py").write_text(
        "import os, signal, time\n\ndef answer(case):\n    if os.environ.get('FAIL'):\n"
        "        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C\n        time.sleep(10)\n"
        "    return case.expected\n")
    (tmp_path / "assay.yaml").write_text(
        "name: careful\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent:answer', args: {}}\n"
        "conditions: {a: {description: '${FLAVOUR}'}}\nscorers: [{type: exact_match}]\n")
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": "q", "expected": "a"}) + "\n" for i in range(40)))
    env = {**os.environ, "FLAVOUR": "one", "ASSAY_STORE": store_url}
    first = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--sample", "10",
                            "--no-progress"], cwd=tmp_path, env={**env, "FAIL": "1"},
                           capture_output=True, text=True, preexec_fn=as_at_a_terminal)
    assert first.returncode == 130, first.stderr  # interrupted on the first trial

    changed = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--resume"],
                             cwd=tmp_path, env={**env, "FLAVOUR": "two"}, capture_output=True,
                             text=True)
    assert changed.returncode == 2 and "now has another value" in changed.stderr

    other_sample = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml",
                                   "--resume", "--sample", "20"], cwd=tmp_path, env=env,
                                  capture_output=True, text=True)
    assert other_sample.returncode == 2 and "--sample 20" in other_sample.stderr

    resumed = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--resume",
                              "--no-progress"], cwd=tmp_path, env=env, capture_output=True,
                             text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert len(stored_trials(engine)) == 10


def agent_down_past_c3(root: Path, module: str, parameters: str) -> None:
    """`module.py` (a name no other test imports) answering each of ten cases c0..c9 with
    its expected answer, unless DOWN is set: then it fails from c4 on."""
    (root / f"{module}.py").write_text(
        f"import os\n\ndef answer({parameters}):\n"
        "    if os.environ.get('DOWN') and case.id >= 'c4':\n"
        "        raise RuntimeError('the service went down')\n"
        "    return case.expected\n")
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": "q", "expected": "a"}) + "\n" for i in range(10)))


def stopped_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str], config: str, *options: str) -> None:
    """`assay run assay.yaml` with `config` (its store in tmp_path), stopped with exit 3 by
    its error budget while DOWN was set; DOWN is unset again for the resume."""
    (tmp_path / "assay.yaml").write_text(config)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("DOWN", "1")
    code, out = assay_in_process(capsys, "run", "assay.yaml", *options, "--no-progress")
    assert code == 3, out
    monkeypatch.delenv("DOWN")


def test_a_resume_accepts_a_changed_pace_and_refuses_a_changed_target_or_dataset(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a run stopped by its error budget could not be resumed with another
    `run.concurrency`, `batch_size` or `max_errors` ('the config changed since it started'),
    although none of them changes a trial's result."""
    agent_down_past_c3(tmp_path, "paced_agent", "case, flavour")

    def configure(run: str, flavour: str = "one") -> None:
        (tmp_path / "assay.yaml").write_text(
            "name: paced\ndataset: {path: cases.jsonl}\n"
            "target: {type: python, function: 'paced_agent:answer', threaded: false, "
            f"args: {{flavour: {flavour}}}}}\nscorers: [{{type: exact_match}}]\nrun: {run}\n")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("DOWN", "1")
    configure("{concurrency: 1, batch_size: 1, max_errors: 2}")
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--no-progress")
    assert code == 3, out
    monkeypatch.delenv("DOWN")

    configure("{concurrency: 4, batch_size: 3}", flavour="two")
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 2 and "the config changed since it started" in out, out
    assert 'assay.yaml:3 [target.args.flavour]: "one" when the run started, "two" now' in out
    assert "concurrency" not in out  # a pace setting is free to change
    configure("{concurrency: 4, batch_size: 3}")
    with (tmp_path / "cases.jsonl").open("a") as cases:
        cases.write('{"id": "c10", "input": "q", "expected": "a"}\n')
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 2 and "the dataset changed since it started" in out, out
    assert "cases.jsonl reads sha256 " in out and "put it back as it was" in out

    lines = (tmp_path / "cases.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "cases.jsonl").write_text("".join(lines[:10]))
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--retry-errors",
                                 "--no-progress")
    assert code == 0, out
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("paced")
    assert run.status == "completed"
    trials = list(store.iter_trials(run.id))
    assert sorted(t.case_id for t in trials) == [f"c{i}" for i in range(10)]
    assert not any(t.error for t in trials)
    # the run reads as it was finished, not with the pace it was stopped at
    assert run.config is not None and run.config["run"] == {"concurrency": 4, "batch_size": 3}
    results = json.loads((Path(run.report_dir or "") / "results.json").read_text())
    assert results["run"]["config"]["run"] == {"concurrency": 4, "batch_size": 3}


def test_a_resume_writes_the_files_where_the_stopped_run_was_asked_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay run assay.yaml -o out` stopped (its error budget, Ctrl-C, a kill)
    and resumed with the command it printed, `assay run assay.yaml --resume ID`, wrote
    results.json and the reports to .assay/runs/ID/, and left out/ empty."""
    agent_down_past_c3(tmp_path, "asked_folder_agent", "case")
    stopped_run(tmp_path, monkeypatch, capsys,
                "name: asked-folder\ndataset: {path: cases.jsonl}\n"
                "target: {type: python, function: 'asked_folder_agent:answer', threaded: false}\n"
                "scorers: [{type: exact_match}]\n"
                "run: {concurrency: 1, batch_size: 1, max_errors: 2}\n", "-o", "out")

    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--retry-errors",
                                 "--no-progress")
    assert code == 0, out
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == \
        ["report.html", "report.md", "results.json"]
    assert not (tmp_path / ".assay" / "runs").exists()


def test_a_resume_refuses_a_pack_edited_since_the_run_started_and_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a resume after an edit of a pack's documents ran the missing trials over
    the new pack beside the stored ones that read the old, one run mixing two packs, while
    a changed dataset was refused; a changed pack is now refused the same way."""
    agent_down_past_c3(tmp_path, "pack_agent", "case")
    (tmp_path / "docs").mkdir()
    note = tmp_path / "docs" / "ports.md"
    note.write_text("# Ports\n\nFollowers replicate on port 7000.\n")
    stopped_run(tmp_path, monkeypatch, capsys,
                "name: packed\ndataset: {path: cases.jsonl}\n"
                "target: {type: python, function: 'pack_agent:answer', threaded: false}\n"
                "packs: {docs: {path: docs}}\nconditions: {pack: {mcp_servers: ['pack:docs']}}\n"
                "scorers: [{type: exact_match}]\n"
                "run: {concurrency: 1, batch_size: 1, max_errors: 2}\n")
    then = content_hash(tmp_path / "docs", DEFAULT_PATTERNS, chunk_chars=1200)

    note.write_text("# Ports\n\nFollowers replicate on port 9000.\n")
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 2, out
    assert "knowledge pack 'docs' changed since it started" in out, out
    assert f"{tmp_path / 'docs'} reads sha256 " in out and f"now, {then[:12]} then" in out
    assert "put it back as it was" in out

    note.write_text("# Ports\n\nFollowers replicate on port 7000.\n")
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--retry-errors",
                                 "--no-progress")
    assert code == 0, out
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("packed")
    assert run.status == "completed" and run.pack_hashes == {"docs": then}
    assert sorted(t.case_id for t in store.iter_trials(run.id)) == [f"c{i}" for i in range(10)]


def test_a_run_started_with_an_option_past_todays_bound_is_not_resumed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a run started with `--epochs 100000000000`, before the option was bounded,
    was resumed with it by `--resume` and never began its first trial."""
    agent_down_past_c3(tmp_path, "bounded_agent", "case")
    stopped_run(tmp_path, monkeypatch, capsys,
                "name: bounded\ndataset: {path: cases.jsonl}\n"
                "target: {type: python, function: 'bounded_agent:answer', threaded: false}\n"
                "scorers: [{type: exact_match}]\nrun: {concurrency: 1, max_errors: 1}\n")
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("bounded")
    store.update_run(run.id, options={"epochs": 100_000_000_000})
    store.close()
    code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 2, out
    assert " ".join(out.split()) == (
        f"error: cannot resume run {run.id}: it was started with --epochs 100000000000, and "
        "--epochs takes 1 to 10,000; start a new run without --resume")


def test_a_resume_when_other_processes_run_every_unfinished_run_names_each_and_the_way_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with two unfinished runs both being run, `--resume` named the newest
    only ('run R2 is being run by another assay (...); wait for it to finish, or stop it and
    resume again'), as if the other were not there."""
    agent_down_past_c3(tmp_path, "held_agent", "case")
    config = ("name: held\ndataset: {path: cases.jsonl}\n"
              "target: {type: python, function: 'held_agent:answer', threaded: false}\n"
              "scorers: [{type: exact_match}]\nrun: {concurrency: 1, batch_size: 1, "
              "max_errors: 2}\n")
    stopped_run(tmp_path, monkeypatch, capsys, config)
    store = Store(str(tmp_path / "assay.db"))
    [only] = store.list_runs("held")
    with store.run_lock() as lock:  # this process stands for the other assay
        lock.acquire(only.id)
        code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--no-progress")
        assert code == 3, out
        assert (f"nothing to resume: the only unfinished run of experiment 'held', {only.id}, "
                f"is being run by another assay (process {os.getpid()} on ") in out
        assert (f"or stop that process (Ctrl-C where it runs, or `kill {os.getpid()}`) and run "
                "with --resume again to continue the run here, or run without --resume to "
                "start a new run") in out

    stopped_run(tmp_path, monkeypatch, capsys, config)
    newer, older = store.list_runs("held")
    with store.run_lock() as first, store.run_lock() as second:
        first.acquire(older.id)
        second.acquire(newer.id)
        code, out = assay_in_process(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 3, out
    assert (f"nothing to resume: each of the 2 unfinished runs of experiment 'held' is being "
            f"run by another assay: {newer.id} (process {os.getpid()} on ") in out
    assert f"), {older.id} (process {os.getpid()} on " in out
    assert "wait for them to finish (`assay runs` shows how far each got)" in out
