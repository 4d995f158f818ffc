"""`assay traces` says what it skipped, and how much of it, on the terminal and in the report."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.cli import main

SHORT = "claude-code/spotter/short.jsonl"


def _run(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return int(exit_info.value.code or 0)


def _analyse(folder: Path, out: Path) -> tuple[int, str, str]:
    return _run(["traces", str(folder), "-o", str(out), "--no-store"]), \
        (out / "eval-report.md").read_text(encoding="utf-8")


def test_unknown_line_kinds_are_counted_not_given_their_first_line_as_a_count(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: three lines of a kind the reader does not know, from line 16 on, read
    'unknown kinds: brand-new-kind (16)' on the terminal (the first line's number, read as a
    count) and the report gave no count at all."""
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "short.jsonl"
    shutil.copy(sessions_dir / SHORT, log)
    with log.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "brand-new-kind", "sessionId": "s"}\n' * 3)
    code, report = _analyse(folder, tmp_path / "out")
    assert code == 0
    err = capsys.readouterr().err
    assert f"{log}: unknown kind brand-new-kind (3 lines, first at line 16)" in err
    assert "unknown brand-new-kind (3 lines, first at line 16)" in report


def test_a_log_with_every_line_written_twice_counts_each_question_once_and_says_so(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a log whose lines were each written twice (a logger with two handlers,
    a copy appended to itself line by line) read as twice the questions and tool calls, with
    the tool errors once ('questions 176', 'tool errors 19/782' for 88 and 19/391), and the
    report's line problems read 'none'."""
    original = sessions_dir / "pi" / "pi-mono__large-session.jsonl"
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "twice.jsonl"
    lines = original.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(line + line for line in lines))
    code, report = _analyse(folder, tmp_path / "out")
    assert code == 0
    out, err = capsys.readouterr()
    assert "questions 88 (69 answered)" in out
    assert "tool errors 19/391" in out
    said = f"{len(lines):,} lines the same as the line before (from line 2), skipped as copies"
    assert f"{log}: {said}" in err
    assert f"| twice.jsonl | d703a1a9-1b7b-4fb1-b512-c9738b1fe617 | pi | 88 | {said} |" in report


