"""Files assay writes reach the disk whole or not at all, readable as any file it writes."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from assay.errors import FileWriteError
from assay.reports.atomic import atomic_writer, unmasked, write_text

SRC = Path(__file__).resolve().parents[2] / "src" / "assay"


def test_a_write_that_fails_midway_leaves_the_previous_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_text(path, '{"complete": true}')
    with pytest.raises(FileWriteError, match="results.json: disk full"), \
            atomic_writer(path) as handle:
        handle.write('{"complete": fa')
        raise OSError("disk full")
    assert path.read_text() == '{"complete": true}'
    assert os.listdir(tmp_path) == ["results.json"]  # no temporary file left beside it


def test_a_full_disk_is_a_clear_error_naming_the_file_not_an_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a full disk while the reports were written was 'internal error: OSError
    ... this is a bug in assay'."""
    import errno

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(FileWriteError) as raised:
        write_text(tmp_path / "report.md", "# a report")
    assert str(raised.value) == (f"could not write {tmp_path / 'report.md'}: "
                                 f"{os.strerror(errno.ENOSPC)}")
    assert raised.value.exit_code == 3
    assert os.listdir(tmp_path) == []


def test_a_lone_surrogate_is_written_as_its_escape_instead_of_failing_the_write(
        tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    write_text(path, "half an emoji \ud83d")
    assert path.read_text(encoding="utf-8") == "half an emoji \\ud83d"


def test_a_new_file_gets_the_usual_permissions_and_a_replaced_one_keeps_its_own(
        tmp_path: Path) -> None:
    """Regression: files came out private (0600), as the temporary file is created."""
    mask = os.umask(0o022)
    os.umask(mask)
    new = tmp_path / "report.html"
    write_text(new, "<html></html>")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~mask
    shared = tmp_path / "guidelines.md"
    shared.write_text("old")
    shared.chmod(0o664)
    write_text(shared, "new")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664


WRITES_IN_PLACE = re.compile(r"\.write_text\(|\.write_bytes\(|open\([^)]*[\"'][wa]b?[\"']")
NOT_DOCUMENTS = {
    "context/pack_index.py": "written into a temporary folder renamed into place as a whole",
    "context/mcp_connection.py": "a server's stderr log, appended to as the server writes it",
}


def test_every_file_assay_writes_goes_through_the_atomic_writer() -> None:
    """A file written in place and cut by a kill or a full disk reads as a whole one."""
    in_place = []
    for path in SRC.rglob("*.py"):
        where = path.relative_to(SRC).as_posix()
        if where == "reports/atomic.py" or where in NOT_DOCUMENTS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WRITES_IN_PLACE.search(line):
                in_place.append(f"{where}:{number}: {line.strip()}")
    assert in_place == []


def test_a_file_in_the_way_of_the_folder_is_named_as_the_cause(tmp_path: Path) -> None:
    """Regression: `assay report -o a-file/x.md` said "File exists"."""
    (tmp_path / "a-file").write_text("")
    with pytest.raises(FileWriteError, match="a-file is a file, not a folder"):
        write_text(tmp_path / "a-file" / "deeper" / "x.md", "text")


def test_writing_to_a_fifo_writes_into_it_and_leaves_it_a_fifo(tmp_path: Path) -> None:
    """Regression: `assay report -o /dev/null` (or /dev/stdout, a FIFO) renamed a regular
    file over the device; as root that replaced /dev/null itself for every process."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_text(fifo, "# report\n")
    reader.join(timeout=10)
    assert received == ["# report\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_writing_through_a_symlink_replaces_the_file_it_points_to_and_keeps_the_link(
        tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("old")
    (tmp_path / "link.md").symlink_to("real.md")
    write_text(tmp_path / "link.md", "new")
    assert (tmp_path / "link.md").is_symlink()
    assert (tmp_path / "real.md").read_text() == "new"


def test_a_known_secret_is_masked_in_every_file_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET123456")
    with atomic_writer(tmp_path / "a.md") as handle:
        handle.write("key sk-test-SECRET123456, shape sk-proj-not-a-known-key\n")
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == (
        "key ***, shape sk-proj-not-a-known-key\n")


def test_text_masked_before_it_came_is_written_beneath_the_masking_unsearched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET123456")
    with atomic_writer(tmp_path / "a.json") as handle:
        handle.write("head sk-test-SECRET123456 ")
        unmasked(handle).write("stored ***")
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "head *** stored ***"
    with (tmp_path / "b.txt").open("w", encoding="utf-8") as plain:
        assert unmasked(plain) is plain
