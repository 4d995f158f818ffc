"""A run killed with SIGKILL resumes where it stopped: every trial once, none run twice."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

AGENT = '''
import asyncio, os

async def answer(case, condition):
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


def assay(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "assay", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stored_trials(db: Path) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("select case_id, condition from trials").fetchall()
    except sqlite3.OperationalError:
        return []


def test_sigkill_then_resume_runs_only_the_missing_trials(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "assay.yaml").write_text(CONFIG)
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i:03d}", "input": "q", "expected": "a"}) + "\n"
        for i in range(150)))
    db = tmp_path / ".assay" / "assay.db"
    env = {**os.environ, "CALLS_LOG": str(tmp_path / "calls-1.log")}

    first = assay("run", "assay.yaml", "--no-progress", cwd=tmp_path, env=env)
    deadline = time.monotonic() + 60
    while len(stored_trials(db)) < 40 and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = set(stored_trials(db))
    assert 40 <= len(before) < 300, "the kill should land mid-run"

    env["CALLS_LOG"] = str(tmp_path / "calls-2.log")
    second = assay("run", "assay.yaml", "--resume", "--no-progress", cwd=tmp_path, env=env)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err.decode()

    after = stored_trials(db)
    assert len(after) == len(set(after)) == 300  # every trial present exactly once
    resumed_calls = {tuple(line.split()) for line in
                     (tmp_path / "calls-2.log").read_text().splitlines()}
    assert not resumed_calls & before  # nothing stored before the kill ran again
    assert len(resumed_calls) == 300 - len(before)
    with sqlite3.connect(db) as conn:
        runs = conn.execute("select status from runs").fetchall()
    assert runs == [("completed",)]  # one run, finished by the resume


def test_resume_refuses_a_changed_variable_and_reuses_the_sample(tmp_path: Path) -> None:
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
    env = {**os.environ, "FLAVOUR": "one", "ASSAY_STORE": str(tmp_path / "s.db")}
    first = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--sample", "10",
                            "--no-progress"], cwd=tmp_path, env={**env, "FAIL": "1"},
                           capture_output=True, text=True)
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
    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert conn.execute("select count(*) from trials").fetchone() == (10,)