def test_a_link_to_nothing_and_a_pipe_in_a_folder_are_said_not_silently_left_out(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a folder's `.jsonl` entries that are not regular files (a link whose
    target was moved away, a named pipe) were left out without a word: the report and the
    terminal named the files read and the files of no known format, never these."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(sessions_dir / SHORT, folder / "short.jsonl")
    (folder / "moved.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    os.mkfifo(folder / "live.jsonl")
    (folder / "nested.jsonl").mkdir()  # a folder, searched like any other
    shutil.copy(sessions_dir / SHORT, folder / "nested.jsonl" / "inner.jsonl")
    code, report = _analyse(folder, tmp_path / "out")
    assert code == 0
    err = capsys.readouterr().err
    moved = (f"{folder / 'moved.jsonl'}: a link to {tmp_path / 'elsewhere.jsonl'}, "
             "which does not exist")
    live = f"{folder / 'live.jsonl'}: not a regular file (a pipe or a device)"
    assert f"skipped {moved}" in err and f"skipped {live}" in err
    assert f"- not read: {moved}" in report and f"- not read: {live}" in report
    assert "| inner.jsonl | 55604662-cf2a-4331-851a-ec234028f8ca | claude-code | 1 |" in report
    assert "nested.jsonl:" not in err


def test_a_pipe_is_not_opened_when_the_format_is_given(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With `--log-format` no file is sniffed; a pipe must still not be read (it blocks)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(sessions_dir / SHORT, folder / "short.jsonl")
    os.mkfifo(folder / "live.jsonl")
    code = _run(["traces", str(folder), "--log-format", "claude-code", "-o",
                 str(tmp_path / "out"), "--no-store"])
    assert code == 0
    assert f"skipped {folder / 'live.jsonl'}: not a regular file" in capsys.readouterr().err


def test_agent_activity_before_the_first_question_is_said_not_silently_dropped(
        write_jsonl: Callable[..., Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: what an agent did before the first question of a log (a paid greeting, a
    log that starts mid-session) is in no exchange, so in no count, and nothing said so:
    the report's column of line problems read 'none'."""
    log = write_jsonl("logs/chat.jsonl", [
        {"role": "assistant", "content": "Hello! How can I help?", "cost_usd": 0.01},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "cost_usd": 0.02}])
    code, report = _analyse(log.parent, tmp_path / "out")
    assert code == 0
    said = "2 lines of agent activity before the first question (from line 1), in no exchange"
    assert f"{log}: {said}" in capsys.readouterr().err
    assert f"| chat.jsonl | - | openai-chat | 1 | {said} |" in report


def test_logs_whose_activity_has_no_question_say_so_when_refused(
        write_jsonl: Callable[..., Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Claude Code subagent's own file read without its parent's file: its prompt is the
    parent agent's, not a person's, so no question; the refusal says its activity was seen."""
    log = write_jsonl("logs/agent-a1.jsonl", [
        {"type": "user", "isSidechain": True, "sessionId": "parent",
         "message": {"role": "user", "content": "look into it"}},
        {"type": "assistant", "isSidechain": True, "sessionId": "parent",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}}]}},
        {"type": "assistant", "isSidechain": True, "sessionId": "parent",
         "message": {"id": "m2", "role": "assistant", "content": [
             {"type": "text", "text": "done"}]}}])
    code = _run(["traces", str(log.parent), "-o", str(tmp_path / "out"), "--no-store"])
    assert code == 2
    assert ("no question found in the 1 session file read (read as claude-code, 2 lines of "
            "agent activity with no question before them)") in capsys.readouterr().err


@pytest.mark.parametrize("forced", [[], ["--log-format", "claude-code"]])
def test_a_binary_or_utf16_file_in_a_folder_is_skipped_saying_what_it_is(
        forced: list[str], sessions_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a binary file was skipped as 'no JSON object found (line 1: invalid JSON:
    str is not valid UTF-8: surrogates not allowed: line 1 column 1 (char 0))', orjson's
    words, with a column that was not where the bad byte was; with --log-format it was
    read line by line, every line malformed."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(sessions_dir / SHORT, folder / "short.jsonl")
    (folder / "core.jsonl").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\n\xd0\x00" * 64)
    (folder / "export.jsonl").write_bytes('{"role": "user"}\n'.encode("utf-16"))
    code = _run(["traces", str(folder), *forced, "-o", str(tmp_path / "out"), "--no-store"])
    assert code == 0
    err = capsys.readouterr().err
    assert (f"skipped {folder / 'core.jsonl'}: a binary file (it holds NUL bytes), not a "
            "text session log") in err
    assert (f"skipped {folder / 'export.jsonl'}: UTF-16 text (as Windows PowerShell writes "
            "it); save it as UTF-8") in err
    assert "orjson" not in err and "surrogates" not in err and "char 0" not in err
    report = (tmp_path / "out" / "eval-report.md").read_text(encoding="utf-8")
    assert f"- not read: {folder / 'core.jsonl'}: a binary file" in report
    assert ("| short.jsonl | 55604662-cf2a-4331-851a-ec234028f8ca | claude-code | 1 | none |"
            in report)


def test_export_says_which_files_and_lines_it_left_out(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay traces export` said only 'wrote 1 cases', leaving out a binary
    file and a malformed line without a word, where the analysis names both; then it said
    '1 malformed line' without which line, or why."""
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "short.jsonl"
    shutil.copy(sessions_dir / SHORT, log)
    with log.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "user", "sessionId": "s", "message": {"role": "us\n')
    (folder / "core.jsonl").write_bytes(b"\x7fELF\x00\x00\n")
    code = _run(["traces", "export", str(folder), "-o", str(tmp_path / "cases.jsonl"),
                 "--include-unanswered"])
    assert code == 0
    err = capsys.readouterr().err
    assert f"skipped {folder / 'core.jsonl'}: a binary file (it holds NUL bytes)" in err
    # export writes no report: the terminal is where the line and its problem are named
    assert f"{log}: 1 malformed line (line 16: invalid JSON" in err


@pytest.mark.parametrize("command", [["traces"], ["traces", "export"]])
def test_a_loop_of_links_in_a_folder_is_skipped_with_its_name_and_why(
        command: list[str], sessions_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a link to itself under the folder (`a.jsonl -> a.jsonl`) stopped the
    analysis and the export with 'internal error: RuntimeError: Symlink loop', exit 3."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(sessions_dir / SHORT, folder / "short.jsonl")
    (folder / "loop.jsonl").symlink_to("loop.jsonl")
    out = tmp_path / ("out" if command == ["traces"] else "cases.jsonl")
    extra = ["--no-store"] if command == ["traces"] else ["--include-unanswered"]
    assert _run([*command, str(folder), "-o", str(out), *extra]) == 0
    err = capsys.readouterr().err
    assert f"skipped {folder / 'loop.jsonl'}: cannot open it: Too many levels of symbolic " \
        "links" in err


def test_a_folder_that_cannot_be_listed_is_named_with_why_not_passed_over(
        sessions_dir: Path, tmp_path: Path) -> None:
    """Regression: the logs in a folder the user may not list (another user's, mode 000)
    were left out of the analysis without a word, its figures covering the rest as if
    they were all."""
    from tests.store.test_read_only import python_as_a_user

    logs = tmp_path / "logs"
    locked = logs / "locked"
    locked.mkdir(parents=True)
    shutil.copy(sessions_dir / SHORT, logs / "short.jsonl")
    shutil.copy(sessions_dir / SHORT, locked / "other.jsonl")
    locked.chmod(0)
    try:
        done = python_as_a_user(tmp_path, "-m", "assay", "traces", "logs", "-o", "out",
                                "--no-store")
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0, done.stderr
    said = "logs/locked: a folder that cannot be listed, so no log in it was read"
    assert f"skipped {said}" in done.stderr
    report = (tmp_path / "out" / "eval-report.md").read_text(encoding="utf-8")
    assert f"- not read: {said}" in report


def test_thousands_of_files_not_read_are_counted_after_the_first_few(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a folder of 3,000 empty logs (as an agent leaves behind) printed 3,000
    'skipped ...: empty file' lines around the summary; the report lists them all."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(sessions_dir / SHORT, folder / "short.jsonl")
    for n in range(12):
        (folder / f"empty-{n:02}.jsonl").touch()
    code, report = _analyse(folder, tmp_path / "out")
    assert code == 0
    err = capsys.readouterr().err
    assert err.count(": empty file") == 10
    assert (f"... and 2 more files not read (all listed in {tmp_path / 'out' / 'eval-report.md'})"
            in err)
    assert report.count(": empty file") == 12
