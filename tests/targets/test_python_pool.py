"""A python target with `isolation: process`: what the function does costs only its trial.

Each test drives `assay run` as a user would (a subprocess, a config in a temp
dir). In assay's own process (`isolation: none`) the same functions end assay
with a crash, hang past `run.timeout`, or leave their children
running and holding assay's output open.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

import assay
from assay.errors import UserError
from tests.cli.conftest import Cli

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX sessions and /proc")


def project(root: Path, agent: str, *, cases: int = 6, threaded: bool = True,
            **run: Any) -> Cli:
    """agent.py, cases c0..cN (expected 'a') and an assay.yaml whose one gate asks for no
    errors; returns the CLI, run in `root`."""
    (root / "agent.py").write_text(agent, encoding="utf-8")
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": "q", "expected": "a"}) + "\n"
        for i in range(cases)), encoding="utf-8")
    config = {"name": "isolated", "dataset": {"path": "cases.jsonl"},
              "target": {"type": "python", "function": "agent:answer", "threaded": threaded,
                         "isolation": "process"},
              "scorers": [{"type": "exact_match"}],
              "run": {"timeout": 10, **run},
              "gates": [{"scorer": "exact_match", "max_error_rate": 0}]}
    (root / "assay.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return Cli(root)


def errors_by_case(root: Path) -> dict[str, str]:
    """The trials that ended in an error, from `report.md`'s Errors section."""
    found: dict[str, str] = {}
    for line in (root / "out" / "report.md").read_text().splitlines():
        if line.startswith("- `c") and "` · default: " in line:
            case, _, error = line[3:].partition("` · default: ")
            found[case] = error
    return found


def score_stats(root: Path) -> tuple[int, int]:
    """(trials scored, trials in error) of the run in `out/`."""
    stats = json.loads((root / "out" / "results.json").read_text())["stats"]["scores"][0]
    return stats["n"], stats["errors"]


