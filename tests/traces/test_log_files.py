"""Gzipped session logs (`.jsonl.gz`, as logs are archived) are read as the logs they hold,
by every `assay traces` command; a damaged one is named with what is wrong, never raised."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.cli import main
from assay.traces.options import TraceOptions
from assay.traces.stream import ExchangeStream

LARGE = "pi/pi-mono__large-session.jsonl"
TOOL_HEAVY = "claude-code/spotter/tool_heavy.jsonl"


def _run(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return int(exit_info.value.code or 0)


def _gzipped(log: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    packed = folder / f"{log.name}.gz"
    packed.write_bytes(gzip.compress(log.read_bytes()))
    return packed


def _ids(path: Path) -> list[str]:
    return [exchange.id for exchange in ExchangeStream([path], TraceOptions())]


def test_a_gzipped_log_gives_the_exchanges_and_ids_of_the_log_it_holds(
        sessions_dir: Path, tmp_path: Path) -> None:
    """An archived log is the same evidence as the log: a case exported from either has the
    same id, so drafts made before and after archiving do not repeat each other."""
    for fixture in (LARGE, TOOL_HEAVY):
        plain = tmp_path / "before" / "logs" / Path(fixture).name
        plain.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sessions_dir / fixture, plain)
        packed = _gzipped(plain, tmp_path / "after" / "logs")
        assert _ids(packed) == _ids(plain) != []


def test_analyze_and_export_find_gzipped_logs_in_a_folder(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a folder of `.jsonl.gz` logs read 'no session files found', and a
    `.jsonl.gz` named on the command line was refused as 'a binary file'."""
    folder = tmp_path / "logs"
    _gzipped(sessions_dir / TOOL_HEAVY, folder)
    assert _run(["traces", "analyze", str(folder), "-o", str(tmp_path / "out"),
                 "--no-store"]) == 0
    assert "tool_heavy.jsonl.gz" in (tmp_path / "out" / "eval-report.md").read_text()
    drafts = tmp_path / "drafts.jsonl"
    assert _run(["traces", "export", str(folder / "tool_heavy.jsonl.gz"), "-o",
                 str(drafts), "--include-unanswered"]) == 0
    sources = {json.loads(line)["metadata"]["source"]["session"]
               for line in drafts.read_text().splitlines()}
    assert sources == {str(folder / "tool_heavy.jsonl.gz")}
    assert "error" not in capsys.readouterr().err


def test_a_gzipped_log_cut_short_keeps_what_came_before_and_says_where_it_ends(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "logs"
    packed = _gzipped(sessions_dir / LARGE, folder)
    whole = packed.read_bytes()
    packed.write_bytes(whole[:len(whole) * 2 // 3])
    assert _run(["traces", "analyze", str(folder), "-o", str(tmp_path / "out"),
                 "--no-store"]) == 0
    out, err = capsys.readouterr()
    assert "questions 0" not in out
    assert (f"{packed}: 1 malformed line (line " in err
            and "the gzip file is cut short (the archive was cut off or is still being "
                "written): reading stopped here" in err)


@pytest.mark.parametrize(("damage", "said"), [
    (lambda packed: b'{"not": "gzipped"}\n', "skipped {}: named .gz but not a gzip file"),
    (lambda packed: packed[:40], "skipped {}: the gzip file is cut short"),
    (lambda packed: packed[:-8] + bytes(8),
     "{}: 1 malformed line (line 40: the gzip file is damaged (CRC check failed"),
])
def test_a_damaged_gzipped_log_is_named_with_what_is_wrong(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        damage: Callable[[bytes], bytes], said: str) -> None:
    """No header, an archive cut off before its first line, a bad checksum at its end."""
    folder = tmp_path / "logs"
    packed = _gzipped(sessions_dir / TOOL_HEAVY, folder)
    packed.write_bytes(damage(packed.read_bytes()))
    shutil.copy(sessions_dir / LARGE, folder)
    assert _run(["traces", "analyze", str(folder), "-o", str(tmp_path / "out"),
                 "--no-store"]) == 0
    err = capsys.readouterr().err
    assert said.format(packed) in err
    assert "Traceback" not in err
