"""`assay traces` says what it skipped, and how much of it, on the terminal and in the report."""

from __future__ import annotations

import shutil
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
