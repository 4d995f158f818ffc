"""`os._exit` in user code run in assay's own process fails that call, never ends the run
with exit code 0.

Before, a python target (default isolation) that called `os._exit(0)` for one case ended
`assay run` at once with exit code 0 and left the run `running`: a failed run that read as
a passing one.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from assay.user_code.calls import UserCodeExit, await_guarded, guarded
from assay.user_code.process_exit import exits_guarded
from tests.cli.conftest import Cli


def exits(code: int) -> str:
    os._exit(code)


def catches_everything_but_base_exceptions() -> str:
    try:
        os._exit(0)
    except Exception:  # noqa: BLE001 - what a careless target does
        return "swallowed"


def test_os_exit_in_guarded_user_code_is_that_calls_error() -> None:
    with exits_guarded(), pytest.raises(UserCodeExit, match=r"exits called os._exit\(0\)"):
        guarded(exits)(0)


def test_an_except_exception_in_user_code_does_not_swallow_its_os_exit() -> None:
    with exits_guarded(), pytest.raises(UserCodeExit, match=r"called os._exit\(0\)"):
        guarded(catches_everything_but_base_exceptions)()


def test_os_exit_in_async_user_code_is_that_calls_error() -> None:
    async def answer() -> str:
        await asyncio.sleep(0)
        os._exit(4)

    async def go() -> str:
        return await await_guarded(answer(), answer)

    with exits_guarded(), pytest.raises(UserCodeExit, match=r"called os._exit\(4\)"):
        asyncio.run(go())


async def exits_in_a_task_never_awaited() -> str:
    async def exits() -> None:
        os._exit(0)

    asyncio.get_running_loop().create_task(exits())
    await asyncio.sleep(0.05)
    return "a"


def test_os_exit_in_a_task_the_call_started_and_never_awaited_fails_that_call(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The task's ProcessExitCalled was left for asyncio to report ('Task exception was
    never retrieved') and the call returned its answer: the trial passed."""
    async def go() -> str:
        return await await_guarded(exits_in_a_task_never_awaited(), exits_in_a_task_never_awaited)

    with exits_guarded(), pytest.raises(
            UserCodeExit, match=r"called os._exit\(0\) in a task it started"):
        asyncio.run(go())
    assert "never retrieved" not in capsys.readouterr().err


def test_os_exit_caught_as_a_base_exception_still_fails_the_call() -> None:
    def swallows() -> str:
        try:
            os._exit(0)
        except BaseException:  # noqa: BLE001 - what a careless target does
            return "swallowed"

    with exits_guarded(), pytest.raises(UserCodeExit, match=r"swallows called os._exit\(0\)"):
        guarded(swallows)()


def test_os_exit_is_the_real_one_again_once_no_run_holds_the_guard() -> None:
    real = os._exit
    with exits_guarded():
        with exits_guarded():
            assert os._exit is not real
        assert os._exit is not real  # the outer run still holds it
    assert os._exit is real


def project(root: Path, agent: str) -> Cli:
    """agent.py under a default (in-process) python target, six cases expecting 'a', and a
    gate asking for a pass rate of 0.5."""
    (root / "agent.py").write_text(agent, encoding="utf-8")
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": "q", "expected": "a"}) + "\n"
        for i in range(6)), encoding="utf-8")
    config = {"name": "exits", "dataset": {"path": "cases.jsonl"},
              "target": {"type": "python", "function": "agent:answer"},
              "scorers": [{"type": "exact_match"}],
              "gates": [{"scorer": "exact_match", "min_pass_rate": 0.5}]}
    (root / "assay.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return Cli(root)


def a_task_never_awaited(exit_call: str) -> str:
    """agent.py whose answer for case c3 starts a task that runs `exit_call`, and returns
    without awaiting it."""
    return ("import asyncio, os, sys\n\nasync def exits():\n    " + exit_call + "\n\n"
            "async def answer(case):\n    if case.id == 'c3':\n"
            "        asyncio.get_running_loop().create_task(exits())\n"
            "        await asyncio.sleep(0.05)\n    return 'a'\n")


@pytest.mark.skipif(sys.platform == "win32", reason="os._exit codes of a POSIX process")
def test_os_exit_0_in_an_in_process_target_is_that_trials_error_and_the_run_completes(
        tmp_path: Path) -> None:
    cli = project(tmp_path, "import os\n\ndef answer(case):\n"
                            "    if case.id == 'c3':\n        os._exit(0)\n    return 'a'\n")
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 0, result.stderr  # 5 of 6 cases pass: the gate holds
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["run"]["status"] == "completed"
    stats = saved["stats"]["scores"][0]
    assert (stats["n"], stats["errors"]) == (5, 1)
    report = (tmp_path / "out" / "report.md").read_text()
    assert "`c3` · default: agent:answer called os._exit(0)" in report


@pytest.mark.skipif(sys.platform == "win32", reason="os._exit codes of a POSIX process")
def test_os_exit_0_outside_any_trial_ends_assay_with_3_not_0(tmp_path: Path) -> None:
    """A thread the target started is not the trial: assay cannot go on, but it must not
    read as a run that passed."""
    cli = project(tmp_path, "import os, threading, time\n\ndef answer(case):\n"
                            "    if case.id == 'c3':\n"
                            "        threading.Thread(target=os._exit, args=(0,)).start()\n"
                            "        time.sleep(5)\n"
                            "    return 'a'\n")
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 3
    assert "os._exit(0) was called outside any trial" in result.stderr
    assert "--resume" in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="os._exit codes of a POSIX process")
def test_os_exit_in_a_task_a_target_never_awaited_is_that_trials_error_not_a_pass(
        tmp_path: Path) -> None:
    cli = project(tmp_path, a_task_never_awaited("os._exit(0)"))
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 0, result.stderr  # 5 of 6 cases pass: the gate holds
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert (saved["stats"]["scores"][0]["n"], saved["stats"]["scores"][0]["errors"]) == (5, 1)
    report = (tmp_path / "out" / "report.md").read_text()
    assert "`c3` · default: agent:answer called os._exit(0) in a task it started" in report
    assert "never retrieved" not in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="os._exit codes of a POSIX process")
def test_os_exit_in_a_task_left_running_after_its_trial_ends_assay_with_3(
        tmp_path: Path) -> None:
    """Its trial was stored already: assay cannot go on, but the run must not read as passed."""
    cli = project(tmp_path, "import asyncio, os\n\nasync def exits():\n"
                            "    await asyncio.sleep(0.2)\n    os._exit(0)\n\n"
                            "async def answer(case):\n    if case.id == 'c3':\n"
                            "        asyncio.get_running_loop().create_task(exits())\n"
                            "    await asyncio.sleep(1 if case.id == 'c5' else 0)\n"
                            "    return 'a'\n")
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 3, result.stderr
    assert "os._exit(0) was called outside any trial" in result.stderr


def test_sys_exit_0_in_a_task_a_target_never_awaited_fails_the_run_with_3_not_0(
        tmp_path: Path) -> None:
    """asyncio lets SystemExit out of a task and out of the event loop: it is no trial's, and
    it must not end assay with the 0 the user's code asked for."""
    cli = project(tmp_path, a_task_never_awaited("sys.exit(0)"))
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 3, result.stderr
    assert "called sys.exit(0) in an asyncio task it started" in result.stderr
    assert "--resume" in result.stderr
    assert "Traceback" not in result.stderr
