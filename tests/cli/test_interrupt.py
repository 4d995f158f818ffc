"""Ctrl-C stops a run, keeps what finished and says how to resume it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.store import Store
from tests.python_project import write_python_project
from tests.terminal import as_in_the_background, interrupt_when

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SLOW_AGENT = """
import time


def answer(case):
    time.sleep(0.05)
    return case.expected
"""


def _slow_project(tmp_path: Path) -> tuple[dict[str, str], Store]:
    """A 60-case run of a slow agent, its environment and its store."""
    env = write_python_project(tmp_path, SLOW_AGENT, name="slow", cases=60,
                               run="{concurrency: 1}", expected="y", id_digits=2, store="s.db")
    return env, Store(str(tmp_path / "s.db"))


def _some_trials_stored(store: Store) -> bool:
    runs = store.list_runs("slow", limit=1)
    return bool(runs) and store.count_trials(runs[0].id)[0] >= 3


def test_ctrl_c_prints_the_resume_command_and_exits_130(tmp_path: Path) -> None:
    env, store = _slow_project(tmp_path)
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        lambda: _some_trials_stored(store), cwd=tmp_path, env=env)
    assert code == 130, stderr
    [run] = store.list_runs("slow")
    assert run.status == "interrupted"
    assert f"interrupted; resume with: assay run assay.yaml --resume {run.id}" in stderr
    assert "aborted" not in stderr and "Traceback" not in stderr
    _resume(tmp_path, env, run.id)
    assert store.count_trials(run.id) == (60, 0)
    store.close()


def _resume(root: Path, env: dict[str, str], run_id: str) -> None:
    """`assay run assay.yaml --resume RUN`, which completes."""
    resumed = subprocess.run(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress", "--resume", run_id],
        cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr


def test_sigterm_stops_a_run_like_ctrl_c_recorded_interrupted_with_the_resume_command(
        tmp_path: Path) -> None:
    """SIGTERM (a CI job cancelled, `docker stop`, `kill`) used to end assay at once: no
    message, exit -15, and the run left `running` though nothing ran it."""
    env, store = _slow_project(tmp_path)
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        lambda: _some_trials_stored(store), cwd=tmp_path, env=env, send=signal.SIGTERM)
    assert code == 130, stderr
    [run] = store.list_runs("slow")
    assert run.status == "interrupted"
    assert f"resume with: assay run assay.yaml --resume {run.id}" in stderr
    assert "Traceback" not in stderr
    store.close()


def test_a_second_ctrl_c_while_an_async_target_holds_the_loop_stops_without_a_traceback(
        tmp_path: Path) -> None:
    """Regression: an `async def` target that blocks (time.sleep) holds the event loop, so
    the first Ctrl-C cannot stop it; the second stopped the run, but its 'interrupted;
    resume with ...' was followed by 80 lines of 'Task exception was never retrieved'
    traceback."""
    env = write_python_project(tmp_path, "import pathlib, time\n\n\nasync def answer(case):\n"
                               "    pathlib.Path('started').touch()\n    time.sleep(60)\n",
                               name="held", cases=2, run="{concurrency: 2}", store="s.db")
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        (tmp_path / "started").exists, cwd=tmp_path, env=env, presses=2)
    assert code == 130, stderr
    assert "interrupted; resume with: assay run assay.yaml --resume" in stderr
    assert "Traceback" not in stderr and "never retrieved" not in stderr


BLOCKING_AGENT = """
import os, pathlib, time


{kind} answer(case):
    if case.id == "c3" and os.environ.get("BLOCK"):
        pathlib.Path("started").touch()
        time.sleep(60)
    return case.expected
"""


@pytest.mark.parametrize("kind", ["def", "async def"], ids=["threaded-false", "async"])
def test_one_ctrl_c_stops_a_target_that_blocks_the_loop_keeping_the_trials_before_it(
        tmp_path: Path, kind: str) -> None:
    """Regression: a `threaded: false` or `async def` target in `time.sleep(60)` holds the
    event loop, so the first Ctrl-C did nothing visible for the rest of the minute; only a
    second one stopped the run."""
    env = write_python_project(tmp_path, BLOCKING_AGENT.format(kind=kind), name="held",
                               cases=6, run="{concurrency: 1}", store="s.db")
    config = tmp_path / "assay.yaml"
    if kind == "def":
        config.write_text(config.read_text().replace("answer'}", "answer', threaded: false}"))
    started = time.monotonic()
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        (tmp_path / "started").exists, cwd=tmp_path, env={**env, "BLOCK": "1"})
    assert code == 130 and time.monotonic() - started < 30, stderr
    assert ("Ctrl-C: the target's code is blocking the event loop (a blocking call in an "
            "`async def` or a `threaded: false` function), so the run could not stop between "
            "trials; stopping it there") in stderr
    store = Store(str(tmp_path / "s.db"))
    [run] = store.list_runs("held")
    assert run.status == "interrupted" and store.count_trials(run.id) == (3, 0)
    assert f"interrupted; resume with: assay run assay.yaml --resume {run.id}" in stderr
    assert "Traceback" not in stderr
    _resume(tmp_path, env, run.id)
    assert store.count_trials(run.id) == (6, 0)
    store.close()


def test_one_ctrl_c_of_a_run_that_answers_it_says_nothing_of_a_blocked_loop(
        tmp_path: Path) -> None:
    env, store = _slow_project(tmp_path)
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        lambda: _some_trials_stored(store), cwd=tmp_path, env=env)
    assert code == 130, stderr
    assert "blocking" not in stderr and "Ctrl-C again" not in stderr
    store.close()


@pytest.mark.parametrize("agent", [
    "def answer(case):\n    pathlib.Path('started').touch()\n    time.sleep(60)\n",
    "async def answer(case):\n    pathlib.Path('started').touch()\n    time.sleep(60)\n",
], ids=["threaded-false", "async"])
def test_sigterm_stops_a_run_started_in_the_background_while_a_target_holds_the_loop(
        tmp_path: Path, agent: str) -> None:
    """Started by a script's `assay run ... &` (SIGINT ignored), SIGTERM landing in a target
    on the event loop was stored as that trial's error ('answer raised KeyboardInterrupt'),
    and the run went on to its next trial, which held the loop again: SIGTERM did not
    stop it."""
    env = write_python_project(tmp_path, f"import pathlib, time\n\n\n{agent}", name="held",
                               cases=2, run="{concurrency: 1}", store="s.db")
    if agent.startswith("def"):
        config = tmp_path / "assay.yaml"
        config.write_text(config.read_text().replace("answer'}", "answer', threaded: false}"))
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        (tmp_path / "started").exists, cwd=tmp_path, env=env, send=signal.SIGTERM,
        started=as_in_the_background)
    assert code == 130, stderr
    assert "interrupted; resume with: assay run assay.yaml --resume" in stderr
    assert "Traceback" not in stderr

PAUSING_AGENT = """
import os
import time