def running(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting to be reaped has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def pids(root: Path, pattern: str) -> list[int]:
    return [int(path.read_text()) for path in sorted(root.glob(pattern))]


def test_os_exit_0_in_one_case_is_that_trials_error_and_the_gate_still_fails(
        tmp_path: Path) -> None:
    """A worker's `os._exit(0)` ends the worker, not assay: its trial is an error."""
    cli = project(tmp_path, "import os\n\ndef answer(case):\n"
                            "    if case.id == 'c3':\n        os._exit(0)\n    return 'a'\n")
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 1, result.stderr  # the gate is unmet: one trial errored
    assert score_stats(tmp_path) == (5, 1)
    assert errors_by_case(tmp_path) == {
        "c3": "the python target's worker process exited with code 0 while answering"}


@pytest.mark.parametrize("is_async", [False, True])
def test_a_keyboard_interrupt_the_function_raises_is_that_trials_error_as_in_process(
        tmp_path: Path, is_async: bool) -> None:
    """Regression: the worker took the function's own KeyboardInterrupt for Ctrl-C and died
    of it, printing its traceback on assay's stderr, and the trial's error read 'the python
    target's worker process was killed by SIGINT while answering; its stderr ended with:
    n_worker.py", line 183, ...'. Ctrl-C never reaches a worker's session: the trial's error
    is now the one it gets without isolation."""
    cli = project(tmp_path, ("async " if is_async else "") + "def answer(case):\n"
                  "    if case.id == 'c1':\n        raise KeyboardInterrupt\n    return 'a'\n",
                  concurrency=1)
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 1, result.stderr  # the gate is unmet: one trial errored
    assert "Traceback" not in result.stdout + result.stderr
    assert score_stats(tmp_path) == (5, 1)
    assert errors_by_case(tmp_path) == {"c1": "agent:answer raised KeyboardInterrupt"}


def test_a_crash_is_named_by_its_signal_and_the_run_goes_on_with_a_fresh_worker(
        tmp_path: Path) -> None:
    cli = project(tmp_path, "import os, signal\n\ndef answer(case):\n"
                            "    if case.id in ('c1', 'c2'):\n"
                            "        os.kill(os.getpid(), signal.SIGSEGV)\n    return 'a'\n",
                  concurrency=1)
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 1, result.stderr
    assert score_stats(tmp_path) == (4, 2)
    errors = errors_by_case(tmp_path)
    assert set(errors) == {"c1", "c2"}
    assert errors["c1"].startswith(
        "the python target's worker process was killed by SIGSEGV while answering")
    assert "Fatal Python error" in errors["c1"]  # the worker's own account, from its stderr


def test_a_function_that_sleeps_or_spins_forever_times_out_and_its_worker_is_killed(
        tmp_path: Path) -> None:
    """In assay's process, with `threaded: false` (here ignored), the busy loop would never be
    stopped; in a thread, both calls would only be left behind."""
    cli = project(tmp_path, "import os, time\n\ndef answer(case):\n"
                            "    open(f'{case.id}.pid', 'w').write(str(os.getpid()))\n"
                            "    if case.id == 'c0':\n        time.sleep(1000)\n"
                            "    if case.id == 'c1':\n        while True:\n            pass\n"
                            "    return 'a'\n", threaded=False, timeout=1.5)
    started = time.monotonic()
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert errors_by_case(tmp_path) == {"c0": "timeout: no answer within 1.5s",
                                        "c1": "timeout: no answer within 1.5s"}
    assert score_stats(tmp_path) == (4, 2)
    assert elapsed < 15  # start-up, 1.5 s of deadline and the reports, on a loaded machine
    stuck = pids(tmp_path, "c[01].pid")
    assert len(stuck) == 2 and not any(running(pid) for pid in stuck)


def test_children_the_function_leaves_running_are_killed_and_hold_no_output_open(
        tmp_path: Path) -> None:
    """`sleep 777` left running by the function (and a daemon in a session of its own) would
    keep assay's stdout open; a process the module starts at import lives until the end."""
    agent = '''
import os, subprocess

HELPER = subprocess.Popen(["sleep", "779"])  # started once, at import
open(f"helper-{os.getpid()}.pid", "w").write(str(HELPER.pid))


def answer(case):
    child = subprocess.Popen(["sleep", "777"])
    daemon = subprocess.Popen(["sleep", "778"], start_new_session=True,
                              stdout=subprocess.DEVNULL)
    open(f"{case.id}-child.pid", "w").write(str(child.pid))
    open(f"{case.id}-daemon.pid", "w").write(str(daemon.pid))
    return "a" if HELPER.poll() is None else "the helper died"
'''
    cli = project(tmp_path, agent, concurrency=2)
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 0, result.stderr  # and within the timeout: nothing held it
    assert score_stats(tmp_path) == (6, 0)  # the helper lived through every trial
    left = pids(tmp_path, "*.pid")
    assert len(left) == 6 * 2 + len(list(tmp_path.glob("helper-*.pid")))
    assert [pid for pid in left if running(pid)] == []


def test_what_the_function_prints_or_reads_does_not_touch_the_answers(tmp_path: Path) -> None:
    agent = '''
import os, sys

print("printed while importing")


def answer(case):
    print("a" * 100_000)  # more than a pipe holds
    sys.stdout.buffer.write(b"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05{}{}")  # a fake frame
    sys.stdout.flush()
    os.write(1, b"straight to fd 1\\n")
    try:
        line = input()
    except EOFError:
        line = ""
    return "a" + line
'''
    cli = project(tmp_path, agent)
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 0, result.stderr
    assert score_stats(tmp_path) == (6, 0)
    assert "printed while importing" in result.stderr
    assert result.stderr.count("straight to fd 1") == 6


def test_an_async_function_gets_its_condition_and_args_in_the_worker(tmp_path: Path) -> None:
    agent = '''
import asyncio, os

LOOPS = set()


async def answer(case, condition, suffix):
    await asyncio.sleep(0.01)
    LOOPS.add(id(asyncio.get_running_loop()))
    return {"output": "a" + suffix, "metadata": {"condition": condition.name,
                                                 "loops": len(LOOPS), "parent": os.getppid()}}
'''
    cli = project(tmp_path, agent, concurrency=1)
    config = yaml.safe_load((tmp_path / "assay.yaml").read_text())
    config["target"]["args"] = {"suffix": ""}
    (tmp_path / "assay.yaml").write_text(yaml.safe_dump(config))
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 0, result.stderr
    assert score_stats(tmp_path) == (6, 0)
    trials = json.loads((tmp_path / "out" / "results.json").read_text())["trials"]
    metadata = [trial["output"]["metadata"] for trial in trials]
    assert {m["condition"] for m in metadata} == {"default"}
    assert max(m["loops"] for m in metadata) == 1  # one event loop for every call
    assert os.getpid() not in {m["parent"] for m in metadata}  # run by assay's child


@pytest.mark.parametrize(("exit_call", "message"), [
    ("sys.exit(0)", ("cannot import function 'agent:answer': the module called sys.exit(0) "
                     "while being imported")),
    ("os._exit(0)", ("the python target's worker process exited with code 0 while importing "
                     "agent:answer")),
])
def test_a_module_that_exits_while_imported_is_a_clear_exit_2(
        tmp_path: Path, exit_call: str, message: str) -> None:
    cli = project(tmp_path, f"import os, sys\n{exit_call}\n\ndef answer(case):\n    return 'a'\n")
    for command in ("validate", "run"):
        result = cli(command, "assay.yaml", timeout=60)
        assert result.returncode == 2, (command, result.stderr)
        assert message in result.stderr
        assert "Traceback" not in result.stderr


def test_a_module_that_hangs_while_imported_is_a_user_error_at_the_import_deadline(
        tmp_path: Path) -> None:
    """Regression: the first worker's import had no deadline, so `assay run` and `assay
    validate` of a module that waits for ever at import waited with it, printing nothing.
    (The deadline is `run.timeout`, at least a minute: set directly here.)"""
    import asyncio

    from assay.targets.python_pool import WorkerProcesses

    (tmp_path / "agent.py").write_text("import time\ntime.sleep(3600)\n\n"
                                       "def answer(case):\n    return 'a'\n")
    workers = WorkerProcesses(
        {"function": "agent.py:answer", "base_dir": str(tmp_path), "sys_path": sys.path,
         "condition": {"name": "default"}, "args": {}, "max_output_bytes": 1_000},
        import_timeout=1)
    started = time.monotonic()
    with pytest.raises(UserError) as raised:
        asyncio.run(workers.start())
    assert time.monotonic() - started < 30
    assert str(raised.value).startswith(
        "the python target's worker process did not import agent.py:answer within 1s")
    assert not workers._live


def test_a_killed_run_leaves_no_worker_behind_and_resumes(tmp_path: Path) -> None:
    agent = '''
import os, time


def answer(case):
    open(f"worker-{os.getpid()}.pid", "w").write(str(os.getpid()))
    with open("calls.log", "a") as log:
        log.write(case.id + "\\n")
    time.sleep(0.05)
    return "a"
'''
    cli = project(tmp_path, agent, cases=60, concurrency=2, batch_size=2)
    env = {**os.environ, "ASSAY_STORE": str(tmp_path / "assay.db")}
    first = subprocess.Popen([sys.executable, "-m", "assay", "run", "assay.yaml",
                              "--no-progress"], cwd=tmp_path, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    calls = tmp_path / "calls.log"
    deadline = time.monotonic() + 60
    while (not calls.exists() or len(calls.read_text().split()) < 10) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait()
    # from the file's name: a worker killed between opening its file and writing it
    # leaves the file empty
    workers = [int(path.stem.removeprefix("worker-")) for path in tmp_path.glob("worker-*.pid")]
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers and first.pid not in workers
    assert not any(running(pid) for pid in workers)

    resumed = cli("run", "assay.yaml", "--resume", "--no-progress", "-o", "out", timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert score_stats(tmp_path) == (60, 0)


def test_a_function_given_from_python_is_imported_by_name_in_the_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "shouting.py").write_text(
        "import os\n\ndef shout(case):\n    return f'{case.input_text.upper()} {os.getpid()}'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import shouting  # type: ignore[import-not-found]

    result = assay.evaluate("shouting", data=[{"id": "a", "input": "hi", "expected": "HI"}],
                            task={"type": "python", "function": shouting.shout,
                                  "isolation": "process"},
                            scorers=["contains"], store=tmp_path / "assay.db")
    [trial] = list(result.trials())
    text, pid = trial.output.text.split()
    assert text == "HI" and int(pid) != os.getpid()


def test_a_lambda_cannot_be_isolated_and_says_so(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="must be a module-level function"):
        assay.evaluate("lambda", data=[{"id": "a", "input": "hi", "expected": "HI"}],
                       task={"type": "python", "function": lambda case: "HI",
                             "isolation": "process"},
                       scorers=["contains"], store=tmp_path / "assay.db")


def test_ctrl_c_ends_the_run_at_once_and_every_busy_worker_with_it(tmp_path: Path) -> None:
    project(tmp_path, "import os, time\n\ndef answer(case):\n"
                      "    open(f'{case.id}.pid', 'w').write(str(os.getpid()))\n"
                      "    time.sleep(100)\n", cases=3, timeout=60)
    run = subprocess.Popen([sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
                           cwd=tmp_path, env={**os.environ, "ASSAY_STORE": str(tmp_path / "db")},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("c*.pid"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert "resume with: assay run assay.yaml --resume" in err
    busy = pids(tmp_path, "c*.pid")
    assert len(busy) == 3 and not any(running(pid) for pid in busy)


def test_a_worker_that_cannot_import_the_function_is_reaped_pipes_closed_before_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: its pipes were left to the garbage collector, which under load closed
    them after the event loop had closed, printing an "Event loop is closed" traceback
    under `assay validate`'s and `assay run`'s one clear line."""
    import asyncio
    import dataclasses

    from assay.condition import Condition
    from assay.targets.python_pool import Worker, WorkerProcesses
    from assay.targets.python_worker import Setup

    (tmp_path / "agent.py").write_text("import sys\nsys.exit(0)\n", encoding="utf-8")
    setup = Setup(function="agent:answer", base_dir=str(tmp_path), sys_path=list(sys.path),
                  condition=dataclasses.asdict(Condition(name="default")), args={},
                  max_output_bytes=1 << 20)
    spawned: list[Worker] = []
    spawn = Worker.spawn.__func__  # type: ignore[attr-defined]

    async def recorded(cls: type[Worker], frame_limit: int) -> Worker:
        spawned.append(await spawn(cls, frame_limit))
        return spawned[-1]

    monkeypatch.setattr(Worker, "spawn", classmethod(recorded))

    async def scenario() -> list[bool]:
        with pytest.raises(UserError, match=r"called sys\.exit\(0\)"):
            await WorkerProcesses(setup).start()
        return [worker.process._transport.is_closing()  # type: ignore[attr-defined]
                for worker in spawned]

    assert asyncio.run(scenario()) == [True]
