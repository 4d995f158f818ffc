"""A write killed half way leaves a temporary file that the next write of the file removes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from assay.reports.atomic import atomic_writer, write_text
from assay.reports.leftovers import GRACE_SECONDS

WRITER_KILLED_MID_WRITE = """
import sys, time
from pathlib import Path
from assay.reports.atomic import atomic_writer

with atomic_writer(Path(sys.argv[1])) as handle:
    handle.write('{"trials": [')
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def age(path: Path) -> None:
    """Make `path` look last written before the grace period a new writer is given."""
    then = time.time() - GRACE_SECONDS - 1
    os.utime(path, (then, then))


def temporary_files(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def test_the_temporary_file_of_a_writer_killed_mid_write_is_removed_by_the_next_write(
        tmp_path: Path) -> None:
    """Regression: `kill -9` while the reports were written left `.results.json.*.tmp`
    beside them for ever, even after `--resume` wrote the reports again."""
    path = tmp_path / "results.json"
    writer = subprocess.Popen([sys.executable, "-c", WRITER_KILLED_MID_WRITE, str(path)],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    assert writer.stdout.readline() == "writing\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    [left] = temporary_files(tmp_path)
    age(tmp_path / left)

    write_text(path, '{"trials": []}')

    assert os.listdir(tmp_path) == ["results.json"]
    assert path.read_text() == '{"trials": []}'


def test_the_temporary_file_of_a_write_still_under_way_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    with atomic_writer(path) as slow:
        slow.write("# the first report")
        [under_way] = temporary_files(tmp_path)
        age(tmp_path / under_way)
        write_text(path, "# the second report")
        assert temporary_files(tmp_path) == [under_way]
    assert path.read_text() == "# the first report"
    assert os.listdir(tmp_path) == ["report.md"]


def test_a_temporary_file_only_just_made_is_given_time_to_be_locked_by_its_writer(
        tmp_path: Path) -> None:
    just_made = tmp_path / ".report.md.abc123.tmp"
    just_made.write_text("")
    write_text(tmp_path / "report.md", "# a report")
    assert temporary_files(tmp_path) == [just_made.name]