def answer(case):
    time.sleep(float(os.environ["PAUSE"]))
    return case.expected
"""


def test_a_run_stopped_while_another_of_its_experiment_completed_names_its_own_run(
        tmp_path: Path) -> None:
    """Two CI jobs of one experiment on one store: the job cancelled after the other's run
    completed said 'interrupted after run <the other's> completed' and exited 0."""
    env = write_python_project(tmp_path, PAUSING_AGENT, name="shared", cases=60,
                               run="{concurrency: 1}", expected="y", store="s.db")
    store = Store(str(tmp_path / "s.db"))
    other: list[subprocess.CompletedProcess[str]] = []

    def other_run_completed() -> bool:
        runs = store.list_runs("shared")
        if not runs or store.count_trials(runs[-1].id)[0] < 3:
            return False
        other.append(subprocess.run(
            [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress", "-o", "other"],
            cwd=tmp_path, env={**env, "PAUSE": "0"}, capture_output=True, text=True,
            timeout=120, check=False))
        return True

    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        other_run_completed, cwd=tmp_path, env={**env, "PAUSE": "0.2"}, send=signal.SIGTERM)
    assert other and other[0].returncode == 0, other
    mine, theirs = sorted(store.list_runs("shared"), key=lambda run: run.started_at)
    assert theirs.status == "completed" and mine.status == "interrupted"
    assert code == 130, stderr
    assert f"interrupted; resume with: assay run assay.yaml --resume {mine.id}" in stderr
    assert theirs.id not in stderr
    store.close()


IMPORTS_SLOWLY = """
import pathlib, time

pathlib.Path("importing").touch()
time.sleep(60)


def answer(case):
    return case.expected
"""


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("send", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_while_the_target_module_imports_is_an_interruption_not_the_modules_failure(
        tmp_path: Path, command: str, send: signal.Signals) -> None:
    """A target importing a heavy library (a minute of `import torch`) and a user tired of
    waiting: Ctrl-C or SIGTERM was said as 'cannot import function ...: the module raised
    KeyboardInterrupt while being imported', exit 2, as if the code were broken."""
    env = write_python_project(tmp_path, IMPORTS_SLOWLY, name="slow", cases=2, run="{}")
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", command, "assay.yaml", "--no-progress"][
            :None if command == "run" else -1],
        lambda: (tmp_path / "importing").exists(), cwd=tmp_path, env=env, send=send)
    assert code == 130, stderr
    assert "interrupted" in stderr
    assert "while being imported" not in stderr and "Traceback" not in stderr


def test_ctrl_c_while_a_postgresql_store_does_not_answer_exits_130_naming_the_resume(
        tmp_path: Path) -> None:
    """With its PostgreSQL server stopped (kill -STOP) mid-run, Ctrl-C ended in 'error: the
    store ... stopped answering', exit 3: the last commit on the way out failed, and its
    error replaced the interruption."""
    import os
    import time

    from sqlalchemy import text

    from tests.conftest import postgres_server_url
    from tests.postgres import scratch_schema

    with scratch_schema(postgres_server_url()) as url:
        env = write_python_project(tmp_path, SLOW_AGENT, name="slow", cases=60,
                                   run="{concurrency: 1}", expected="y", id_digits=2)
        name = f"assay-run-to-stop-{os.getpid()}"  # no other test run's backends
        env |= {"ASSAY_STORE": url, "PGAPPNAME": name}
        store = Store(url)
        stopped: list[int] = []

        def server_stopped() -> bool:
            if not _some_trials_stored(store):
                return False
            with store.engine.connect() as conn:
                stopped.extend(conn.execute(text(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
                    {"name": name}).scalars())
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            time.sleep(1.0)  # the run's next commit waits on the stopped server
            return True

        try:
            code, stderr = interrupt_when(
                [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
                server_stopped, cwd=tmp_path, env=env)
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
            store.close()
    assert stopped
    assert code == 130, stderr
    assert "stopped answering" in stderr and "resume with: assay run assay.yaml --resume" \
        in stderr
    assert "error:" not in stderr and "Traceback" not in stderr
