"""The command target ends what it started and refuses a program it cannot run."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.errors import UserError
from assay.output import Output
from assay.services import Services
from assay.targets.command import CommandParams, CommandTarget
from assay.targets.process_tree import ProcessTree

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def make_target(base: Path, command: list[str] | str, **params: object) -> CommandTarget:
    return CommandTarget(CommandParams(type="command", command=command, **params),
                         Condition(name="default"), Services(base_dir=base))


def write_script(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def is_gone(pid: int) -> bool:
    """True once `pid` no longer runs (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "\nState:\tZ" in status.read_text()


def answer_within(target: CommandTarget, seconds: float) -> Output:
    async def go() -> Output:
        await target.start()
        async with asyncio.timeout(seconds):
            return await target.answer(Case(id="a", input="q"))

    return asyncio.run(go())


def test_a_timeout_kills_the_children_of_the_command_too(tmp_path: Path) -> None:
    write_script(tmp_path / "agent.sh",
                 "#!/bin/sh\nsleep 30 &\necho $! > sleep.pid\nwait\n")
    target = make_target(tmp_path, ["./agent.sh"])
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        answer_within(target, 1)
    assert time.monotonic() - started < 5  # before the fix: the full 30 s of `sleep`
    sleeper = int((tmp_path / "sleep.pid").read_text())
    deadline = time.monotonic() + 3
    while not is_gone(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert is_gone(sleeper)


def test_a_timed_out_command_is_reaped_without_a_warning_from_asyncio(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a timed-out command often printed 'Unknown child process pid 22282, will
    report returncode 255' on the terminal: when the kill had landed by then, the
    `process.kill()` after it polled, and so reaped, the process before asyncio's own
    reaper could. Here that order is made certain: the kill is seen to land, and asyncio's
    reaper (its blocking `os.waitpid`; a poll binds its own) starts late."""
    end, waitpid = ProcessTree.end, os.waitpid

    def end_and_see_it_dead(tree: ProcessTree) -> None:
        end(tree)
        assert tree.leader is not None
        wait_gone(tree.leader)

    def late_blocking_waitpid(pid: int, options: int) -> tuple[int, int]:
        if options == 0:
            time.sleep(0.5)
        return waitpid(pid, options)

    monkeypatch.setattr(ProcessTree, "end", end_and_see_it_dead)
    monkeypatch.setattr(os, "waitpid", late_blocking_waitpid)
    with pytest.raises(TimeoutError):
        answer_within(make_target(tmp_path, ["sleep", "30"], stdin="none"), 0.2)
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def wait_gone(pid: int, seconds: float = 3) -> bool:
    deadline = time.monotonic() + seconds
    while not is_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return is_gone(pid)


def test_a_finished_answer_is_kept_when_a_background_child_holds_stdout(tmp_path: Path) -> None:
    """Regression: `sleep 777 & echo answer` turned a finished answer into a timeout, because
    the trial waited for the pipe the sleep still held."""
    write_script(tmp_path / "agent.sh", "#!/bin/sh\nsleep 777 &\necho $! > sleep.pid\n"
                                        "echo answer\n")
    started = time.monotonic()
    output = answer_within(make_target(tmp_path, "./agent.sh"), 20)
    assert output.error is None and output.text == "answer"
    assert time.monotonic() - started < 5
    assert wait_gone(int((tmp_path / "sleep.pid").read_text()))


def test_a_daemon_that_left_the_session_is_ended_with_the_trial(tmp_path: Path) -> None:
    """Regression: `setsid sleep 778 &` left a process running after the run."""
    write_script(tmp_path / "agent.sh", "#!/bin/sh\nsetsid sleep 778 > /dev/null 2>&1 &\n"
                                        "echo $! > daemon.pid\necho answer\n")
    output = answer_within(make_target(tmp_path, "./agent.sh"), 20)
    assert output.text == "answer"
    daemon = int((tmp_path / "daemon.pid").read_text())
    assert wait_gone(daemon)


def test_a_command_printing_without_end_still_times_out(tmp_path: Path) -> None:
    """Regression: `yes` ignored run.timeout and grew to gigabytes of memory."""
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        answer_within(make_target(tmp_path, "yes", stdin="none"), 1.5)
    assert time.monotonic() - started < 6


def test_stdout_beyond_max_output_bytes_is_dropped_and_the_cut_recorded(tmp_path: Path) -> None:
    from assay.config.models import EvalConfig

    config = EvalConfig.model_validate({"name": "x", "dataset": {"path": "d.jsonl"},
                                        "target": {"type": "command"},
                                        "scorers": [{"type": "contains"}],
                                        "run": {"max_output_bytes": 10_000}})
    target = CommandTarget(CommandParams(type="command", command=[
        sys.executable, "-c", "import sys; sys.stdout.write('é' * 3_000_000)"], stdin="none"),
        Condition(name="default"), Services(base_dir=tmp_path, config=config))
    output = answer_within(target, 30)
    assert output.error is None
    assert output.text == "é" * 5_000
    assert output.metadata["truncated"] == {"bytes": 6_000_000, "kept_bytes": 10_000,
                                            "limit": "run.max_output_bytes"}


def test_a_missing_program_is_a_user_error_at_check(tmp_path: Path) -> None:
    target = make_target(tmp_path, ["./nonexistent-agent", "--json"])
    with pytest.raises(UserError, match=r"'./nonexistent-agent' not found"):
        asyncio.run(target.validate())
    with pytest.raises(UserError, match="not found"):
        asyncio.run(target.start())


def test_a_program_name_too_long_for_the_file_system_is_a_user_error_not_an_internal_error(
        tmp_path: Path) -> None:
    """Regression: `command: ["./" + 300 characters]` raised OSError (File name too long)
    out of `Path.is_file()`: `assay validate` ended in an internal error, exit 3."""
    for command in (["./" + "y" * 300], ["y" * 300]):
        with pytest.raises(UserError, match="not found"):
            asyncio.run(make_target(tmp_path, command).validate())


def test_a_program_without_the_execute_bit_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "agent.sh").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "agent.sh").chmod(0o644)
    with pytest.raises(UserError, match=r"not executable \(chmod \+x"):
        asyncio.run(make_target(tmp_path, "./agent.sh").validate())


def test_a_bare_name_is_looked_up_on_the_path_the_process_gets(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_script(bin_dir / "my-agent", "#!/bin/sh\necho from-path\n")
    asyncio.run(make_target(tmp_path, "my-agent", env={"PATH": str(bin_dir)}).validate())
    with pytest.raises(UserError, match="'my-agent' not found on PATH"):
        asyncio.run(make_target(tmp_path, "my-agent", env={"PATH": str(tmp_path)}).validate())
    asyncio.run(make_target(tmp_path, [sys.executable, "-c", "pass"]).validate())


def test_a_bare_name_of_a_file_next_to_the_config_suggests_dot_slash(tmp_path: Path) -> None:
    write_script(tmp_path / "agent.sh", "#!/bin/sh\necho hi\n")
    with pytest.raises(UserError, match=r"write \./agent\.sh"):
        asyncio.run(make_target(tmp_path, "agent.sh", env={"PATH": "/nonexistent"}).validate())


def test_relative_programs_resolve_against_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    write_script(tmp_path / "tools" / "agent.sh", "#!/bin/sh\necho \"$(pwd)\"\n")
    target = make_target(tmp_path, "./agent.sh", cwd="tools", stdin="none")
    output = answer_within(target, 10)
    assert output.error is None and Path(output.text).resolve() == (tmp_path / "tools").resolve()


def test_json_stdout_that_is_not_an_answer_is_an_error_on_the_trial(tmp_path: Path) -> None:
    write_script(tmp_path / "agent.sh", "#!/bin/sh\necho '" + json.dumps({"foo": 1}) + "'\n")
    output = answer_within(make_target(tmp_path, "./agent.sh", stdout="json"), 10)
    assert output.error is not None
    assert "'foo'" in output.error and "'output'" in output.error


def test_a_command_killed_by_a_signal_is_named_by_the_signal(tmp_path: Path) -> None:
    """Regression: a crash read `exit code -11`, which says nothing to whoever does not know
    that a negative code is a signal's number."""
    write_script(tmp_path / "agent.sh", "#!/bin/sh\necho 'partial'\nkill -SEGV $$\n")
    output = answer_within(make_target(tmp_path, "./agent.sh"), 10)
    assert output.error == "killed by SIGSEGV"


def test_stdout_that_is_not_utf8_is_replaced_and_counted_not_silently_changed(
        tmp_path: Path) -> None:
    """Regression: bytes that are not UTF-8 became U+FFFD and the answer was scored with
    nothing saying it had been changed. A character split by the max_output_bytes cut is
    the cut's, not counted here."""
    write_script(tmp_path / "agent.py", "#!" + sys.executable + "\nimport sys\n"
                 "sys.stdout.buffer.write(b'caf\\xe9 ok \\xff\\xfe \\xef\\xbf\\xbd')\n")
    output = answer_within(make_target(tmp_path, "./agent.py", stdin="none"), 30)
    assert output.error is None
    assert output.text == "caf\ufffd ok \ufffd\ufffd \ufffd"
    assert output.metadata["replaced_invalid_utf8"] == 3
    fine = answer_within(make_target(tmp_path, [sys.executable, "-c", "print('café')"],
                                     stdin="none"), 30)
    assert fine.text == "café" and "replaced_invalid_utf8" not in fine.metadata


def test_what_a_command_runs_ends_when_assay_itself_is_killed(tmp_path: Path) -> None:
    """Regression: after a `kill -9` of assay, a command stuck in its trial, and what it
    started, ran on for ever (nothing was left to end them), beside those of the resume."""
    write_script(tmp_path / "agent.sh", "#!/bin/sh\nsleep 300 &\necho $! > sleep-$$.pid\n"
                                        "echo $$ > agent-$$.pid\nwait\n")
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": "q", "expected": "a"}) + "\n" for i in range(4)))
    (tmp_path / "assay.yaml").write_text(
        "name: stuck\ndataset: {path: cases.jsonl}\ntarget: {type: command, command: ./agent.sh}\n"
        "scorers: [{type: exact_match}]\nrun: {concurrency: 2, timeout: 300}\n")
    run = subprocess.Popen([sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
                           cwd=tmp_path, env={**os.environ, "ASSAY_STORE": str(tmp_path / "db")},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    def written() -> list[str]:
        return [path.read_text().strip() for path in tmp_path.glob("*.pid")]

    deadline = time.monotonic() + 60
    while not (len(written()) == 4 and all(written())) and time.monotonic() < deadline:
        time.sleep(0.05)
    stuck = [int(pid) for pid in written()]
    assert len(stuck) == 4 and not any(is_gone(pid) for pid in stuck)
    run.kill()
    run.wait()
    try:
        assert all(wait_gone(pid, seconds=10) for pid in stuck)
    finally:
        for pid in stuck:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
